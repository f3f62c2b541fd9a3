# The steps every device call's script repeats (bench/onnx/results/*/run.sh), sourced by it:
#   source bench/onnx/device_lib.sh
#   vx_setup vx_base vx_new test_parity   # .gl/t/binaries.tar.xz -> /tmp/t/NAME; the libraries they link
#   vx_parity 300                         # the GPU suites of /tmp/t/test_parity into $R/parity.txt
#   vx_export transformer_encoder,resnet50
#   vx_outputs "resnet50 transformer_encoder" base:vx_base new:vx_new:VOLVOX_X=1
#   vx_bench r1_resnet50_base vx_base resnet50 VOLVOX_X=0
#   vx_step_probe                         # bench/vulkan/gemm_step_probe into $R/probe.txt
#   vx_profile vx_new resnet50            # per-node GPU times into $R/prof_resnet50_vx_new.txt
#   vx_summary; vx_pack s33a.tar.xz
#   vx_torch transformer_encoder,resnet50 150
# Results go under $R ($OUT/r); only 8 files come back one by one, so vx_pack tars $R into $OUT.
# The binaries are packed here by bench/onnx/pack_device_binaries.sh. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash <results>/run.sh
R=${R:-$OUT/r}
mkdir -p "$R" /tmp/t /tmp/m

# vx_setup NAME...: unpacks the Debian libraries (.gl/onnx/vxlib.tar.xz) and the binaries
# (.gl/t/binaries.tar.xz) into /tmp/t, fails the call where a NAME is missing; records the GPU.
vx_setup() {
  tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
  export LD_LIBRARY_PATH=/tmp/vxlib
  tar -C /tmp/t -xJf .gl/t/binaries.tar.xz
  local n
  for n in "$@"; do [[ -x "/tmp/t/$n" ]] || { echo "vx_setup: /tmp/t/$n was not packed" >&2; exit 1; }; done
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$R/gpu.txt" 2>&1
  cat "$R/gpu.txt"
}

# vx_parity SECONDS [FILTER] [BIN]: test_parity's GPU suites (by default the cooperative-matrix,
# GEMM, runner and conv ones) of the packed binary BIN (test_parity), into $R/parity.txt (another
# BIN: $R/parity_BIN.txt). A cold driver cache compiles every pipeline first: the denoiser's
# coopmat variant suites alone took 105 s on the H200 (session 32), so give it >= 240 s.
vx_parity() {
  local seconds=$1 filter=${2:-'*CooperativeMatrix*:*Coopmat*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*'}
  local bin=${3:-test_parity} out="$R/parity.txt"
  [[ "$bin" != test_parity ]] && out="$R/parity_$bin.txt"
  timeout "$seconds" "/tmp/t/$bin" --gtest_filter="$filter" > "$out" 2>&1
  echo "$bin rc $?" >> "$out"
  tail -3 "$out"
  grep -E "^\[  FAILED" "$out" || true
}

# vx_export MODELS: the zoo models PyTorch has (comma-separated) exported as /tmp/m/MODEL.onnx;
# their input shapes in the associative array S (for `volvox bench --shape`).
declare -A S
vx_export() {
  timeout 120 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json "$R/torch_eager.json" --runs 3 \
    --warmup 1 --warmup-seconds 0 --no-compile --models "$1" > "$R/torch_export.log" 2>&1
  local name shape
  while read -r name shape; do S[$name]=$shape; done < /tmp/m/shapes.txt
}

