#!/usr/bin/env bash
# Session 48, call 1: one binary (main + the attention kernel's staged K and V), arms by environment:
# vx = its defaults; kv0 = VOLVOX_VK_ATTENTION_STAGED=0 (main's attention: K's and V's fragments
# loaded from memory one after another); fg384 = VOLVOX_VK_STAGED_FULL_GROUPS=384 (ResNet-50's
# 14 x 14 3x3 layers leave 64 x 64 tiles for 32 x 64; DeepLabV3's classifier, 432 groups, keeps
# them); c4000 / c8000 = the split cost constant (5648 on main); fg384c4000 / fg384c8000 both;
# trace = VOLVOX_VK_CALL_TRACE=1 (now also the submit call's return, and when the host saw a word the
# command buffer's last command sets against when it saw the fence).
# torch.compile in the same call between the rounds. First the GPU suites (the attention kernel's
# new variant, and those owed since session 45: the cooperative-matrix kernels' split choices).
# Packed with: bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx test_parity
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx "$@"\n' "$2" > "/tmp/t/$1"; chmod +x "/tmp/t/$1"; }
arm kv0 "VOLVOX_VK_ATTENTION_STAGED=0"
arm trace "VOLVOX_VK_CALL_TRACE=1"
arm fg384 "VOLVOX_VK_STAGED_FULL_GROUPS=384"
arm c4000 "VOLVOX_VK_STAGED_SPLIT_COST=4000"
arm c8000 "VOLVOX_VK_STAGED_SPLIT_COST=8000"
arm fg384c4000 "VOLVOX_VK_STAGED_FULL_GROUPS=384 VOLVOX_VK_STAGED_SPLIT_COST=4000"
arm fg384c8000 "VOLVOX_VK_STAGED_FULL_GROUPS=384 VOLVOX_VK_STAGED_SPLIT_COST=8000"
vx_parity 150 '*VulkanAttention*:*VulkanRunnerTransformer*:*CooperativeMatrix*:*VulkanGemm*:*VulkanRunnerBlocks*'
vx_pack s48c1.tar.xz
vx_export resnet50,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "transformer_encoder" vx:vx kv0:kv0
round() {
  vx_bench_round "$1" transformer_encoder "$2"
  vx_bench_round "$1" "resnet50 deeplabv3_mobilenet_v3_large" "$3"
  vx_summary; vx_pack s48c1.tar.xz
}
round 1 "vx kv0 c8000 trace" "vx fg384 c4000 fg384c4000 c8000 fg384c8000 trace"
vx_torch resnet50,transformer_encoder 110
vx_pack s48c1.tar.xz
round 2 "c8000 kv0 vx" "fg384c8000 c8000 fg384c4000 c4000 fg384 vx"
vx_profile vx transformer_encoder; vx_pack s48c1.tar.xz
