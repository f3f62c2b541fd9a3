#!/usr/bin/env bash
# Session 23, call 5: where a call's wall clock goes beyond its GPU time (temporary probe:
# VOLVOX_TIMING_PROBE prints the mean time before the submit, in vkQueueSubmit, from its return to
# the fence seen signalled, and the segment's whole run()).
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
for b in .gl/t/*.xz; do n=$(basename $b .xz); xz -dc $b > /tmp/t/$n; chmod +x /tmp/t/$n; done
python3 - <<'PY'
import onnx
from onnx import helper, TensorProto
for count in (1, 200):
    nodes = []; prev = "x"
    for i in range(count):
        nodes.append(helper.make_node("Softmax", [prev], [f"s{i}"], axis=-1)); prev = f"s{i}"
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 256])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"/tmp/m/chain{count}.onnx")
PY
python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --no-compile --models transformer_encoder,mobilenet_v3_large > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
tar -C /tmp/m -xJf .gl/zoo/npm_small.tar.xz
S[ch_ppocr_mobile_v2.0_cls_infer]=x=1x3x48x192; S[chain1]=x=1x256; S[chain200]=x=1x256
b() {  # tag model precision [args]
  local tag=$1 m=$2 p=$3; shift 3
  VOLVOX_TIMING_PROBE=1 /tmp/t/vx_probe bench /tmp/m/$m.onnx --device vulkan --precision $p --shape "${S[$m]}" \
    --runs 300 --warmup 5 --warmup-seconds 1 "$@" > $R/${tag}.txt 2>&1
}
b ramp transformer_encoder fp16 --warmup-seconds 4
for m in chain1 chain200 ch_ppocr_mobile_v2.0_cls_infer mobilenet_v3_large transformer_encoder; do
  for p in fp16 fp32; do
    b ${m}_${p}_io $m $p --io-binding
    b ${m}_${p}_host $m $p
  done
  VOLVOX_VK_FENCE_POLL_US=0 b ${m}_fp16_io_nopoll $m fp16 --io-binding
done
cd $R && for f in *_io*.txt *_host.txt; do echo "== $f"; cat $f | grep -v "^$"; done
cd $OUT && tar -cJf s23e.tar.xz r && rm -rf r
