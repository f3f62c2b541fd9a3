#!/usr/bin/env bash
# Session 37, call 4: the staged GEMM loading B's rows in 32-bit words at any offset (B_VEC 3: odd
# N, DeepLabV3's 33 x 33 and ResNet-50's 7 x 7 1x1 layers), vx_new, against ac661d3 (vx_prev);
# torch.compile in the same call. Checks first: the GEMM and conv parity suites (the op table's
# binary left out: with it the call's tree passed the device's 64 MiB). Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_prev=/tmp/s37/vx_ac661d3 vx_new=build/release/volvox \
#     test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_prev vx_new test_parity
vx_parity 120 '*VulkanGemm*:*VulkanConv*'
vx_pack s37c4.tar.xz
vx_export resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large
for round in 1 2 3; do
  for model in resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large; do
    vx_bench r${round}_${model}_prev vx_prev $model VOLVOX_X=0
    vx_bench r${round}_${model}_new vx_new $model VOLVOX_X=0
  done
done
vx_summary; vx_pack s37c4.tar.xz
timeout 40 /tmp/t/vx_new bench /tmp/m/deeplabv3_mobilenet_v3_large.onnx --device vulkan --precision fp16 \
  --shape "${S[deeplabv3_mobilenet_v3_large]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_deeplabv3_new.txt" 2>&1
vx_pack s37c4.tar.xz
vx_torch resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large 170
vx_pack s37c4.tar.xz
