#!/usr/bin/env bash
# Session 39, call 2: call 1's tensor-core projection was slower than the two kernels in a row
# (its step 4 loaded W's fragments a few at a time, one N fragment after another, through the
# patch). Here each subgroup issues the W loads of four N fragments together and whole blocks store
# their sums straight from the accumulators (Dv <= 64). Checks: the attention parity suite and the
# op table's attention cases with the projection opted in; the encoder "new" (tensor cores) against
# "row" (VOLVOX_VK_ATTENTION_PROJECTION=in_a_row), three interleaved rounds, profiles of both.
# Built from branch s39-attention-projection (8e3e781 without its probe flags); packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity test_ops=build/release/tests/ops/test_ops
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity test_ops
vx_parity 60 '*VulkanAttention*'
VOLVOX_VK_ATTENTION_PROJECTION=tensor_cores timeout 45 /tmp/t/test_ops --gtest_filter='*Attention*' > "$R/optable.txt" 2>&1
echo "test_ops rc $?" >> "$R/optable.txt"; tail -3 "$R/optable.txt"; grep -E "^\[  FAILED" "$R/optable.txt"
vx_pack s39c2.tar.xz
vx_export transformer_encoder
for round in 1 2 3; do
  vx_bench r${round}_transformer_encoder_row vx_new transformer_encoder VOLVOX_VK_ATTENTION_PROJECTION=in_a_row
  vx_bench r${round}_transformer_encoder_new vx_new transformer_encoder VOLVOX_VK_ATTENTION_PROJECTION=tensor_cores
done
vx_summary
for arm in new row; do
  env VOLVOX_VK_ATTENTION_PROJECTION=$([ $arm = row ] && echo in_a_row || echo tensor_cores) timeout 40 /tmp/t/vx_new bench /tmp/m/transformer_encoder.onnx \
    --device vulkan --precision fp16 --shape "${S[transformer_encoder]}" --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile \
    > "$R/prof_transformer_encoder_$arm.txt" 2>&1
done
grep -E "^/layers.0/|recorded|device time" "$R/prof_transformer_encoder_new.txt" | grep -v alias
vx_pack s39c2.tar.xz
