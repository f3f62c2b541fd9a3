#!/usr/bin/env bash
# Session 22, call 4: the staged tensor-core GEMM with its global loads two K steps ahead (vx_pf2)
# against c57bcbb (vx_base); GEMM parity suites on the H200 first.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 90 /tmp/t/test_parity --gtest_filter='*VulkanGemm*:*VulkanMatMul*:*VulkanRunnerTransformer*' > $R/parity.log 2>&1; echo "rc=$?" >> $R/parity.log
timeout 60 /tmp/t/test_ops --gtest_filter='*MatMul*:*Gemm*' > $R/ops.log 2>&1; echo "rc=$?" >> $R/ops.log
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=|Failure" $R/parity.log $R/ops.log | head -20
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --models transformer_encoder,resnet50 \
  --runs 5 --warmup 2 --warmup-seconds 0 --no-compile > $R/torch.log 2>&1
cp /tmp/m/shapes.txt $R/
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() {  # tag binary model precision [args]
  local tag=$1 bin=$2 m=$3 p=$4; shift 4
  /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp vx_base resnet50 fp16 --warmup-seconds 5
for round in 1 2 3; do
  for m in transformer_encoder resnet50; do
    for bin in vx_base vx_pf2; do b r${round}_${m}_fp16_${bin} $bin $m fp16 --io-binding; done
  done
  for sk in 1 2 4; do VOLVOX_VK_SPLITK=$sk b r${round}_transformer_encoder_fp16_vx_pf2_splitk$sk vx_pf2 transformer_encoder fp16 --io-binding; done
done
for bin in vx_base vx_pf2; do b profile_transformer_encoder_fp16_${bin} $bin transformer_encoder fp16 --profile; done
for sk in 1 2; do VOLVOX_VK_SPLITK=$sk b profile_transformer_encoder_fp16_vx_pf2_splitk$sk vx_pf2 transformer_encoder fp16 --profile; done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $R && for f in r3_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
for f in profile_*; do echo $f; grep "layers.0/" $f | grep -v alias; done
cd $OUT && tar -cJf s22d.tar.xz r && rm -rf r
