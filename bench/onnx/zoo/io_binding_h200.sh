#!/usr/bin/env bash
# Wall clock against GPU time per call on the H200, with and without IO binding (`volvox bench
# --io-binding`: float32 inputs and outputs stay in device buffers), fp32 and fp16: the zoo's npm
# models and exported U-Net (carried in .gl/zoo, as zoo_vulkan_h200.sh prepares them) and ResNet-50,
# MobileNetV3 and the transformer encoder exported there (torch_zoo_gpu.py's build and export). First
# the Vulkan tests that touch what IO binding changed, on the real GPU.
# Device command (carry .gl), repository root:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/zoo/io_binding_h200.sh
# Writes $OUT/io_binding.{jsonl,md}, $OUT/tests.log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 1
OUT="${OUT:-$PWD/bench/out}"
RUNS="${RUNS:-20}"
mkdir -p "$OUT" /tmp/vxlib /tmp/zoo /tmp/zoo_torch
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
VOLVOX="$PWD/.gl/onnx/volvox"
tar -C /tmp/zoo -xJf .gl/zoo/bins.tar.xz && tar -C /tmp/zoo -xJf .gl/zoo/models.tar.xz
{
  timeout 200 /tmp/zoo/test_parity \
    --gtest_filter='*Coopmat*:*CooperativeMatrix*:*VulkanUNet*:VulkanIoBinding*:VulkanConvFusion*:VulkanMemoryLimit*'
  echo "parity rc=$?"
  timeout 120 /tmp/zoo/test_ops --gtest_filter='*Conv*:*MatMul*:*Sigmoid*:*Resize*'
  echo "ops rc=$?"
} >"$OUT/tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED) |rc=" "$OUT/tests.log"
python3 - >>"$OUT/tests.log" 2>&1 <<'PY'
import os, sys
sys.path.insert(0, 'bench/onnx/zoo')
import torch_zoo_gpu as t
for name in ('resnet50', 'mobilenet_v3_large', 'transformer_encoder'):
    net, example, ins, outs, opset = t.build(name)
    t.export(net, example, ins, outs, opset, f'/tmp/zoo_torch/{name}.onnx')
PY
MODELS=(
  "/tmp/zoo/unet_hdr_alb_nrm.onnx input=1x9x1088x1920"
  "/tmp/zoo/ch_PP-OCRv4_det_infer.onnx x=1x3x640x640"
  "/tmp/zoo/ch_ppocr_mobile_v2.0_cls_infer.onnx x=1x3x48x192"
  "/tmp/zoo/oww_embedding_model.onnx input_1=1x76x32x1"
  "/tmp/zoo/oww_melspectrogram.onnx input=1x16000"
  "/tmp/zoo_torch/resnet50.onnx input=1x3x224x224"
  "/tmp/zoo_torch/mobilenet_v3_large.onnx input=1x3x224x224"
  "/tmp/zoo_torch/transformer_encoder.onnx src=1x128x512"
)
: >"$OUT/io_binding.jsonl"
for entry in "${MODELS[@]}"; do
  read -r path shape <<<"$entry"
  for p in fp32 fp16; do
    for io in "" --io-binding; do
      line=$(timeout 120 "$VOLVOX" bench "$path" --device vulkan --precision "$p" --shape "$shape" --runs "$RUNS" \
             --warmup 5 --warmup-seconds 2 --json $io 2>>"$OUT/tests.log" | tail -1)
      [[ "$line" == "{"* ]] || line='{"error": "failed (tests.log)"}'
      echo "{\"model\": \"$(basename "$path" .onnx)\", \"precision\": \"$p\", \"io_binding\": $([[ -n "$io" ]] && echo true || echo false), \"result\": $line}" \
        >>"$OUT/io_binding.jsonl"
    done
  done
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
rows = ["| model | precision | wall median (min) ms | GPU median ms | wall / GPU | with IO binding: wall median (min) | GPU median | wall / GPU |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
res = {}
for line in open(f"{out}/io_binding.jsonl"):
    r = json.loads(line)
    res[(r["model"], r["precision"], r["io_binding"])] = r["result"]
def cells(v):
    if "median_ms" not in v:
        return [v.get("error", "failed"), "", ""]
    g = v.get("gpu_median_ms")
    return [f"{v['median_ms']:.3f} ({v['min_ms']:.3f})", f"{g:.3f}" if g else "", f"{v['median_ms'] / g:.2f}" if g else ""]
for (m, p, io) in res:
    if io:
        continue
    rows.append("| " + " | ".join([m, p] + cells(res[(m, p, False)]) + cells(res.get((m, p, True), {}))) + " |")
open(f"{out}/io_binding.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
