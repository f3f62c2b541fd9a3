#!/usr/bin/env bash
# ONNX models on the H200 (device tool): `volvox bench --device vulkan` at fp32 and fp16 against
# PyTorch eager fp32 and fp16 (torch_gpu_bench.py: the same modules, seed and batch 1) in the same
# call. The models are exported there with the machine's PyTorch (too large to carry).
#
# Prepare here (after building build/release/volvox):
#   bench/onnx/prepare_device_run.sh           # volvox + its Debian libraries into .gl/onnx
# Device command (carry .gl):
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/run_h200.sh
# Writes $OUT/onnx_h200.json and $OUT/onnx_h200.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
GL="$ROOT/.gl/onnx"
OUT="${OUT:-$ROOT/bench/out}"
RUNS="${RUNS:-20}"
WARMUP="${WARMUP:-5}"
WARMUP_SECONDS="${WARMUP_SECONDS:-3}"  # both sides: sustained load first, so the GPU clock has ramped
MODELS="${MODELS:-resnet50 gpt2}"
mkdir -p "$OUT"

mkdir -p /tmp/vxlib && tar -C /tmp -xJf "$GL/vxlib.tar.xz"
export LD_LIBRARY_PATH=/tmp/vxlib
VOLVOX="$GL/volvox"
export VOLVOX_BENCH_MODELS=/tmp/vx_models
mkdir -p "$VOLVOX_BENCH_MODELS"

declare -A FILE=([resnet50]=resnet50.onnx [gpt2]=gpt2_decoder.onnx)
declare -A SHAPE=([resnet50]="input=1x3x224x224" [gpt2]="input_ids=1x128")

python3 "$ROOT/bench/onnx/make_models.py" $MODELS >&2
torch_json=$(python3 "$ROOT/bench/onnx/torch_gpu_bench.py" --runs "$RUNS" --warmup "$WARMUP" --warmup-seconds "$WARMUP_SECONDS" \
             --models "$(echo $MODELS | tr ' ' ',')")

results="{}"
for m in $MODELS; do
  for p in fp32 fp16; do
    line=$("$VOLVOX" bench "$VOLVOX_BENCH_MODELS/${FILE[$m]}" --device vulkan --precision "$p" \
           --shape "${SHAPE[$m]}" --runs "$RUNS" --warmup "$WARMUP" --warmup-seconds "$WARMUP_SECONDS" --json | tail -1) \
      || line='{"error": "volvox bench failed"}'
    results=$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); r.setdefault(sys.argv[2], {})[sys.argv[3]]=json.loads(sys.argv[4]); print(json.dumps(r))' \
              "$results" "$m" "$p" "$line")
  done
done

python3 - "$torch_json" "$results" "$OUT" <<'PY'
import json, sys
torch, volvox, out = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
json.dump({"torch": torch, "volvox": volvox}, open(f"{out}/onnx_h200.json", "w"), indent=1)
rows = ["| model | precision | Volvox Vulkan median (min) | PyTorch eager median (min) | ratio |", "| --- | --- | ---: | ---: | ---: |"]
for m, per in volvox.items():
    for p, v in per.items():
        t = torch.get(m, {}).get(p, {})
        if "median_ms" not in v:
            rows.append(f"| {m} | {p} | {v.get('error', 'failed')} | {t.get('median_ms', 0):.2f} ms | |")
            continue
        vm, vn = v.get("gpu_median_ms", v["median_ms"]), v.get("gpu_min_ms", v["min_ms"])
        rows.append(f"| {m} | {p} | {vm:.2f} ms ({vn:.2f}) | {t['median_ms']:.2f} ms ({t['min_ms']:.2f}) | {vm / t['median_ms']:.2f} |")
open(f"{out}/onnx_h200.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
