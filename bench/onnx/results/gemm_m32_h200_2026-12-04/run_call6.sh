#!/usr/bin/env bash
# Session 24, call 6: the 64 x 64 GEMM's 32 x 128 tile for products of <= 32 rows over >= 4096
# columns (vx_new5) against 9ecd281 (vx_head),
# wall and GPU time with IO binding, fp16 and fp32, three interleaved rounds; a profile of vx_new5.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --no-compile --models mobilenet_v3_large > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640; S[ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192
S[oww_embedding_model]=input_1=1x76x32x1; S[oww_melspectrogram]=input=1x16000
b() {  # tag binary model precision [args]
  local tag=$1 bin=$2 m=$3 p=$4; shift 4
  /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp vx_head mobilenet_v3_large fp16 --warmup-seconds 4
for round in 1 2 3; do
  for m in ch_PP-OCRv4_det_infer mobilenet_v3_large; do
    for p in fp16 fp32; do for bin in vx_head vx_new5; do b r${round}_${m}_${p}_${bin} $bin $m $p --io-binding; done; done
  done
done
b prof_ch_PP-OCRv4_det_infer_fp16 vx_new5 ch_PP-OCRv4_det_infer fp16 --io-binding --profile
cp /tmp/m/shapes.txt $R/
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $R && for f in r[23]_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
cd $OUT && tar -cJf s24f.tar.xz r && rm -rf r
