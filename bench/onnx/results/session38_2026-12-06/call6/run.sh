#!/usr/bin/env bash
# Session 38, call 6: resize_2d.comp at 4 outputs an invocation, each invocation every 16th column
# of its workgroup's 64 (call 5's version, 4 neighbouring columns an invocation, took DeepLabV3's
# final 8x upsampling from 33 to 63 us: its stores no longer coalesced), vx_new against vx_pair
# (e6f9e8e, one output an invocation). DeepLabV3, whose last node it is.
# Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_pair=/tmp/s38/vx_pair vx_new=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_pair vx_new
vx_export deeplabv3_mobilenet_v3_large
M=deeplabv3_mobilenet_v3_large
for round in 1 2 3; do
  vx_bench r${round}_deeplab_pair vx_pair $M VOLVOX_X=0
  vx_bench r${round}_deeplab_new vx_new $M VOLVOX_X=0
done
vx_summary
for b in vx_pair vx_new; do
  timeout 40 /tmp/t/$b bench /tmp/m/$M.onnx --device vulkan --precision fp16 --shape "${S[$M]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_deeplab_$b.txt" 2>&1
  grep "/net/Resize " "$R/prof_deeplab_$b.txt"
done
vx_pack s38c6.tar.xz
