#!/usr/bin/env bash
# CPU denoiser benchmark: Volvox (`volvox denoise ... --json`) against ONNX Runtime's CPU provider on
# the same network (OIDN's base U-Net, 9 input channels) and the same image sizes.
# Writes bench/out/cpu_denoise.json and bench/out/cpu_denoise.md (size, volvox ms, ORT ms, ratio).
#
# Environment (all optional):
#   SIZES=1920x1080,3840x2160   image sizes WIDTHxHEIGHT (padded to multiples of 16 for the network)
#   THREADS=2 WARMUP=1 RUNS=5   threads and repetitions for both peers
#   VOLVOX=build/release/volvox the volvox binary
#   WEIGHTS=<tza>               OIDN weights (default: $VOLVOX_SHARED/weights/rt_hdr_alb_nrm.tza, else
#                               ../shared/weights/..., else random weights for ORT)
#   VOLVOX_DENOISE_ARGS         volvox denoise arguments with {color} {albedo} {normal} {output}
#                               {weights} {threads} placeholders (default below)
#   SKIP_VOLVOX=1 / SKIP_ORT=1  run one peer only (SKIP_ORT keeps the last bench/out/ort_cpu.json)
#   PYTHON=/usr/bin/python3     a Python with Debian's python3-torch (for the ONNX export)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH="$ROOT/bench"
OUT="$BENCH/out"
SIZES="${SIZES:-1920x1080,3840x2160}"
THREADS="${THREADS:-2}"
WARMUP="${WARMUP:-1}"
RUNS="${RUNS:-5}"
VOLVOX="${VOLVOX:-$ROOT/build/release/volvox}"
PYTHON="${PYTHON:-/usr/bin/python3}"
DEFAULT_DENOISE_ARGS='--hdr --color {color} --albedo {albedo} --normal {normal} --output {output} --weights {weights} --threads {threads} --json'
VOLVOX_DENOISE_ARGS="${VOLVOX_DENOISE_ARGS:-$DEFAULT_DENOISE_ARGS}"
mkdir -p "$OUT"

if [[ -z "${WEIGHTS:-}" ]]; then
  for dir in "${VOLVOX_SHARED:-}" "$ROOT/../shared"; do
    if [[ -n "$dir" && -f "$dir/weights/rt_hdr_alb_nrm.tza" ]]; then WEIGHTS="$dir/weights/rt_hdr_alb_nrm.tza"; break; fi
  done
fi
WEIGHTS="${WEIGHTS:-}"

# ---- ONNX Runtime ----
ORT_JSON="$OUT/ort_cpu.json"
if [[ "${SKIP_ORT:-0}" != 1 ]]; then
  if [[ ! -d "$BENCH/node_modules/onnxruntime-node" ]]; then
    (cd "$BENCH" && npm install --no-audit --no-fund >&2)
  fi
  if [[ -n "$WEIGHTS" ]]; then
    MODEL="$BENCH/models/unet_base_ic9_$(basename "$WEIGHTS" .tza).onnx"
    EXPORT_ARGS=(--weights "$WEIGHTS")
  else
    MODEL="$BENCH/models/unet_base_ic9_random.onnx"
    EXPORT_ARGS=(--variant base --ic 9)
  fi
  if [[ ! -f "$MODEL" ]]; then
    "$PYTHON" "$BENCH/denoise/export_unet_onnx.py" "${EXPORT_ARGS[@]}" --out "$MODEL" >&2
  fi
  node "$BENCH/denoise/ort_bench.js" --model "$MODEL" --sizes "$SIZES" --threads "$THREADS" \
       --warmup "$WARMUP" --runs "$RUNS" --json "$ORT_JSON" >/dev/null
fi

