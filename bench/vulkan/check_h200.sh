#!/usr/bin/env bash
# One H200 call (device tool) that checks a change to the Vulkan backend: the Vulkan test suites
# lavapipe cannot run (cooperative-matrix variants) or that matter most on a real GPU (the U-Net, the
# denoiser's image path, the queue lock, index range, memory limits, the CLI's error contract), then
# the whole denoiser end to end on device buffers (e2e_device.sh: fp16 and fp32, 1920x1088 and
# 3840x2160), to compare with the figures in BENCHMARKS.md.
# Prepare here: bench/vulkan/prepare_check_h200.sh. Device command (carry .gl), repository root:
#   bash bench/vulkan/check_h200.sh
# Writes $OUT/{parity,denoise,ops,conformance}.log, e2e.{md,json}.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/vxlib /tmp/check
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
tar -C /tmp/check -xJf .gl/check/payload.tar.xz
# ONNX's conformance data where Debian's libonnx-testdata puts it (the tests that read it skip without).
mkdir -p /usr/share/libonnx-testdata && tar -C /usr/share/libonnx-testdata -xJf .gl/check/onnx_testdata.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib VOLVOX_SHARED="$PWD/.gl/shared" VOLVOX_CLI=/tmp/check/volvox VOLVOX_CUSTOM_OP_SPIRV_DIR=/tmp/check
OUT="${OUT:-bench/out}"
mkdir -p "$OUT"
timeout 240 /tmp/check/test_parity \
  --gtest_filter="${PARITY_FILTER:-*Coopmat*:*VulkanUNet*:*IndexRange*:*SharedQueue*:*QueueLock*:*VulkanMemoryLimit*:*DenoiseIo*}" \
  >"$OUT/parity.log" 2>&1
echo "parity rc=$?" | tee -a "$OUT/parity.log"
timeout 240 /tmp/check/test_denoise \
  --gtest_filter="${DENOISE_FILTER:-VulkanDenoise*:VulkanImagePath*:VulkanExternal*:CliErrors*:FilterLimits*}" \
  >"$OUT/denoise.log" 2>&1
echo "denoise rc=$?" | tee -a "$OUT/denoise.log"
# The op table: every case x backend against the reference kernels, on the real GPU.
timeout 240 /tmp/check/test_ops --gtest_filter="${OPS_FILTER:-*}" >"$OUT/ops.log" 2>&1
echo "ops rc=$?" | tee -a "$OUT/ops.log"
# ONNX's conformance suite on the GPU (fp32; every case, fallbacks counted apart) and the CPU.
timeout 300 /tmp/check/test_conformance >"$OUT/conformance.log" 2>&1
echo "conformance rc=$?" | tee -a "$OUT/conformance.log"
grep -hE "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/parity.log" "$OUT/denoise.log" "$OUT/ops.log" "$OUT/conformance.log"
grep -h "^ONNX conformance" "$OUT/conformance.log"
python3 bench/vulkan/real_weights_check.py prepare
OUT="$OUT" BIN=/tmp/check/denoise_device_bench RUNS="${RUNS:-20}" bash bench/vulkan/e2e_device.sh
cat "$OUT/e2e.md"
