#!/usr/bin/env bash
# Session 46, call 4: barriers between dispatches that wait for the compute stage only (vx; the
# transfer stage only after copies and uploads) against the same binary with the old barriers,
# shader and transfer stages and accesses on both sides (VOLVOX_VK_BARRIERS=full; vx_full). Call 2
# put a barrier level of ResNet-50 at ~6.5 us of GPU time. Outputs, the runner and GEMM suites,
# two interleaved rounds.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox test_parity=build/release/tests/test_parity
# Device command as in session 41, carry .gl; it needs ~200 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx test_parity
printf '#!/bin/sh\nVOLVOX_VK_BARRIERS=full exec /tmp/t/vx "$@"\n' > /tmp/t/vx_full && chmod +x /tmp/t/vx_full
MODELS="resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" compute:vx full:vx:VOLVOX_VK_BARRIERS=full
vx_bench_round 1 "$MODELS" "vx vx_full"
vx_summary; vx_pack s46c4.tar.xz
vx_parity 120 '*VulkanGemm*:*VulkanRunnerBlocks*'
cp "$R/parity.txt" "$R/parity_blocks.txt"
vx_pack s46c4.tar.xz
vx_bench_round 2 "$MODELS" "vx_full vx"
vx_summary; vx_pack s46c4.tar.xz
if grep -q H200 "$R/gpu.txt"; then vx_parity 300; vx_pack s46c4.tar.xz; fi
