#!/usr/bin/env bash
# Session 22, call 5: the attention kernel with 16 lanes per query row (vx_att16) against c57bcbb
# (vx_base); attention parity suites and op table cases on the H200 first.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 60 /tmp/t/test_parity --gtest_filter='*Attention*:*VulkanRunnerTransformer*' > $R/parity.log 2>&1; echo "rc=$?" >> $R/parity.log
timeout 60 /tmp/t/test_ops --gtest_filter='*Attention*' > $R/ops.log 2>&1; echo "rc=$?" >> $R/ops.log
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=|Failure" $R/parity.log $R/ops.log | head -20
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --models transformer_encoder \
  --runs 20 --warmup 5 --warmup-seconds 2 > $R/torch.log 2>&1
cp /tmp/m/shapes.txt $R/
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() {  # tag binary model precision [args]
  local tag=$1 bin=$2 m=$3 p=$4; shift 4
  /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp vx_base transformer_encoder fp16 --warmup-seconds 5
for round in 1 2 3; do
  for p in fp16 fp32; do
    for bin in vx_base vx_att16; do b r${round}_transformer_encoder_${p}_${bin} $bin transformer_encoder $p --io-binding; done
  done
done
for bin in vx_base vx_att16; do b profile_transformer_encoder_fp16_${bin} $bin transformer_encoder fp16 --profile; done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
for f in profile_*; do echo $f; grep "layers.0/" $f | grep -v alias; done
python3 -c 'import json; d=json.load(open("torch.json")); print({m: {p: d["models"][m][p]["compile"]["median_ms"] for p in ("fp16","fp32")} for m in d["models"]})'
cd $OUT && tar -cJf s22e.tar.xz r && rm -rf r
