#!/usr/bin/env bash
# Session 30, call 2, asked of the H200 and run on an H100 (no H200 could be started at 13:10 UTC; the
# call named nvidia-h100-x1): vx_base (1e1851f) against vx_new (c0d0319, the packed QKV
# product as three column panels, no 32 x 64 staged tile (it lost in call 1), plus attention_q8.diff
# beside this script: workgroups of 8 query rows where 16-row blocks are fewer than 128, which
# VOLVOX_VK_ATTENTION_BLOCK=16 turns off). (1) test_parity of that tree: cooperative-matrix, GEMM,
# attention, transformer and block runner tests; (2) PyTorch 2.11 eager and torch.compile on the
# transformer encoder in the same call (20 runs after 5 and 1 s); (3) three interleaved rounds of
# `volvox bench --device vulkan --io-binding` after a ramp, fp16 and fp32: base, new with blocks of
# 16, new (blocks of 8); then one profile of each at fp16.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_base,vx_new,test_parity}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session30_2026-12-05/h100_call2/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s30b.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 150 /tmp/t/test_parity --gtest_filter='*CooperativeMatrix*:*VulkanGemm*:*VulkanAttention*:*VulkanRunnerTransformer*:*VulkanRunnerBlocks*' > $R/parity.txt 2>&1
echo "test_parity exit $?" >> $R/parity.txt
tail -n 2 $R/parity.txt; pack
timeout 120 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --models transformer_encoder > $R/torch.log 2>&1
grep torch_zoo_gpu $R/torch.log; pack
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() { local tag=$1 bin=$2 p=$3 block=$4; shift 4
  VOLVOX_VK_ATTENTION_BLOCK=$block timeout 60 /tmp/t/$bin bench /tmp/m/transformer_encoder.onnx --device vulkan --precision $p --shape "${S[transformer_encoder]}" \
    --runs 30 --warmup 5 --io-binding "$@" > $R/${tag}.txt 2>&1; }
b ramp vx_new fp16 "" --warmup-seconds 4
for round in 1 2 3; do for p in fp16 fp32; do
  b r${round}_transformer_encoder_${p}_base vx_base $p "" --warmup-seconds 1
  b r${round}_transformer_encoder_${p}_new_q16 vx_new $p 16 --warmup-seconds 1
  b r${round}_transformer_encoder_${p}_new_q8 vx_new $p "" --warmup-seconds 1
done; done
b prof_transformer_fp16_base vx_base fp16 "" --warmup-seconds 1 --profile
b prof_transformer_fp16_new_q16 vx_new fp16 16 --warmup-seconds 1 --profile
b prof_transformer_fp16_new_q8 vx_new fp16 "" --warmup-seconds 1 --profile
cp /tmp/m/shapes.txt $R/
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
(cd $R && for f in r*_*.txt; do echo "$f $(head -3 $f | grep -E 'median|recorded' | sed 's/.*median //;s/, min [0-9.]* ms//;s/ (first.*//' | tr '\n' ' ')"; done)
pack
