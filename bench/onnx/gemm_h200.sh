#!/usr/bin/env bash
# The GEMM kernels on the H200 (device tool), old against new in the same call:
#   1. test_parity's GEMM suites (the staged tensor-core kernel is only checked there: lavapipe has no
#      cooperative matrices) and the old cooperative-matrix suite;
#   2. `volvox bench` of one-MatMul models (make_gemm_models.py: the GPT-2 decoder's shapes at
#      seq 128, the LM head, a 2048^3 square) with VOLVOX_VK_GEMM=tiled (the old 64 x 64 kernel)
#      and auto (the new choice), fp32 and fp16 (plus simt at fp16);
#   3. the GPT-2 decoder (make_models.py gpt2) old vs new, fp32 and fp16, and with the
#      fuse_gelu + fuse_matmul_bias_act passes (a measurement build, volvox_fused); its logits
#      against `volvox run --device cpu`.
# Payload (prepared here): .gl/gemm/payload.tar.xz with volvox, volvox_fused, test_parity.
# Device command (carry .gl), from the repository root:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash .gl/gemm/gemm_h200.sh [STAGES]
# STAGES: any of "tests gemm gpt2 check" (default all). Writes $OUT/gemm_h200.json, gemm_h200.md
# and logs.
set -uo pipefail

# Run from the repository root; this script and make_gemm_models.py may be copied into .gl/gemm.
ROOT="$(pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-$ROOT/bench/out}"
STAGES="${*:-tests gemm gpt2 check}"
RUNS="${RUNS:-30}"
WARMUP="${WARMUP:-30}"
mkdir -p "$OUT" /tmp/vxlib /tmp/gemm /tmp/vx_models
tar -C /tmp -xJf "$ROOT/.gl/onnx/vxlib.tar.xz"
tar -C /tmp/gemm -xJf "$ROOT/.gl/gemm/payload.tar.xz"
export LD_LIBRARY_PATH=/tmp/vxlib
V=/tmp/gemm/volvox
VF=/tmp/gemm/volvox_fused
M=/tmp/vx_models
RES="$OUT/gemm_h200.jsonl"
: >"$RES"

has() { [[ " $STAGES " == *" $1 "* ]]; }
# PACK=FILE.tgz: every log and result so far in one archive after each stage (few files come back).
pack() { if [ -n "${PACK:-}" ]; then tar -C "$OUT" -czf "$PACK" .; fi; }

# Exports the decoder in the background (CPU) while the GPU stages run.
if has gpt2 || has check; then
  (VOLVOX_BENCH_MODELS=$M python3 "$ROOT/bench/onnx/make_models.py" gpt2 >"$OUT/make_models.log" 2>&1; touch $M/.gpt2_done) &
fi

