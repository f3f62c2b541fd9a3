"""OIDN's API for the denoiser: a Device makes Filters; a filter takes images (NumPy arrays) and
parameters by name, then commit() and execute(), as with oidn::DeviceRef and oidn::FilterRef.

    device = volvox.Device("vulkan")
    denoiser = device.new_filter("RT")
    denoiser.set_image("color", color)        # float32 or float16, HxWx3 or HxWx4
    denoiser.set_image("output", output)      # written in place
    denoiser.set("hdr", True)
    denoiser.commit()
    denoiser.execute()
"""
from typing import Callable, Optional, Union

import numpy as np

from . import _volvox
from ._errors import InvalidArgument

# Parameters by type, so that set("inputScale", 1) is a float and set("quality", "high") an int.
_BOOL_PARAMETERS = {"hdr", "srgb", "cleanAux"}
_INT_PARAMETERS = {"maxMemoryMB", "maxTileSize", "quality", "precision"}
_FLOAT_PARAMETERS = {"inputScale", "targetTileMs"}
QUALITIES = {"fast": 0, "balanced": 1, "high": 2, "default": 2}
PRECISIONS = {"auto": 0, "fp32": 1, "fp16": 2}

ProgressCallback = Callable[[float], Optional[bool]]


class Device:
    """A device to run filters on: "cpu", "vulkan", "vulkan:N" (the N-th GPU) or "auto" (a discrete
    GPU when there is one, else the CPU). num_threads: the CPU device's threads (0: all cores).
    Calls on one device from several threads take turns."""

    def __init__(self, kind: str = "auto", num_threads: int = 0) -> None:
        self._handle = _volvox.Device(kind, int(num_threads))

    @property
    def kind(self) -> str:
        """The kind it was made with ("cpu", "vulkan", ...)."""
        return self._handle.kind

    def commit(self) -> None:
        """Nothing to do (a Volvox device is ready when made); here for code written for OIDN."""

    def new_filter(self, type: str = "RT") -> "Filter":
        """A filter of OIDN's type "RT" (rendered images; albedo or normal alone: prefiltering)."""
        return Filter(self, type)

    def __repr__(self) -> str:
        return f"volvox.Device({self.kind!r})"


class Filter:
    """An OIDN filter. Images: "color", "albedo", "normal" (inputs) and "output", each a float32 or
    float16 array of HxWx3 (or HxWx4: the fourth channel is not read, nor written in the output).
    The filter uses the arrays in place, without copies, when their channels are adjacent (any row
    and pixel strides); other layouts are copied (the output back after execute). It keeps the
    arrays until unset. Parameters (set): hdr, srgb, cleanAux (bool); quality ("fast", "balanced",
    "high" or 0-2), precision ("auto", "fp32", "fp16" or 0-2), maxMemoryMB, maxTileSize (int);
    inputScale (float, NaN: automatic), targetTileMs (float)."""

    def __init__(self, device: Device, type: str = "RT") -> None:
        self.device = device
        self._filter = _volvox.Filter(device._handle, type)

    def set_image(self, name: str, image: np.ndarray) -> None:
        """Sets image `name`; the output array receives the result at execute()."""
        self._filter.set_image(name, image)

    def unset_image(self, name: str) -> None:
        """Removes image `name` (the filter lets go of its array)."""
        self._filter.unset_image(name)

    def set(self, name: str, value: Union[bool, int, float, str]) -> None:
        """Sets a parameter (see the class docstring for names and types)."""
        if name in _BOOL_PARAMETERS:
            self._filter.set_bool(name, bool(value))
        elif name in _INT_PARAMETERS:
            self._filter.set_int(name, _named_int(name, value))
        elif name in _FLOAT_PARAMETERS:
            self._filter.set_float(name, float(value))
        elif isinstance(value, bool):  # unknown names: the engine says so, by the value's type
            self._filter.set_bool(name, value)
        elif isinstance(value, int):
            self._filter.set_int(name, value)
        else:
            self._filter.set_float(name, float(value))

    def set_data(self, name: str, data: Union[bytes, bytearray, memoryview]) -> None:
        """OIDN's setData: "weights" takes a .tza file's bytes (else OIDN's choice of weights)."""
        if name != "weights":
            raise InvalidArgument(f"unknown data parameter '{name}' (expected weights)")
        self._filter.set_weights(bytes(data))

    def set_progress_monitor_function(self, fn: Optional[ProgressCallback]) -> None:
        """fn(progress in [0, 1]) is called while execute() runs (on the engine's thread, holding the
        GIL); returning False cancels the run, which then raises volvox.Cancelled; an exception
        in fn cancels it too and is raised by execute(). None removes it."""
        self._filter.set_progress(fn)

    def commit(self) -> None:
        """Prepares the network for the images and parameters set (done by execute() if needed)."""
        self._filter.commit()

    def execute(self) -> None:
        """Denoises into the output image; the GIL is released meanwhile."""
        self._filter.execute()


def _named_int(name: str, value: Union[int, str]) -> int:
    if isinstance(value, str):
        names = QUALITIES if name == "quality" else PRECISIONS if name == "precision" else {}
        if value not in names:
            raise InvalidArgument(f"{name} {value!r} (expected one of {', '.join(names) or 'an int'})")
        return names[value]
    return int(value)
