#!/usr/bin/env bash
# Session 46, call 7: call 6's best arm as the defaults (branch s46-split-knobs: split cost 5648, at
# most 512 workgroups, products of >= 128 tiles split from K 257; vx_new) against main (vx), and
# around it by the knobs: u128 (VOLVOX_VK_STAGED_UNSPLIT_MAX_K=128), c4000 / c8000
# (VOLVOX_VK_STAGED_SPLIT_COST), g384 / g768 (VOLVOX_VK_STAGED_MAX_GROUPS). Outputs, the GEMM and
# runner suites of the branch (its automatic-choice case now expects 6 splits), two rounds.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=/tmp/vx_main vx_new=/tmp/vx_splits tp_new=/tmp/tp_splits
# Device command as in session 41, carry .gl; it needs ~300 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx vx_new tp_new
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx_new "$@"\n' "$2" > "/tmp/t/$1" && chmod +x "/tmp/t/$1"; }
arm u128 "VOLVOX_VK_STAGED_UNSPLIT_MAX_K=128"
arm c4000 "VOLVOX_VK_STAGED_SPLIT_COST=4000"
arm c8000 "VOLVOX_VK_STAGED_SPLIT_COST=8000"
arm g384 "VOLVOX_VK_STAGED_MAX_GROUPS=384"
arm g768 "VOLVOX_VK_STAGED_MAX_GROUPS=768"
MODELS="transformer_encoder resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" main:vx new:vx_new
vx_bench_round 1 "$MODELS" "vx vx_new u128 c4000 c8000 g384 g768"
vx_summary; vx_pack s46c7.tar.xz
vx_parity 150 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_new
vx_pack s46c7.tar.xz
vx_bench_round 2 "$MODELS" "g768 g384 c8000 c4000 u128 vx_new vx"
vx_summary; vx_pack s46c7.tar.xz
