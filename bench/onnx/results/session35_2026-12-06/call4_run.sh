#!/usr/bin/env bash
# Session 35, call 4: the attention kernels with their push block and batch offsets moved into
# shaders/attention_io.glsl (behaviour unchanged): the attention parity suite (its tensor-core test
# asserts attention_coopmat.comp) and the op table's attention cases on the GPU. Packed by
#   bash bench/onnx/pack_device_binaries.sh test_parity=build/release/tests/test_parity test_ops=build/release/tests/ops/test_ops
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup test_parity test_ops
vx_parity 60 '*VulkanAttention*'
timeout 40 /tmp/t/test_ops --gtest_filter='*ttention*vulkan*' > "$R/ops.txt" 2>&1
echo "test_ops rc $?" >> "$R/ops.txt"; tail -2 "$R/ops.txt"; grep -E "^\[  FAILED" "$R/ops.txt" | head
vx_pack s35c4.tar.xz
