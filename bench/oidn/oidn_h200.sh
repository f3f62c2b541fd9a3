#!/usr/bin/env bash
# The OIDN drop-in on the H200, in two device calls (bench/oidn/prepare_oidn_h200.sh packs .gl3):
#   1. carry .gl3/run:     bash bench/oidn/oidn_h200.sh unpack   (into /tmp/h200run, kept while warm)
#   2. carry .gl3/weights: bash bench/oidn/oidn_h200.sh run
# "run": the OIDN-API test suite (tests/oidn) and the denoiser's every-weight-set and prefilter
# tests with all 21 weight files on the H200's Vulkan device; OIDN 2.4's own test suite (oidnTest,
# built against OIDN's headers) on the DEFAULT device (the H200); and oidnExecuteFilter on device
# buffers against the native filter (denoise_device_bench --oidn-api), and the whole denoiser at high
# and balanced quality (fastMath: fp16 accumulators) with each output's PSNR against fp32. Logs and
# tables in $OUT.
set -uo pipefail
R=/tmp/h200run  # outside the working copy: kept between calls on a warm machine
if [[ "${1:-}" == unpack ]]; then
  rm -rf $R && mkdir -p $R/lib $R/bin
  tar -C $R/lib -xJf .gl3/run/vxlib.tar.xz --strip-components=1
  tar -C $R/bin -xJf .gl3/run/payload.tar.xz
  tar -C $R/bin -xJf .gl3/run/oidn_apps.tar.xz
  mv $R/bin/lib*.so.* $R/lib/
  ln -sf libOpenImageDenoise.so.2.4.1 $R/lib/libOpenImageDenoise.so.2
  ln -sf libvolvox.so.0.1.0 $R/lib/libvolvox.so.0
  cp .gl3/run/*.deb $R/
  ls -R $R | head -50
  exit 0
fi
for f in $R/*.deb; do dpkg -x "$f" /; done; ldconfig
tar -C $R -xJf .gl3/weights/shared.tar.xz
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH="$R/lib" VOLVOX_SHARED="$R/shared" VOLVOX_CLI="$R/bin/volvox"
export VOLVOX_WEIGHTS="$PWD/.gl3/weights"
OUT="${OUT:-bench/out}"
mkdir -p "$OUT"
timeout 300 $R/bin/test_oidn_api >"$OUT/oidn_api.log" 2>&1
echo "oidn_api rc=$?" | tee -a "$OUT/oidn_api.log"
timeout 300 $R/bin/test_denoise --gtest_filter='EveryWeightSet*:PrefilterVulkan*:VulkanDenoise*' >"$OUT/denoise.log" 2>&1
echo "denoise rc=$?" | tee -a "$OUT/denoise.log"
# The cooperative-matrix kernels, those with fp16 accumulators (fastMath) included, against the CPU.
timeout 300 $R/bin/test_parity --gtest_filter='*Coopmat*' >"$OUT/coopmat.log" 2>&1
echo "coopmat rc=$?" | tee -a "$OUT/coopmat.log"
for t in '[physical_device]' '[device]' '[buffer]' '[buffer_rw]' '[single_filter]' '[multi_filter]' '[single_device]' \
         '[multi_device]' '[shared_image]' '[inplace_filter]' '[filter_update]' '[async_filter]' '[size]' \
         '[sanitization]' '[progress]' '[user_weights]'; do
  log="$OUT/oidnTest_$(tr -d '[]' <<<"$t").log"
  timeout 120 $R/bin/oidnTest "$t" >"$log" 2>&1
  echo "oidnTest $t rc=$? $(grep -E 'All tests passed|test cases:' "$log" | tail -1)" | tee -a "$OUT/oidnTest.txt"
done
grep -hE "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/oidn_api.log" "$OUT/denoise.log" "$OUT/coopmat.log"
grep -h -A30 'EveryWeightSet' "$OUT/denoise.log" | grep -iE 'psnr|worst|max|skipp' | head -10
I=$R/shared/images
$R/bin/denoise_device_bench --weights .gl3/weights/rt_hdr_alb_nrm.tza --color $I/noisy.png --albedo $I/albedo.png \
  --normal $I/normal.png --precisions fp32,fp16 --qualities high,balanced --runs "${RUNS:-20}" --oidn-api --md "$OUT/oidn_api_bench.md" \
  >"$OUT/oidn_api_bench.log" 2>&1
echo "bench rc=$?"
cat "$OUT/oidn_api_bench.md"
