"""The test models (onnx_builder.py), with seeded weights so that every run builds the same bytes."""
import numpy as np

from onnx_builder import model, node, value_info


def small_cnn() -> bytes:
    """image [batch, 3, 16, 16] -> Conv 3x3 (8) -> Relu -> MaxPool 2 -> Conv 3x3 (4) -> Relu ->
    GlobalAveragePool -> Flatten -> Gemm (10) -> Softmax -> probabilities [batch, 10]."""
    rng = np.random.default_rng(13)
    weights = {
        "w1": rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), "b1": rng.normal(0, 0.1, 8).astype(np.float32),
        "w2": rng.normal(0, 0.3, (4, 8, 3, 3)).astype(np.float32), "b2": rng.normal(0, 0.1, 4).astype(np.float32),
        "w3": rng.normal(0, 0.5, (10, 4)).astype(np.float32), "b3": rng.normal(0, 0.1, 10).astype(np.float32),
    }
    nodes = [
        node("Conv", ["image", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        node("Relu", ["c1"], ["r1"]),
        node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        node("Conv", ["p1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        node("Relu", ["c2"], ["r2"]),
        node("GlobalAveragePool", ["r2"], ["g"]),
        node("Flatten", ["g"], ["f"], axis=1),
        node("Gemm", ["f", "w3", "b3"], ["logits"], transB=1),
        node("Softmax", ["logits"], ["probabilities"], axis=1),
    ]
    return model(nodes, [value_info("image", np.float32, ["batch", 3, 16, 16])],
                 [value_info("probabilities", np.float32, ["batch", 10])], weights, name="small_cnn")


def mixed_types() -> bytes:
    """x float [n, 4], mask bool [n, 4], indices int64 [2], h float16 [3]:
    masked = Where(mask, x, 0); picked = Gather(x, indices, axis 1) [n, 2]; count = ReduceSum over
    Cast(mask, int64) (keepdims 0) []; doubled = h + h (float16)."""
    zero = np.zeros((), np.float32)
    nodes = [
        node("Where", ["mask", "x", "zero"], ["masked"]),
        node("Gather", ["x", "indices"], ["picked"], axis=1),
        node("Cast", ["mask"], ["mask64"], to=7),
        node("ReduceSum", ["mask64"], ["count"], keepdims=0),
        node("Add", ["h", "h"], ["doubled"]),
    ]
    inputs = [value_info("x", np.float32, ["n", 4]), value_info("mask", np.bool_, ["n", 4]),
              value_info("indices", np.int64, [2]), value_info("h", np.float16, [3])]
    outputs = [value_info("masked", np.float32, ["n", 4]), value_info("picked", np.float32, ["n", 2]),
               value_info("count", np.int64, []), value_info("doubled", np.float16, [3])]
    return model(nodes, inputs, outputs, {"zero": zero}, name="mixed_types")


def scaled() -> bytes:
    """x float [n] times a scalar s float [] -> y [n]: a rank-0 input."""
    return model([node("Mul", ["x", "s"], ["y"])], [value_info("x", np.float32, ["n"]), value_info("s", np.float32, [])],
                 [value_info("y", np.float32, ["n"])], name="scaled")


def negate(n: int) -> bytes:
    """x float [n] -> Neg -> y float [n]: an output as large as the input, for the leak test."""
    return model([node("Neg", ["x"], ["y"])], [value_info("x", np.float32, [n])],
                 [value_info("y", np.float32, [n])], name="negate")


def unsupported_op() -> bytes:
    """x -> an op no Volvox kernel runs (If needs subgraphs; a made-up op in the default domain)."""
    return model([node("NoSuchOperator", ["x"], ["y"])], [value_info("x", np.float32, [2])],
                 [value_info("y", np.float32, [2])], name="unsupported")
