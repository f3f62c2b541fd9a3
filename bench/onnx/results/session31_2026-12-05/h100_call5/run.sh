#!/usr/bin/env bash
# Session 31, call 5: vx_base (main, 699bbdd) against vx_new (call 4's tree), `volvox bench
# --io-binding` at fp16, interleaved, two rounds after a ramp; DeepLabV3 also with the 64 x 64 tile
# forced; then PyTorch eager / torch.compile (reduce-overhead) on the same exported models.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/{vx_base,vx_new}.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session31_2026-12-05/h100_call5/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for n in vx_base vx_new; do xz -dc .gl/t/$n.xz > /tmp/t/$n; chmod +x /tmp/t/$n; done
pack() { (cd $OUT && tar -cJf s31e.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $R/gpu.txt 2>&1
timeout 100 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch_eager.json --runs 3 --warmup 1 \
  --warmup-seconds 0 --no-compile --models transformer_encoder,resnet50,mobilenet_v3_large,deeplabv3_mobilenet_v3_large > $R/torch_export.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
t() { local tag=$1 bin=$2 model=$3; shift 3
  env "$@" timeout 40 /tmp/t/$bin bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > $R/$tag.txt 2>&1; }
t ramp vx_new resnet50 VOLVOX_X=0
for round in 1 2; do for model in transformer_encoder resnet50 deeplabv3_mobilenet_v3_large mobilenet_v3_large; do
  for bin in vx_base vx_new; do t r${round}_${model}_$bin $bin $model VOLVOX_X=0; done; done
  t r${round}_deeplab_64x64_vx_new vx_new deeplabv3_mobilenet_v3_large VOLVOX_VK_STAGED_TILE=64x64; done
(cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*: 30 runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"; done) > $R/summary.txt
cat $R/summary.txt; pack
timeout 150 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m2 --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --models transformer_encoder,resnet50 > $R/torch.log 2>&1
grep -v Deprec $R/torch.log | tail -6; pack
