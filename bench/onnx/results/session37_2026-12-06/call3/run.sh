#!/usr/bin/env bash
# Session 37, call 3: the session's binary (vx_new: half-width B loads, the im2col pass by words,
# padded conv weights, and the queue from a compute family without graphics by default) against
# the session's start (vx_start, fe8fcb0), and within vx_new the queue back on the universal family
# (VOLVOX_VK_QUEUE=universal): the four zoo models, and the native U-Net (vulkan_unet_bench, fp16
# and fp32 at 1920x1088) on both queues; torch.compile last. Checks first, on the new default queue:
# the GEMM, conv, runner and cooperative-matrix parity suites. Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_start=/tmp/s37/vx_base vx_new=build/release/volvox \
#     test_parity=build/release/tests/test_parity unet=build/release/bench/vulkan/vulkan_unet_bench
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_start vx_new test_parity unet
vx_parity 170 '*VulkanGemm*:*VulkanConv*:*VulkanRunner*:*Coopmat*:*CooperativeMatrix*'
vx_pack s37c3.tar.xz
U=VOLVOX_VK_QUEUE=universal
for q in compute universal compute universal; do
  e=VOLVOX_X=0; [[ $q == universal ]] && e=$U
  env $e timeout 60 /tmp/t/unet --sizes 1088x1920 --configs "fp16:auto,fp32:auto" --runs 20 --no-check \
    --json "$R/unet_$q.json" > "$R/unet_$q.txt" 2>&1
  grep -iE 'median|ms' "$R/unet_$q.txt" | tail -4
done
vx_pack s37c3.tar.xz
vx_export resnet50,mobilenet_v3_large,transformer_encoder,deeplabv3_mobilenet_v3_large
for round in 1 2 3; do
  for model in resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder; do
    vx_bench r${round}_${model}_start vx_start $model VOLVOX_X=0
    vx_bench r${round}_${model}_new vx_new $model VOLVOX_X=0
    vx_bench r${round}_${model}_universal vx_new $model $U
  done
done
vx_summary; vx_pack s37c3.tar.xz
vx_torch resnet50,mobilenet_v3_large,transformer_encoder,deeplabv3_mobilenet_v3_large 200
vx_pack s37c3.tar.xz
