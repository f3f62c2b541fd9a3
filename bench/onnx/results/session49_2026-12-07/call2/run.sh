#!/usr/bin/env bash
# Session 49, call 2, branch s49-work (main after session 48 + the normalising reduce pass on quads
# + split-K reduce passes that spread an element's splits over several invocations), arms by
# environment in one binary: vx = its defaults; rl0 = VOLVOX_VK_REDUCE_LANES_MIN_SPLITS=0 (gemm_reduce
# one invocation an element); ril0 = VOLVOX_VK_REDUCE_IM2COL_LANES=0 (gemm_reduce_im2col likewise);
# off = both; trace = VOLVOX_VK_CALL_TRACE=1 (now also when a timeline semaphore the submit signals is
# seen, beside the last command's word and the fence). Outputs against the CPU, profiles (and the encoder's with the normalising reduce pass
# on quads), the GPU GEMM, runner-block, attention and cooperative-matrix suites.
# Packed with: bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx test_parity
arm() { printf '#!/bin/sh\n%s exec /tmp/t/vx "$@"\n' "$2" > "/tmp/t/$1"; chmod +x "/tmp/t/$1"; }
arm rl0 "VOLVOX_VK_REDUCE_LANES_MIN_SPLITS=0"
arm ril0 "VOLVOX_VK_REDUCE_IM2COL_LANES=0"
arm off "VOLVOX_VK_REDUCE_LANES_MIN_SPLITS=0 VOLVOX_VK_REDUCE_IM2COL_LANES=0"
arm trace "VOLVOX_VK_CALL_TRACE=1"
vx_export resnet50,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "resnet50 deeplabv3_mobilenet_v3_large" vx:vx off:off
vx_pack s49c2.tar.xz
round() {
  vx_bench_round "$1" resnet50 "$2"
  vx_bench_round "$1" deeplabv3_mobilenet_v3_large "$3"
  vx_summary; vx_pack s49c2.tar.xz
}
round 1 "vx rl0 ril0 off trace" "vx off"
round 2 "off ril0 rl0 vx" "off vx"
vx_bench_round 1 transformer_encoder "vx trace"
vx_summary
vx_profile vx resnet50; vx_profile off resnet50; vx_profile vx transformer_encoder
vx_pack s49c2.tar.xz
vx_parity 120 '*VulkanGemm*:*VulkanRunnerBlocks*:*VulkanAttention*:*CooperativeMatrix*'
vx_pack s49c2.tar.xz
