#!/usr/bin/env bash
# CPU benchmark of ONNX models: `volvox bench` against ONNX Runtime's CPU provider
# (ort_bench_model.js) on ResNet-50 (1x3x224x224) and a GPT-2-sized decoder (seq 128), exported by
# make_models.py. Writes bench/out/onnx_cpu.json and bench/out/onnx_cpu.md.
#
# Environment (all optional):
#   THREADS=2 WARMUP=2 RUNS=10   threads and repetitions for both peers
#   VOLVOX=build/release/volvox  the volvox binary
#   PYTHON=/usr/bin/python3      a Python with Debian's python3-torch (for the export)
#   MODELS="resnet50 gpt2"       which models
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH="$ROOT/bench"
OUT="$BENCH/out"
THREADS="${THREADS:-2}"
WARMUP="${WARMUP:-2}"
RUNS="${RUNS:-10}"
VOLVOX="${VOLVOX:-$ROOT/build/release/volvox}"
PYTHON="${PYTHON:-/usr/bin/python3}"
MODELS="${MODELS:-resnet50 gpt2}"
mkdir -p "$OUT" "$BENCH/models"

declare -A FILE=([resnet50]=resnet50.onnx [gpt2]=gpt2_decoder.onnx)
declare -A VX_SHAPE=([resnet50]="input=1x3x224x224" [gpt2]="input_ids=1x128")
declare -A ORT_INPUT=([resnet50]="input:float32:1x3x224x224" [gpt2]="input_ids:int64:1x128")

if [[ ! -d "$BENCH/node_modules/onnxruntime-node" ]]; then
  (cd "$BENCH" && npm install --no-audit --no-fund >&2)
fi

results="[]"
for m in $MODELS; do
  model="$BENCH/models/${FILE[$m]}"
  [[ -f "$model" ]] || "$PYTHON" "$BENCH/onnx/make_models.py" "$m" >&2
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  vx_json=$("$VOLVOX" bench "$model" --shape "${VX_SHAPE[$m]}" --runs "$RUNS" --warmup "$WARMUP" \
            --threads "$THREADS" --json | tail -1) || vx_json='{"error": "volvox bench failed"}'
  ort_json=$(node "$BENCH/onnx/ort_bench_model.js" --model "$model" --input "${ORT_INPUT[$m]}" \
             --threads "$THREADS" --warmup "$WARMUP" --runs "$RUNS") || ort_json='{"error": "ort failed"}'
  load_after=$(cut -d' ' -f1 /proc/loadavg)
  results=$(jq -c --arg m "$m" --argjson v "$vx_json" --argjson o "$ort_json" \
               --arg lb "$load_before" --arg la "$load_after" \
               '. + [{model: $m, volvox: $v, ort: $o, loadavg_before: ($lb|tonumber), loadavg_after: ($la|tonumber)}]' \
               <<<"$results")
done

jq -n --argjson r "$results" --arg threads "$THREADS" --arg runs "$RUNS" --arg cpus "$(nproc)" \
   '{threads: ($threads|tonumber), runs: ($runs|tonumber), cpus: ($cpus|tonumber), results: $r}' >"$OUT/onnx_cpu.json"
{
  echo "# ONNX models on the CPU: volvox bench vs ONNX Runtime"
  echo
  echo "Threads: $THREADS, runs: $RUNS (median / min ms), machine: $(nproc) CPUs, shared (load average noted)."
  echo
  echo "| model | volvox median | volvox min | volvox engine | ORT median | ORT min | volvox / ORT (median) | load before / after |"
  echo "|---|---:|---:|---|---:|---:|---:|---|"
  jq -r '.results[] | "| \(.model) | \(.volvox.median_ms // "-" | if type=="number" then (.*100|round/100) else . end) | \(.volvox.min_ms // "-" | if type=="number" then (.*100|round/100) else . end) | \(.volvox.engine // .volvox.error) | \(.ort.median_ms // "-" | if type=="number" then (.*100|round/100) else . end) | \(.ort.min_ms // "-" | if type=="number" then (.*100|round/100) else . end) | \(if (.volvox.median_ms and .ort.median_ms) then (.volvox.median_ms / .ort.median_ms * 100 | round / 100) else "-" end) | \(.loadavg_before) / \(.loadavg_after) |"' \
     "$OUT/onnx_cpu.json"
} >"$OUT/onnx_cpu.md"
cat "$OUT/onnx_cpu.md"
