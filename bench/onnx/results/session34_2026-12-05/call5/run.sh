#!/usr/bin/env bash
# Session 34, call 5: PREPARED, NOT RUN (too little device time was left to start a machine). What
# ~170 s of device time would allow of call 4 (no export needed): PaddleOCR's
# classifier (.gl/zoo/cls.onnx, an npm model copied from bench/models/zoo; depthwise layers on the
# direct kernel) at fp32 and fp16, vx_base (call 1's branch build, VOLVOX_VK_IM2COL_KERNEL_ROWS=0:
# main before this session) against vx_exp (branch s34-ln-threads: main's engine at cb363cb),
# interleaved rounds.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_base vx_exp
cp .gl/zoo/cls.onnx /tmp/m/cls.onnx
for round in 1 2 3; do
  (( SECONDS > 100 )) && break
  for precision in fp32 fp16; do
    for bin in vx_base vx_exp; do
      VOLVOX_VK_IM2COL_KERNEL_ROWS=0 timeout 20 /tmp/t/$bin bench /tmp/m/cls.onnx --device vulkan --precision $precision \
        --shape x=1x3x48x192 --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > $R/r${round}_cls_${precision}_${bin#vx_}.txt 2>&1
    done
  done
  vx_summary > /dev/null; vx_pack s34c5.tar.xz
done
vx_summary; vx_pack s34c5.tar.xz
