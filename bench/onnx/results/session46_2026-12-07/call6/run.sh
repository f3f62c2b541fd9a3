#!/usr/bin/env bash
# Session 46, call 6: more K splits for the staged GEMM. Call 3's one-MatMul probes of the encoder's
# products were ~1 us faster each with more splits than chosen (QKV 4 against 2, out-projection 8
# against 4, FFN up-projection 4 against 1), and session 42's sweep of the split cost only went
# down from 2824 (every lower value was slower). Same binary (main plus two measurement knobs,
# branch s46-split-knobs), arms by environment: base; g512 (VOLVOX_VK_STAGED_MAX_GROUPS=512, the
# cap on a split product's workgroups, 256 on main); c5648 (VOLVOX_VK_STAGED_SPLIT_COST=5648);
# both; both with VOLVOX_VK_STAGED_UNSPLIT_MAX_K=256 (products of >= 128 tiles split from K 257,
# 513 on main); g1024 c11296. Outputs of the last arm, two interleaved rounds, profiles.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=/tmp/vx_knobs
# Device command as in session 41, carry .gl; it needs ~250 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx "$@"\n' "$2" > "/tmp/t/$1" && chmod +x "/tmp/t/$1"; }
arm base "VOLVOX_X=0"
arm g512 "VOLVOX_VK_STAGED_MAX_GROUPS=512"
arm c5648 "VOLVOX_VK_STAGED_SPLIT_COST=5648"
arm g512c5648 "VOLVOX_VK_STAGED_MAX_GROUPS=512 VOLVOX_VK_STAGED_SPLIT_COST=5648"
arm gcu "VOLVOX_VK_STAGED_MAX_GROUPS=512 VOLVOX_VK_STAGED_SPLIT_COST=5648 VOLVOX_VK_STAGED_UNSPLIT_MAX_K=256"
arm g1024c11296 "VOLVOX_VK_STAGED_MAX_GROUPS=1024 VOLVOX_VK_STAGED_SPLIT_COST=11296"
ARMS="base g512 c5648 g512c5648 gcu g1024c11296"
MODELS="transformer_encoder resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" base:vx gcu:gcu g1024c11296:g1024c11296
vx_bench_round 1 "$MODELS" "$ARMS"
vx_summary; vx_pack s46c6.tar.xz
vx_bench_round 2 "$MODELS" "g1024c11296 gcu g512c5648 c5648 g512 base"
vx_summary; vx_pack s46c6.tar.xz
vx_profile gcu transformer_encoder
vx_profile gcu resnet50
vx_pack s46c6.tar.xz
