#!/usr/bin/env bash
# Session 30, call 1, asked of the H200 machine but run on an H100 (no H200 could be started in five tries,
# 12:05-12:45 UTC; the call named nvidia-h100-x1). Binaries: vx_base (1e1851f, session 29's tree) and vx_new
# (67242c2: the packed QKV product as three column panels; plus session 29's untested 32 x 64
# staged tile, applied from results/session29_2026-12-05/staged_small_untested.diff, which
# VOLVOX_VK_STAGED_SMALL=0 turns off).
# (1) test_parity of vx_new's tree: cooperative-matrix, GEMM, transformer and block runner tests
# (every staged case also on the 32 x 64 tile), then the transformer runner tests with the staged
# and staged_small kernels forced (the panel product, a batch of 3 with A broadcast, on tensor cores);
# (2) PyTorch 2.11 eager and torch.compile in the same call (20 runs after 5 and 1 s);
# (3) interleaved `volvox bench --device vulkan --io-binding`, two rounds after a ramp: base,
# new without and with the small tile, transformer fp16 / fp32 and ResNet-50 fp16; one profile each.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_base,vx_new,test_parity}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session30_2026-12-05/h100_call1/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s30a.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
timeout 150 /tmp/t/test_parity --gtest_filter='*CooperativeMatrix*:*VulkanGemm*:*VulkanRunnerTransformer*:*VulkanRunnerBlocks*' > $R/parity.txt 2>&1
echo "test_parity exit $?" >> $R/parity.txt
for k in staged staged_small; do
  VOLVOX_VK_GEMM=$k timeout 60 /tmp/t/test_parity --gtest_filter='*VulkanRunnerTransformer*' > $R/parity_$k.txt 2>&1
  echo "test_parity ($k) exit $?" >> $R/parity_$k.txt
done
tail -n 2 $R/parity*.txt; pack
timeout 150 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --models transformer_encoder,resnet50 > $R/torch.log 2>&1
tail -n 2 $R/torch.log; pack
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
b() { local tag=$1 bin=$2 small=$3 m=$4 p=$5; shift 5
  VOLVOX_VK_STAGED_SMALL=$small timeout 60 /tmp/t/$bin bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --io-binding "$@" > $R/${tag}.txt 2>&1; }
b ramp vx_new 1 transformer_encoder fp16 --warmup-seconds 4
for round in 1 2; do
  for mp in transformer_encoder:fp16 transformer_encoder:fp32 resnet50:fp16; do m=${mp%:*}; p=${mp#*:}
    b r${round}_${m}_${p}_base vx_base 1 $m $p --warmup-seconds 1
    for small in 0 1; do b r${round}_${m}_${p}_new_small$small vx_new $small $m $p --warmup-seconds 1; done
  done
done
b prof_transformer_fp16_base vx_base 1 transformer_encoder fp16 --warmup-seconds 1 --profile
for small in 0 1; do b prof_transformer_fp16_new_small$small vx_new $small transformer_encoder fp16 --warmup-seconds 1 --profile; done
cp /tmp/m/shapes.txt $R/
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
(cd $R && for f in r*_*.txt; do echo "$f $(head -3 $f | grep -E 'median|recorded' | sed 's/.*median //;s/, min [0-9.]* ms//;s/ (first.*//' | tr '\n' ' ')"; done)
pack
