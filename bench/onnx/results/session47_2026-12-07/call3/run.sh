#!/usr/bin/env bash
# Session 47, call 3: main after this session's merges (vx) against torch.compile in the same call,
# and the staged GEMM's 64 x 64 bound for split products raised (fg384:
# VOLVOX_VK_STAGED_FULL_GROUPS; call 2's profiles had ResNet-50's layer 3-4 3x3 convs faster on
# 32 x 64 tiles, where 16 tiles x 16 splits reach the bound of 256 exactly, and DeepLabV3's 3x3
# classifier, 72 tiles x 6, needs 64 x 64: session 32).
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx
printf '#!/bin/sh\nVOLVOX_VK_STAGED_FULL_GROUPS=384 exec /tmp/t/vx "$@"\n' > /tmp/t/fg384
chmod +x /tmp/t/fg384
MODELS="resnet50 transformer_encoder deeplabv3_mobilenet_v3_large"  # MobileNetV3 has no product of K > 512
vx_export resnet50,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_bench_round 1 "$MODELS" "vx fg384"
vx_summary; vx_pack s47c3.tar.xz
vx_torch resnet50,transformer_encoder 120
vx_pack s47c3.tar.xz
vx_bench_round 2 "$MODELS" "fg384 vx"
vx_summary; vx_pack s47c3.tar.xz
