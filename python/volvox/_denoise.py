"""volvox.denoise: one call from noisy pixels to denoised ones, on the filter of _denoiser.py."""
import functools
from typing import Optional, Union

import numpy as np

from ._denoiser import Device, Filter, ProgressCallback
from ._errors import InvalidArgument


@functools.lru_cache(maxsize=8)
def _shared_device(kind: str) -> Device:
    """One device per kind for the process: making a Vulkan device costs more than a small image."""
    return Device(kind)


def denoise(color: np.ndarray, albedo: Optional[np.ndarray] = None, normal: Optional[np.ndarray] = None,
            hdr: bool = False, srgb: bool = False, device: Union[str, Device] = "auto", quality: str = "high", *,
            clean_aux: bool = False, input_scale: Optional[float] = None, precision: str = "auto",
            progress: Optional[ProgressCallback] = None) -> np.ndarray:
    """Denoises a rendered image with OIDN's networks and returns a new array of color's shape and
    dtype (a fourth channel is copied from color).

    color: float32 or float16, HxWx3 or HxWx4; linear radiance with hdr=True, else [0, 1] values
        (srgb=True: already sRGB-encoded). albedo and normal: the same size (normal in [-1, 1]).
    device: "auto", "cpu", "vulkan", "vulkan:N" (one device per kind is kept for the process) or a
        volvox.Device. quality: "high", "balanced" or "fast" (OIDN's choice of weights).
    clean_aux: albedo and normal are noise-free. input_scale: None for autoexposure (hdr) or 1.
    precision: "auto", "fp32" or "fp16". progress: as Filter.set_progress_monitor_function.
    The same pixels as `volvox denoise` with the same options and device.
    """
    if not isinstance(color, np.ndarray):
        raise InvalidArgument(f"color must be a NumPy array, not {type(color).__name__}")
    dev = device if isinstance(device, Device) else _shared_device(device)
    denoiser = Filter(dev, "RT")
    output = np.empty(color.shape, dtype=color.dtype)
    denoiser.set_image("color", color)
    if albedo is not None:
        denoiser.set_image("albedo", albedo)
    if normal is not None:
        denoiser.set_image("normal", normal)
    denoiser.set_image("output", output)
    denoiser.set("hdr", hdr)
    denoiser.set("srgb", srgb)
    denoiser.set("cleanAux", clean_aux)
    denoiser.set("quality", quality)
    denoiser.set("precision", precision)
    if input_scale is not None:
        denoiser.set("inputScale", input_scale)
    if progress is not None:
        denoiser.set_progress_monitor_function(progress)
    denoiser.execute()
    if output.shape[-1] == 4:
        output[..., 3] = color[..., 3]
    return output
