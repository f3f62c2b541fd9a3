#!/usr/bin/python3
"""One-MatMul ONNX models for the GEMM micro-benchmark (bench/onnx/gemm_h200.sh): Y = A B with A an
input [M, K] and B a constant [K, N] (random, fixed seed), at the shapes of the GPT-2-sized decoder
of make_models.py at seq 128 (qkv, attention out-projection, MLP up / down, LM head) and one large
square product for peak throughput; and probes named on the command line only: DeepLabV3's ASPP
layer as a product (960 x 9 taps -> 256 channels over 33 x 33 pixels) with a ragged N and with N
padded to a multiple of 8, a one-K-step product (what a dispatch costs beside its K loop), and a
transformer encoder's products at d 512 (QKV, out-projection, feed-forward up and down), and
classifier heads at batch 1 (ResNet-50's, K 2048, and MobileNetV3's two).

  /usr/bin/python3 bench/onnx/make_gemm_models.py OUT_DIR [NAME ...]  # OUT_DIR/gemm_<name>.onnx
Prints "name M K N" per model (default: the SHAPES set).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPES = {  # name: (M, K, N)
    "qkv": (128, 768, 2304),
    "proj": (128, 768, 768),
    "fc": (128, 768, 3072),
    "out": (128, 3072, 768),
    "lm_head": (128, 768, 50257),
    "square2048": (2048, 2048, 2048),
}
PROBES = {
    "aspp": (256, 8640, 1089),
    "aspp_pad": (256, 8640, 1096),
    "k32": (128, 32, 2304),
    "qkv512": (128, 512, 1536),
    "out512": (128, 512, 512),
    "ffn1_512": (128, 512, 2048),
    "ffn2_512": (128, 2048, 512),
    "head2048": (1, 2048, 1000),
    "head1280": (1, 1280, 1000),
    "head960": (1, 960, 1280),
}


def make(name, m, k, n, out_dir):
    rng = np.random.default_rng(1234)
    b = (rng.standard_normal((k, n), dtype=np.float32) / np.sqrt(k)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["Y"], name=f"{name}/MatMul")], f"gemm_{name}",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [m, n])],
        [numpy_helper.from_array(b, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out_dir, f"gemm_{name}.onnx"))


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    names = sys.argv[2:] or list(SHAPES)
    for name in names:
        m, k, n = SHAPES[name] if name in SHAPES else PROBES[name]
        make(name, m, k, n, out_dir)
        print(name, m, k, n)


if __name__ == "__main__":
    main()
