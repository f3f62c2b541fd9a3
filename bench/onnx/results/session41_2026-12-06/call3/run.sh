#!/usr/bin/env bash
# Session 41, call 3 (prepared, not run: the device budget ran out): the staged tensor-core GEMM
# with global loads two K steps ahead as its only path (branch s41-loads-two-steps-ahead: vx_new,
# test_parity) against main's kernel (vx_base, one step ahead):
#  1. test_parity's GEMM suite (the staged kernel's odd shapes, epilogues, splits) and runner blocks.
#  2. ResNet-50, MobileNetV3 and DeepLabV3 (the encoder was call 2's), both binaries' outputs against
#     the CPU at fp32; both binaries interleaved, one round (the device budget's remainder).
# Packed with
#   rm -f .gl/t/*
#   bash bench/onnx/pack_device_binaries.sh vx_base=<main's>/volvox vx_new=<the branch's>/volvox test_parity=<the branch's>/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_base vx_new test_parity
vx_parity 150 '*VulkanGemm*:*VulkanRunnerBlocks*'
vx_pack s41c3.tar.xz
MODELS="resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large
vx_outputs "$MODELS" base:vx_base new:vx_new
for round in 1; do
  for m in $MODELS; do
    vx_bench r${round}_${m}_base vx_base $m VOLVOX_X=0
    vx_bench r${round}_${m}_new vx_new $m VOLVOX_X=0
  done
done
vx_summary
vx_pack s41c3.tar.xz
