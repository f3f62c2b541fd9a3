#!/usr/bin/env bash
# Session 46, call 2: the dispatches of independent nodes interleaved (recording_order.h's
# interleaved_dispatches; vx) against the same binary recording them node by node
# (VOLVOX_VK_INTERLEAVE=0; vx_off). Call 1's per-kernel comparison with torch.compile put 84 of
# ResNet-50's 157 us behind it in the first block of each stage, whose downsample conv's dispatches
# waited for the block's first convs'. Outputs, the runner and GEMM suites, two interleaved rounds.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox test_parity=build/release/tests/test_parity
# Device command as in session 41, carry .gl; it needs ~200 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx test_parity
printf '#!/bin/sh\nVOLVOX_VK_INTERLEAVE=0 exec /tmp/t/vx "$@"\n' > /tmp/t/vx_off && chmod +x /tmp/t/vx_off
MODELS="resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" on:vx off:vx:VOLVOX_VK_INTERLEAVE=0
vx_bench_round 1 "$MODELS" "vx vx_off"
vx_summary; vx_pack s46c2.tar.xz
vx_parity 120 '*VulkanGemm*:*VulkanRunnerBlocks*'
cp "$R/parity.txt" "$R/parity_blocks.txt"
vx_pack s46c2.tar.xz
vx_bench_round 2 "$MODELS" "vx_off vx"
vx_summary; vx_pack s46c2.tar.xz
if grep -q H200 "$R/gpu.txt"; then vx_parity 300; vx_pack s46c2.tar.xz; fi
