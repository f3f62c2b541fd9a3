#!/usr/bin/env bash
# Session 35, call 2: call 1 again with a binary that holds attention_coopmat.comp's selection
# (call 1's build had compiled attention.cpp before the change was saved: every attention ran on
# attention.comp there), and K steps of 64 on the staged GEMM's small tiles
# (VOLVOX_VK_STAGED_BK=64) against 32, also with the cost model's K splits scaled by 0.7
# (VOLVOX_VK_STAGED_SPLIT_FACTOR). Packed as in call 1.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity test_ops
vx_parity 90 '*VulkanAttention*:*VulkanGemm*Staged*:*VulkanGemm*Automatic*'
mv "$R/parity.txt" "$R/parity_attention_staged.txt"
VOLVOX_VK_STAGED_BK=64 timeout 80 /tmp/t/test_parity --gtest_filter='*VulkanGemm*Staged*:*VulkanGemm*Automatic*' > "$R/parity_bk64.txt" 2>&1
echo "test_parity bk64 rc $?" >> "$R/parity_bk64.txt"; tail -2 "$R/parity_bk64.txt"; grep -E "^\[  FAILED" "$R/parity_bk64.txt" | head
timeout 40 /tmp/t/test_ops --gtest_filter='*ttention*vulkan*' > "$R/ops.txt" 2>&1
echo "test_ops rc $?" >> "$R/ops.txt"; tail -2 "$R/ops.txt"; grep -E "^\[  FAILED" "$R/ops.txt" | head
VOLVOX_VK_STAGED_BK=64 timeout 45 /tmp/t/test_ops --gtest_filter='*MatMul*vulkan*:*Conv*vulkan*' > "$R/ops_bk64.txt" 2>&1
echo "test_ops bk64 rc $?" >> "$R/ops_bk64.txt"; tail -2 "$R/ops_bk64.txt"; grep -E "^\[  FAILED" "$R/ops_bk64.txt" | head
vx_pack s35c2.tar.xz
vx_export transformer_encoder,resnet50,deeplabv3_mobilenet_v3_large
enc=transformer_encoder
for a in coopmat flash; do
  env VOLVOX_VK_ATTENTION=$a timeout 40 /tmp/t/vx_new bench /tmp/m/$enc.onnx --device vulkan --precision fp16 \
    --shape "${S[$enc]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_${enc}_$a.txt" 2>&1
done
VOLVOX_VK_STAGED_BK=64 timeout 40 /tmp/t/vx_new bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 \
  --shape "${S[resnet50]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_resnet50_bk64.txt" 2>&1
timeout 40 /tmp/t/vx_new bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 \
  --shape "${S[resnet50]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_resnet50_bk32.txt" 2>&1
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
cat "$R/outputs.txt"; grep -h -m1 "Attention" "$R/prof_${enc}_coopmat.txt" "$R/prof_${enc}_flash.txt"
vx_pack s35c2.tar.xz
for round in 1 2 3; do
  (( SECONDS > 230 )) && break
  vx_bench r${round}_${enc}_coopmat vx_new $enc VOLVOX_X=0
  vx_bench r${round}_${enc}_flash vx_new $enc VOLVOX_VK_ATTENTION=flash
  for model in $enc resnet50 deeplabv3_mobilenet_v3_large; do
    [[ $model != $enc ]] && vx_bench r${round}_${model}_bk32 vx_new $model VOLVOX_X=0
    vx_bench r${round}_${model}_bk64 vx_new $model VOLVOX_VK_STAGED_BK=64
  done
  for model in $enc resnet50; do
    vx_bench r${round}_${model}_bk64f07 vx_new $model VOLVOX_VK_STAGED_BK=64 VOLVOX_VK_STAGED_SPLIT_FACTOR=0.7
  done
  echo "round $round done at ${SECONDS}s"
done
vx_summary; vx_pack s35c2.tar.xz
