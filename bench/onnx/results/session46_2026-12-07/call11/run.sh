#!/usr/bin/env bash
# Session 46, call 11 (prepared, not run; for the next session): a ConvPair's first conv over
# fewer than 128 channels kept whole (branch s46-pair-first-whole; vx_pair) against main (vx) and
# against the branch with the rule off (VOLVOX_VK_PAIR_SPLIT_MIN_CHANNELS=1; pair_off, the same
# splits as main). With session 46's splits ResNet-50's layer1.1 and 1.2 pairs lost 5-6 us each
# (call 6's profile). Outputs, the GEMM and runner suites of the branch, two rounds, a profile.
# Packed with (from the branch's build): rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh
#   vx=<main's volvox> vx_pair=build/release/volvox tp_pair=build/release/tests/test_parity
# Device command as in session 41, carry .gl; it needs ~150 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx vx_pair tp_pair
printf '#!/bin/sh\nVOLVOX_VK_PAIR_SPLIT_MIN_CHANNELS=1 exec /tmp/t/vx_pair "$@"\n' > /tmp/t/pair_off && chmod +x /tmp/t/pair_off
MODELS="resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" main:vx pair:vx_pair
vx_bench_round 1 "$MODELS" "vx vx_pair pair_off"
vx_summary; vx_pack s46c11.tar.xz
vx_parity 150 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_pair
vx_pack s46c11.tar.xz
vx_bench_round 2 "$MODELS" "pair_off vx_pair vx"
vx_summary; vx_pack s46c11.tar.xz
vx_profile vx_pair resnet50
vx_pack s46c11.tar.xz
