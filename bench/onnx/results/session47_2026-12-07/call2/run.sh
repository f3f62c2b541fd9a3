#!/usr/bin/env bash
# Session 47, call 2: branch s47-query-reset (vx): the timestamp queries reset by the host before
# the submit (reset, the default) against the reset command in the buffer (cmd:
# VOLVOX_VK_HOST_QUERY_RESET=0, main's way); the call trace of both; then per-node profiles at the
# split costs each model preferred in call 1 (ResNet-50 4000 against 5648, DeepLabV3 and the
# encoder 8000 against 5648), for a per-layer rule. On an H200 the cooperative-matrix suites last.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox tp=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx tp
printf '#!/bin/sh\nexec /tmp/t/vx "$@"\n' > /tmp/t/reset
printf '#!/bin/sh\nVOLVOX_VK_HOST_QUERY_RESET=0 exec /tmp/t/vx "$@"\n' > /tmp/t/cmd
printf '#!/bin/sh\nVOLVOX_VK_CALL_TRACE=1 exec /tmp/t/vx "$@"\n' > /tmp/t/reset_trace
printf '#!/bin/sh\nVOLVOX_VK_HOST_QUERY_RESET=0 VOLVOX_VK_CALL_TRACE=1 exec /tmp/t/vx "$@"\n' > /tmp/t/cmd_trace
printf '#!/bin/sh\nVOLVOX_VK_STAGED_SPLIT_COST=4000 exec /tmp/t/vx "$@"\n' > /tmp/t/c4000
printf '#!/bin/sh\nVOLVOX_VK_STAGED_SPLIT_COST=8000 exec /tmp/t/vx "$@"\n' > /tmp/t/c8000
chmod +x /tmp/t/reset /tmp/t/cmd /tmp/t/reset_trace /tmp/t/cmd_trace /tmp/t/c4000 /tmp/t/c8000
MODELS="resnet50 transformer_encoder deeplabv3_mobilenet_v3_large mobilenet_v3_large"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_bench_round 1 "$MODELS" "cmd reset"
vx_bench_round 1 "$MODELS" "cmd_trace reset_trace"
grep -h "call trace" $R/r1_*trace.txt
vx_summary; vx_pack s47c2.tar.xz
vx_bench_round 2 "$MODELS" "reset cmd"
vx_summary; vx_pack s47c2.tar.xz
vx_profile c4000 resnet50; vx_profile reset resnet50
vx_profile c8000 deeplabv3_mobilenet_v3_large; vx_profile reset deeplabv3_mobilenet_v3_large
vx_profile c8000 transformer_encoder; vx_profile reset transformer_encoder
vx_pack s47c2.tar.xz
if grep -q H200 "$R/gpu.txt"; then vx_parity 200 '*CooperativeMatrix*' tp; vx_pack s47c2.tar.xz; fi
