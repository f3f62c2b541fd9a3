#!/usr/bin/env bash
# Session 41, call 3 (prepared in session 41, run in session 42 on an H100): two changes to the staged
# tensor-core GEMM, on branch s41-staged-gemm (vx_new, test_parity), against main's kernel (vx_base):
# global loads two K steps ahead as its only path (branch s41-loads-two-steps-ahead), and a lane's
# epilogue loads before its stores (s41-epilogue-loads-first, on top of it); vx_new with
# VOLVOX_VK_STAGED_EPILOGUE=elementwise is the first change alone ("prefetch2").
#  1. test_parity's GEMM suite (the staged kernel's odd shapes, epilogues, splits) and runner blocks.
#  2. bench/vulkan/gemm_step_probe with the GEMM kernels' epilogue (bias, residual, ReLU, fp16:
#     each lane's 8 values in turn, as the kernels do, or with its loads first) in the chain table:
#     what the epilogue costs a short dispatch.
#  3. ResNet-50, MobileNetV3, DeepLabV3 and the encoder, each arm's outputs against the CPU at fp32;
#     the arms interleaved, two rounds (more if the budget allows).
# Packed with
#   rm -f .gl/t/*; cp build/release/bench/vulkan/gemm_step_probe.spv .gl/t/
#   bash bench/onnx/pack_device_binaries.sh probe=build/release/bench/vulkan/gemm_step_probe vx_base=<main's>/volvox \
#     vx_new=<s41-staged-gemm's>/volvox test_parity=<s41-staged-gemm's>/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup probe vx_base vx_new test_parity
vx_parity 150 '*VulkanGemm*:*VulkanRunnerBlocks*'
vx_pack s41c3.tar.xz
cp .gl/t/gemm_step_probe.spv /tmp/t/
timeout 200 /tmp/t/probe --runs 15 --warmup-ms 200 > "$R/probe.txt" 2>&1
echo "probe rc $?" >> "$R/probe.txt"
tail -9 "$R/probe.txt"
vx_pack s41c3.tar.xz
MODELS="resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" base:vx_base new:vx_new prefetch2:vx_new:VOLVOX_VK_STAGED_EPILOGUE=elementwise
for round in 1 2; do
  for m in $MODELS; do
    vx_bench r${round}_${m}_base vx_base $m VOLVOX_X=0
    vx_bench r${round}_${m}_new vx_new $m VOLVOX_X=0
    vx_bench r${round}_${m}_prefetch2 vx_new $m VOLVOX_VK_STAGED_EPILOGUE=elementwise
  done
done
vx_summary
vx_pack s41c3.tar.xz
