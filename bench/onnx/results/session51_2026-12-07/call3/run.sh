#!/usr/bin/env bash
# Session 51, call 3: what the dependencies between dispatches cost. Binaries: vx = branch s51-work
# (main to be: split cost 11000); diag = branch s51-diag, the same plus VOLVOX_VK_BARRIERS=none,
# which records no barrier between dispatches (the results are wrong: timing only).
# Arms: vx; nobar = diag without barriers; noint = vx with VOLVOX_VK_INTERLEAVE=0 (independent
# branches, such as a block's downsample, recorded one after the other instead of interleaved);
# noim2col = vx with VOLVOX_VK_IM2COL_MIN_MACS=1e18 (no im2col matrix materialised: the stem, layer
# 1's 3x3 layers and the strided downsamples gather B in the GEMM, one dispatch fewer each).
# The SM clock is logged every 50 ms through the rounds and a torch.compile run of ResNet-50: whether
# our runs and compile's see the same clock.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx diag
printf '#!/bin/sh\nVOLVOX_VK_BARRIERS=none exec /tmp/t/diag "$@"\n' > /tmp/t/nobar; chmod +x /tmp/t/nobar
printf '#!/bin/sh\nVOLVOX_VK_INTERLEAVE=0 exec /tmp/t/vx "$@"\n' > /tmp/t/noint; chmod +x /tmp/t/noint
printf '#!/bin/sh\nVOLVOX_VK_IM2COL_MIN_MACS=1e18 exec /tmp/t/vx "$@"\n' > /tmp/t/noim2col; chmod +x /tmp/t/noim2col
vx_export resnet50,mobilenet_v3_large,transformer_encoder
# The SM clock through the rounds and a torch.compile run (phases.txt: when each began).
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv -lms 50 > "$R/clocks.txt" 2>&1 &
CLOCKS=$!
phase() { echo "$(date +%Y/%m/%d\ %H:%M:%S.%N) $1" >> "$R/phases.txt"; }
round() {
  phase "round $1"
  vx_bench_round "$1" resnet50 "$2 noint noim2col"
  vx_bench_round "$1" transformer_encoder "$2"
  vx_bench_round "$1" mobilenet_v3_large "$2"
  vx_summary; vx_pack s51c3.tar.xz
}
round 1 "vx nobar"
round 2 "nobar vx"
phase "torch.compile resnet50"
vx_torch resnet50 120 clk --no-eager --precisions fp16 --runs 100
phase "end"
kill $CLOCKS
vx_pack s51c3.tar.xz
printf '#!/bin/sh\nVOLVOX_VK_DISPATCH_PROFILE=1 VOLVOX_VK_IM2COL_MIN_MACS=1e18 exec /tmp/t/vx "$@"\n' > /tmp/t/dprof_noim2col
chmod +x /tmp/t/dprof_noim2col; vx_profile dprof_noim2col resnet50
vx_outputs "resnet50" vx:vx noim2col:noim2col
vx_pack s51c3.tar.xz
