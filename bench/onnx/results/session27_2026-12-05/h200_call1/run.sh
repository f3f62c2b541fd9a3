#!/usr/bin/env bash
# Session 27, call: the GPU suites with post_ops.glsl's round step (every cooperative-matrix shader
# includes it), then DeepLabV3's profile with the dilated taps cropped, auto vs the tensor-core GEMMs.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
/tmp/t/test_parity --gtest_filter='*Coopmat*:*CooperativeMatrix*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*' > $R/parity.txt 2>&1
/tmp/t/test_ops --gtest_filter='*vulkan*' > $R/ops.txt 2>&1
tail -1 $R/parity.txt $R/ops.txt
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 20 --warmup 5 --warmup-seconds 2 \
  --models deeplabv3_mobilenet_v3_large > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() { local tag=$1 m=$2 p=$3; shift 3
  /tmp/t/vx bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding "$@" > $R/${tag}.txt 2>&1; }
b ramp deeplabv3_mobilenet_v3_large fp16 --warmup-seconds 3
for round in 1 2; do
  for g in auto coopmat128; do VOLVOX_VK_GEMM=$g b r${round}_deeplab_fp16_${g}_prof deeplabv3_mobilenet_v3_large fp16 --profile; done
  b r${round}_deeplab_fp16_auto deeplabv3_mobilenet_v3_large fp16
  b r${round}_deeplab_fp32_auto deeplabv3_mobilenet_v3_large fp32
done
(cd $R && for f in r2_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done)
python3 -c "import json; d=json.load(open('$R/torch.json')); print(json.dumps(d)[:1500])"
cd $OUT && tar -cJf s27b.tar.xz r && rm -rf r
