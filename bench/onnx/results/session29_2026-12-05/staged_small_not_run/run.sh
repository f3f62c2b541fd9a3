#!/usr/bin/env bash
# Session 29, prepared for a fourth H200 call that never ran (no machine could be started in six tries (one asking for an H100)
# between 10:14 and 11:11 UTC, and the device time ran out): the staged tensor-core GEMM on 32 x 64 tiles (one
# subgroup) for products with fewer than 128 tiles of 64 x 128. (1) The GPU suites of the new tree
# (test_parity's cooperative-matrix, GEMM, transformer-runner and block-runner tests, which force the
# new tile on every staged case; the op table's MatMul and Gemm cases on Vulkan; the device time
# left allowed no more); (2) one binary, the new rule against
# VOLVOX_VK_STAGED_SMALL=0 (the 64 x 128 tile as before) interleaved, `volvox bench --device vulkan
# --precision fp16 --io-binding`, two rounds after a ramp; (3) one profile each way.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_new,test_parity,test_ops}.xz.
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session29_2026-12-05/staged_small_not_run/run.sh (after git apply staged_small_untested.diff and a build)
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s29d.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 100 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch_export.json --no-compile --runs 1 --warmup 0 \
  --warmup-seconds 0 --models transformer_encoder,resnet50 > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() { local tag=$1 small=$2 m=$3; shift 3
  VOLVOX_VK_STAGED_SMALL=$small timeout 60 /tmp/t/vx_new bench /tmp/m/$m.onnx --device vulkan --precision fp16 --shape "${S[$m]}" \
    --runs 30 --warmup 5 --io-binding "$@" > $R/${tag}.txt 2>&1; }
b ramp 1 transformer_encoder --warmup-seconds 4
timeout 120 /tmp/t/test_parity --gtest_filter='*CooperativeMatrix*:*VulkanGemm*:*VulkanRunnerTransformer*:*VulkanRunnerBlocks*' > $R/parity.txt 2>&1
echo "test_parity exit $?" >> $R/parity.txt
timeout 40 /tmp/t/test_ops --gtest_filter='*MatMul*vulkan*:*Gemm*vulkan*' > $R/ops.txt 2>&1
echo "test_ops exit $?" >> $R/ops.txt
tail -n 3 $R/parity.txt $R/ops.txt; pack
b ramp2 1 transformer_encoder --warmup-seconds 2
for round in 1 2; do for m in transformer_encoder resnet50; do
  for small in 0 1; do b r${round}_${m}_small$small $small $m --warmup-seconds 1; done; done; done
for small in 0 1; do b prof_transformer_encoder_small$small $small transformer_encoder --warmup-seconds 1 --profile; done
(cd $R && for f in r*_*.txt; do echo "$f $(head -3 $f | grep -E 'median|recorded' | sed 's/.*median //;s/, min [0-9.]* ms//;s/ (first.*//' | tr '\n' ' ')"; done)
pack
