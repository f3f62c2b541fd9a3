#!/usr/bin/env bash
# Session 24, call 7: the tensor-core 64 x 64 GEMM (VOLVOX_VK_GEMM=coopmat, which reads im2col B)
# against the automatic choice, fp16, per-node profiles: do the 3x3 convolutions (im2col, which the
# staged kernel cannot read) of ResNet-50 and the PaddleOCR detector gain on tensor cores?
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --no-compile --models resnet50 > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640
b() {  # tag model [args]
  local tag=$1 m=$2; shift 2
  /tmp/t/vx_new5 bench /tmp/m/$m.onnx --device vulkan --precision fp16 --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding "$@" > $R/${tag}.txt 2>&1
}
b ramp resnet50 --warmup-seconds 4
for round in 1 2; do
  for m in resnet50 ch_PP-OCRv4_det_infer; do
    b r${round}_${m}_auto $m
    VOLVOX_VK_GEMM=coopmat b r${round}_${m}_coopmat $m
  done
done
for m in resnet50 ch_PP-OCRv4_det_infer; do b prof_${m}_auto $m --profile; VOLVOX_VK_GEMM=coopmat b prof_${m}_coopmat $m --profile; done
cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
cd $OUT && tar -cJf s24g.tar.xz r && rm -rf r