# bench LABEL MODEL PRECISION GEMM_MODE BINARY [extra args]: one JSON line into $RES.
bench() {
  local label=$1 model=$2 precision=$3 mode=$4 bin=$5
  shift 5
  [ $SECONDS -gt "${DEADLINE:-100000}" ] && return  # DEADLINE: seconds after which nothing new starts
  local line
  # MODE[/sN]: VOLVOX_VK_GEMM=MODE, and VOLVOX_VK_SPLITK=N when given.
  local splitk=""
  [[ $mode == */s* ]] && splitk=${mode##*/s}
  line=$(VOLVOX_VK_GEMM=${mode%%/*} VOLVOX_VK_SPLITK=$splitk timeout 60 "$bin" bench "$model" --device vulkan --precision "$precision" \
         --runs "$RUNS" --warmup "$WARMUP" --json "$@" 2>>"$OUT/bench.log" | tail -1)
  [[ "$line" == \{* ]] || line='{"error": "bench failed"}'
  python3 -c 'import json,sys; j=json.loads(sys.argv[1]); j.update(label=sys.argv[2], precision=sys.argv[3], gemm=sys.argv[4]); print(json.dumps(j))' \
    "$line" "$label" "$precision" "$mode" >>"$RES"
}

if has tests; then
  VOLVOX_SHARED=/nonexistent timeout "${TEST_TIMEOUT:-45}" /tmp/gemm/test_parity \
    --gtest_filter="${TEST_FILTER:-*VulkanGemm*:*VulkanConv.CooperativeMatrix*:*VectorLoads*:*SplitK*}" >"$OUT/tests.log" 2>&1
  echo "tests rc=$?" >>"$OUT/tests.log"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests rc" "$OUT/tests.log"
  pack
fi

# Knobs (defaults: everything): which precisions and VOLVOX_VK_GEMM modes the one-MatMul models
# run at; the decoder cases as precision:mode:binary (plain = volvox, fused = volvox_fused); the
# checked outputs as precision:binary.
GEMM_PRECISIONS="${GEMM_PRECISIONS:-fp32 fp16}"
GEMM_MODES="${GEMM_MODES:-tiled auto}"
GPT2_CASES="${GPT2_CASES:-fp32:tiled:plain fp32:auto:plain fp16:tiled:plain fp16:auto:plain fp32:tiled:fused fp32:auto:fused fp16:tiled:fused fp16:auto:fused}"
CHECK_CASES="${CHECK_CASES:-fp32:plain fp16:plain fp32:fused fp16:fused}"

if has gemm; then
  python3 "$HERE/make_gemm_models.py" $M >/dev/null
  for name in qkv proj fc out lm_head square2048; do
    for p in $GEMM_PRECISIONS; do
      for mode in $GEMM_MODES; do bench "$name" "$M/gemm_$name.onnx" $p $mode $V; done
    done
  done
  pack
fi

if has gpt2 || has check; then
  for _ in $(seq 150); do [ -e $M/.gpt2_done ] && break; sleep 1; done
fi
G=$M/gpt2_decoder.onnx
if has check && [ -e $G ]; then  # the CPU reference, on the CPU while the GPU benches run
  python3 -c 'import numpy as np; np.save("/tmp/ids.npy", (np.arange(128, dtype=np.int64) * 7919 % 50257).reshape(1, 128))'
  (timeout 90 $V run $G --device cpu -i input_ids=/tmp/ids.npy -o /tmp/o_cpu >/dev/null 2>>"$OUT/check.log"; touch /tmp/o_cpu.done) &
fi
if has gpt2 && [ -e $G ]; then
  for c in $GPT2_CASES; do
    IFS=: read -r p mode kind <<<"$c"
    bin=$V label=gpt2
    [ "$kind" = fused ] && bin=$VF label=gpt2_fused
    bench $label $G $p $mode $bin --shape input_ids=1x128
  done
  pack
fi

if has check && [ -e $G ]; then
  for c in $CHECK_CASES; do
    [ $SECONDS -gt "${DEADLINE:-100000}" ] && break
    IFS=: read -r p kind <<<"$c"
    bin=$V tag=$p
    [ "$kind" = fused ] && bin=$VF tag=fused_$p
    timeout 30 $bin run $G --device vulkan --precision $p -i input_ids=/tmp/ids.npy -o /tmp/o_$tag --profile \
      >"$OUT/gpt2_${tag}_profile.txt" 2>>"$OUT/check.log"
  done
  for _ in $(seq 60); do [ -e /tmp/o_cpu.done ] && break; sleep 1; done
  python3 - "$OUT" <<'PY' >>"$OUT/check.log" 2>&1
import numpy as np, sys, json
ref = np.load("/tmp/o_cpu/logits.npy").astype(np.float64)
rows = {}
for tag in ["fp32", "fp16", "fused_fp32", "fused_fp16"]:
    try:
        got = np.load(f"/tmp/o_{tag}/logits.npy").astype(np.float64)
        err = float(np.abs(got - ref).max())
        rows[tag] = {"max_abs_err": err, "max_abs_ref": float(np.abs(ref).max()),
                     "argmax_agree": float((got.argmax(-1) == ref.argmax(-1)).mean())}
    except Exception as e:
        rows[tag] = {"error": str(e)}
print(json.dumps({"check": rows}))
open(sys.argv[1] + "/gemm_check.json", "w").write(json.dumps(rows, indent=1))
PY
  tail -3 "$OUT/check.log"
  pack
fi

python3 - "$RES" "$OUT" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows:
    by.setdefault((r["label"], r["precision"]), {})[r["gemm"] + ("" if "fused" not in r["label"] else "")] = r
shapes = {"qkv": (128, 768, 2304), "proj": (128, 768, 768), "fc": (128, 768, 3072), "out": (128, 3072, 768),
          "lm_head": (128, 768, 50257), "square2048": (2048, 2048, 2048)}
out = ["| product | precision | old tiled 64x64: GPU median (min) ms | new auto: GPU median (min) ms | simt | speed-up | new TFLOP/s |",
       "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
def t(r):
    if not r or "gpu_median_ms" not in r: return None
    return r["gpu_median_ms"], r["gpu_min_ms"]
for (label, p), d in by.items():
    old, new, simt = t(d.get("tiled")), t(d.get("auto")), t(d.get("simt"))
    f = lambda x: f"{x[0]:.3f} ({x[1]:.3f})" if x else "failed"
    flops = ""
    if label in shapes and new:
        m, k, n = shapes[label]
        flops = f"{2 * m * k * n / new[0] / 1e9:.1f}"
    sp = f"{old[0] / new[0]:.2f}x" if old and new else ""
    out.append(f"| {label} | {p} | {f(old)} | {f(new)} | {f(simt) if 'simt' in d else ''} | {sp} | {flops} |")
open(sys.argv[2] + "/gemm_h200.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
pack
