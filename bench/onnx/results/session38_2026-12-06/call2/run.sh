#!/usr/bin/env bash
# Session 38, call 2: the 128 x 128 tile for long-K products of >= 2^30 multiply-adds, K split to
# fill the GPU once (vx_new) against main (vx_base, c46891f): DeepLabV3 (its ASPP layers are the
# only zoo products it takes), ResNet-50 and MobileNetV3 as controls, torch.compile in the same
# call. Checks first: the GEMM and conv parity suites, as chosen and with every staged product
# forced onto 128 x 128.
# Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_base=/tmp/s38/vx_base vx_new=build/release/volvox test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_base vx_new test_parity
vx_parity 150 '*VulkanGemm*:*VulkanConv*'
VOLVOX_VK_STAGED_TILE=128x128 timeout 90 /tmp/t/test_parity --gtest_filter='*StagedCooperativeMatrix*:*VulkanConv*' > "$R/parity_128.txt" 2>&1
echo "rc $?" >> "$R/parity_128.txt"; tail -3 "$R/parity_128.txt"; grep -E "^\[  FAILED" "$R/parity_128.txt" | head -20
vx_pack s38c2.tar.xz
vx_export deeplabv3_mobilenet_v3_large,resnet50,mobilenet_v3_large
M=deeplabv3_mobilenet_v3_large
for round in 1 2 3; do
  vx_bench r${round}_deeplab_base vx_base $M VOLVOX_X=0
  vx_bench r${round}_deeplab_new vx_new $M VOLVOX_X=0
  vx_bench r${round}_resnet50_base vx_base resnet50 VOLVOX_X=0
  vx_bench r${round}_resnet50_new vx_new resnet50 VOLVOX_X=0
  vx_bench r${round}_mobilenet_base vx_base mobilenet_v3_large VOLVOX_X=0
  vx_bench r${round}_mobilenet_new vx_new mobilenet_v3_large VOLVOX_X=0
done
vx_summary; vx_pack s38c2.tar.xz
timeout 40 /tmp/t/vx_new bench /tmp/m/$M.onnx --device vulkan --precision fp16 --shape "${S[$M]}" \
  --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_deeplab_new.txt" 2>&1
vx_pack s38c2.tar.xz
vx_torch deeplabv3_mobilenet_v3_large,resnet50 200
vx_pack s38c2.tar.xz
