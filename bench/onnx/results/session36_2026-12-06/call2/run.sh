#!/usr/bin/env bash
# Session 36, call 2: convolutions that read an im2col matrix on the staged tensor-core GEMM,
# gathering it in the GEMM (B_MODE 1: each thread's 8 output pixels' input coordinates computed
# once, one tap a staged word) instead of the 64 x 64 / FMA kernels or a materialised matrix:
# VOLVOX_VK_STAGED_IM2COL=1 (small ones; large ones still materialised) and with
# VOLVOX_VK_IM2COL_MIN_MACS=1e30 (none materialised: ResNet-50's 16 im2col dispatches gone), against
# main's choice in the same binary. Checks first: the op table's Vulkan Conv cases with every fp16
# one forced onto the gather (VOLVOX_VK_GEMM=staged), and as chosen. Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_ops=build/release/tests/ops/test_ops
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_ops
G1="VOLVOX_VK_STAGED_IM2COL=1"
G2="VOLVOX_VK_STAGED_IM2COL=1 VOLVOX_VK_IM2COL_MIN_MACS=1e30"
env $G2 VOLVOX_VK_GEMM=staged timeout 60 /tmp/t/test_ops --gtest_filter='*Conv*vulkan*' > "$R/ops_gather.txt" 2>&1
echo "test_ops rc $?" >> "$R/ops_gather.txt"; tail -2 "$R/ops_gather.txt"; grep -E "^\[  FAILED" "$R/ops_gather.txt" | head
timeout 60 /tmp/t/test_ops --gtest_filter='*Conv*vulkan*' > "$R/ops.txt" 2>&1
echo "test_ops rc $?" >> "$R/ops.txt"; tail -2 "$R/ops.txt"; grep -E "^\[  FAILED" "$R/ops.txt" | head
vx_pack s36c2.tar.xz
vx_export resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large
for arm in base g2; do
  e=VOLVOX_X=0; [[ $arm == g2 ]] && e=$G2
  env $e timeout 40 /tmp/t/vx_new bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 --shape "${S[resnet50]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_resnet50_$arm.txt" 2>&1
done
vx_pack s36c2.tar.xz
for round in 1 2 3; do
  (( SECONDS > 240 )) && break
  for model in resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large; do
    vx_bench r${round}_${model}_base vx_new $model VOLVOX_X=0
    vx_bench r${round}_${model}_g1 vx_new $model $G1
    vx_bench r${round}_${model}_g2 vx_new $model $G2
  done
  echo "round $round done at ${SECONDS}s"
done
vx_summary; vx_pack s36c2.tar.xz
