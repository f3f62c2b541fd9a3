#!/usr/bin/env bash
# Session 32, call 2: the final tree's rule (64 x 64 staged tiles also where K > 512 is split over
# >= 256 of them) against HEAD before it (vx_base: 03fbe81's kernels), `volvox bench --io-binding` at
# fp16, interleaved, two rounds after a ramp; vx_new also with VOLVOX_VK_STAGED_MAX_GROUPS = 256 | 384
# (an experiment in this binary only: the splits of a product capped at that many workgroups).
# Before: test_parity's cooperative-matrix GEMM, runner and conv suites of the final tree (the
# denoiser's coopmat variants, untouched, passed in call 1). After: DeepLabV3's output by both
# binaries, and PyTorch eager / torch.compile on DeepLabV3 and ResNet-50 in the same call.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_base,vx_new,test_parity}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session32_2026-12-05/call2/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for n in vx_base vx_new test_parity; do xz -dc .gl/t/$n.xz > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s32b.tar.xz r); }
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
  t r${round}_${model}_new_g256 vx_new $model VOLVOX_VK_STAGED_MAX_GROUPS=256
  t r${round}_${model}_new_g384 vx_new $model VOLVOX_VK_STAGED_MAX_GROUPS=384
done; done
(cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*: 30 runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"; done) > $R/summary.txt
cat $R/summary.txt; pack
for bin in vx_base vx_new; do timeout 40 /tmp/t/$bin bench /tmp/m/deeplabv3_mobilenet_v3_large.onnx --device vulkan --precision fp16 \
  --shape "${S[deeplabv3_mobilenet_v3_large]}" --runs 20 --warmup 5 --warmup-seconds 0.5 --io-binding --profile > $R/prof_deeplab_$bin.txt 2>&1; done
python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/x_dl.npy', n.random.rand(1,3,520,520).astype(n.float32))"
for bin in vx_base vx_new; do mkdir -p /tmp/o/$bin
  timeout 60 /tmp/t/$bin run /tmp/m/deeplabv3_mobilenet_v3_large.onnx -i input=/tmp/x_dl.npy --device vulkan --precision fp16 -o /tmp/o/$bin > /tmp/o/$bin.log 2>&1; done
python3 - > $R/outputs.txt 2>&1 <<'PY'
import glob, os, numpy as n
for f in sorted(glob.glob("/tmp/o/vx_base/*.npy")):
    x, y = n.load(f), n.load(f.replace("vx_base", "vx_new"))
    print(os.path.basename(f), x.shape, "max|diff|", float(n.abs(x.astype(n.float64) - y).max()), "peak", float(n.abs(x).max()))
PY
cat /tmp/o/*.log >> $R/outputs.txt; head -3 $R/outputs.txt; pack
timeout 120 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m2 --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --models deeplabv3_mobilenet_v3_large,resnet50 > $R/torch.log 2>&1
grep -v Deprec $R/torch.log | grep compile; pack
