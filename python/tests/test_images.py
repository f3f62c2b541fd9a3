"""read_image and write_image: the repository's reader test files (written by
tests/data/make_image_test_data.py with the standard library only) against the pixel formulas that
script documents, and every format written and read back within its precision."""
import numpy as np
import pytest

import volvox
from conftest import REPO

DATA = REPO / "tests" / "data" / "images"


def test_reader_test_files_hold_their_documented_pixels():
    grey16 = volvox.read_image(DATA / "grey16_3x2.png")
    assert grey16.shape == (2, 3, 1) and grey16.dtype == np.float32
    assert np.array_equal(grey16.ravel(), np.array([0, 1, 257, 32768, 12345, 65535], np.float32) / 65535)
    palette = volvox.read_image(DATA / "palette2bit_4x3.png")
    colors = np.array([(255, 0, 0), (0, 255, 0), (0, 0, 255), (10, 20, 30)], np.float32) / 255
    assert palette.shape == (3, 4, 3)
    assert np.array_equal(palette, colors[(np.arange(4)[None, :] + np.arange(3)[:, None]) % 4])
    rgba = volvox.read_image(DATA / "rgba8_adam7_5x5.png")
    y, x = np.mgrid[0:5, 0:5]
    expected = np.stack([40 * x + 7 * y, 255 - 30 * y, 11 * x * y, 200 + x + y], axis=2).astype(np.float32) / 255
    assert rgba.shape == (5, 5, 4) and np.array_equal(rgba, expected)
    pfm = volvox.read_image(DATA / "rgb_big_endian_3x2.pfm")
    y, x, c = np.mgrid[0:2, 0:3, 0:3]
    assert np.array_equal(pfm, (x + 10 * y + 0.25 * c - 1.5).astype(np.float32))
    grey = volvox.read_image(DATA / "grey_2x2.pfm")
    assert np.array_equal(grey.ravel(), np.array([1e-3, 2, -7, 1e6], np.float32))
    hdr = volvox.read_image(DATA / "flat_bottom_up_3x2.hdr")
    y, x = np.mgrid[0:2, 0:3]
    rgbe_scale = np.ldexp(1.0, (128 + x) - 136)  # mantissa * 2^(E - 136), as the engine's reader decodes
    expected = np.stack([50 + x, 60 + y, 70 + x + y], axis=2) * rgbe_scale[..., None]
    expected[1, 2] = 0  # E = 0: black
    assert hdr.shape == (2, 3, 3) and np.allclose(hdr, expected, rtol=1e-6)


def pixels(channels, dtype=np.float32):
    return (np.random.default_rng(channels).random((6, 5, channels)) * 0.98).astype(dtype)


@pytest.mark.parametrize("name,channels,tolerance", [
    ("a.pfm", 3, 0.0), ("g.pfm", 1, 0.0), ("a.exr", 4, 0.0), ("a.png", 3, 0.5 / 255), ("a.hdr", 3, 1 / 128)])
def test_every_format_round_trips(tmp_path, name, channels, tolerance):
    image = pixels(channels)
    volvox.write_image(tmp_path / name, image)
    back = volvox.read_image(tmp_path / name)
    assert back.shape == image.shape and back.dtype == np.float32
    assert np.max(np.abs(back - image)) <= tolerance + 1e-7


def test_precision_options(tmp_path):
    image = pixels(3)
    volvox.write_image(tmp_path / "half.exr", image.astype(np.float16))  # float16 arrays: half EXR, exact
    assert np.array_equal(volvox.read_image(tmp_path / "half.exr"), image.astype(np.float16).astype(np.float32))
    volvox.write_image(tmp_path / "forced.exr", image, exr_half=True)
    assert np.array_equal(volvox.read_image(tmp_path / "forced.exr"), image.astype(np.float16).astype(np.float32))
    volvox.write_image(tmp_path / "deep.png", image, png_bits=16)
    assert np.max(np.abs(volvox.read_image(tmp_path / "deep.png") - image)) <= 0.5 / 65535 + 1e-7
    grey = image[..., 0]  # HxW is one channel
    volvox.write_image(tmp_path / "grey.pfm", grey)
    assert np.array_equal(volvox.read_image(tmp_path / "grey.pfm")[..., 0], grey)
    strided = image[::2, ::-1]  # any layout is written as its values
    volvox.write_image(tmp_path / "strided.pfm", strided)
    assert np.array_equal(volvox.read_image(tmp_path / "strided.pfm"), strided)


def test_read_image_is_writable_and_owned(tmp_path):
    volvox.write_image(tmp_path / "a.pfm", pixels(3))
    image = volvox.read_image(str(tmp_path / "a.pfm"))
    assert image.flags.c_contiguous and image.flags.writeable
    image += 1  # the engine's pixels belong to the array now
    assert np.array_equal(image, pixels(3) + 1)
