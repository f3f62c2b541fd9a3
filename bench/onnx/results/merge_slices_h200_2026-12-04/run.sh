#!/usr/bin/env bash
# Session 23, call 7: three Slices of a packed QKV projection as one Split (vx_split) against
# 29632dc (vx_base), on a synthetic model of 6 blocks x [128, 1, 512] -> MatMul 512 x 1536 + bias ->
# Slices of 512 -> Add(Mul(q, k), v) (the cut older PyTorch exports write in an encoder layer).
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
python3 - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(0); nodes = []; inits = []; x = "x"
for i in range(6):
    inits += [numpy_helper.from_array((rng.standard_normal((512, 1536)) * 0.02).astype(np.float32), f"w{i}"),
              numpy_helper.from_array(np.zeros(1536, np.float32), f"b{i}")]
    nodes += [helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"]), helper.make_node("Add", [f"m{i}", f"b{i}"], [f"qkv{i}"])]
    for j, n in enumerate("qkv"):
        for t, v in (("s", j * 512), ("e", (j + 1) * 512)):
            inits.append(numpy_helper.from_array(np.array([v], np.int64), f"{t}{i}{n}"))
        nodes.append(helper.make_node("Slice", [f"qkv{i}", f"s{i}{n}", f"e{i}{n}", "axis"], [f"{n}{i}"]))
    nodes += [helper.make_node("Mul", [f"q{i}", f"k{i}"], [f"p{i}"]), helper.make_node("Add", [f"p{i}", f"v{i}"], [f"x{i}"])]
    x = f"x{i}"
inits.append(numpy_helper.from_array(np.array([2], np.int64), "axis"))
g = helper.make_graph(nodes, "qkv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [128, 1, 512])],
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [128, 1, 512])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "/tmp/m/qkv6.onnx")
PY
b() { /tmp/t/$2 bench /tmp/m/qkv6.onnx --device vulkan --precision fp16 --shape x=128x1x512 --runs 30 --warmup 5 --warmup-seconds 1 $3 > $R/$1.txt 2>&1; }
b ramp vx_base "--warmup-seconds 3"
for round in 1 2 3; do for bin in vx_base vx_split; do b r${round}_${bin} $bin --io-binding; done; done
b profile_vx_split vx_split --profile
cd $R && for f in r*.txt; do echo "$f $(head -2 $f | sed 's/.*median //;s/, min.*//' | tr '\n' ' ')"; done; grep -E "Split|Slice" profile_vx_split.txt | head -4
cd $OUT && tar -cJf s23g.tar.xz r && rm -rf r
