"""ONNX models written from the tests, with no onnx package (Debian has none): the few protobuf
messages a model needs (ModelProto, GraphProto, NodeProto, TensorProto, ValueInfoProto), encoded
by hand. Field numbers are onnx.proto's."""
import struct
from typing import Dict, List, Optional, Sequence, Union

import numpy as np

# onnx.TensorProto.DataType
ELEMENT_TYPES = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3, np.dtype(np.int32): 6,
                 np.dtype(np.int64): 7, np.dtype(np.bool_): 9, np.dtype(np.float16): 10, np.dtype(np.float64): 11}

Dim = Union[int, str, None]  # a fixed extent, a symbolic name, or neither


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int64s as two's complement
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _key(field: int, wire_type: int) -> bytes:
    return _varint(field << 3 | wire_type)


def _int(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value)


def _bytes(field: int, value: Union[bytes, str]) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _key(field, 2) + _varint(len(data)) + data


def _float(field: int, value: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", value)


def tensor(name: str, array: np.ndarray) -> bytes:
    """A TensorProto (an initializer) holding `array` as raw data."""
    array = np.ascontiguousarray(array)
    return (b"".join(_int(1, d) for d in array.shape) + _int(2, ELEMENT_TYPES[array.dtype]) + _bytes(8, name)
            + _bytes(9, array.tobytes()))


def value_info(name: str, dtype, shape: Optional[Sequence[Dim]]) -> bytes:
    """A ValueInfoProto: a graph input or output with its element type and shape (None: no shape)."""
    tensor_type = _int(1, ELEMENT_TYPES[np.dtype(dtype)])
    if shape is not None:
        dims = b""
        for d in shape:
            dim = _int(1, d) if isinstance(d, int) else _bytes(2, d) if isinstance(d, str) else b""
            dims += _bytes(1, dim)
        tensor_type += _bytes(2, dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def node(op_type: str, inputs: Sequence[str], outputs: Sequence[str], name: str = "", **attributes) -> bytes:
    """A NodeProto; attributes: int, float, str, list of ints or list of floats."""
    body = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs)
    body += _bytes(3, name or f"{op_type}_{outputs[0]}") + _bytes(4, op_type)
    for key, value in attributes.items():
        a = _bytes(1, key)
        if isinstance(value, bool) or isinstance(value, int):
            a += _int(3, int(value)) + _int(20, 2)
        elif isinstance(value, float):
            a += _float(2, value) + _int(20, 1)
        elif isinstance(value, str):
            a += _bytes(4, value) + _int(20, 3)
        elif all(isinstance(v, int) for v in value):
            a += b"".join(_int(8, v) for v in value) + _int(20, 7)
        else:
            a += b"".join(_float(7, v) for v in value) + _int(20, 6)
        body += _bytes(5, a)
    return body


def model(nodes: List[bytes], inputs: List[bytes], outputs: List[bytes],
          initializers: Optional[Dict[str, np.ndarray]] = None, opset: int = 13, name: str = "test") -> bytes:
    """A ModelProto (IR version 8) of one graph."""
    graph = b"".join(_bytes(1, n) for n in nodes) + _bytes(2, name)
    graph += b"".join(_bytes(5, tensor(k, v)) for k, v in (initializers or {}).items())
    graph += b"".join(_bytes(11, i) for i in inputs) + b"".join(_bytes(12, o) for o in outputs)
    return _int(1, 8) + _bytes(2, "volvox-tests") + _bytes(7, graph) + _bytes(8, _bytes(1, "") + _int(2, opset))
