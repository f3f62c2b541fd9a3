#!/usr/bin/env bash
# Session 49, call 3, main at cecaa92 (the normalising reduce pass on quads, the plain reduce pass on
# lanes), arms by environment in one binary: vx = its defaults; rlm4 / rlm2 =
# VOLVOX_VK_REDUCE_LANES_MIN_SPLITS=4 / 2 (lanes from fewer splits: ResNet-50's layer-4 conv3, 6
# splits; DeepLabV3's 33 x 33 products); c11000 = VOLVOX_VK_STAGED_SPLIT_COST=11000 (more splits, now
# that the reduce passes cost less). torch.compile between the two rounds, in the same call.
# Packed with: bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx "$@"\n' "$2" > "/tmp/t/$1"; chmod +x "/tmp/t/$1"; }
arm rlm4 "VOLVOX_VK_REDUCE_LANES_MIN_SPLITS=4"
arm rlm2 "VOLVOX_VK_REDUCE_LANES_MIN_SPLITS=2"
arm c11000 "VOLVOX_VK_STAGED_SPLIT_COST=11000"
vx_export resnet50,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "resnet50 deeplabv3_mobilenet_v3_large" vx:vx rlm2:rlm2
vx_pack s49c3.tar.xz
round() {
  vx_bench_round "$1" resnet50 "$2"
  vx_bench_round "$1" deeplabv3_mobilenet_v3_large "$2"
  vx_bench_round "$1" transformer_encoder "$3"
  vx_summary; vx_pack s49c3.tar.xz
}
round 1 "vx rlm4 rlm2 c11000" "vx c11000"
vx_torch resnet50,transformer_encoder 150
vx_pack s49c3.tar.xz
round 2 "c11000 rlm2 rlm4 vx" "c11000 vx"
