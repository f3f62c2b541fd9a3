#!/usr/bin/env bash
# Session 32, call 3: the final tree (vx_new: 64 x 64 staged tiles also where K > 512 is split over
# >= 256 of them; K splits capped at 256 workgroups; B's rows that do not start on a 16-byte word
# loaded as the two words 8 values straddle, shifted) against 03fbe81 (vx_base), `volvox bench
# --io-binding` at fp16, interleaved, two rounds after a ramp; vx_new also with
# VOLVOX_VK_STAGED_GATHER_B=1 (B gathered value by value as before: the tile rule and the cap
# alone) and, for DeepLabV3, VOLVOX_VK_STAGED_SHIFT_TILE=1 (an experiment in this binary only:
# shifted rows count as vector rows in the tile choice). First test_parity's cooperative-matrix,
# GEMM, runner and conv suites of the final tree; then DeepLabV3's and ResNet-50's outputs by both
# binaries; last PyTorch eager / torch.compile in the same call.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_base,vx_new,test_parity}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session32_2026-12-05/call3/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for n in vx_base vx_new test_parity; do xz -dc .gl/t/$n.xz > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s32c.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
F='*CooperativeMatrix*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*:VulkanParity.CoopmatUpsample*'
timeout 200 /tmp/t/test_parity --gtest_filter="$F" > $R/parity.txt 2>&1; echo "test_parity rc $?" >> $R/parity.txt
tail -3 $R/parity.txt; grep -E "^\[  FAILED" $R/parity.txt; pack
timeout 100 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch_eager.json --runs 3 --warmup 1 \
  --warmup-seconds 0 --no-compile --models transformer_encoder,resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large > $R/torch_export.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
t() { local tag=$1 bin=$2 model=$3; shift 3
  env "$@" timeout 40 /tmp/t/$bin bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > $R/$tag.txt 2>&1; }
t ramp vx_new resnet50 VOLVOX_X=0
for round in 1 2; do for model in transformer_encoder resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large; do
  t r${round}_${model}_base vx_base $model VOLVOX_X=0
  t r${round}_${model}_new vx_new $model VOLVOX_X=0
  t r${round}_${model}_new_gather vx_new $model VOLVOX_VK_STAGED_GATHER_B=1
done; t r${round}_deeplabv3_mobilenet_v3_large_new_shifttile vx_new deeplabv3_mobilenet_v3_large VOLVOX_VK_STAGED_SHIFT_TILE=1; done
(cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*: 30 runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"; done) > $R/summary.txt
cat $R/summary.txt; pack
for model in resnet50 deeplabv3_mobilenet_v3_large; do timeout 40 /tmp/t/vx_new bench /tmp/m/$model.onnx --device vulkan --precision fp16 \
  --shape "${S[$model]}" --runs 20 --warmup 5 --warmup-seconds 0.5 --io-binding --profile > $R/prof_${model}_new.txt 2>&1; done
python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/x_dl.npy', n.random.rand(1,3,520,520).astype(n.float32)); n.save('/tmp/x_rn.npy', n.random.rand(1,3,224,224).astype(n.float32))"
for bin in vx_base vx_new; do mkdir -p /tmp/o/$bin/dl /tmp/o/$bin/rn
  timeout 60 /tmp/t/$bin run /tmp/m/deeplabv3_mobilenet_v3_large.onnx -i input=/tmp/x_dl.npy --device vulkan --precision fp16 -o /tmp/o/$bin/dl > /tmp/o/$bin.dl.log 2>&1
  timeout 60 /tmp/t/$bin run /tmp/m/resnet50.onnx -i input=/tmp/x_rn.npy --device vulkan --precision fp16 -o /tmp/o/$bin/rn > /tmp/o/$bin.rn.log 2>&1; done
python3 - > $R/outputs.txt 2>&1 <<'PY'
import glob, os, numpy as n
for f in sorted(glob.glob("/tmp/o/vx_base/*/*.npy")):
    x, y = n.load(f), n.load(f.replace("vx_base", "vx_new"))
    print(f, x.shape, "max|diff|", float(n.abs(x.astype(n.float64) - y).max()), "peak", float(n.abs(x).max()))
PY
cat /tmp/o/*.log >> $R/outputs.txt; head -4 $R/outputs.txt; pack
timeout 120 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m2 --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --models transformer_encoder,resnet50,deeplabv3_mobilenet_v3_large > $R/torch.log 2>&1
grep -v Deprec $R/torch.log | grep compile; pack
