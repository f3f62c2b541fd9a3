"""InferenceSession against `volvox run` (the C++ engine through the CLI) on the CPU and on Vulkan:
the same outputs for the same inputs, on several types, symbolic shapes and batch sizes."""
import numpy as np
import pytest

import models
import volvox
from conftest import max_abs_diff, run_cli

PROVIDERS = {"cpu": ["CPUExecutionProvider"], "vulkan": ["VulkanExecutionProvider", "CPUExecutionProvider"]}


def cli_outputs(cli, tmp_path, model_bytes, feed, device):
    """What `volvox run` writes for `feed`, by output name."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    model_path = tmp_path / "model.onnx"
    model_path.write_bytes(model_bytes)
    args = ["run", model_path, "-o", tmp_path / "out", "--device", device]
    for name, value in feed.items():
        np.save(tmp_path / f"{name}.npy", value)
        args += ["-i", f"{name}={tmp_path / f'{name}.npy'}"]
    run_cli(cli, args)
    return {path.stem: np.load(path) for path in (tmp_path / "out").glob("*.npy")}


def mixed_feed(n):
    rng = np.random.default_rng(n)
    return {"x": rng.normal(size=(n, 4)).astype(np.float32), "mask": rng.random((n, 4)) < 0.5,
            "indices": np.array([3, 1], dtype=np.int64), "h": np.array([0.5, -1.25, 3.0], dtype=np.float16)}


@pytest.mark.parametrize("device", ["cpu", "vulkan"])
def test_cnn_outputs_equal_volvox_run(cli, tmp_path, device, request):
    if device == "vulkan":
        request.getfixturevalue("vulkan")
    session = volvox.InferenceSession(models.small_cnn(), providers=PROVIDERS[device])
    assert session.get_providers()[0] == PROVIDERS[device][0]
    for batch in (1, 3):  # a symbolic batch: two plans in one session
        feed = {"image": np.random.default_rng(batch).normal(size=(batch, 3, 16, 16)).astype(np.float32)}
        (probabilities,) = session.run(None, feed)
        expected = cli_outputs(cli, tmp_path / str(batch), models.small_cnn(), feed, device)
        assert list(expected) == ["probabilities"]
        # The same engine on the same device: the same float32 values (1e-6 for summation order).
        assert max_abs_diff(probabilities, expected["probabilities"]) <= 1e-6


@pytest.mark.parametrize("device", ["cpu", "vulkan"])
def test_every_element_type_equals_volvox_run(cli, tmp_path, device, request):
    if device == "vulkan":
        request.getfixturevalue("vulkan")
    session = volvox.InferenceSession(models.mixed_types(), providers=PROVIDERS[device])
    feed = mixed_feed(5)
    outputs = session.run(None, feed)
    expected = cli_outputs(cli, tmp_path, models.mixed_types(), feed, device)
    names = [o.name for o in session.get_outputs()]
    assert names == ["masked", "picked", "count", "doubled"]
    for name, value in zip(names, outputs):
        assert value.dtype == expected[name].dtype, name
        assert value.shape == expected[name].shape, name
        assert max_abs_diff(value, expected[name]) == 0.0, name
    # And the values themselves, computed here.
    assert np.array_equal(outputs[0], np.where(feed["mask"], feed["x"], 0))
    assert np.array_equal(outputs[1], feed["x"][:, [3, 1]])
    assert outputs[2] == feed["mask"].sum() and outputs[2].dtype == np.int64
    assert np.array_equal(outputs[3], feed["h"] + feed["h"])


def test_output_names_pick_and_order(tmp_path):
    session = volvox.InferenceSession(models.mixed_types())
    feed = mixed_feed(2)
    everything = session.run([], feed)
    doubled, masked = session.run(["doubled", "masked"], feed)
    assert np.array_equal(doubled, everything[3]) and np.array_equal(masked, everything[0])


def test_strided_and_non_array_inputs_give_the_same_outputs():
    session = volvox.InferenceSession(models.small_cnn())
    x = np.random.default_rng(3).normal(size=(2, 3, 16, 32)).astype(np.float32)
    strided = x[:, :, :, ::2]  # not contiguous: copied for the engine
    contiguous = np.ascontiguousarray(strided)
    (a,) = session.run(None, {"image": strided})
    (b,) = session.run(None, {"image": contiguous})
    assert np.array_equal(a, b)
    mixed = volvox.InferenceSession(models.mixed_types())
    feed = mixed_feed(1)
    listed = dict(feed, indices=[3, 1])  # a list: np.asarray makes it int64
    assert all(np.array_equal(p, q) for p, q in zip(mixed.run(None, feed), mixed.run(None, listed)))


def test_scalar_inputs_keep_rank_zero():
    session = volvox.InferenceSession(models.scaled())
    assert session.get_inputs()[1].shape == []
    x = np.arange(4, dtype=np.float32)
    (y,) = session.run(None, {"x": x, "s": np.float32(2.5)})
    assert np.array_equal(y, x * 2.5)
    (y,) = session.run(None, {"x": x, "s": np.array(-1, np.float32)})
    assert np.array_equal(y, -x)


def test_fp16_precision_on_vulkan_is_close_to_fp32(vulkan):
    feed = {"image": np.random.default_rng(7).normal(size=(2, 3, 16, 16)).astype(np.float32)}
    fp32 = volvox.InferenceSession(models.small_cnn(), providers=["VulkanExecutionProvider"])
    fp16 = volvox.InferenceSession(models.small_cnn(),
                                   providers=[("VulkanExecutionProvider", {"precision": "fp16"})])
    (a,), (b,) = fp32.run(None, feed), fp16.run(None, feed)
    assert b.dtype == np.float32
    assert max_abs_diff(a, b) <= 5e-3  # fp16 storage of activations, fp32 arithmetic


def test_the_model_file_and_its_bytes_load_alike(tmp_path):
    path = tmp_path / "cnn.onnx"
    path.write_bytes(models.small_cnn())
    feed = {"image": np.ones((1, 3, 16, 16), np.float32)}
    from_path = volvox.InferenceSession(str(path)).run(None, feed)[0]
    from_pathlike = volvox.InferenceSession(path).run(None, feed)[0]
    from_bytes = volvox.InferenceSession(path.read_bytes()).run(None, feed)[0]
    from_bytearray = volvox.InferenceSession(bytearray(path.read_bytes())).run(None, feed)[0]
    assert np.array_equal(from_path, from_bytes) and np.array_equal(from_path, from_pathlike)
    assert np.array_equal(from_path, from_bytearray)
