#!/usr/bin/env bash
# Session 40, call 3: which opaque-fd imports NVIDIA accepts. A diagnostic test (branch
# s40-import-diagnostic, not on main) exports 4000 bytes from every memory type, dedicated or not,
# and imports each fd into the exporting device and into Volvox's own device, with and without a
# dedicated allocation, naming each memory type in turn (VkResult per type: 0 = imported).
# Packed with
#   bash bench/onnx/pack_device_binaries.sh test_denoise=build/release/tests/test_denoise
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup test_denoise
timeout 60 /tmp/t/test_denoise --gtest_filter='VulkanExternalDevice.Diagnose*' > "$R/diagnose.txt" 2>&1
echo "test_denoise rc $?" >> "$R/diagnose.txt"
grep -E "DIAG|OK|FAILED|rc" "$R/diagnose.txt"
vx_pack s40c3.tar.xz
