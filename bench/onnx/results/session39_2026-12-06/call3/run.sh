#!/usr/bin/env bash
# Session 39, call 3: where the tensor-core projection's time goes (a probe binary: call 2's code
# plus VOLVOX_VK_PROJECTION_PROBE, results wrong by design, not kept; its diff is beside this
# script): "no_product" returns after the attention (the node is then the attention writing Y to
# shared memory plus the reduce pass of 8 splits), "one_store" computes every product but stores one
# N fragment a subgroup. Against "new" (the whole projection) and "row" (the two kernels in a row).
# Built from branch s39-attention-projection (8e3e781); packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new
vx_export transformer_encoder
P="VOLVOX_VK_ATTENTION_PROJECTION=tensor_cores"
for round in 1 2; do
  vx_bench r${round}_transformer_encoder_row vx_new transformer_encoder VOLVOX_VK_ATTENTION_PROJECTION=in_a_row
  vx_bench r${round}_transformer_encoder_new vx_new transformer_encoder $P
  vx_bench r${round}_transformer_encoder_noproduct vx_new transformer_encoder $P VOLVOX_VK_PROJECTION_PROBE=no_product
  vx_bench r${round}_transformer_encoder_onestore vx_new transformer_encoder $P VOLVOX_VK_PROJECTION_PROBE=one_store
done
vx_summary
for arm in no_product one_store; do
  env $P VOLVOX_VK_PROJECTION_PROBE=$arm timeout 40 /tmp/t/vx_new bench /tmp/m/transformer_encoder.onnx \
    --device vulkan --precision fp16 --shape "${S[transformer_encoder]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile \
    > "$R/prof_transformer_encoder_$arm.txt" 2>&1
  grep -E "^/layers.0/self_attn/Gemm" "$R/prof_transformer_encoder_$arm.txt"
done
vx_pack s39c3.tar.xz
