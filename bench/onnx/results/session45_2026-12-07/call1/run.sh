#!/usr/bin/env bash
# Session 45, call 1: two epilogues of the staged GEMM against main (vx), in one call.
#   vx_quads: epilogue_quads.diff (branch s45-epilogue-quads): where N is a multiple of 4, each lane
#             stores 4 values of a fragment's row at a time (8-byte stores of fp16, 16-byte of
#             partials; one load of C and one of the bias instead of 4 each), in every tile shape.
#   vx_qr:    epilogue_quads_reduce.diff (branch s45-quads-reduce): vx_quads, and the split-K reduce
#             pass (gemm_reduce) four results an invocation where N is a multiple of 4.
# Outputs against the CPU, the GEMM suite and runner blocks of each arm's test_parity, four models in
# two interleaved rounds, then per-node profiles of ResNet-50 and DeepLabV3 (main, qr).
# Packed with (vx from main, the others from main with the diff applied):
#   rm -f .gl/t/*
#   bash bench/onnx/pack_device_binaries.sh vx=/tmp/vx vx_quads=/tmp/vx_quads tp_quads=/tmp/tp_quads \
#     vx_qr=/tmp/vx_qr tp_qr=/tmp/tp_qr
# Device command as in session 41, carry .gl; it needs ~300 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx vx_quads tp_quads vx_qr tp_qr
MODELS="resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" base:vx quads:vx_quads qr:vx_qr
vx_bench_round 1 "$MODELS" "vx vx_quads vx_qr"
vx_summary; vx_pack s45c1.tar.xz
vx_parity 100 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_quads
vx_parity 100 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_qr
vx_pack s45c1.tar.xz
vx_bench_round 2 "$MODELS" "vx vx_quads vx_qr"
vx_summary; vx_pack s45c1.tar.xz
for m in resnet50 deeplabv3_mobilenet_v3_large; do
  for arm in vx vx_qr; do vx_profile $arm $m; done
done
vx_pack s45c1.tar.xz
