#!/usr/bin/env bash
# Session 49, call 1 (prepared in session 48 as its call 2), branch s48-quads (main after
# session 48 + the normalising split-K reduce pass and the ConvPair's im2col-writing reduce pass on
# quads), arms by environment in one binary: vx = its defaults; lnq0 = VOLVOX_VK_REDUCE_LN_QUADS=0;
# riq0 = VOLVOX_VK_REDUCE_IM2COL_QUADS=0; main = session 47's choices (VOLVOX_VK_ATTENTION_STAGED=0,
# split cost 5648, bound 256, both reduce passes by values). Outputs against the CPU, then
# torch.compile on two models.
# Packed with: bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx "$@"\n' "$2" > "/tmp/t/$1"; chmod +x "/tmp/t/$1"; }
arm lnq0 "VOLVOX_VK_REDUCE_LN_QUADS=0"
arm riq0 "VOLVOX_VK_REDUCE_IM2COL_QUADS=0"
arm main "VOLVOX_VK_ATTENTION_STAGED=0 VOLVOX_VK_STAGED_SPLIT_COST=5648 VOLVOX_VK_STAGED_FULL_GROUPS=256 VOLVOX_VK_REDUCE_LN_QUADS=0 VOLVOX_VK_REDUCE_IM2COL_QUADS=0"
vx_export resnet50,transformer_encoder
vx_outputs "transformer_encoder resnet50" vx:vx main:main
vx_pack s48c2.tar.xz
round() {
  vx_bench_round "$1" transformer_encoder "$2"
  vx_bench_round "$1" resnet50 "$3"
  vx_summary; vx_pack s48c2.tar.xz
}
round 1 "vx lnq0" "vx riq0"
round 2 "lnq0 vx" "riq0 vx"
vx_torch resnet50,transformer_encoder 100
vx_pack s48c2.tar.xz
