#!/usr/bin/env bash
# Session 36, call 3: two changes to the staged tensor-core GEMM against main's kernels in the same
# binary. Sliced K (VOLVOX_VK_STAGED_KG=2: the 64 x 64 and 32 x 64 tiles with twice the subgroups in
# two K groups, each half of a K step of 64; variants gemm_coopmat_staged.f16_{n64,m32n64}k2): call 1
# showed that a K step is not bound by its loads' latency; with one subgroup per scheduler it may be
# the chain of each step's instructions. A direct epilogue (VOLVOX_VK_STAGED_DIRECT=1: whole
# fragments on 16-byte words stored from registers, bias and C loaded as fragments, instead of the
# pass through shared memory): call 1's batched epilogue moved DeepLabV3 by +0.13 ms, so the
# epilogue weighs. Checks first (with both): the GEMM and conv parity suites and the op table's
# Vulkan MatMul / Gemm / Conv cases. Packed by
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity test_ops=build/release/tests/ops/test_ops
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx_new test_parity test_ops
K2="VOLVOX_VK_STAGED_KG=2"
D="VOLVOX_VK_STAGED_DIRECT=1"
env $K2 $D timeout 100 /tmp/t/test_parity --gtest_filter='*VulkanGemm*Staged*:*VulkanGemm*Automatic*:*VulkanConv*' > "$R/parity_k2.txt" 2>&1
echo "test_parity rc $?" >> "$R/parity_k2.txt"; tail -2 "$R/parity_k2.txt"; grep -E "^\[  FAILED" "$R/parity_k2.txt" | head
env $K2 $D timeout 60 /tmp/t/test_ops --gtest_filter='*MatMul*vulkan*:*Gemm*vulkan*:*Conv*vulkan*' > "$R/ops_k2.txt" 2>&1
echo "test_ops rc $?" >> "$R/ops_k2.txt"; tail -2 "$R/ops_k2.txt"; grep -E "^\[  FAILED" "$R/ops_k2.txt" | head
vx_pack s36c3.tar.xz
python3 bench/onnx/make_gemm_models.py /tmp/m k32 ffn1_512 ffn2_512 qkv512 out512 > "$R/gemm_models.txt"
for g in k32 ffn1_512 ffn2_512 qkv512 out512; do
  for arm in base k2 d; do
    e=VOLVOX_X=0; [[ $arm == k2 ]] && e=$K2; [[ $arm == d ]] && e=$D
    for sp in auto 1; do
      env $e VOLVOX_VK_SPLITK=$([[ $sp == 1 ]] && echo 1) timeout 30 /tmp/t/vx_new bench /tmp/m/gemm_$g.onnx --device vulkan \
        --precision fp16 --runs 20 --warmup 5 --warmup-seconds 0.5 --io-binding > "$R/gemm_${g}_${arm}_split$sp.txt" 2>&1
    done
  done
done
(cd "$R" && for f in gemm_*_split*.txt; do echo "$f $(sed -n 2p "$f" | sed 's/.*transfers)://')"; done) > "$R/gemm_summary.txt"; cat "$R/gemm_summary.txt"
vx_pack s36c3.tar.xz
vx_export transformer_encoder,resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large
for arm in base k2 d; do
  e=VOLVOX_X=0; [[ $arm == k2 ]] && e=$K2; [[ $arm == d ]] && e=$D
  for model in resnet50 transformer_encoder; do
    env $e timeout 40 /tmp/t/vx_new bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
      --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > "$R/prof_${model}_$arm.txt" 2>&1
  done
done
vx_pack s36c3.tar.xz
for round in 1 2 3; do
  (( SECONDS > 380 )) && break
  for model in resnet50 transformer_encoder deeplabv3_mobilenet_v3_large mobilenet_v3_large; do
    vx_bench r${round}_${model}_base vx_new $model VOLVOX_X=0
    vx_bench r${round}_${model}_k2 vx_new $model $K2
    vx_bench r${round}_${model}_d vx_new $model $D
    vx_bench r${round}_${model}_k2d vx_new $model $K2 $D
  done
  echo "round $round done at ${SECONDS}s"
done
vx_summary; vx_pack s36c3.tar.xz
