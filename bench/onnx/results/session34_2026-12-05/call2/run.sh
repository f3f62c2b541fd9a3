#!/usr/bin/env bash
# Session 34, call 2: the rest of session 33's prepared call (same binaries as call 1): DeepLabV3
# profiles under each switch, every switch's outputs against the channel-major order's, PyTorch last.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new
vx_export deeplabv3_mobilenet_v3_large,resnet50,mobilenet_v3_large,transformer_encoder
for e in VOLVOX_X=0 VOLVOX_VK_IM2COL_KERNEL_ROWS=0 VOLVOX_VK_DIRECT_MAX_K=16 VOLVOX_VK_DIRECT_XR=4; do
  env $e timeout 40 /tmp/t/vx_new bench /tmp/m/deeplabv3_mobilenet_v3_large.onnx --device vulkan --precision fp16 \
    --shape "${S[deeplabv3_mobilenet_v3_large]}" --runs 20 --warmup 5 --warmup-seconds 0.5 --io-binding --profile > $R/prof_deeplab_${e#VOLVOX_VK_}.txt 2>&1
done
python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/x_dl.npy', n.random.rand(1,3,520,520).astype(n.float32)); n.save('/tmp/x_rn.npy', n.random.rand(1,3,224,224).astype(n.float32))"
for c in base:VOLVOX_VK_IM2COL_KERNEL_ROWS=0 rows:VOLVOX_X=0 k16:VOLVOX_VK_DIRECT_MAX_K=16 k8:VOLVOX_VK_DIRECT_MAX_K=8 x4:VOLVOX_VK_DIRECT_XR=4; do
  tag=${c%%:*}; mkdir -p /tmp/o/$tag/dl /tmp/o/$tag/rn /tmp/o/$tag/mn
  env ${c#*:} timeout 60 /tmp/t/vx_new run /tmp/m/deeplabv3_mobilenet_v3_large.onnx -i input=/tmp/x_dl.npy --device vulkan --precision fp16 -o /tmp/o/$tag/dl > /tmp/o/$tag.dl.log 2>&1
  env ${c#*:} timeout 60 /tmp/t/vx_new run /tmp/m/resnet50.onnx -i input=/tmp/x_rn.npy --device vulkan --precision fp16 -o /tmp/o/$tag/rn > /tmp/o/$tag.rn.log 2>&1
  env ${c#*:} timeout 60 /tmp/t/vx_new run /tmp/m/mobilenet_v3_large.onnx -i input=/tmp/x_rn.npy --device vulkan --precision fp16 -o /tmp/o/$tag/mn > /tmp/o/$tag.mn.log 2>&1
done
python3 - > $R/outputs.txt 2>&1 <<'PY'
import glob, numpy as n
for f in sorted(glob.glob("/tmp/o/base/*/*.npy")):
    x = n.load(f).astype(n.float64)
    for k in ("rows", "k16", "k8", "x4"):
        y = n.load(f.replace("/base/", "/%s/" % k))
        print(f, k, x.shape, "max|diff|", float(n.abs(x - y).max()), "peak", float(n.abs(x).max()))
PY
cat /tmp/o/*.log >> $R/outputs.txt; head -12 $R/outputs.txt; vx_pack s34c2.tar.xz
vx_torch mobilenet_v3_large,resnet50,transformer_encoder,deeplabv3_mobilenet_v3_large 80
vx_pack s34c2.tar.xz
