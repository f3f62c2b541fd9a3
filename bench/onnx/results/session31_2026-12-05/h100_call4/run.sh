#!/usr/bin/env bash
# Session 31, call 4: the GPU suites of the final tree (the staged tiles by tile count and gathered
# row length, K split above 512 whatever the tiles, tiled_m32 before the staged kernel):
# test_parity's cooperative-matrix, GEMM, runner and conv suites, and the op table's Vulkan cases.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{test_parity,test_ops}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session31_2026-12-05/h100_call4/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for n in test_parity test_ops; do xz -dc .gl/t/$n.xz > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1
timeout 240 /tmp/t/test_parity --gtest_filter='*CooperativeMatrix*:*Coopmat*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*' > $R/parity.txt 2>&1
echo "test_parity rc $?" >> $R/parity.txt
timeout 300 /tmp/t/test_ops --gtest_filter='*vulkan*' > $R/ops.txt 2>&1
echo "test_ops rc $?" >> $R/ops.txt
for f in $R/parity.txt $R/ops.txt; do tail -4 $f; grep -E "^\[  FAILED" $f; done
(cd $OUT && tar -cJf s31d.tar.xz r)
