#!/usr/bin/env bash
# Session 22, call 7: executables specialized to their input shapes where the model leaves them
# open (vx_spec: the residual Adds of PaddleOCR's models join their convolutions) against bc02689
# (vx_base); the runner suites on the H200 first.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 60 /tmp/t/test_parity --gtest_filter='*VulkanConvFusion*:*VulkanRunnerTransformer*:*VulkanIoBinding*:*VulkanExecutor*:*VulkanRunnerMemoryNeeds*' > $R/parity.log 2>&1; echo "rc=$?" >> $R/parity.log
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=|Failure" $R/parity.log | head -20
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
declare -A S
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640; S[ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192
b() {  # tag binary model precision [args]
  local tag=$1 bin=$2 m=$3 p=$4; shift 4
  /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp vx_base ch_PP-OCRv4_det_infer fp16 --warmup-seconds 5
for round in 1 2 3; do
  for m in ch_ppocr_mobile_v2.0_cls_infer ch_PP-OCRv4_det_infer; do
    for p in fp16 fp32; do
      for bin in vx_base vx_spec; do b r${round}_${m}_${p}_${bin} $bin $m $p --io-binding; done
    done
  done
done
for m in ch_ppocr_mobile_v2.0_cls_infer ch_PP-OCRv4_det_infer; do b profile_${m}_fp16_vx_spec vx_spec $m fp16 --profile; done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
grep -c " Add " profile_*.txt
cd $OUT && tar -cJf s22g.tar.xz r && rm -rf r
