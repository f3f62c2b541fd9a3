#!/usr/bin/env bash
# Session 40, call 4: the opaque-fd import trying memory types and dedicated-ness in turn, each on
# a duplicate of the fd (what call 3's diagnostic found NVIDIA accepts), through the external-device
# suite. Built from the commit that changes DeviceBuffer::import_opaque_fd; packed with
#   bash bench/onnx/pack_device_binaries.sh test_denoise=build/release/tests/test_denoise
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup test_denoise
timeout 60 /tmp/t/test_denoise --gtest_filter='VulkanExternalDevice.*' > "$R/external.txt" 2>&1
echo "test_denoise rc $?" >> "$R/external.txt"
grep -E "OK|FAILED|rc|Failure|exception" "$R/external.txt"
vx_pack s40c4.tar.xz
