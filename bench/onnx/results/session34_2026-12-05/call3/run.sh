#!/usr/bin/env bash
# Session 34, call 3: main at 53f64c2 (vx_new: the direct kernel's 4 outputs an invocation, d1056d4; a
# post-norm LayerNorm in the split-K reduce pass, 53f64c2) against vx_base, the branch
# s33-gpu-experiments build of calls 1-2 (its im2col kernel-rows order off: main's before this session).
# Packed by bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox
# test_parity=build/release/tests/test_parity test_ops=build/release/tests/ops/test_ops (vx_base.xz
# is call 1's vx_new.xz renamed). First the GPU suites (gemm_io.glsl, which every GEMM shader includes,
# changed), then three interleaved rounds, profiles, PyTorch last.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_base vx_new test_parity test_ops
timeout 90 /tmp/t/test_ops --gtest_filter='*Conv*vulkan*:*MatMul*vulkan*:*LayerNorm*vulkan*' > $R/ops.txt 2>&1; echo "test_ops rc $?" >> $R/ops.txt; tail -3 $R/ops.txt
vx_parity 220
vx_pack s34c3.tar.xz
vx_export transformer_encoder,deeplabv3_mobilenet_v3_large,mobilenet_v3_large,resnet50
B=VOLVOX_VK_IM2COL_KERNEL_ROWS=0
vx_bench ramp vx_new transformer_encoder VOLVOX_X=0
for round in 1 2 3; do
  (( SECONDS > 470 )) && break
  for model in transformer_encoder deeplabv3_mobilenet_v3_large mobilenet_v3_large resnet50; do
    vx_bench r${round}_${model}_base vx_base $model $B
    vx_bench r${round}_${model}_new vx_new $model VOLVOX_X=0
  done
  # The direct kernel's 4 outputs alone, or with dense 16-31-term convolutions on the GEMM (branch switches).
  for model in deeplabv3_mobilenet_v3_large mobilenet_v3_large; do
    vx_bench r${round}_${model}_bx4 vx_base $model $B VOLVOX_VK_DIRECT_XR=4
    vx_bench r${round}_${model}_bx4k16 vx_base $model $B VOLVOX_VK_DIRECT_XR=4 VOLVOX_VK_DIRECT_MAX_K=16
  done
  echo "round $round done at ${SECONDS}s"
done
vx_summary; vx_pack s34c3.tar.xz
for model in transformer_encoder resnet50; do
  timeout 40 /tmp/t/vx_new bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" --runs 20 \
    --warmup 5 --warmup-seconds 0.5 --io-binding --profile > $R/prof_${model}_new.txt 2>&1
done
vx_pack s34c3.tar.xz
left=$(( 585 - SECONDS )); (( left > 60 )) && vx_torch transformer_encoder,resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large $left
vx_pack s34c3.tar.xz