# ---- Volvox ----
# Runs `volvox denoise` WARMUP+RUNS times per size on synthetic PFM inputs and keeps the median of each
# timing field of its JSON line. Anything missing (binary, subcommand, weights, a failing run) is
# recorded as "not available" with the reason, so the ORT half is never lost.
VOLVOX_JSON="$OUT/volvox_cpu.json"
volvox_unavailable() {
  printf '{"available": false, "reason": %s}\n' "$("$PYTHON" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1")" > "$VOLVOX_JSON"
  echo "volvox: not available: $1" >&2
}
if [[ "${SKIP_VOLVOX:-0}" == 1 ]]; then
  volvox_unavailable "skipped (SKIP_VOLVOX=1)"
elif [[ ! -x "$VOLVOX" ]]; then
  volvox_unavailable "no binary at $VOLVOX (build it: ninja -C build/release volvox_cli)"
elif ! grep -qE '^[[:space:]]+denoise([[:space:]]|$)' <<< "$("$VOLVOX" --help 2>/dev/null || true)"; then
  # (not `volvox denoise --help`: CLI11 answers the top-level help with status 0 for an unknown command)
  volvox_unavailable "$VOLVOX has no 'denoise' subcommand"
elif [[ -z "$WEIGHTS" ]]; then
  volvox_unavailable "no OIDN weights (set WEIGHTS=rt_hdr_alb_nrm.tza or VOLVOX_SHARED)"
else
  INPUTS="$OUT/inputs"
  mkdir -p "$INPUTS"
  "$PYTHON" - "$INPUTS" "$SIZES" <<'EOF'
import os, sys, numpy as np
folder, sizes = sys.argv[1], sys.argv[2].split(',')
def write_pfm(path, rgb):  # PFM: bottom row first, little-endian (negative scale)
    h, w, _ = rgb.shape
    with open(path, 'wb') as f:
        f.write(b'PF\n%d %d\n-1.0\n' % (w, h))
        f.write(np.ascontiguousarray(rgb[::-1], dtype='<f4').tobytes())
rng = np.random.default_rng(7)
for size in sizes:
    w, h = map(int, size.split('x'))
    for name, lo, hi in (('color', 0.0, 4.0), ('albedo', 0.0, 1.0), ('normal', -1.0, 1.0)):
        path = os.path.join(folder, f'{name}_{w}x{h}.pfm')
        if not os.path.exists(path):
            write_pfm(path, rng.uniform(lo, hi, (h, w, 3)).astype(np.float32))
EOF
  RESULTS="$OUT/volvox_runs.jsonl"
  : > "$RESULTS"
  status=ok
  IFS=',' read -ra SIZE_LIST <<< "$SIZES"
  for size in "${SIZE_LIST[@]}"; do
    args="${VOLVOX_DENOISE_ARGS//\{color\}/$INPUTS/color_$size.pfm}"
    args="${args//\{albedo\}/$INPUTS/albedo_$size.pfm}"
    args="${args//\{normal\}/$INPUTS/normal_$size.pfm}"
    args="${args//\{output\}/$INPUTS/denoised_$size.pfm}"
    args="${args//\{weights\}/$WEIGHTS}"
    args="${args//\{threads\}/$THREADS}"
    # One process per size: --repeat runs the warm-up and timed runs back to back, a JSON line each.
    # shellcheck disable=SC2086  # the argument template is split on spaces on purpose
    if ! "$VOLVOX" denoise $args --repeat $((WARMUP + RUNS)) 2>"$OUT/volvox_stderr.txt" | grep '"ms_total"' > "$OUT/volvox_lines.txt"; then
      status="volvox denoise failed or printed no JSON timing line for $size: $(tail -n 1 "$OUT/volvox_stderr.txt" 2>/dev/null)"
      break
    fi
    tail -n +$((WARMUP + 1)) "$OUT/volvox_lines.txt" | while read -r line; do
      printf '{"size": "%s", "result": %s}\n' "$size" "$line" >> "$RESULTS"
    done
  done
  if [[ "$status" != ok ]]; then
    volvox_unavailable "$status"
  else
    "$PYTHON" - "$RESULTS" "$VOLVOX_JSON" "$THREADS" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by_size = {}
