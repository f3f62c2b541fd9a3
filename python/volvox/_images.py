"""Image files through the engine's own readers and writers (the ones `volvox denoise` uses)."""
import os
from typing import Optional, Union

import numpy as np

from . import _volvox
from ._errors import InvalidArgument

PathLike = Union[str, os.PathLike]


def read_image(path: PathLike) -> np.ndarray:
    """Reads an .exr, .pfm, .hdr or .png file into a float32 array of HxWxC, C the channels the file
    stores (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA). PNG samples become v/255 (or v/65535), without
    sRGB decoding; float formats keep their values. Raises volvox.IoError (missing, unreadable),
    InvalidFile (corrupt) or Unsupported (another extension)."""
    return _volvox.read_image(os.fspath(path))


def write_image(path: PathLike, image: np.ndarray, *, png_bits: int = 8, exr_half: Optional[bool] = None) -> None:
    """Writes a float32 or float16 array of HxW or HxWxC (C 1 to 4; PFM 1, 3 or 4) to an .exr, .pfm,
    .hdr or .png file, atomically (a failed write leaves the previous file). png_bits: 8 or 16 (PNG
    clamps to [0, 1]); exr_half: EXR channels as half or float (None: half for float16 arrays,
    float for float32, so that nothing is lost)."""
    array = np.asarray(image)
    if array.dtype not in (np.float32, np.float16):
        raise InvalidArgument(f"write_image takes float32 or float16 pixels, not {array.dtype}")
    if array.ndim not in (2, 3):
        raise InvalidArgument(f"write_image takes HxW or HxWxC pixels, not shape {array.shape}")
    if exr_half is None:
        exr_half = array.dtype == np.float16
    _volvox.write_image(os.fspath(path), np.ascontiguousarray(array, dtype=np.float32), int(png_bits), bool(exr_half))
