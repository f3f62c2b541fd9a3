#!/usr/bin/env bash
# Session 47, call 1 (H100): one binary of branch s47-work (vx), arms by environment:
#   base  = main's choices (VOLVOX_VK_PAIR_SPLIT_MIN_CHANNELS=1 VOLVOX_VK_GEMV_SUBGROUP=0
#           VOLVOX_VK_GLOBAL_MEAN=0)
#   pair  = a ConvPair's first conv over < 128 channels stays whole
#   gemv  = pair + the gemv kernel's subgroup sums
#   new   = gemv + the GlobalAveragePool folded into the last conv's reduce pass (the defaults)
#   c4000 / c8000 = new with VOLVOX_VK_STAGED_SPLIT_COST 4000 / 8000 (ResNet-50 was best at 4000
#   before the pair rule, the encoder and DeepLabV3 at 8000: session 46's call 7)
# then VOLVOX_VK_CALL_TRACE=1 on `new` (where the wall clock goes beyond the timed GPU span),
# the GEMM/runner suites, a ResNet-50 profile, and torch eager / torch.compile (the peer, same call).
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox tp=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx tp
printf '#!/bin/sh\nVOLVOX_VK_PAIR_SPLIT_MIN_CHANNELS=1 VOLVOX_VK_GEMV_SUBGROUP=0 VOLVOX_VK_GLOBAL_MEAN=0 exec /tmp/t/vx "$@"\n' > /tmp/t/base
printf '#!/bin/sh\nVOLVOX_VK_GEMV_SUBGROUP=0 VOLVOX_VK_GLOBAL_MEAN=0 exec /tmp/t/vx "$@"\n' > /tmp/t/pair
printf '#!/bin/sh\nVOLVOX_VK_GLOBAL_MEAN=0 exec /tmp/t/vx "$@"\n' > /tmp/t/gemv
printf '#!/bin/sh\nexec /tmp/t/vx "$@"\n' > /tmp/t/new
printf '#!/bin/sh\nVOLVOX_VK_CALL_TRACE=1 exec /tmp/t/vx "$@"\n' > /tmp/t/trace
printf '#!/bin/sh\nVOLVOX_VK_STAGED_SPLIT_COST=4000 exec /tmp/t/vx "$@"\n' > /tmp/t/c4000
printf '#!/bin/sh\nVOLVOX_VK_STAGED_SPLIT_COST=8000 exec /tmp/t/vx "$@"\n' > /tmp/t/c8000
chmod +x /tmp/t/base /tmp/t/pair /tmp/t/gemv /tmp/t/new /tmp/t/trace /tmp/t/c4000 /tmp/t/c8000
MODELS="resnet50 transformer_encoder deeplabv3_mobilenet_v3_large mobilenet_v3_large"
# Stages by priority, each packed as it ends (the call may be cut short).
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" base:base new:new
vx_bench_round 1 "$MODELS" "base pair gemv new"
vx_summary; vx_pack s47c1.tar.xz
vx_bench_round 1 "$MODELS" "trace"
grep -h "call trace" $R/r1_*_trace.txt
vx_pack s47c1.tar.xz
vx_torch resnet50,transformer_encoder 120
vx_pack s47c1.tar.xz
vx_bench_round 2 "$MODELS" "new gemv pair base"
vx_summary; vx_pack s47c1.tar.xz
# On an H200 the cooperative-matrix suites too (owed since session 45's epilogue change).
if grep -q H200 "$R/gpu.txt"; then vx_parity 240 '*CooperativeMatrix*:*VulkanGemm*:*VulkanRunnerBlocks*' tp
else vx_parity 120 '*VulkanGemm*:*VulkanRunnerBlocks*' tp; fi
vx_pack s47c1.tar.xz
vx_bench_round 2 "$MODELS" "c4000 c8000"
vx_summary; vx_profile new resnet50
vx_pack s47c1.tar.xz
