#!/usr/bin/env bash
# Session 23, call 2: which barrier between two dispatches is cheaper. VOLVOX_VK_BARRIER_PROBE (a
# probe, not kept; README.md): 0 the usual compute+transfer global barrier, 3 an execution-only
# barrier (no memory barrier: results undefined), 4 a buffer barrier on the arena, 7 compute write ->
# compute read only, 2 none (results undefined: the floor).
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
python3 - <<'PY'
import onnx
from onnx import helper, TensorProto
nodes = []
prev = "x"
for i in range(200):
    nodes.append(helper.make_node("Softmax", [prev], [f"s{i}"], axis=-1)); prev = f"s{i}"
g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256])],
                      [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 256])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "/tmp/m/chain200.onnx")
PY
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --no-compile --models transformer_encoder,resnet50,mobilenet_v3_large \
  --runs 20 --warmup 5 --warmup-seconds 2 > $R/torch.log 2>&1
cp /tmp/m/shapes.txt $R/
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
S[chain200]=x=1x256
b() {  # tag mode model precision [args]
  local tag=$1 mode=$2 m=$3 p=$4; shift 4
  VOLVOX_VK_BARRIER_PROBE=$mode /tmp/t/vx_probe bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp 0 resnet50 fp16 --warmup-seconds 5
for round in 1 2 3; do
  for m in chain200 transformer_encoder resnet50 mobilenet_v3_large; do
    for mode in 0 3 4 7 2; do b r${round}_${m}_fp16_m${mode} $mode $m fp16 --io-binding; done
  done
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $R/gpu.txt 2>&1
cd $R && for f in r*_*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done
python3 -c 'import json; d=json.load(open("torch.json")); print({m: {p: d["models"][m][p]["compile"]["median_ms"] for p in ("fp16",)} for m in d["models"]})'
cd $OUT && tar -cJf s23b.tar.xz r && rm -rf r
