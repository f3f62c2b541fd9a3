#!/usr/bin/env bash
# Session 36, call 1: the staged tensor-core GEMM with global loads two K steps ahead
# (PREFETCH 2) and an epilogue that takes a lane's 8 values out of the fragment's patch before it
# reads C and the bias (EPILOGUE_BATCHED 1), against the session-35 kernel in the same binary
# (VOLVOX_VK_STAGED_PREFETCH=1 VOLVOX_VK_STAGED_EPILOGUE=0) and each change alone; also K unsplit
# (VOLVOX_VK_SPLITK=1) with both, since a cheaper K step moves the split-K trade-off. Checks first:
# the GEMM, conv and attention parity suites and the op table's Vulkan MatMul / Gemm / Conv /
# attention cases with the new defaults (attention_io.glsl's first GPU run). Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity test_ops=build/release/tests/ops/test_ops
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity test_ops
vx_parity 150 '*VulkanGemm*:*VulkanConv*:*VulkanAttention*:*VulkanParity*'
timeout 60 /tmp/t/test_ops --gtest_filter='*ttention*vulkan*:*MatMul*vulkan*:*Gemm*vulkan*:*Conv*vulkan*' > "$R/ops.txt" 2>&1
echo "test_ops rc $?" >> "$R/ops.txt"; tail -2 "$R/ops.txt"; grep -E "^\[  FAILED" "$R/ops.txt" | head
vx_pack s36c1.tar.xz
OLD="VOLVOX_VK_STAGED_PREFETCH=1 VOLVOX_VK_STAGED_EPILOGUE=0"
python3 bench/onnx/make_gemm_models.py /tmp/m k32 ffn1_512 ffn2_512 qkv512 square2048 > "$R/gemm_models.txt"
for g in k32 ffn1_512 ffn2_512 qkv512 square2048; do
  for arm in old new; do
    e=VOLVOX_X=0; [[ $arm == old ]] && e=$OLD
    for sp in auto 1; do
      env $e VOLVOX_VK_SPLITK=$([[ $sp == 1 ]] && echo 1) timeout 30 /tmp/t/vx_new bench /tmp/m/gemm_$g.onnx --device vulkan \
        --precision fp16 --runs 20 --warmup 5 --warmup-seconds 0.5 --io-binding > "$R/gemm_${g}_${arm}_split$sp.txt" 2>&1
    done
  done
done
(cd "$R" && for f in gemm_*_split*.txt; do echo "$f $(sed -n 2p "$f")"; done) > "$R/gemm_summary.txt"; cat "$R/gemm_summary.txt"
vx_pack s36c1.tar.xz
vx_export transformer_encoder,resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large
for arm in old new; do
  e=VOLVOX_X=0; [[ $arm == old ]] && e=$OLD
  for model in resnet50 transformer_encoder; do
    env $e timeout 40 /tmp/t/vx_new bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
      --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_${model}_$arm.txt" 2>&1
  done
done
vx_pack s36c1.tar.xz
for round in 1 2 3; do
  (( SECONDS > 420 )) && break
  for model in resnet50 transformer_encoder deeplabv3_mobilenet_v3_large mobilenet_v3_large; do
    vx_bench r${round}_${model}_old vx_new $model $OLD
    vx_bench r${round}_${model}_epi vx_new $model VOLVOX_VK_STAGED_PREFETCH=1
    vx_bench r${round}_${model}_new vx_new $model VOLVOX_X=0
  done
  for model in resnet50 transformer_encoder; do
    vx_bench r${round}_${model}_nosplit vx_new $model VOLVOX_VK_SPLITK=1
  done
  echo "round $round done at ${SECONDS}s"
done
vx_summary; vx_pack s36c1.tar.xz