# vx_outputs "MODEL ..." TAG:BIN[:ENV=VALUE] ...: each model (exported by vx_export) run on a seeded
# random input by the CPU at fp32 (the first arm's binary) and by each arm on the GPU at fp16; the
# max |diff| over the peak of each output, an arm against the CPU, into $R/outputs.txt.
vx_outputs() {
  local models=$1 m spec name dims arm tag bin envs cpu_bin=""
  shift
  mkdir -p /tmp/o
  for m in $models; do
    spec=${S[$m]}; name=${spec%%=*}; dims=${spec#*=}
    python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/o/x_$m.npy', n.random.rand(*[int(d) for d in '$dims'.split('x')]).astype(n.float32))"
    for arm in "$@"; do
      IFS=: read -r tag bin envs <<< "$arm"
      if [[ -z "$cpu_bin" ]]; then
        cpu_bin=$bin
        timeout 120 "/tmp/t/$cpu_bin" run "/tmp/m/$m.onnx" -i "$name=/tmp/o/x_$m.npy" -o "/tmp/o/${m}_cpu" > /dev/null 2>&1
      fi
      env $envs timeout 60 "/tmp/t/$bin" run "/tmp/m/$m.onnx" -i "$name=/tmp/o/x_$m.npy" -o "/tmp/o/${m}_$tag" \
        --device vulkan --precision fp16 > /dev/null 2>&1
    done
    cpu_bin=""
  done
  python3 - "$models" "$@" > "$R/outputs.txt" 2>&1 <<'PY'
import glob, os, sys
import numpy as n
tags = [a.split(":")[0] for a in sys.argv[2:]]
for m in sys.argv[1].split():
    for f in sorted(glob.glob(f"/tmp/o/{m}_cpu/*.npy")):
        ref = n.load(f).astype(n.float64)
        for tag in tags:
            g = f.replace("_cpu/", f"_{tag}/")
            if not os.path.exists(g):
                print(m, tag, "no output"); continue
            got = n.load(g).astype(n.float64)
            print(m, tag, os.path.basename(f), "max|diff|/peak", float(n.abs(got - ref).max() / max(1.0, n.abs(ref).max())))
PY
  cat "$R/outputs.txt"
}

# vx_step_probe [FLAG ...]: bench/vulkan/gemm_step_probe (packed as "probe", its SPIR-V beside the
# binaries in .gl/t) with the flags given (e.g. --chain-only 1) into $R/probe.txt; prints the chain table.
vx_step_probe() {
  cp .gl/t/gemm_step_probe.spv /tmp/t/
  timeout 200 /tmp/t/probe --runs 15 --warmup-ms 200 "$@" > "$R/probe.txt" 2>&1
  echo "probe rc $?" >> "$R/probe.txt"
  tail -12 "$R/probe.txt"
}

# vx_bench TAG BIN MODEL [ENV=VALUE ...]: `volvox bench` of /tmp/m/MODEL.onnx at fp16 with IO binding,
# 30 runs after 5 and 1 s, into $R/TAG.txt (an environment is needed: pass VOLVOX_X=0 for none).
vx_bench() {
  local tag=$1 bin=$2 model=$3
  shift 3
  env "$@" timeout 40 "/tmp/t/$bin" bench "/tmp/m/$model.onnx" --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > "$R/$tag.txt" 2>&1
}

# vx_bench_round N "MODEL ..." "BIN ...": round N of vx_bench, each model by each binary in turn
# (interleaved), into $R/rN_MODEL_BIN.txt.
vx_bench_round() {
  local m arm
  for m in $2; do
    for arm in $3; do vx_bench "r$1_${m}_$arm" "$arm" "$m" VOLVOX_X=0; done
  done
}

# vx_profile BIN MODEL: `volvox bench --profile` of /tmp/m/MODEL.onnx at fp16 with IO binding, 20 runs
# after 5 and 1 s, into $R/prof_MODEL_BIN.txt (per-node GPU times).
vx_profile() {
  timeout 40 "/tmp/t/$1" bench "/tmp/m/$2.onnx" --device vulkan --precision fp16 --shape "${S[$2]}" --runs 20 \
    --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_$2_$1.txt" 2>&1
}

# vx_summary: one line per r*_*.txt of $R (any run count): wall median and min, GPU median and min, into
# $R/summary.txt.
vx_summary() {
  (cd "$R" && for f in r*_*.txt; do
    echo "$f $(head -2 "$f" | sed 's/.*: [0-9]* runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"
  done) > "$R/summary.txt"
  cat "$R/summary.txt"
}

# vx_pack ARCHIVE: $R as $OUT/ARCHIVE (call it after each stage: what ran comes back if a later one
# overruns the call's limit).
vx_pack() { (cd "$OUT" && tar -cJf "$1" "$(basename "$R")"); }

# vx_torch MODELS SECONDS [TAG [ARG...]]: PyTorch eager and torch.compile (reduce-overhead), fp32 and
# fp16, 20 runs after 5 and 1 s, on the models (comma-separated), into $R/torch.json and $R/torch.log
# ($R/torch_TAG.* with a TAG; ARGs go to torch_zoo_gpu.py, e.g. --no-eager --precisions fp16 --runs 100).
vx_torch() {
  local models=$1 seconds=$2 name=torch${3:+_$3}
  shift 2
  if [[ $# -gt 0 ]]; then shift; fi
  timeout "$seconds" python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m2 --json "$R/$name.json" --runs 20 --warmup 5 \
    --warmup-seconds 1 --models "$models" "$@" > "$R/$name.log" 2>&1
  grep "compile" "$R/$name.log" | grep -v Warning || true
}
