#!/usr/bin/env bash
# Session 38, call 1: DeepLabV3's large products (the ASPP 3x3 layers, 256 x 8640 x 1089, and the
# classifier's 3x3, K 2304) on the staged kernel's 128 x 128 tile instead of 64 x 64 split 3.
# One binary (vx_new: main + two measurement switches, VOLVOX_VK_STAGED_TILE=128x128 and
# VOLVOX_VK_PROBE_LARGE_MIN_MACS=X: products of >= X multiply-adds on 128 x 128), torch.compile
# in the same call. Checks first: the staged GEMM's parity suite, as chosen and forced to 128 x 128.
# Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity
vx_parity 120 '*VulkanGemm*'
VOLVOX_VK_STAGED_TILE=128x128 timeout 90 /tmp/t/test_parity --gtest_filter='*StagedCooperativeMatrix*:*VulkanConv*' > "$R/parity_128.txt" 2>&1
echo "rc $?" >> "$R/parity_128.txt"; tail -3 "$R/parity_128.txt"; grep -E "^\[  FAILED|Failure|max" "$R/parity_128.txt" | head -20
vx_pack s38c1.tar.xz
python3 bench/onnx/make_gemm_models.py /tmp/g aspp_pad > "$R/gemm_models.txt" 2>&1
g() {  # TAG [ENV=VALUE ...]: the ASPP product alone, GPU time
  local tag=$1; shift
  env "$@" timeout 30 /tmp/t/vx_new bench /tmp/g/gemm_aspp_pad.onnx --device vulkan --precision fp16 \
    --runs 20 --warmup 5 --warmup-seconds 0.3 --io-binding --profile > "$R/p_$tag.txt" 2>&1
}
g auto VOLVOX_X=0
for s in auto 2 3 4 6 9 12; do
  e=VOLVOX_X=0; [ $s != auto ] && e=VOLVOX_VK_SPLITK=$s
  g l128_s$s VOLVOX_VK_STAGED_TILE=128x128 $e
done
g auto2 VOLVOX_X=0
(cd "$R" && for f in p_*.txt; do echo "$f $(sed -n 2p $f | sed 's/.*: median //') $(grep -o 'vulkan:[^ ]*' $f | head -1)"; done) > "$R/probes.txt"
cat "$R/probes.txt"; vx_pack s38c1.tar.xz
vx_export deeplabv3_mobilenet_v3_large
M=deeplabv3_mobilenet_v3_large
for round in 1 2 3; do
  vx_bench r${round}_deeplab_main vx_new $M VOLVOX_X=0
  vx_bench r${round}_deeplab_l5e8 vx_new $M VOLVOX_VK_PROBE_LARGE_MIN_MACS=5e8
  vx_bench r${round}_deeplab_l2e9 vx_new $M VOLVOX_VK_PROBE_LARGE_MIN_MACS=2e9
done
vx_summary; vx_pack s38c1.tar.xz
for e in main:VOLVOX_X=0 l5e8:VOLVOX_VK_PROBE_LARGE_MIN_MACS=5e8; do
  env "${e#*:}" timeout 40 /tmp/t/vx_new bench /tmp/m/$M.onnx --device vulkan --precision fp16 --shape "${S[$M]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_deeplab_${e%%:*}.txt" 2>&1
done
vx_pack s38c1.tar.xz
vx_torch deeplabv3_mobilenet_v3_large 150
vx_pack s38c1.tar.xz
