#!/usr/bin/env bash
# Session 50, call 1, prepared and not run: no device came in session 50. The patch GEMM (ResNet-50's
# stem in one dispatch, its im2col matrix gathered into shared memory a workgroup at a time) is on
# branch s50-patch, not on main: build that branch and pack with
#   bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox test_parity=build/release/tests/test_parity
# Arms by environment in one binary: vx = its defaults; nopatch = VOLVOX_VK_CONV_PATCH=0 (the stem as
# im2col pass + staged GEMM, as on main); wide = VOLVOX_VK_CONV_PATCH_MAX_K=576 (also the 3x3 layers
# over 64 channels, layer 1's, on the patch GEMM's 64 x 32 tiles); c11000 =
# VOLVOX_VK_STAGED_SPLIT_COST=11000 (session 49's call 3, cut to this arm to save device time).
# dprof = VOLVOX_VK_DISPATCH_PROFILE=1 (profiles only: each dispatch's GPU time).
# The patch suite first (its kernel has no lavapipe run), outputs against the CPU, two interleaved
# rounds, profiles, torch.compile, then the GPU suites (attention, transformer runner,
# cooperative-matrix, GEMM, runner blocks).
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx test_parity
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx "$@"\n' "$2" > "/tmp/t/$1"; chmod +x "/tmp/t/$1"; }
arm nopatch "VOLVOX_VK_CONV_PATCH=0"
arm wide "VOLVOX_VK_CONV_PATCH_MAX_K=576"
arm c11000 "VOLVOX_VK_STAGED_SPLIT_COST=11000"
arm dprof "VOLVOX_VK_DISPATCH_PROFILE=1"
vx_parity 60 '*PatchCooperativeMatrix*'
cp "$R/parity.txt" "$R/parity_patch.txt"
vx_export resnet50,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "resnet50 deeplabv3_mobilenet_v3_large" vx:vx nopatch:nopatch wide:wide
vx_pack s50c1.tar.xz
round() {
  vx_bench_round "$1" resnet50 "$2"
  vx_bench_round "$1" deeplabv3_mobilenet_v3_large "$3"
  vx_bench_round "$1" transformer_encoder "$4"
  vx_summary; vx_pack s50c1.tar.xz
}
round 1 "vx nopatch wide c11000" "vx c11000" "vx c11000"
round 2 "c11000 wide nopatch vx" "c11000 vx" "c11000 vx"
vx_profile vx resnet50; vx_profile wide resnet50
vx_profile dprof resnet50; vx_profile dprof transformer_encoder
vx_pack s50c1.tar.xz
vx_torch resnet50,transformer_encoder 150
vx_pack s50c1.tar.xz
vx_parity 100 '*VulkanAttention*:*VulkanRunnerTransformer*:*CooperativeMatrix*:*VulkanGemm*:*VulkanRunnerBlocks*'
vx_pack s50c1.tar.xz
