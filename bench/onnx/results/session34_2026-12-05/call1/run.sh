#!/usr/bin/env bash
# Session 34, call 1: session 33's prepared call (../../session33_2026-12-05/prepared_call/run.sh), cut in
# two to fit the 600 s limit. Branch s33-gpu-experiments merged with main (9f02811), built and packed by
# bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity
# test_ops=build/release/tests/ops/test_ops. This call: the op table's Vulkan Conv cases, test_parity's
# GPU suites (owed since session 32 on the H200), then the switches interleaved, two rounds.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity test_ops
timeout 60 /tmp/t/test_ops --gtest_filter='*Conv*vulkan*' > $R/ops.txt 2>&1; echo "test_ops rc $?" >> $R/ops.txt; tail -3 $R/ops.txt
vx_parity 220
vx_pack s34c1.tar.xz
vx_export deeplabv3_mobilenet_v3_large,resnet50,mobilenet_v3_large,transformer_encoder
vx_bench ramp vx_new deeplabv3_mobilenet_v3_large VOLVOX_X=0
for round in 1 2; do
  (( SECONDS > 540 )) && break
  for model in deeplabv3_mobilenet_v3_large resnet50; do
    vx_bench r${round}_${model}_rows0 vx_new $model VOLVOX_VK_IM2COL_KERNEL_ROWS=0
    vx_bench r${round}_${model}_rows vx_new $model VOLVOX_X=0
  done
  vx_bench r${round}_deeplabv3_mobilenet_v3_large_rows_k16 vx_new deeplabv3_mobilenet_v3_large VOLVOX_VK_DIRECT_MAX_K=16
  vx_bench r${round}_deeplabv3_mobilenet_v3_large_rows_k16_x4 vx_new deeplabv3_mobilenet_v3_large VOLVOX_VK_DIRECT_MAX_K=16 VOLVOX_VK_DIRECT_XR=4
  for k in 32 16 8; do vx_bench r${round}_mobilenet_v3_large_k$k vx_new mobilenet_v3_large VOLVOX_VK_DIRECT_MAX_K=$k; done
  vx_bench r${round}_mobilenet_v3_large_k16_x4 vx_new mobilenet_v3_large VOLVOX_VK_DIRECT_MAX_K=16 VOLVOX_VK_DIRECT_XR=4
  vx_bench r${round}_transformer_encoder_sauto vx_new transformer_encoder VOLVOX_X=0
  vx_bench r${round}_transformer_encoder_s1 vx_new transformer_encoder VOLVOX_VK_SPLITK=1
  vx_bench r${round}_transformer_encoder_u512 vx_new transformer_encoder VOLVOX_VK_STAGED_UNSPLIT_K=512
  echo "round $round done at ${SECONDS}s"
done
vx_summary; vx_pack s34c1.tar.xz