for r in rows:
    by_size.setdefault(r['size'], []).append(r['result'])
results = []
for size, runs in by_size.items():
    w, h = map(int, size.split('x'))
    row = dict(width=w, height=h, runs=len(runs))
    for field in ('ms_total', 'ms_network'):
        values = [float(r[field]) for r in runs if isinstance(r.get(field), (int, float))]
        if values:
            row[field + '_median'] = round(statistics.median(values), 1)
            row[field + '_min'] = round(min(values), 1)
    results.append(row)
json.dump(dict(available=True, threads=int(sys.argv[3]), results=results), open(sys.argv[2], 'w'), indent=1)
EOF
  fi
fi

# ---- combine into JSON and Markdown ----
"$PYTHON" - "$ORT_JSON" "$VOLVOX_JSON" "$OUT/cpu_denoise.json" "$OUT/cpu_denoise.md" "$SIZES" <<'EOF'
import json, os, sys
ort_path, vx_path, json_out, md_out, sizes = sys.argv[1:6]
ort = json.load(open(ort_path)) if os.path.exists(ort_path) else None
vx = json.load(open(vx_path))
rows = []
for size in sizes.split(','):
    w, h = map(int, size.split('x'))
    o = next((r for r in (ort or {}).get('results', []) if (r['width'], r['height']) == (w, h)), None)
    v = next((r for r in vx.get('results', []) if (r['width'], r['height']) == (w, h)), None)
    ort_ms = o['median_ms'] if o else None
    vx_total = v.get('ms_total_median') if v else None
    vx_net = v.get('ms_network_median') if v else None
    vx_ms = vx_net if vx_net is not None else vx_total  # ORT times the network alone
    ratio = round(vx_ms / ort_ms, 3) if vx_ms and ort_ms else None
    rows.append(dict(width=w, height=h, volvox_ms_network=vx_net, volvox_ms_total=vx_total,
                     ort_ms=ort_ms, ort_min_ms=o['min_ms'] if o else None, ratio_volvox_over_ort=ratio))
report = dict(benchmark='cpu_denoise', network='OIDN base U-Net, 9 input channels', ort=ort,
              volvox=vx if vx.get('available') else 'not available', volvox_reason=vx.get('reason'), rows=rows)
json.dump(report, open(json_out, 'w'), indent=1)
fmt = lambda x: 'not available' if x is None else f'{x:.1f}' if isinstance(x, float) else str(x)
with open(md_out, 'w') as f:
    threads = (ort or {}).get('threads', '?')
    f.write(f"# CPU denoise: Volvox vs ONNX Runtime ({threads} threads, {(ort or {}).get('cpu', '?')})\n\n")
    f.write('| size | volvox ms (network) | volvox ms (total) | ORT ms (median) | ORT ms (min) | ratio volvox/ORT |\n')
    f.write('| --- | --- | --- | --- | --- | --- |\n')
    for r in rows:
        f.write(f"| {r['width']}x{r['height']} | {fmt(r['volvox_ms_network'])} | {fmt(r['volvox_ms_total'])} | "
                f"{fmt(r['ort_ms'])} | {fmt(r['ort_min_ms'])} | {fmt(r['ratio_volvox_over_ort'])} |\n")
    if not vx.get('available'):
        f.write(f"\nVolvox: not available ({vx.get('reason')}).\n")
    if ort:
        f.write(f"\nMachine load (1-minute average) when the runner finished: {os.getloadavg()[0]:.1f}.\n")
        f.write(f"\nORT: onnxruntime-node {ort.get('ort_version')}, CPU provider, median of {ort['results'][0]['runs']} runs "
                f"after warm-up; sides padded to multiples of 16; weights {ort.get('weights')}.\n")
print(open(md_out).read())
EOF
