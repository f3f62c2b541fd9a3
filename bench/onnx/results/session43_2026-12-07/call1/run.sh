#!/usr/bin/env bash
# Session 43, call 1: the GEMM epilogue's loads with no branch around them.
# Session 42's call 1 (this session's first run of it) found the kernels' epilogue costs 3.6 us a
# dependent dispatch over none (6.98 against 3.36) and the loads-first form as the kernels write
# it 7.44, where the probe's own loads-first form, with no bounds or flags around its loads, cost
# 4.03. So: probe modes 5 (the kernels' form with indices clamped and flag-selected, no branch
# around a load, a lane's loads first) and 6 (that with both fragments' loads before the K loop);
# then main (vx, f734e55) against the tree's kernels: vx_lf (gemm_io.glsl's epilogue_addends;
# the staged kernel's loads first per fragment; gemm_reduce, gemm_reduce_im2col and
# gemm_reduce_layer_norm issuing the addends before the partials, and the partials four (eight
# columns) at a time: sum_partials) and vx_early (vx_lf
# with the addends of 32 x 64 tiles loaded before the K loop: epilogue_early.diff), outputs
# against the CPU, GPU GEMM suite and runner blocks of both, four models, two rounds interleaved;
# and vx_lf at a split cost of 4000, one round after the others (VOLVOX_VK_STAGED_SPLIT_COST: more K splits, now that a reduce
# waits less per split; session 42's call 1 found fewer splits slower on every model).
# Packed with (vx from main, whose kernels are f734e55's; vx_lf and tp_lf from branch
# s43-epilogue-addends; vx_early and tp_early from that branch with epilogue_early.diff applied):
#   rm -f .gl/t/*; cp build/release/bench/vulkan/gemm_step_probe.spv .gl/t/
#   bash bench/onnx/pack_device_binaries.sh probe=build/release/bench/vulkan/gemm_step_probe \
#     vx=/tmp/vx vx_lf=/tmp/vx_lf vx_early=/tmp/vx_early tp_lf=/tmp/tp_lf tp_early=/tmp/tp_early
# (11.1 MB). Device command as in session 41, carry .gl; it needs ~300 s of the call.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup probe vx vx_lf vx_early tp_lf tp_early
vx_step_probe --chain-only 1
vx_pack s43c1.tar.xz
MODELS="resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder"
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large,transformer_encoder
vx_outputs "$MODELS" base:vx lf:vx_lf early:vx_early lf_c4000:vx_lf:VOLVOX_VK_STAGED_SPLIT_COST=4000
# Stages in order of need, each packed as it ends (the call may be cut by the device time left).
bench_round() {
  for m in $MODELS; do
    for arm in vx vx_lf vx_early; do vx_bench r${1}_${m}_$arm $arm $m VOLVOX_X=0; done
  done
}
bench_round 1
vx_summary; vx_pack s43c1.tar.xz
vx_parity 100 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_lf
vx_pack s43c1.tar.xz
bench_round 2
vx_summary; vx_pack s43c1.tar.xz
for m in $MODELS; do vx_bench r1_${m}_vx_lf_c4000 vx_lf $m VOLVOX_VK_STAGED_SPLIT_COST=4000; done
vx_summary; vx_pack s43c1.tar.xz
for m in resnet50 transformer_encoder; do
  for arm in vx vx_lf; do
    timeout 40 /tmp/t/$arm bench "/tmp/m/$m.onnx" --device vulkan --precision fp16 --shape "${S[$m]}" --runs 20 \
      --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_${m}_$arm.txt" 2>&1
  done
done
vx_pack s43c1.tar.xz
vx_parity 120 '*VulkanGemm*:*VulkanRunnerBlocks*' tp_early
vx_pack s43c1.tar.xz
