# Throwaway (session 19): chains of one op, to read the per-dispatch floor from a per-node profile.
import numpy as np, onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh
def save(name, nodes, inp, out, inits=()):
    g = h.make_graph(nodes, name, [inp], [out], list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)]); m.ir_version = 7
    onnx.save(m, name + ".onnx")
n = 64
# Softmax chain on [1, 16]
nodes = [h.make_node("Softmax", [f"x{i}"], [f"x{i+1}"], axis=-1) for i in range(n)]
save("chain_softmax", nodes, h.make_tensor_value_info("x0", T.FLOAT, [1, 16]), h.make_tensor_value_info(f"x{n}", T.FLOAT, [1, 16]))
# MatMul chain [16,16] x const [16,16]
rng = np.random.default_rng(0)
inits = [nh.from_array((rng.standard_normal((16, 16)) * 0.25).astype(np.float32), f"w{i}") for i in range(n)]
nodes = [h.make_node("MatMul", [f"x{i}", f"w{i}"], [f"x{i+1}"]) for i in range(n)]
save("chain_matmul", nodes, h.make_tensor_value_info("x0", T.FLOAT, [16, 16]), h.make_tensor_value_info(f"x{n}", T.FLOAT, [16, 16]), inits)
# Conv 3x3 chain, 16 channels at 8x8
inits = [nh.from_array((rng.standard_normal((16, 16, 3, 3)) * 0.08).astype(np.float32), f"c{i}") for i in range(n)]
nodes = [h.make_node("Conv", [f"x{i}", f"c{i}"], [f"x{i+1}"], pads=[1, 1, 1, 1]) for i in range(n)]
save("chain_conv3x3", nodes, h.make_tensor_value_info("x0", T.FLOAT, [1, 16, 8, 8]), h.make_tensor_value_info(f"x{n}", T.FLOAT, [1, 16, 8, 8]), inits)
