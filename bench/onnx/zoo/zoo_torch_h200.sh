#!/usr/bin/env bash
# The model zoo on the H200 (device tool), Volvox Vulkan against PyTorch on CUDA, batch 1, fp32 (TF32 off) and
# fp16, on the very same graphs: torch_zoo_gpu.py builds each model as make_zoo_models.py does, exports it there
# (legacy TorchScript exporter, opset 13, fixed shapes) to /tmp/zoo_torch and times it eager and with
# torch.compile(mode="reduce-overhead"); then `volvox bench --device vulkan` times each exported file. Both
# sides report the wall clock a caller waits per call (Volvox also its GPU time), the steady state after
# 5 warm-up runs and 2 s of sustained running (the GPU clock ramps under load), and the first call
# (torch.compile's includes compilation, cold caches).
#
# Prepare here (after building build/release/volvox):
#   bash bench/onnx/prepare_device_run.sh      # volvox + its Debian libraries -> .gl/onnx (carried)
# Device command (carry .gl), repository root:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/zoo/zoo_torch_h200.sh
# Environment: RUNS (timed runs, default 20), MODELS (comma- or space-separated subset; default
# torch_zoo_gpu.py's six), NO_COMPILE=1 (eager only), VOLVOX (default $PWD/.gl/onnx/volvox), TORCH_ARGS
# (extra torch_zoo_gpu.py arguments, e.g. "--device cpu" to try this script without CUDA). The device
# tool stops a command after 10 minutes: if the six models with compilation do not fit, split them with MODELS.
# Writes only $OUT/torch_zoo.json, $OUT/volvox_zoo.jsonl (one {"model", "precision", "result"} a line),
# $OUT/zoo_torch_h200.md and $OUT/zoo_torch.log (everything's stderr).
set -uo pipefail  # no -e: one failing model or engine must not stop the others
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 1
OUT="${OUT:-$PWD/bench/out}"
RUNS="${RUNS:-20}"
VOLVOX="${VOLVOX:-$PWD/.gl/onnx/volvox}"
DIR=/tmp/zoo_torch
LOG="$OUT/zoo_torch.log"
mkdir -p "$OUT" "$DIR" /tmp/vxlib
: >"$LOG"
: >"$OUT/volvox_zoo.jsonl"
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz 2>>"$LOG"
export LD_LIBRARY_PATH=/tmp/vxlib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >>"$LOG" 2>&1

# (a) PyTorch: exports the models and shapes.txt, times them. A stale shapes.txt from an earlier call on a
# warm machine must not stand in for this one's.
rm -f "$DIR/shapes.txt"
args=(--export-dir "$DIR" --json "$OUT/torch_zoo.json" --runs "$RUNS" --warmup 5 --warmup-seconds 2)
[[ -n "${MODELS:-}" ]] && args+=(--models "${MODELS// /,}")
[[ "${NO_COMPILE:-0}" == 1 ]] && args+=(--no-compile)
# shellcheck disable=SC2086  # TORCH_ARGS is split into arguments on purpose
python3 bench/onnx/zoo/torch_zoo_gpu.py "${args[@]}" ${TORCH_ARGS:-} >>"$LOG" 2>&1
echo "torch_zoo_gpu.py rc=$?" >>"$LOG"

# (b) Volvox on each exported model. Its stdout's last line is the JSON result; when that is missing, the
# last line of its stderr says why.
[[ -f "$DIR/shapes.txt" ]] || { echo "no $DIR/shapes.txt: nothing was exported" >>"$LOG"; touch "$DIR/shapes.txt"; }
err=/tmp/zoo_torch_vx_err.txt
while read -r name shape; do
  for p in fp32 fp16; do
    echo "== volvox $name $p" >>"$LOG"
    # </dev/null: nothing in the loop may read the shapes.txt lines from stdin.
    line=$(timeout 300 "$VOLVOX" bench "$DIR/$name.onnx" --device vulkan --precision "$p" --shape "$shape" \
           --runs "$RUNS" --warmup 5 --warmup-seconds 2 --json </dev/null 2>"$err" | tail -1)
    cat "$err" >>"$LOG"
    python3 -c '
import json, sys
model, prec, line, err = sys.argv[1:]
try:
    result = json.loads(line)
    assert isinstance(result, dict)
except Exception:
    result = {"error": err.strip() or "volvox bench printed no result (timed out or crashed)"}
print(json.dumps({"model": model, "precision": prec, "result": result}))' \
      "$name" "$p" "$line" "$(tail -1 "$err")" </dev/null >>"$OUT/volvox_zoo.jsonl" 2>>"$LOG"
  done
done <"$DIR/shapes.txt"
rm -f "$err"

# (c) One table: a row per model and precision.
python3 - "$OUT" <<'PY' 2>>"$LOG"
import json, os, sys
out = sys.argv[1]
torch = {}
if os.path.exists(f"{out}/torch_zoo.json"):
    torch = json.load(open(f"{out}/torch_zoo.json"))
volvox = {}
for line in open(f"{out}/volvox_zoo.jsonl"):
    r = json.loads(line)
    volvox[r["model"], r["precision"]] = r["result"]

def err(d):
    return "error: " + str(d["error"])[:80].replace("|", "/")

def wall(d):  # "median (min)" or why there is none
    if not d:
        return ""
    return err(d) if "median_ms" not in d else f"{d['median_ms']:.3f} ({d['min_ms']:.3f})"

def num(d, key, fmt):
    return fmt.format(d[key]) if d and key in d else ""

models = list(torch.get("models", {})) + sorted({m for m, _ in volvox} - set(torch.get("models", {})))
rows = [f"PyTorch {torch.get('torch', '?')} / torchvision {torch.get('torchvision', '?')} on {torch.get('gpu', '?')}; "
        "wall clock per call in ms, batch 1, median (min).", "",
        "| model | precision | Volvox wall | Volvox GPU median | torch eager wall | torch.compile wall | "
        "Volvox / compile | first call ms: Volvox / eager / compile | Volvox CPU nodes |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for m in models:
    t = torch.get("models", {}).get(m, {})
    for p in ("fp32", "fp16"):
        v = volvox.get((m, p), {})
        tp = t.get(p, {})  # {"error": ...} alone when the model could not be moved to this precision
        eager, comp = tp.get("eager", tp if "error" in tp else {}), tp.get("compile", {})
        ratio = f"{v['median_ms'] / comp['median_ms']:.2f}" if "median_ms" in v and "median_ms" in comp else ""
        first = " / ".join(num(d, k, "{:.1f}") or "-"
                           for d, k in ((v, "first_run_ms"), (eager, "first_ms"), (comp, "first_ms")))
        rows.append(f"| {m} | {p} | {wall(v)} | {num(v, 'gpu_median_ms', '{:.3f}')} | {wall(eager)} | {wall(comp)} | "
                    f"{ratio} | {first} | {v.get('cpu_fallback_nodes', '')} |")
    if "error" in t or str(t.get("export", "")).startswith("error"):
        rows.append(f"| {m} | | {err(t) if 'error' in t else 'export ' + t['export'][:80]} | | | | | | |")
open(f"{out}/zoo_torch_h200.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
