#!/usr/bin/env bash
# Session 51, call 4: each dependency between dispatches as an event (vkCmdSetEvent + vkCmdWaitEvents
# with the same memory barrier) instead of a pipeline barrier: whether NVIDIA's driver waits for
# them more cheaply. Binary: vx = branch s51-events (main plus VOLVOX_VK_SYNC=events; the change is
# events.diff here). Arms: vx (barriers), ev (events). Outputs against the CPU first.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx
printf '#!/bin/sh\nVOLVOX_VK_SYNC=events exec /tmp/t/vx "$@"\n' > /tmp/t/ev; chmod +x /tmp/t/ev
vx_export resnet50,mobilenet_v3_large,transformer_encoder
vx_outputs "resnet50 transformer_encoder" vx:vx ev:ev
round() {
  vx_bench_round "$1" resnet50 "$2"
  vx_bench_round "$1" transformer_encoder "$2"
  vx_bench_round "$1" mobilenet_v3_large "$2"
  vx_summary; vx_pack s51c4.tar.xz
}
round 1 "vx ev"
round 2 "ev vx"
