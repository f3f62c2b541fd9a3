#!/usr/bin/env bash
# Session 37, call 1: the staged tensor-core GEMM loading B's rows as 8-byte words where only those
# align (B_VEC 2: fp16 rows of 14 x 14 pixels, ResNet-50's third stage and MobileNetV3's 14 x 14
# layers), vx_new against main (vx_base, fe8fcb0); in vx_new two probes, by environment: the
# encoder's QKV product (96 tiles of 32 x 64, K 512) unsplit (VOLVOX_VK_PROBE_UNSPLIT_TILES=96) and
# ResNet-50's stem (K 147) gathered by the 64 x 64 kernel instead of im2col + staged
# (VOLVOX_VK_PROBE_IM2COL_MIN_K=256). Checks first: the GEMM and conv parity suites on the GPU.
# Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_base=/tmp/s37/vx_base vx_new=build/release/volvox test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_base vx_new test_parity
vx_parity 150 '*VulkanGemm*:*VulkanConv*'
vx_pack s37c1.tar.xz
vx_export resnet50,mobilenet_v3_large,transformer_encoder
for round in 1 2 3; do
  vx_bench r${round}_resnet50_base vx_base resnet50 VOLVOX_X=0
  vx_bench r${round}_resnet50_new vx_new resnet50 VOLVOX_X=0
  vx_bench r${round}_resnet50_stem vx_new resnet50 VOLVOX_VK_PROBE_IM2COL_MIN_K=256
  vx_bench r${round}_mobilenet_v3_large_base vx_base mobilenet_v3_large VOLVOX_X=0
  vx_bench r${round}_mobilenet_v3_large_new vx_new mobilenet_v3_large VOLVOX_X=0
  vx_bench r${round}_transformer_encoder_base vx_base transformer_encoder VOLVOX_X=0
  vx_bench r${round}_transformer_encoder_new vx_new transformer_encoder VOLVOX_X=0
  vx_bench r${round}_transformer_encoder_qkv1 vx_new transformer_encoder VOLVOX_VK_PROBE_UNSPLIT_TILES=96
done
vx_summary; vx_pack s37c1.tar.xz
prof() {  # TAG BIN MODEL ENV
  env "$4" timeout 40 "/tmp/t/$2" bench "/tmp/m/$3.onnx" --device vulkan --precision fp16 --shape "${S[$3]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_$1.txt" 2>&1
}
prof resnet50_base vx_base resnet50 VOLVOX_X=0
prof resnet50_new vx_new resnet50 VOLVOX_X=0
prof resnet50_stem vx_new resnet50 VOLVOX_VK_PROBE_IM2COL_MIN_K=256
prof mobilenet_v3_large_base vx_base mobilenet_v3_large VOLVOX_X=0
prof mobilenet_v3_large_new vx_new mobilenet_v3_large VOLVOX_X=0
prof transformer_encoder_new vx_new transformer_encoder VOLVOX_X=0
prof transformer_encoder_qkv1 vx_new transformer_encoder VOLVOX_VK_PROBE_UNSPLIT_TILES=96
vx_pack s37c1.tar.xz
vx_torch resnet50,mobilenet_v3_large,transformer_encoder 200
vx_pack s37c1.tar.xz
