#!/usr/bin/env bash
# Session 37, call 2: vx_new (a1e0a98 + the im2col pass writing a 16-byte word an invocation over
# all rows, and a convolution's constant weights padded to whole words for the staged GEMM) against
# vx_base (a1e0a98); in vx_new a probe, by environment: the queue taken from a family without
# graphics (VOLVOX_VK_QUEUE=compute; the default takes the first family with compute, NVIDIA's
# universal one). chain200 (200 Softmax nodes on [1, 256], one workgroup each) measures what a
# dependent dispatch costs. Checks first: the GEMM / conv parity suites and the op table's Conv cases.
# Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_base=/tmp/s37/vx_a1e0a98 vx_new=build/release/volvox \
#     test_parity=build/release/tests/test_parity test_ops=build/release/tests/ops/test_ops
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_base vx_new test_parity test_ops
vx_parity 150 '*VulkanGemm*:*VulkanConv*'
timeout 120 /tmp/t/test_ops --gtest_filter='*Conv*' > "$R/ops.txt" 2>&1; echo "test_ops rc $?" >> "$R/ops.txt"; tail -3 "$R/ops.txt"
VOLVOX_VK_QUEUE=compute timeout 60 /tmp/t/test_parity --gtest_filter='*VulkanGemm.Staged*:*VulkanRunner*' > "$R/parity_queue.txt" 2>&1
echo "test_parity (compute queue) rc $?" >> "$R/parity_queue.txt"; tail -2 "$R/parity_queue.txt"
vx_pack s37c2.tar.xz
python3 - <<'PY'
import onnx
from onnx import helper, TensorProto
nodes, prev = [], "x"
for i in range(200):
    nodes.append(helper.make_node("Softmax", [prev], [f"s{i}"], axis=-1)); prev = f"s{i}"
g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256])],
                      [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 256])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "/tmp/m/chain200.onnx")
PY
vx_export resnet50,mobilenet_v3_large,transformer_encoder,deeplabv3_mobilenet_v3_large
S[chain200]=x=1x256
Q=VOLVOX_VK_QUEUE=compute
for round in 1 2 3; do
  vx_bench r${round}_chain200_new vx_new chain200 VOLVOX_X=0
  vx_bench r${round}_chain200_queue vx_new chain200 $Q
  for model in resnet50 mobilenet_v3_large deeplabv3_mobilenet_v3_large transformer_encoder; do
    vx_bench r${round}_${model}_base vx_base $model VOLVOX_X=0
    vx_bench r${round}_${model}_new vx_new $model VOLVOX_X=0
    vx_bench r${round}_${model}_queue vx_new $model $Q
  done
done
grep -h "queue family" "$R"/r1_*queue.txt | sort | uniq -c
vx_summary; vx_pack s37c2.tar.xz
prof() {  # TAG BIN MODEL ENV
  env "$4" timeout 40 "/tmp/t/$2" bench "/tmp/m/$3.onnx" --device vulkan --precision fp16 --shape "${S[$3]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_$1.txt" 2>&1
}
prof resnet50_base vx_base resnet50 VOLVOX_X=0
prof resnet50_new vx_new resnet50 VOLVOX_X=0
prof deeplabv3_mobilenet_v3_large_base vx_base deeplabv3_mobilenet_v3_large VOLVOX_X=0
prof deeplabv3_mobilenet_v3_large_new vx_new deeplabv3_mobilenet_v3_large VOLVOX_X=0
vx_pack s37c2.tar.xz
