#!/usr/bin/env bash
# Session 34, call 4: PREPARED, NOT RUN (the device was refused five times; the budget ran out).
# vx_exp: branch s34-ln-threads (main at cb363cb, whose engine is call 3's
# vx_new, plus VOLVOX_VK_LN_REDUCE_THREADS=256|512 threads a row in gemm_reduce_layer_norm, 128
# without it); vx_base: call 1's branch build with VOLVOX_VK_IM2COL_KERNEL_ROWS=0 (main before this
# session). Packed by bench/onnx/pack_device_binaries.sh vx_exp=build/release/volvox
# test_ops=build/release/tests/ops/test_ops; .gl/zoo/cls.onnx is PaddleOCR's classifier
# (an npm model) copied from bench/models/zoo. This call: the op table's LayerNorm-in-reduce
# cases at 256 and 512 threads; fp32 base | new of DeepLabV3 and MobileNetV3 (the direct kernel's 4
# outputs an invocation run at both precisions) and both precisions of PaddleOCR's classifier; the
# encoder fp16 at 128 | 256 | 512 threads a row; interleaved rounds while the budget lasts (trimmed
# to what ~250 s of device time allows).
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_base vx_exp test_ops
for t in 256 512; do
  VOLVOX_VK_LN_REDUCE_THREADS=$t timeout 20 /tmp/t/test_ops --gtest_filter='*FusedMatMul_layer_norm_vulkan*' > $R/ops_t$t.txt 2>&1
  echo "threads $t: test_ops rc $?" | tee -a $R/ops_t$t.txt
done
vx_export transformer_encoder,deeplabv3_mobilenet_v3_large,mobilenet_v3_large
cp .gl/zoo/cls.onnx /tmp/m/cls.onnx
S[cls]=x=1x3x48x192
B=VOLVOX_VK_IM2COL_KERNEL_ROWS=0
# vx_bench_at TAG BIN MODEL PRECISION ENV=V: vx_bench at a given precision.
vx_bench_at() {
  local tag=$1 bin=$2 model=$3 precision=$4
  shift 4
  env "$@" timeout 40 "/tmp/t/$bin" bench "/tmp/m/$model.onnx" --device vulkan --precision $precision --shape "${S[$model]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > "$R/$tag.txt" 2>&1
}
vx_bench_at ramp vx_exp deeplabv3_mobilenet_v3_large fp32 VOLVOX_X=0
for round in 1 2 3; do
  (( SECONDS > 160 )) && break
  for t in 128 256 512; do
    vx_bench_at r${round}_transformer_encoder_fp16_t$t vx_exp transformer_encoder fp16 VOLVOX_VK_LN_REDUCE_THREADS=$t
  done
  for model in deeplabv3_mobilenet_v3_large mobilenet_v3_large cls; do
    for precision in fp32 fp16; do
      [[ $precision == fp16 && $model != cls ]] && continue  # fp16 of these: call 3
      vx_bench_at r${round}_${model}_${precision}_base vx_base $model $precision $B
      vx_bench_at r${round}_${model}_${precision}_new vx_exp $model $precision VOLVOX_X=0
    done
  done
  echo "round $round done at ${SECONDS}s"
  vx_summary > /dev/null; vx_pack s34c4.tar.xz
done
vx_summary; vx_pack s34c4.tar.xz
