#!/usr/bin/env bash
# Session 38, call 5: the session (vx_new: e6f9e8e + resize_2d.comp at 4 outputs an invocation)
# against its start (vx_base, c46891f) in one call, torch.compile in the same call; whole-model
# outputs at fp16 of both against the CPU at fp32 (ResNet-50, DeepLabV3: the 128 x 128 tile,
# vx.ConvPair and the final Resize). Checks first: the runner, conv and GEMM parity suites.
# Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_base=/tmp/s38/vx_base vx_new=build/release/volvox test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_base vx_new test_parity
vx_parity 150 '*VulkanRunner*:*VulkanConv*:*VulkanGemm*'
vx_pack s38c5.tar.xz
vx_export resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large,transformer_encoder
# Outputs: each binary at fp16 on the GPU against the CPU at fp32 (max |diff| over the output's peak).
mkdir -p /tmp/o
for m in resnet50 deeplabv3_mobilenet_v3_large; do
  spec=${S[$m]}; name=${spec%%=*}; dims=${spec#*=}
  python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/o/x_$m.npy', n.random.rand(*[int(d) for d in '$dims'.split('x')]).astype(n.float32))"
  timeout 120 /tmp/t/vx_new run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_cpu > /dev/null 2>&1
  for b in vx_base vx_new; do
    timeout 60 /tmp/t/$b run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_$b --device vulkan --precision fp16 > /dev/null 2>&1
  done
done
python3 - > "$R/outputs.txt" 2>&1 <<'PY'
import glob, os
import numpy as n
for m in ("resnet50", "deeplabv3_mobilenet_v3_large"):
    for f in sorted(glob.glob(f"/tmp/o/{m}_cpu/*.npy")):
        ref = n.load(f).astype(n.float64)
        for b in ("vx_base", "vx_new"):
            g = f.replace("_cpu/", f"_{b}/")
            if not os.path.exists(g):
                print(m, b, "no output"); continue
            got = n.load(g).astype(n.float64)
            print(m, b, os.path.basename(f), got.shape, "max|diff|/peak", float(n.abs(got - ref).max() / max(1.0, n.abs(ref).max())))
PY
cat "$R/outputs.txt"
vx_pack s38c5.tar.xz
for round in 1 2 3; do
  for m in resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large transformer_encoder; do
    vx_bench r${round}_${m}_base vx_base $m VOLVOX_X=0
    vx_bench r${round}_${m}_new vx_new $m VOLVOX_X=0
  done
done
vx_summary; vx_pack s38c5.tar.xz
timeout 40 /tmp/t/vx_new bench /tmp/m/deeplabv3_mobilenet_v3_large.onnx --device vulkan --precision fp16 \
  --shape "${S[deeplabv3_mobilenet_v3_large]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_deeplab_new.txt" 2>&1
vx_pack s38c5.tar.xz
vx_torch resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large,transformer_encoder 200
vx_pack s38c5.tar.xz
