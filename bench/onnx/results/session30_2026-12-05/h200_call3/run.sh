#!/usr/bin/env bash
# Session 30, call 3 (the H200, if one starts): the column panels on the H200. vx_base (1e1851f)
# against vx_new (call 2's binary: c0d0319 + attention_q8.diff, run with VOLVOX_VK_ATTENTION_BLOCK=16,
# i.e. c0d0319's kernels); torch.compile on the transformer encoder in the same call; three
# interleaved rounds of `volvox bench --device vulkan --io-binding` after a ramp, fp16 and fp32.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_base,vx_new}.xz (test_parity unused). Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session30_2026-12-05/h200_call3/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for n in vx_base vx_new; do xz -dc .gl/t/$n.xz > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s30c.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 120 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --models transformer_encoder > $R/torch.log 2>&1
grep torch_zoo_gpu $R/torch.log | grep -v Deprecation; pack
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() { local tag=$1 bin=$2 p=$3; shift 3
  VOLVOX_VK_ATTENTION_BLOCK=16 timeout 60 /tmp/t/$bin bench /tmp/m/transformer_encoder.onnx --device vulkan --precision $p \
    --shape "${S[transformer_encoder]}" --runs 30 --warmup 5 --io-binding "$@" > $R/${tag}.txt 2>&1; }
b ramp vx_new fp16 --warmup-seconds 4
for round in 1 2 3; do for p in fp16 fp32; do for bin in vx_base vx_new; do
  b r${round}_transformer_encoder_${p}_$bin $bin $p --warmup-seconds 1; done; done; done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
(cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*: 30 runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"; done)
pack
