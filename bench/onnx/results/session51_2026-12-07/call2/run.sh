#!/usr/bin/env bash
# Session 51, call 2. Binaries (bench/onnx/pack_device_binaries.sh): base = main at 4a61e75;
# vx = branch s51-work: the staged GEMM's split cost 11000 (call 1: the encoder 0.317 -> 0.311 ms of
# GPU time) and the gemv kernel requesting a step's 8 rows of B before using any (ResNet-50's head took
# 9-11 us in call 1's dispatch profile); test_parity of s51-work.
# torch.compile (fp16, 100 runs, and the same calls back to back: the GPU's time per call) before
# and after three interleaved rounds, so that its spread within a call shows.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx base test_parity
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx "$@"\n' "$2" > "/tmp/t/$1"; chmod +x "/tmp/t/$1"; }
arm dprof "VOLVOX_VK_DISPATCH_PROFILE=1"
vx_parity 60 '*Gemv*'
vx_export resnet50,mobilenet_v3_large,transformer_encoder,deeplabv3_mobilenet_v3_large
vx_outputs "resnet50 mobilenet_v3_large transformer_encoder" vx:vx base:base
vx_torch resnet50,transformer_encoder 120 pre --no-eager --precisions fp16 --runs 100
vx_pack s51c2.tar.xz
round() {
  vx_bench_round "$1" resnet50 "$2"
  vx_bench_round "$1" transformer_encoder "$2"
  vx_bench_round "$1" mobilenet_v3_large "$2"
  vx_bench_round "$1" deeplabv3_mobilenet_v3_large "$2"
  vx_summary; vx_pack s51c2.tar.xz
}
round 1 "vx base"
round 2 "base vx"
round 3 "vx base"
vx_torch resnet50,transformer_encoder 120 post --no-eager --precisions fp16 --runs 100
vx_profile dprof resnet50; vx_profile dprof mobilenet_v3_large
vx_pack s51c2.tar.xz
