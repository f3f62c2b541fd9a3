#!/usr/bin/python3
"""One-MatMul ONNX models for the GEMM micro-benchmark (bench/onnx/gemm_h200.sh): Y = A B with A an
input [M, K] and B a constant [K, N] (random, fixed seed), at the shapes of the GPT-2-sized decoder
of make_models.py at seq 128 (qkv, attention out-projection, MLP up / down, LM head) and one large
square product for peak throughput.

  /usr/bin/python3 bench/onnx/make_gemm_models.py OUT_DIR     # writes OUT_DIR/gemm_<name>.onnx
Prints "name M K N" per model.
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
    for name, (m, k, n) in SHAPES.items():
        make(name, m, k, n, out_dir)
        print(name, m, k, n)


if __name__ == "__main__":
    main()
