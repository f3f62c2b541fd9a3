#!/usr/bin/env bash
# Session 22, call 3: the rows kernel for products of few rows (vx_rows) against the tree before it
# (vx_base = 2a8408b), three interleaved rounds with IO binding; the GEMM parity suites and the op
# table's product cases on the H200.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 100 /tmp/t/test_parity --gtest_filter='*VulkanGemm*:*VulkanMatMul*:*VulkanConvFusion*:*VulkanRunnerTransformer*' > $R/parity.log 2>&1; echo "rc=$?" >> $R/parity.log
timeout 100 /tmp/t/test_ops --gtest_filter='*MatMul*:*Gemm*' > $R/ops.log 2>&1; echo "rc=$?" >> $R/ops.log
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=" $R/parity.log $R/ops.log
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --models mobilenet_v3_large,resnet50 \
  --runs 20 --warmup 5 --warmup-seconds 2 > $R/torch.log 2>&1
cp /tmp/m/shapes.txt $R/
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
S[ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192
b() {  # tag binary model precision [args]
  local tag=$1 bin=$2 m=$3 p=$4; shift 4
  /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp vx_base resnet50 fp16 --warmup-seconds 5
for round in 1 2 3; do
  for m in mobilenet_v3_large resnet50 ch_ppocr_mobile_v2.0_cls_infer; do
    for p in fp16 fp32; do
      for bin in vx_base vx_rows; do b r${round}_${m}_${p}_${bin} $bin $m $p --io-binding; done
    done
  done
done
for m in mobilenet_v3_large resnet50; do b profile_${m}_fp16_vx_rows vx_rows $m fp16 --profile; done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $R && for f in r3_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
grep -E "Gemm" profile_*.txt
python3 -c 'import json; d=json.load(open("torch.json")); print({m: {p: d["models"][m][p]["compile"]["median_ms"] for p in ("fp16","fp32")} for m in d["models"]})'
cd $OUT && tar -cJf s22c.tar.xz r && rm -rf r
