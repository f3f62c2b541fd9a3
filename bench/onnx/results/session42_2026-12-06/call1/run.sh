#!/usr/bin/env bash
# Session 42, call 1: bench/vulkan/gemm_step_probe with two more epilogue modes in its chain table:
# the kernels' epilogue as gemm_io.glsl's store_result writes it (bias per column, each value
# tested against run-time rows and columns, the loads behind run-time flags) and branch
# s41-epilogue-loads-first's form of it, beside the probe's own forms that session 41's call 3 ran
# (6.65 / 4.08 us a dispatch). Does the kernel's form pay what the probe's did?
# Then the staged GEMM's K-split cost constant (VOLVOX_VK_STAGED_SPLIT_COST, kernels/gemm_plan.cpp;
# 2824 by default, fitted on the H200 where a K step measured 0.6 us; the H100 probe says 0.27):
# four models at 2824 / 1400 / 700 / 350, interleaved, two rounds. Fewer splits mean fewer
# dependent reduce dispatches (~2.6 us each) for longer K loops.
# Packed with
#   rm -f .gl/t/*; cp build/release/bench/vulkan/gemm_step_probe.spv .gl/t/
#   bash bench/onnx/pack_device_binaries.sh probe=build/release/bench/vulkan/gemm_step_probe vx=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup probe vx
vx_step_probe
vx_pack s42c1.tar.xz
MODELS="resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" c2824:vx c700:vx:VOLVOX_VK_STAGED_SPLIT_COST=700 c350:vx:VOLVOX_VK_STAGED_SPLIT_COST=350
for round in 1 2; do
  for m in $MODELS; do
    for c in 2824 1400 700 350; do vx_bench r${round}_${m}_c$c vx $m VOLVOX_VK_STAGED_SPLIT_COST=$c; done
  done
done
vx_summary
# Per-node profiles (timestamps around every node: slower than the bench) at the default and at 700.
for m in resnet50 transformer_encoder; do
  for c in 2824 700; do
    VOLVOX_VK_STAGED_SPLIT_COST=$c timeout 40 /tmp/t/vx bench "/tmp/m/$m.onnx" --device vulkan --precision fp16 \
      --shape "${S[$m]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_${m}_c$c.txt" 2>&1
  done
done
vx_pack s42c1.tar.xz
