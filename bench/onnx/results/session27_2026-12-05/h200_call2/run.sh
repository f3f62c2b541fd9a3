#!/usr/bin/env bash
# Session 27, call 3: resize_2d.comp. The op table's Resize / Upsample cases on the GPU, then
# DeepLabV3 and the PaddleOCR detector, binary before (vx_base) and after (vx_new), interleaved.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz .gl/u/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
/tmp/t/test_ops --gtest_filter='*Resize*vulkan*:*Upsample*vulkan*' > $R/ops.txt 2>&1
tail -n 1 $R/ops.txt
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 20 --warmup 5 --warmup-seconds 2 \
  --models deeplabv3_mobilenet_v3_large > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640
b() { local tag=$1 vx=$2 m=$3 p=$4; shift 4
  /tmp/t/$vx bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" --runs 30 --warmup 5 --warmup-seconds 1 --io-binding "$@" > $R/${tag}.txt 2>&1; }
b ramp vx_new deeplabv3_mobilenet_v3_large fp16 --warmup-seconds 3
for round in 1 2 3; do
  for m in deeplabv3_mobilenet_v3_large ch_PP-OCRv4_det_infer; do for p in fp16 fp32; do for vx in vx_base vx_new; do
    b r${round}_${m}_${p}_${vx} $vx $m $p
  done; done; done
done
for p in fp16 fp32; do b prof_deeplab_${p} vx_new deeplabv3_mobilenet_v3_large $p --profile; b prof_det_${p} vx_new ch_PP-OCRv4_det_infer $p --profile; done
(cd $R && for f in r[23]_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done)
python3 -c "import json; d=json.load(open('$R/torch.json')); m=d['models']['deeplabv3_mobilenet_v3_large']; print({p: {k: m[p][k]['median_ms'] for k in ('eager','compile')} for p in ('fp32','fp16')})"
cd $OUT && tar -cJf s27c.tar.xz r && rm -rf r
