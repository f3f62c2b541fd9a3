#!/usr/bin/env bash
# Session 27, call 4: the im2col matrix materialised (shaders/im2col.comp) for the staged tensor-core
# GEMM. The op table's convolution cases on the GPU (the new case forces the path; on the H200 at fp16
# that is the staged GEMM), then DeepLabV3, ResNet-50 and the PaddleOCR detector at fp16 with the
# threshold off (1e18: the GEMM gathering, as before), at the default 2^30 and at 2^26, interleaved.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz .gl/u/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
/tmp/t/test_ops --gtest_filter='*Conv*vulkan*' > $R/ops.txt 2>&1
VOLVOX_VK_IM2COL_MIN_MACS=0 /tmp/t/test_ops --gtest_filter='*Conv*vulkan_f16' > $R/ops_forced.txt 2>&1
tail -n 1 $R/ops.txt $R/ops_forced.txt
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --no-compile --runs 3 --warmup 1 --warmup-seconds 0.5 \
  --models deeplabv3_mobilenet_v3_large,resnet50 > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640
b() { local tag=$1 t=$2 m=$3; shift 3
  VOLVOX_VK_IM2COL_MIN_MACS=$t /tmp/t/vx_new bench /tmp/m/$m.onnx --device vulkan --precision fp16 --shape "${S[$m]}" --runs 30 --warmup 5 --warmup-seconds 1 --io-binding "$@" > $R/${tag}.txt 2>&1; }
b ramp 1073741824 deeplabv3_mobilenet_v3_large --warmup-seconds 3
for round in 1 2; do
  for m in deeplabv3_mobilenet_v3_large resnet50 ch_PP-OCRv4_det_infer; do for t in 1e18 1073741824 67108864; do
    b r${round}_${m}_$t $t $m
  done; done
done
for m in deeplabv3_mobilenet_v3_large resnet50 ch_PP-OCRv4_det_infer; do b prof_${m}_67108864 67108864 $m --profile; done
(cd $R && for f in r2_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done)
cd $OUT && tar -cJf s27d.tar.xz r && rm -rf r
