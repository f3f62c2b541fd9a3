#!/usr/bin/env bash
# Session 21, call 1: B (Gemm -> FusedMatMul + residual through Reshapes) against the same tree
# without it; split-K reduction in the GEMM's dispatch (coherent partials / plain loads) against the
# reduce pass. Binaries interleaved, 3 rounds.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
ls -la /tmp/t > $R/bins.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
if [[ -x /tmp/t/test_parity ]]; then
  timeout 120 /tmp/t/test_parity --gtest_filter='*VulkanGemm*:*VulkanRunnerTransformer*:*VulkanRunnerBlocks*:*Coopmat*:*CooperativeMatrix*' > $R/parity.log 2>&1; echo "rc=$?" >> $R/parity.log
  VOLVOX_VK_SPLITK_REDUCE=kernel timeout 90 /tmp/t/test_ops --gtest_filter='*Conv*:*MatMul*:*Gemm*:*Attention*' > $R/ops_kernel.log 2>&1; echo "rc=$?" >> $R/ops_kernel.log
  grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=" $R/parity.log $R/ops_kernel.log
fi
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --models resnet50,mobilenet_v3_large,transformer_encoder \
  --runs 20 --warmup 5 --warmup-seconds 1 --no-compile > $R/torch.log 2>&1
cat /tmp/m/shapes.txt > $R/shapes.txt
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() {  # tag binary reduce model precision [args]
  local tag=$1 bin=$2 mode=$3 m=$4 p=$5; shift 5
  VOLVOX_VK_SPLITK_REDUCE=$mode /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
# ramp the clock
b ramp vx_new pass resnet50 fp16 --warmup-seconds 6
for round in 1 2 3; do
  for m in resnet50 mobilenet_v3_large transformer_encoder; do
    for p in fp16 fp32; do
      b r${round}_${m}_${p}_noB vx_noB pass $m $p --io-binding
      b r${round}_${m}_${p}_pass vx_new pass $m $p --io-binding
      b r${round}_${m}_${p}_kernel vx_new kernel $m $p --io-binding
      b r${round}_${m}_${p}_nocoh vx_nocoh kernel $m $p --io-binding
    done
  done
done
for m in resnet50 transformer_encoder; do
  b profile_${m}_fp16_noB vx_noB pass $m fp16 --profile
  b profile_${m}_fp16_pass vx_new pass $m fp16 --profile
  b profile_${m}_fp16_kernel vx_new kernel $m fp16 --profile
  b profile_${m}_fp16_nocoh vx_nocoh kernel $m fp16 --profile
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $OUT && tar -cJf s21a.tar.xz r && rm -rf r
