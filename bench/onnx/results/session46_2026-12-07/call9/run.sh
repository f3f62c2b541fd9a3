#!/usr/bin/env bash
# Session 46, call 9: main after this session's merges (interleaved dispatches, more K splits; vx)
# against PyTorch eager and torch.compile (reduce-overhead) in the same call, on ResNet-50 and the
# encoder: issue 15's GPU ratios.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox
# Device command as in session 41, carry .gl; it needs ~200 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx
MODELS="resnet50 transformer_encoder"
vx_export resnet50,transformer_encoder
vx_bench_round 1 "$MODELS" "vx"
vx_summary; vx_pack s46c9.tar.xz
vx_torch resnet50,transformer_encoder 150
vx_pack s46c9.tar.xz
vx_bench_round 2 "$MODELS" "vx"
vx_summary; vx_pack s46c9.tar.xz
