#!/usr/bin/env bash
# Session 35, call 1: attention on tensor cores (shaders/attention_coopmat.comp) against
# attention.comp (VOLVOX_VK_ATTENTION=flash, same binary); the GPU suites owed since session 34's
# conv_window.glsl change (conv_nchw.comp / conv_dot.comp had not run on a GPU); this call's
# fp16 zoo times beside torch.compile. Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox \
#     test_parity=build/release/tests/test_parity test_ops=build/release/tests/ops/test_ops
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity test_ops
vx_parity 200 '*VulkanAttention*:*CooperativeMatrix*:*Coopmat*:*VulkanGemm*:*VulkanConv*'
timeout 90 /tmp/t/test_ops --gtest_filter='*Conv*vulkan*:*ttention*vulkan*' > "$R/ops.txt" 2>&1
echo "test_ops rc $?" >> "$R/ops.txt"; tail -3 "$R/ops.txt"; grep -E "^\[  FAILED" "$R/ops.txt" | head
vx_pack s35c1.tar.xz
vx_export transformer_encoder,resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large
enc=transformer_encoder
for a in coopmat flash; do
  env VOLVOX_VK_ATTENTION=$a timeout 40 /tmp/t/vx_new bench /tmp/m/$enc.onnx --device vulkan --precision fp16 \
    --shape "${S[$enc]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_${enc}_$a.txt" 2>&1
done
# The whole encoder's output both ways, and against the CPU (fp32), on one seeded input.
python3 -c "import numpy as np; np.save('/tmp/src.npy', np.random.default_rng(0).standard_normal((1,128,512)).astype(np.float32))"
for a in coopmat flash; do
  mkdir -p /tmp/o_$a
  VOLVOX_VK_ATTENTION=$a timeout 60 /tmp/t/vx_new run /tmp/m/$enc.onnx -i src=/tmp/src.npy --device vulkan --precision fp16 -o /tmp/o_$a > /dev/null 2>&1
done
mkdir -p /tmp/o_cpu; timeout 60 /tmp/t/vx_new run /tmp/m/$enc.onnx -i src=/tmp/src.npy -o /tmp/o_cpu > /dev/null 2>&1
python3 - > "$R/outputs.txt" 2>&1 <<'PY'
import glob, numpy as np
for f in sorted(glob.glob('/tmp/o_cpu/*.npy')):
    n = f.split('/')[-1]
    ref = np.load(f).astype(np.float64)
    for a in ('coopmat', 'flash'):
        got = np.load(f'/tmp/o_{a}/{n}').astype(np.float64)
        print(n, a, 'max |diff| vs CPU fp32', float(np.abs(got - ref).max()), 'peak', float(np.abs(ref).max()))
PY
cat "$R/outputs.txt"
vx_pack s35c1.tar.xz
for round in 1 2 3; do
  (( SECONDS > 430 )) && break
  vx_bench r${round}_${enc}_coopmat vx_new $enc VOLVOX_X=0
  vx_bench r${round}_${enc}_flash vx_new $enc VOLVOX_VK_ATTENTION=flash
  for model in resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large; do vx_bench r${round}_$model vx_new $model VOLVOX_X=0; done
  echo "round $round done at ${SECONDS}s"
done
vx_summary; vx_pack s35c1.tar.xz
left=$(( 585 - SECONDS )); (( left > 60 )) && vx_torch $enc,resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large $left
vx_pack s35c1.tar.xz
