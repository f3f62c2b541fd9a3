#!/usr/bin/env bash
# Session 38, call 7: the denoiser's Vulkan test suites (test_denoise) on the GPU with the queue
# from a compute-only family (session 37's change, whose own call had no device time left for
# them). Tests that need ../shared (real weights, the render) skip here and say so.
# Packed by
#   bash bench/onnx/pack_device_binaries.sh test_denoise=build/release/tests/test_denoise
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup test_denoise
timeout 170 /tmp/t/test_denoise --gtest_filter='Vulkan*:PrefilterVulkan*:*Vulkan*' > "$R/denoise.txt" 2>&1
echo "test_denoise rc $?" >> "$R/denoise.txt"
tail -4 "$R/denoise.txt"; grep -E "^\[  FAILED|^\[  PASSED|^\[  SKIPPED \] [0-9]" "$R/denoise.txt" | head -20
vx_pack s38c7.tar.xz
