#!/usr/bin/env bash
# Session 46, call 8: the split-K second passes (gemm_reduce, gemm_reduce_im2col,
# gemm_reduce_layer_norm) loading their partials four splits at a time (or, for the layer norm,
# a row's values of one split together) instead of one load a loop iteration, in the same order of
# addition (vx_red, branch s46-reduce-loads), against main with the new splits (vx: up to 29 splits
# a product). Outputs, the GEMM and runner suites of the branch, two interleaved rounds.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=/tmp/vx_splits vx_red=/tmp/vx_red tp_red=/tmp/tp_red
# Device command as in session 41, carry .gl; it needs ~150 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx vx_red tp_red
MODELS="transformer_encoder resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" main:vx red:vx_red
vx_bench_round 1 "$MODELS" "vx vx_red"
vx_summary; vx_pack s46c8.tar.xz
vx_parity 150 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_red
vx_pack s46c8.tar.xz
vx_bench_round 2 "$MODELS" "vx_red vx"
vx_summary; vx_pack s46c8.tar.xz
