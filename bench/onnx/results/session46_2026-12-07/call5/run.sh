#!/usr/bin/env bash
# Session 46, call 5: attention_coopmat.comp requesting a key fragment's K fragments (and a Dv
# fragment's V fragments) together, the first ones at the kernel's start (vx_att, branch
# s46-attention-loads), against main (vx, with the interleaved dispatches). Call 1 put the
# encoder's attention at 11 us a layer against cuDNN's 4.0 (+ ~2 us of launch gap in the graph).
# Outputs, the attention and runner suites of the branch, three interleaved rounds, a profile.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=/tmp/vx_main vx_att=/tmp/vx_att tp_att=/tmp/tp_att
# Device command as in session 41, carry .gl; it needs ~120 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx vx_att tp_att
MODELS="transformer_encoder"
vx_export transformer_encoder
vx_outputs "$MODELS" main:vx att:vx_att
vx_parity 150 '*VulkanAttention*:*VulkanRunnerBlocks*' tp_att
vx_bench_round 1 "$MODELS" "vx vx_att"
vx_bench_round 2 "$MODELS" "vx_att vx"
vx_summary; vx_pack s46c5.tar.xz
vx_profile vx_att transformer_encoder
vx_bench_round 3 "$MODELS" "vx vx_att"
vx_summary; vx_pack s46c5.tar.xz
