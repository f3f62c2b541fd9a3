#!/usr/bin/env bash
# Session 29, call 1 on the H200 machine: (1) the GPU suites of the new tree (test_parity's
# cooperative-matrix, GEMM, runner and conv tests; the op table's Vulkan cases in call 2); (2) the
# binaries of d458ad6 (vx_head: sessions 27-28's executor) and of the new tree (vx_new: the
# downsample conv beside its block's first conv, split-K scratch of independent nodes kept apart)
# interleaved, `volvox bench --device vulkan --io-binding`, two rounds after a ramp, the
# torchvision / torch.nn models at fp16 and fp32 (the npm models in call 2), against PyTorch 2.11
# eager and torch.compile(reduce-overhead) in the same call.
# Carry .gl (at most ~45 MB gets through the tool): the debs, .gl/onnx/vxlib.tar.xz,
# .gl/t/{vx_head,vx_new,test_parity}.xz. Device command, repository root:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session29_2026-12-05/h200_call1/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s29a.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 150 /tmp/t/test_parity --gtest_filter='*Coopmat*:*CooperativeMatrix*:*VulkanGemm*:*VulkanRunner*:*VulkanConv*' > $R/parity.txt 2>&1
tail -n 3 $R/parity.txt; pack
timeout 200 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --models resnet50,mobilenet_v3_large,transformer_encoder,deeplabv3_mobilenet_v3_large > $R/torch.log 2>&1
tail -n 2 $R/torch.log; pack
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() { local tag=$1 bin=$2 m=$3 p=$4; shift 4
  timeout 60 /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" --runs 30 --warmup 5 \
    --warmup-seconds 1 --io-binding "$@" > $R/${tag}.txt 2>&1; }
b ramp vx_new resnet50 fp16 --warmup-seconds 4
for round in 1 2; do
  for m in resnet50 mobilenet_v3_large transformer_encoder deeplabv3_mobilenet_v3_large; do for p in fp16 fp32; do
    for bin in vx_head vx_new; do b r${round}_${m}_${p}_$bin $bin $m $p; done; done; done
done
cp /tmp/m/shapes.txt $R/
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
(cd $R && for f in r2_*.txt; do echo "$f $(head -3 $f | grep -E 'median|recorded' | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done)
pack
