"""Volvox from Python: ONNX models with ONNX Runtime's session API, and OIDN's denoiser with OIDN's
filter API or in one call, on NumPy arrays.

    import volvox
    sess = volvox.InferenceSession("model.onnx", providers=["VulkanExecutionProvider", "CPUExecutionProvider"])
    outputs = sess.run(None, {sess.get_inputs()[0].name: x})

    clean = volvox.denoise(volvox.read_image("noisy.exr"), hdr=True, device="vulkan")
"""
from ._denoise import denoise
from ._denoiser import Device, Filter
from ._errors import (Cancelled, DeviceLost, Error, InternalError, InvalidArgument, InvalidFile, IoError, OutOfMemory,
                      Unsupported)
from ._images import read_image, write_image
from ._providers import get_all_providers, get_available_providers, get_device
from ._session import InferenceSession, NodeArg
from ._session_options import ExecutionMode, GraphOptimizationLevel, RunOptions, SessionOptions

__version__ = "0.1.0"

__all__ = [
    "InferenceSession", "SessionOptions", "RunOptions", "NodeArg", "GraphOptimizationLevel", "ExecutionMode",
    "get_available_providers", "get_all_providers", "get_device",
    "Device", "Filter", "denoise",
    "read_image", "write_image",
    "Error", "InvalidArgument", "InvalidFile", "Unsupported", "IoError", "OutOfMemory", "DeviceLost", "Cancelled",
    "InternalError",
]
