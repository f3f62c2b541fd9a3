#!/usr/bin/env bash
# Session 40, call 2: the denoiser's Vulkan suites on the GPU, with the opaque-fd test exporting
# device-local, mappable memory (NVIDIA refused to import the system memory it exported before:
# call 1). The CLI tests that run /work/main/build/release/volvox fail on the device (no such path
# there), as in session 38's call 7. Built from f3ae8ca (the test's change, reverted by the next
# commit: the import was refused all the same); packed with
#   bash bench/onnx/pack_device_binaries.sh test_denoise=build/release/tests/test_denoise
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup test_denoise
timeout 240 /tmp/t/test_denoise --gtest_filter='Vulkan*:PrefilterVulkan*:*Vulkan*' > "$R/denoise_vulkan.txt" 2>&1
echo "test_denoise rc $?" >> "$R/denoise_vulkan.txt"
tail -3 "$R/denoise_vulkan.txt"; grep -E "^\[  FAILED|Failure|exception" "$R/denoise_vulkan.txt"
vx_pack s40c2.tar.xz
