#!/usr/bin/env bash
# Session 39, call 1: vx.AttentionProjection (the attention's workgroups write the out-projection's
# partial sums, a head a split) on the H100, and HEAD 74acea8's im2col shaders (288e065, lavapipe
# only last session), both in this binary:
#   the attention, runner and conv parity suites; the op table's attention and product cases;
#   ResNet-50, DeepLabV3 and the transformer encoder at fp16 on the GPU against the CPU at fp32;
#   the encoder with the projection fused ("new") and its two kernels in a row
#   (VOLVOX_VK_ATTENTION_PROJECTION=in_a_row, "row": the dispatches before this session), three
#   interleaved rounds, profiles of both; torch.compile on the encoder in the same call. The
#   tensor-core projection is opted into (VOLVOX_VK_ATTENTION_PROJECTION=tensor_cores) wherever it
#   is meant to run: it is off by default until a GPU has run it.
# Built from commit ba3940b (reverted on main by b68a121); packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity test_ops=build/release/tests/ops/test_ops
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity test_ops
vx_parity 130 '*VulkanAttention*:*VulkanRunner*:*VulkanConv*'
VOLVOX_VK_ATTENTION_PROJECTION=tensor_cores timeout 45 /tmp/t/test_ops --gtest_filter='*Attention*:*FusedMatMul*:*ConvPair*' > "$R/optable.txt" 2>&1
echo "test_ops rc $?" >> "$R/optable.txt"; tail -3 "$R/optable.txt"; grep -E "^\[  FAILED" "$R/optable.txt"
vx_pack s39c1.tar.xz
vx_export resnet50,deeplabv3_mobilenet_v3_large,transformer_encoder
mkdir -p /tmp/o
for m in resnet50 deeplabv3_mobilenet_v3_large transformer_encoder; do
  spec=${S[$m]}; name=${spec%%=*}; dims=${spec#*=}
  python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/o/x_$m.npy', n.random.rand(*[int(d) for d in '$dims'.split('x')]).astype(n.float32))"
  timeout 120 /tmp/t/vx_new run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_cpu > /dev/null 2>&1
  VOLVOX_VK_ATTENTION_PROJECTION=tensor_cores timeout 60 /tmp/t/vx_new run /tmp/m/$m.onnx -i $name=/tmp/o/x_$m.npy -o /tmp/o/${m}_gpu --device vulkan --precision fp16 > /dev/null 2>&1
done
python3 - > "$R/outputs.txt" 2>&1 <<'PY'
import glob, os
import numpy as n
for m in ("resnet50", "deeplabv3_mobilenet_v3_large", "transformer_encoder"):
    for f in sorted(glob.glob(f"/tmp/o/{m}_cpu/*.npy")):
        ref = n.load(f).astype(n.float64)
        g = f.replace("_cpu/", "_gpu/")
        if not os.path.exists(g):
            print(m, "no output"); continue
        got = n.load(g).astype(n.float64)
        print(m, os.path.basename(f), got.shape, "max|diff|/peak", float(n.abs(got - ref).max() / max(1.0, n.abs(ref).max())))
PY
cat "$R/outputs.txt"
vx_pack s39c1.tar.xz
for round in 1 2 3; do
  vx_bench r${round}_transformer_encoder_row vx_new transformer_encoder VOLVOX_VK_ATTENTION_PROJECTION=in_a_row
  vx_bench r${round}_transformer_encoder_new vx_new transformer_encoder VOLVOX_VK_ATTENTION_PROJECTION=tensor_cores
done
vx_summary
for arm in new row; do
  env VOLVOX_VK_ATTENTION_PROJECTION=$([ $arm = row ] && echo in_a_row || echo tensor_cores) timeout 40 /tmp/t/vx_new bench /tmp/m/transformer_encoder.onnx \
    --device vulkan --precision fp16 --shape "${S[transformer_encoder]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile \
    > "$R/prof_transformer_encoder_$arm.txt" 2>&1
done
grep -E "^/layers.0/|recorded|device time" "$R/prof_transformer_encoder_new.txt" | grep -v alias
vx_pack s39c1.tar.xz
vx_torch transformer_encoder 90
vx_pack s39c1.tar.xz
