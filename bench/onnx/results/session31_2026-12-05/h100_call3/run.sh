#!/usr/bin/env bash
# Session 31, call 3: the new staged-GEMM choice against main. vx_base = main (699bbdd); vx_new = the
# staged kernel on 64 x 64 / 32 x 64 tiles by tile count (choose_staged_tile), from 2^22
# multiply-adds, the im2col matrix materialised from 2^26 with rows padded to 16-byte words.
# test_parity's GEMM / conv / runner suites of the new tree first, then `volvox bench --io-binding`
# of four exported models, both binaries interleaved, three rounds at fp16 and one at fp32, then
# profiles of the new binary.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_base,vx_new,test_parity}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session31_2026-12-05/h100_call3/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for n in vx_base vx_new test_parity; do xz -dc .gl/t/$n.xz > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s31c.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv -lms 250 > $R/clocks.csv 2>&1 &
SMI=$!
(timeout 150 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 5 --warmup 1 \
  --warmup-seconds 0 --no-compile --models deeplabv3_mobilenet_v3_large,transformer_encoder,resnet50,mobilenet_v3_large > $R/torch.log 2>&1) &
EXPORT=$!
timeout 240 /tmp/t/test_parity --gtest_filter='*CooperativeMatrix*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*' > $R/parity.txt 2>&1
echo "test_parity rc $?" >> $R/parity.txt
tail -4 $R/parity.txt; grep -E "^\[  FAILED" $R/parity.txt
wait $EXPORT
pack
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
# t TAG BINARY MODEL PRECISION: whole-model time
t() { timeout 60 /tmp/t/$2 bench /tmp/m/$3.onnx --device vulkan --precision $4 --shape "${S[$3]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > $R/$1.txt 2>&1; }
timeout 60 /tmp/t/vx_new bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 --shape "${S[resnet50]}" --runs 20 --warmup 5 --warmup-seconds 5 > $R/ramp.txt 2>&1
MODELS="transformer_encoder resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large"
for round in 1 2 3; do for model in $MODELS; do for bin in vx_base vx_new; do
  t r${round}_${model}_fp16_$bin $bin $model fp16; done; done; pack; done
for model in $MODELS; do for bin in vx_base vx_new; do t r1_${model}_fp32_$bin $bin $model fp32; done; done
for model in $MODELS; do
  timeout 60 /tmp/t/vx_new bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > $R/prof_${model}_vx_new.txt 2>&1; done
kill $SMI
(cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*: 30 runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"; done) > $R/summary.txt
cat $R/summary.txt
pack
