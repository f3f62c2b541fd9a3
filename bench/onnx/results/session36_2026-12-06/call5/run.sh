#!/usr/bin/env bash
# Session 36, call 5: main as it stands (the gemv kernel for heads, attention_io.glsl) on the two
# PyTorch models still slower than torch.compile, ResNet-50 and the encoder, fp16, two interleaved
# rounds, and torch.compile in the same call. Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new
vx_export transformer_encoder,resnet50
for round in 1 2; do
  for model in transformer_encoder resnet50; do
    vx_bench r${round}_${model} vx_new $model VOLVOX_X=0
  done
done
vx_summary; vx_pack s36c5.tar.xz
vx_torch resnet50,transformer_encoder 140
vx_pack s36c5.tar.xz
