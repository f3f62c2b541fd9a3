#!/usr/bin/env bash
# Session 32, call 1: (a) the GPU suites owed since session 31 (its staged tiles ran on an H100
# only): test_parity's cooperative-matrix, GEMM, runner and conv suites as chosen and with
# VOLVOX_VK_STAGED_BK=64, the op table's Vulkan cases; (b) an experiment, vx_new = HEAD plus two
# switches (without them it runs HEAD's kernels): VOLVOX_VK_STAGED_BK=64 (the 64 x 64 and 32 x 64
# staged tiles taking K 64 a step: half the steps and barriers) and VOLVOX_VK_STAGED_RULE=deepk
# (products split over K > 512 on 64 x 64 tiles); one-MatMul probes at forced splits; the zoo's four
# models interleaved, two rounds; (c) PyTorch eager / torch.compile on the same exported models.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_new,test_parity,test_ops}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session32_2026-12-05/call1/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m /tmp/g
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for n in vx_new test_parity test_ops; do xz -dc .gl/t/$n.xz > /tmp/t/$n; chmod +x /tmp/t/$n; done
V=/tmp/t/vx_new
pack() { (cd $OUT && tar -cJf s32a.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
cat $R/gpu.txt
F='*CooperativeMatrix*:*Coopmat*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*'
timeout 150 /tmp/t/test_parity --gtest_filter="$F" > $R/parity.txt 2>&1; echo "test_parity rc $?" >> $R/parity.txt
VOLVOX_VK_STAGED_BK=64 timeout 150 /tmp/t/test_parity --gtest_filter="$F" > $R/parity_bk64.txt 2>&1; echo "test_parity rc $?" >> $R/parity_bk64.txt
timeout 150 /tmp/t/test_ops --gtest_filter='*vulkan*' > $R/ops.txt 2>&1; echo "test_ops rc $?" >> $R/ops.txt
for f in $R/parity.txt $R/parity_bk64.txt $R/ops.txt; do tail -3 $f; grep -E "^\[  FAILED" $f; done
pack
python3 bench/onnx/make_gemm_models.py /tmp/g aspp_pad qkv512 out512 ffn1_512 ffn2_512 > $R/gemm_models.txt 2>&1
timeout 100 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch_eager.json --runs 3 --warmup 1 \
  --warmup-seconds 0 --no-compile --models transformer_encoder,resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large > $R/torch_export.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv -lms 250 > $R/clocks.csv 2>&1 &
SMI=$!
# g TAG NAME [ENV=VALUE ...]: a one-MatMul probe at fp16
g() { local tag=$1 name=$2; shift 2
  env "$@" timeout 30 $V bench /tmp/g/gemm_$name.onnx --device vulkan --precision fp16 \
    --runs 20 --warmup 5 --warmup-seconds 0.3 --io-binding --profile > $R/p_$tag.txt 2>&1; }
timeout 60 $V bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 --shape "${S[resnet50]}" --runs 20 --warmup 5 --warmup-seconds 4 > $R/ramp.txt 2>&1
for bk in 32 64; do
  for name in qkv512 out512 ffn1_512 ffn2_512; do for s in auto 1 2 4; do
    e=VOLVOX_X=0; [ $s != auto ] && e=VOLVOX_VK_SPLITK=$s
    g ${name}_bk${bk}_s$s $name VOLVOX_VK_STAGED_BK=$bk $e; done; done
  for s in auto 1 2 3 4 6 9; do
    e=VOLVOX_X=0; [ $s != auto ] && e=VOLVOX_VK_SPLITK=$s
    g aspp64_bk${bk}_s$s aspp_pad VOLVOX_VK_STAGED_TILE=64x64 VOLVOX_VK_STAGED_BK=$bk $e; done
done
(cd $R && for f in p_*.txt; do echo "$f $(sed -n 2p $f | sed 's/.*: median //') $(grep -o 'vulkan:[^ ]*' $f | head -1)"; done) > $R/probes.txt
cat $R/probes.txt; pack
# t TAG MODEL [ENV=VALUE ...]: whole-model time without per-node timestamps
t() { local tag=$1 model=$2; shift 2
  env "$@" timeout 40 $V bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > $R/$tag.txt 2>&1; }
for round in 1 2; do
  for model in transformer_encoder resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large; do
    t r${round}_${model}_head $model VOLVOX_X=0
    t r${round}_${model}_bk64 $model VOLVOX_VK_STAGED_BK=64
    t r${round}_${model}_deepk $model VOLVOX_VK_STAGED_RULE=deepk
    t r${round}_${model}_bk64_deepk $model VOLVOX_VK_STAGED_BK=64 VOLVOX_VK_STAGED_RULE=deepk
  done
  t r${round}_transformer_encoder_bk64_s1 transformer_encoder VOLVOX_VK_STAGED_BK=64 VOLVOX_VK_SPLITK=1
  t r${round}_transformer_encoder_bk64_s2 transformer_encoder VOLVOX_VK_STAGED_BK=64 VOLVOX_VK_SPLITK=2
done
(cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*: 30 runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"; done) > $R/summary.txt
cat $R/summary.txt; pack
for model in transformer_encoder resnet50 deeplabv3_mobilenet_v3_large; do
  env VOLVOX_VK_STAGED_BK=64 timeout 40 $V bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 20 --warmup 5 --warmup-seconds 0.5 --io-binding --profile > $R/prof_${model}_bk64.txt 2>&1; done
kill $SMI; pack
timeout 170 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m2 --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --models transformer_encoder,resnet50,deeplabv3_mobilenet_v3_large,mobilenet_v3_large > $R/torch.log 2>&1
grep -v Deprec $R/torch.log | grep compile; pack
