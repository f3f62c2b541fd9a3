#!/usr/bin/env bash
# Session 35, call 3: main with attention_coopmat.comp (4bd8aac) plus VOLVOX_VK_DIRECT_STEM=1 (RGB
# stems of any window on the direct kernel: ResNet-50's 7x7 stem, 147 terms, instead of im2col + the
# staged GEMM), interleaved; the four torchvision / PyTorch models at fp16 and fp32 (torch.compile:
# call 1's; the device time left allowed no PyTorch here). Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new
vx_export transformer_encoder,resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large
# vx_bench_at TAG MODEL PRECISION ENV=V: vx_bench at a given precision.
vx_bench_at() {
  local tag=$1 model=$2 precision=$3
  shift 3
  env "$@" timeout 40 /tmp/t/vx_new bench "/tmp/m/$model.onnx" --device vulkan --precision $precision --shape "${S[$model]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > "$R/$tag.txt" 2>&1
}
for s in 0 1; do
  VOLVOX_VK_DIRECT_STEM=$s timeout 40 /tmp/t/vx_new bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 \
    --shape "${S[resnet50]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_resnet50_stem$s.txt" 2>&1
done
grep -h "/conv1/Conv " "$R"/prof_resnet50_stem*.txt
for round in 1 2 3; do
  (( SECONDS > 110 )) && break
  for p in fp16 fp32; do
    vx_bench_at r${round}_resnet50_${p}_stem0 resnet50 $p VOLVOX_X=0
    vx_bench_at r${round}_resnet50_${p}_stem1 resnet50 $p VOLVOX_VK_DIRECT_STEM=1
    for model in transformer_encoder deeplabv3_mobilenet_v3_large mobilenet_v3_large; do
      vx_bench_at r${round}_${model}_$p $model $p VOLVOX_X=0
    done
  done
  echo "round $round done at ${SECONDS}s"
done
vx_summary; vx_pack s35c3.tar.xz
