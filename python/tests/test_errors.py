"""Misuse raises one volvox exception with the engine's message (and the built-in class that fits),
never a crash: models, filters and image files."""
import numpy as np
import pytest

import models
import volvox


@pytest.fixture
def cnn():
    return volvox.InferenceSession(models.small_cnn())


def good_image():
    return np.zeros((1, 3, 16, 16), np.float32)


def test_wrong_dtype(cnn):
    with pytest.raises(volvox.InvalidArgument, match=r"input 'image' has dtype float64 but the model declares "
                                                     r"tensor\(float\)"):
        cnn.run(None, {"image": np.zeros((1, 3, 16, 16))})
    with pytest.raises(ValueError):  # InvalidArgument is a ValueError too
        cnn.run(None, {"image": np.zeros((1, 3, 16, 16), np.int32)})


def test_wrong_shape(cnn):
    with pytest.raises(volvox.InvalidArgument, match=r"dimension 2 must be 16"):
        cnn.run(None, {"image": np.zeros((1, 3, 15, 16), np.float32)})
    with pytest.raises(volvox.InvalidArgument, match=r"rank 2"):
        cnn.run(None, {"image": np.zeros((3, 16), np.float32)})


def test_unknown_and_missing_names(cnn):
    with pytest.raises(volvox.InvalidArgument, match=r"no input 'img' \(inputs: 'image'\)"):
        cnn.run(None, {"img": good_image()})
    with pytest.raises(volvox.InvalidArgument, match=r"lacks 'image'"):
        cnn.run(None, {})
    with pytest.raises(volvox.InvalidArgument, match=r"no output 'logits'"):
        cnn.run(["logits"], {"image": good_image()})
    with pytest.raises(volvox.InvalidArgument, match=r"dict"):
        cnn.run(None, [good_image()])


def test_closed_session(cnn):
    cnn.run(None, {"image": good_image()})
    cnn.close()
    with pytest.raises(volvox.InvalidArgument, match=r"the session is closed"):
        cnn.run(None, {"image": good_image()})
    cnn.close()  # closing twice is harmless
    with volvox.InferenceSession(models.small_cnn()) as session:
        session.run(None, {"image": good_image()})
    with pytest.raises(volvox.InvalidArgument, match=r"closed"):
        session.run(None, {"image": good_image()})


def test_bad_models(tmp_path):
    with pytest.raises(volvox.InvalidFile):
        volvox.InferenceSession(b"not an onnx model")
    with pytest.raises(volvox.IoError, match=r"missing\.onnx"):
        volvox.InferenceSession(str(tmp_path / "missing.onnx"))
    with pytest.raises(volvox.Unsupported, match=r"NoSuchOperator"):
        volvox.InferenceSession(models.unsupported_op())
    with pytest.raises(volvox.Unsupported, match=r"fp16 is supported on the vulkan device only"):
        volvox.InferenceSession(models.small_cnn(), providers=[("CPUExecutionProvider", {"precision": "fp16"})])
    with pytest.raises(volvox.InvalidArgument, match=r"precision 'half'"):
        volvox.InferenceSession(models.small_cnn(), providers=[("CPUExecutionProvider", {"precision": "half"})])
    with pytest.raises(volvox.InvalidArgument, match=r"takes no option 'fp16'"):
        volvox.InferenceSession(models.small_cnn(), providers=[("CPUExecutionProvider", {"fp16": True})])
    with pytest.raises(TypeError, match=r"sess_option"):
        volvox.InferenceSession(models.small_cnn(), sess_option=None)


def test_memory_limit_is_an_out_of_memory_error():
    session = volvox.InferenceSession(models.small_cnn(), providers=[("CPUExecutionProvider", {"max_memory_mb": 1})])
    session.run(None, {"image": good_image()})  # a few kB of activations
    with pytest.raises(volvox.OutOfMemory, match=r"maxMemoryMB") as error:  # 512 x 8 x 16 x 16 floats: 4 MB
        session.run(None, {"image": np.zeros((512, 3, 16, 16), np.float32)})
    assert isinstance(error.value, MemoryError)


def test_filter_misuse(tmp_path):
    device = volvox.Device("cpu")
    denoiser = device.new_filter("RT")
    with pytest.raises(volvox.InvalidArgument, match=r"float32 or float16, not float64"):
        denoiser.set_image("color", np.zeros((8, 8, 3)))
    with pytest.raises(volvox.InvalidArgument, match=r"HxWx3 or HxWx4, not shape \(8, 8\)"):
        denoiser.set_image("color", np.zeros((8, 8), np.float32))
    with pytest.raises(volvox.InvalidArgument, match=r"must be a NumPy array, not list"):
        denoiser.set_image("color", [[0.0, 0.0, 0.0]])
    read_only = np.zeros((8, 8, 3), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(volvox.InvalidArgument, match=r"read-only"):
        denoiser.set_image("output", read_only)
    with pytest.raises(volvox.InvalidArgument, match=r"unknown"):
        denoiser.set("sharpness", 2.0)
    with pytest.raises(volvox.InvalidArgument, match=r"quality 'best'"):
        denoiser.set("quality", "best")
    with pytest.raises(volvox.InvalidArgument):
        denoiser.set_data("palette", b"")
    with pytest.raises(volvox.Unsupported, match=r"unknown filter type 'RTX'"):
        device.new_filter("RTX")
    with pytest.raises(volvox.Error):
        volvox.Device("no-such-device")
    # Images of different sizes: one error at execute, naming them.
    denoiser.set_image("color", np.zeros((8, 8, 3), np.float32))
    denoiser.set_image("albedo", np.zeros((8, 9, 3), np.float32))
    denoiser.set_image("output", np.zeros((8, 8, 3), np.float32))
    with pytest.raises(volvox.InvalidArgument, match=r"albedo"):
        denoiser.execute()
    with pytest.raises(volvox.InvalidArgument, match=r"float32 or float16"):
        volvox.denoise(np.zeros((8, 8, 3)))


def test_image_file_errors(tmp_path):
    with pytest.raises(volvox.IoError, match=r"missing\.exr") as error:
        volvox.read_image(tmp_path / "missing.exr")
    assert isinstance(error.value, OSError)
    (tmp_path / "bad.pfm").write_bytes(b"PF\n4 4\n-1.0\nshort")
    with pytest.raises(volvox.InvalidFile):
        volvox.read_image(tmp_path / "bad.pfm")
    with pytest.raises(volvox.Unsupported, match=r"\.bmp"):
        volvox.read_image(tmp_path / "a.bmp")
    with pytest.raises(volvox.InvalidArgument, match=r"float32 or float16"):
        volvox.write_image(tmp_path / "a.pfm", np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(volvox.InvalidArgument, match=r"5 channels"):
        volvox.write_image(tmp_path / "a.png", np.zeros((4, 4, 5), np.float32))
    with pytest.raises(volvox.IoError):
        volvox.write_image(tmp_path / "no" / "folder" / "a.exr", np.zeros((4, 4, 3), np.float32))
