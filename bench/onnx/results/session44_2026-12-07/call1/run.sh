#!/usr/bin/env bash
# Session 44, call 1: the staged GEMM's epilogue loads first, only for 32 x 64 tiles and behind one
# uniform test per flag (epilogue_uniform.diff, branch s44-epilogue-uniform). Session 43's
# branch-free form (run in session 44) loaded bias and C for every value and every tile: ResNet-50
# 1.2% faster, DeepLabV3 3.5% slower (its stem, 64 x 64 tiles, 12 us slower). Here: main (vx) against
# vx_uni, outputs against the CPU, the GEMM suite and runner blocks of tp_uni, four models, two
# rounds interleaved, then per-node profiles of ResNet-50 and DeepLabV3.
# Packed with (vx from main; vx_uni and tp_uni from main with epilogue_uniform.diff applied):
#   rm -f .gl/t/*
#   bash bench/onnx/pack_device_binaries.sh vx=/tmp/vx vx_uni=/tmp/vx_uni tp_uni=/tmp/tp_uni
# Device command as in session 41, carry .gl; it needs ~200 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx vx_uni tp_uni
MODELS="resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" base:vx uni:vx_uni
vx_bench_round 1 "$MODELS" "vx vx_uni"
vx_summary; vx_pack s44c1.tar.xz
vx_parity 100 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_uni
vx_pack s44c1.tar.xz
vx_bench_round 2 "$MODELS" "vx vx_uni"
vx_summary; vx_pack s44c1.tar.xz
for m in resnet50 deeplabv3_mobilenet_v3_large; do
  for arm in vx vx_uni; do vx_profile $arm $m; done
done
vx_pack s44c1.tar.xz
