#!/usr/bin/env bash
# Session 45, call 2: the quad epilogue and reduce under a specialisation constant (Y_QUADS, id 39,
# epilogue_quads_spec.diff, branch s45-quads-spec) against main (vx). In call 1 the quad path as a
# runtime test made ResNet-50 6% and the encoder 4% faster but DeepLabV3 0.5-0.8% slower, on
# GEMMs that never take it. Outputs, the GEMM suite and runner blocks, two interleaved rounds.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=/tmp/vx vx_qs=/tmp/vx_qs tp_qs=/tmp/tp_qs
# Device command as in session 41, carry .gl; it needs ~170 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx vx_qs tp_qs
MODELS="resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" base:vx qs:vx_qs
vx_bench_round 1 "$MODELS" "vx vx_qs"
vx_summary; vx_pack s45c2.tar.xz
vx_parity 100 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_qs
vx_pack s45c2.tar.xz
vx_bench_round 2 "$MODELS" "vx vx_qs"
vx_summary; vx_pack s45c2.tar.xz
