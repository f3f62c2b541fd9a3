#!/usr/bin/env bash
# Session 31, call 2: the staged tensor-core GEMM's tiles. vx_exp2 = main + the im2col matrix's
# padded rows (always on) + VOLVOX_VK_STAGED_TILE = 64x128 (main's) | 64x64 | 32x64 | 64x32 (four
# subgroups each; 128 x 128 stays chosen by tile count). First test_parity's GEMM / conv / runner
# suites (every tile) and the op table's Vulkan Conv / MatMul / Gemm cases; then `volvox bench
# --io-binding` of four exported models at fp16, settings interleaved, two rounds; then profiles.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_exp2,test_parity,test_ops}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session31_2026-12-05/h100_call2/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for n in vx_exp2 test_parity test_ops; do xz -dc .gl/t/$n.xz > /tmp/t/$n; chmod +x /tmp/t/$n; done
V=/tmp/t/vx_exp2
pack() { (cd $OUT && tar -cJf s31b.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv -lms 250 > $R/clocks.csv 2>&1 &
SMI=$!
(timeout 150 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 5 --warmup 1 \
  --warmup-seconds 0 --no-compile --models deeplabv3_mobilenet_v3_large,transformer_encoder,resnet50,mobilenet_v3_large > $R/torch.log 2>&1) &
EXPORT=$!
timeout 240 /tmp/t/test_parity --gtest_filter='*CooperativeMatrix*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*' > $R/parity.txt 2>&1
echo "test_parity rc $?" >> $R/parity.txt
timeout 120 /tmp/t/test_ops --gtest_filter='*Conv*vulkan*:*MatMul*vulkan*:*Gemm*vulkan*' > $R/ops.txt 2>&1
echo "test_ops rc $?" >> $R/ops.txt
tail -3 $R/parity.txt $R/ops.txt
wait $EXPORT
pack
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
# t TAG MODEL [ENV=VALUE ...]: whole-model time at fp16
t() { local tag=$1 model=$2; shift 2
  env "$@" timeout 60 $V bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > $R/$tag.txt 2>&1; }
timeout 60 $V bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 --shape "${S[resnet50]}" --runs 20 --warmup 5 --warmup-seconds 5 > $R/ramp.txt 2>&1
for round in 1 2; do
  for tile in 64x128 64x64 32x64 64x32; do t w${round}_transformer_$tile transformer_encoder VOLVOX_VK_STAGED_TILE=$tile; done
  t w${round}_transformer_64x64_staged transformer_encoder VOLVOX_VK_STAGED_TILE=64x64 VOLVOX_VK_GEMM=staged
  for tile in 64x128 64x64; do t w${round}_resnet_$tile resnet50 VOLVOX_VK_STAGED_TILE=$tile; done
  t w${round}_resnet_64x64_staged resnet50 VOLVOX_VK_STAGED_TILE=64x64 VOLVOX_VK_GEMM=staged
  t w${round}_resnet_32x64_staged resnet50 VOLVOX_VK_STAGED_TILE=32x64 VOLVOX_VK_GEMM=staged
  t w${round}_resnet_64x64_im2col26 resnet50 VOLVOX_VK_STAGED_TILE=64x64 VOLVOX_VK_IM2COL_MIN_MACS=67108864
  for tile in 64x128 64x64 32x64; do t w${round}_deeplab_$tile deeplabv3_mobilenet_v3_large VOLVOX_VK_STAGED_TILE=$tile; done
  t w${round}_deeplab_64x64_staged deeplabv3_mobilenet_v3_large VOLVOX_VK_STAGED_TILE=64x64 VOLVOX_VK_GEMM=staged
  for tile in 64x128 64x64; do t w${round}_mobilenet_$tile mobilenet_v3_large VOLVOX_VK_STAGED_TILE=$tile; done
  t w${round}_mobilenet_64x64_staged mobilenet_v3_large VOLVOX_VK_STAGED_TILE=64x64 VOLVOX_VK_GEMM=staged
  pack
done
# p TAG MODEL [ENV=VALUE ...]: a per-node profile
p() { local tag=$1 model=$2; shift 2
  env "$@" timeout 60 $V bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > $R/prof_$tag.txt 2>&1; }
p transformer_64x64 transformer_encoder VOLVOX_VK_STAGED_TILE=64x64
p transformer_32x64 transformer_encoder VOLVOX_VK_STAGED_TILE=32x64
p resnet_64x64_staged resnet50 VOLVOX_VK_STAGED_TILE=64x64 VOLVOX_VK_GEMM=staged
p deeplab_64x64 deeplabv3_mobilenet_v3_large VOLVOX_VK_STAGED_TILE=64x64
kill $SMI
(cd $R && for f in w*.txt; do echo "$f $(head -2 $f | sed 's/.*: 30 runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"; done) > $R/summary.txt
cat $R/summary.txt
pack
