#!/usr/bin/env bash
# The model zoo on the H200 (device tool), Vulkan fp32 and fp16: `volvox bench --device vulkan`
# wall clock and GPU time per model, the GEMM choice (VOLVOX_VK_GEMM=auto, the default, against
# coopmat: tensor cores for im2col convolutions too) at fp16, and a per-node profile at fp16. The
# exported U-Net at 1920x1088 runs beside the native denoiser network (vulkan_unet_bench) in the
# same call.
#
# Prepare here (models are git-ignored and must travel in .gl; the carry limit is 64 MiB):
#   bash bench/onnx/prepare_device_run.sh                       # volvox + its libraries -> .gl/onnx
#   mkdir -p .gl/zoo && tar -C build/release -cJf .gl/zoo/bins.tar.xz --transform 's|.*/||' \
#     tests/test_parity tests/ops/test_ops bench/vulkan/vulkan_unet_bench
#   (cd bench/models/zoo && tar -cJf ../../../.gl/zoo/models.tar.xz unet_hdr_alb_nrm.onnx \
#     ch_PP-OCRv4_det_infer.onnx ch_ppocr_mobile_v2.0_cls_infer.onnx oww_embedding_model.onnx oww_melspectrogram.onnx)
# Device command (carry .gl), repository root:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/zoo/zoo_vulkan_h200.sh
# First the cooperative-matrix tests (lavapipe has none) and the op table's conv cases on the GPU.
# Writes $OUT/parity.log, $OUT/ops.log, $OUT/zoo_vulkan.jsonl (one line per model, precision and GEMM choice), $OUT/profile_*.txt,
# $OUT/unet_native.json.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}"
RUNS="${RUNS:-20}"
mkdir -p "$OUT" /tmp/vxlib
tar -C /tmp -xJf "$ROOT/.gl/onnx/vxlib.tar.xz"
export LD_LIBRARY_PATH=/tmp/vxlib
VOLVOX="$ROOT/.gl/onnx/volvox"
Z=/tmp/zoo
mkdir -p $Z && tar -C $Z -xJf "$ROOT/.gl/zoo/bins.tar.xz" && tar -C $Z -xJf "$ROOT/.gl/zoo/models.tar.xz"
timeout 200 $Z/test_parity --gtest_filter="${PARITY_FILTER:-*Coopmat*:*CooperativeMatrix*:*VulkanUNet*}" >"$OUT/parity.log" 2>&1
echo "parity rc=$?" >>"$OUT/parity.log"
timeout 120 $Z/test_ops --gtest_filter="${OPS_FILTER:-*Conv*:*MatMul*:*Gemm*}" >"$OUT/ops.log" 2>&1
echo "ops rc=$?" >>"$OUT/ops.log"
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=" "$OUT/parity.log" "$OUT/ops.log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >"$OUT/gpu.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__)' >"$OUT/python.txt" 2>&1
python3 -c 'import torchvision; print("torchvision", torchvision.__version__)' >>"$OUT/python.txt" 2>&1

declare -A SHAPE=(
  [unet_hdr_alb_nrm]="input=1x9x1088x1920"
  [ch_PP-OCRv4_det_infer]="x=1x3x640x640"
  [ch_ppocr_mobile_v2.0_cls_infer]="x=1x3x48x192"
  [oww_embedding_model]="input_1=1x76x32x1"
  [oww_melspectrogram]="input=1x16000"
)
bench() {  # model precision gemm [extra args]
  local m=$1 p=$2 g=$3
  shift 3
  local line
  line=$(VOLVOX_VK_GEMM=$g "$VOLVOX" bench "$Z/$m.onnx" --device vulkan --precision "$p" --shape "${SHAPE[$m]}" \
         --runs "$RUNS" --warmup 5 --warmup-seconds 2 --json "$@" 2>"$OUT/err_${m}_${p}_${g}.txt" | tail -1)
  [[ "$line" == "{"* ]] || line="{\"error\": \"$(tail -1 "$OUT/err_${m}_${p}_${g}.txt" | tr -d '"\\')\"}"
  echo "{\"model\": \"$m\", \"precision\": \"$p\", \"gemm\": \"$g\", \"result\": $line}" >>"$OUT/zoo_vulkan.jsonl"
}
: >"$OUT/zoo_vulkan.jsonl"
for m in "${!SHAPE[@]}"; do
  bench "$m" fp32 auto
  bench "$m" fp16 auto
  bench "$m" fp16 coopmat
  VOLVOX_VK_GEMM=auto "$VOLVOX" bench "$Z/$m.onnx" --device vulkan --precision fp16 --shape "${SHAPE[$m]}" \
    --runs 10 --warmup 3 --profile >"$OUT/profile_${m}_fp16.txt" 2>&1
done
"$Z/vulkan_unet_bench" --configs "fp16:auto;fp32:auto" --sizes 1088x1920 --runs "$RUNS" --json "$OUT/unet_native.json" \
  >"$OUT/unet_native.log" 2>&1
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
rows = ["| model | precision | GEMM | wall median (min) ms | GPU median ms | first run ms | CPU nodes |", "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
for line in open(f"{out}/zoo_vulkan.jsonl"):
    r = json.loads(line); v = r["result"]
    if "median_ms" not in v:
        rows.append(f"| {r['model']} | {r['precision']} | {r['gemm']} | {v.get('error', 'failed')} | | | |"); continue
    rows.append(f"| {r['model']} | {r['precision']} | {r['gemm']} | {v['median_ms']:.3f} ({v['min_ms']:.3f}) | "
                f"{v.get('gpu_median_ms', float('nan')):.3f} | {v.get('first_run_ms', float('nan')):.1f} | {v.get('cpu_fallback_nodes', '')} |")
open(f"{out}/zoo_vulkan.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
cat "$OUT/unet_native.log" | tail -8
cat "$OUT/python.txt"
