#!/usr/bin/env bash
# Session 21, call 2: the LayerNorm in the GEMM's reduce pass (vx_norm) against HEAD 5514962
# (vx_head); the GEMM / transformer / conv suites and the op table's product cases on the H200.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
[[ -n "${SKIP_TESTS:-}" ]] || timeout 200 /tmp/t/test_parity --gtest_filter='*VulkanGemm*:*VulkanRunnerTransformer*:*VulkanRunnerBlocks*:*VulkanMatMul*:*VulkanConv*' > $R/parity.log 2>&1; echo "rc=$?" >> $R/parity.log
[[ -n "${SKIP_TESTS:-}" ]] || timeout 120 /tmp/t/test_ops --gtest_filter='*FusedMatMul*:*Gemm*:*MatMul*:*LayerNorm*' > $R/ops.log 2>&1; echo "rc=$?" >> $R/ops.log
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=" $R/parity.log $R/ops.log
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch_transformer.json --models transformer_encoder \
  --runs 20 --warmup 5 --warmup-seconds 2 > $R/torch.log 2>&1
cat /tmp/m/shapes.txt > $R/shapes.txt
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch_resnet.json --models resnet50 --no-compile \
  --runs 20 --warmup 5 --warmup-seconds 1 >> $R/torch.log 2>&1
cat /tmp/m/shapes.txt >> $R/shapes.txt  # each run of torch_zoo_gpu.py writes its own models' shapes
declare -A S; while read -r n s; do S[$n]=$s; done < $R/shapes.txt
b() {  # tag binary model precision [args]
  local tag=$1 bin=$2 m=$3 p=$4; shift 4
  /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp vx_head resnet50 fp16 --warmup-seconds 6
for round in 1 2 3; do
  for m in ${MODELS:-transformer_encoder resnet50}; do
    for p in fp16 fp32; do
      b r${round}_${m}_${p}_head vx_head $m $p --io-binding
      b r${round}_${m}_${p}_norm vx_norm $m $p --io-binding
    done
  done
done
for p in fp16 fp32; do
  b profile_transformer_encoder_${p}_head vx_head transformer_encoder $p --profile
  b profile_transformer_encoder_${p}_norm vx_norm transformer_encoder $p --profile
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $OUT && tar -cJf s21b.tar.xz r && rm -rf r
