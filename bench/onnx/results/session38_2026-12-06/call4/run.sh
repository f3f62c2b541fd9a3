#!/usr/bin/env bash
# Session 38, call 4: vx.ConvPair (a 1x1 convolution and the 3x3 / strided one that alone reads
# it; the first one's split-K reduce pass writes the second one's im2col matrix,
# shaders/gemm_reduce_im2col.comp, now a workgroup per channel through shared memory; call 3's pass gathered each entry's partial sums) in vx_new against vx_head (bdcb72f). ResNet-50 (16 pairs, 12
# of them split) and DeepLabV3 (one: the ASPP projection and the 3x3 classifier); MobileNetV3 as
# a control. Checks first: the runner, conv and GEMM parity suites (the op table's vx.ConvPair
# cases, products below 2^22 multiply-adds on the FMA kernels here as on lavapipe, ran there: the
# working tree with a fourth binary exceeded the device tool's 64 MiB).
# Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_head=/tmp/s38/vx_head vx_new=build/release/volvox test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_head vx_new test_parity
vx_parity 170 '*VulkanRunner*:*VulkanConv*:*VulkanGemm*'
vx_pack s38c4.tar.xz
vx_export resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large
for round in 1 2 3; do
  vx_bench r${round}_resnet50_head vx_head resnet50 VOLVOX_X=0
  vx_bench r${round}_resnet50_new vx_new resnet50 VOLVOX_X=0
  vx_bench r${round}_deeplab_head vx_head deeplabv3_mobilenet_v3_large VOLVOX_X=0
  vx_bench r${round}_deeplab_new vx_new deeplabv3_mobilenet_v3_large VOLVOX_X=0
  vx_bench r${round}_mobilenet_head vx_head mobilenet_v3_large VOLVOX_X=0
  vx_bench r${round}_mobilenet_new vx_new mobilenet_v3_large VOLVOX_X=0
done
vx_summary; vx_pack s38c4.tar.xz
for m in resnet50 deeplabv3_mobilenet_v3_large; do
  timeout 40 /tmp/t/vx_new bench /tmp/m/$m.onnx --device vulkan --precision fp16 --shape "${S[$m]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_${m}_new.txt" 2>&1
done
# fp32 too (the pairs plan two convolutions in a row there: no tensor cores, no im2col matrix)
for b in vx_head vx_new; do
  timeout 40 /tmp/t/$b bench /tmp/m/resnet50.onnx --device vulkan --precision fp32 --shape "${S[resnet50]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > "$R/fp32_resnet50_$b.txt" 2>&1
done
head -2 "$R"/fp32_*.txt
vx_pack s38c4.tar.xz
vx_torch resnet50 120
vx_pack s38c4.tar.xz
