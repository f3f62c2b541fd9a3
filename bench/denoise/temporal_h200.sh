#!/usr/bin/env bash
# Issue 12 on the H200: the Vulkan temporal stage's tests (device buffers against TemporalStabilizer)
# and its cost on device buffers beside the whole denoiser (denoise_device_bench --temporal; the
# budget: 0.3 ms at 1920x1088 fp16). Runs on a machine where `bash bench/oidn/oidn_h200.sh unpack`
# has put the binaries into /tmp/h200run and `oidn_h200.sh run` (or this script) has unpacked
# ../shared from .gl3/weights (bench/oidn/prepare_oidn_h200.sh packs both). Logs and tables in $OUT.
set -uo pipefail
R=/tmp/h200run
for f in $R/*.deb; do dpkg -x "$f" /; done; ldconfig
[[ -d $R/shared ]] || tar -C $R -xJf .gl3/weights/shared.tar.xz
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH="$R/lib" VOLVOX_SHARED="$R/shared" VOLVOX_CLI="$R/bin/volvox"
OUT="${OUT:-bench/out}"
mkdir -p "$OUT"
timeout 300 $R/bin/test_denoise --gtest_filter='*Temporal*' >"$OUT/temporal_tests.log" 2>&1
echo "temporal tests rc=$?"
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" "$OUT/temporal_tests.log"
I=$R/shared/images
$R/bin/denoise_device_bench --weights $R/shared/weights/rt_hdr_alb_nrm.tza --color $I/noisy.png --albedo $I/albedo.png \
  --normal $I/normal.png --precisions fp16,fp32 --runs "${RUNS:-20}" --temporal --md "$OUT/temporal_bench.md" \
  >"$OUT/temporal_bench.log" 2>&1
echo "temporal bench rc=$?"
cat "$OUT/temporal_bench.md"
