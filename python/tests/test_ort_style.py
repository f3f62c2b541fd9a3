"""Code in the style of ONNX Runtime's Python documentation (its "get started" and profiling
examples), written here, with only the import changed: `import volvox as rt` where the examples
import onnxruntime as rt. The outputs must equal what `volvox run` writes."""
import json
import warnings

import numpy as np
import pytest

import models
from conftest import run_cli


def test_get_started_style(tmp_path, cli):
    import volvox as rt

    model_file = tmp_path / "classifier.onnx"
    model_file.write_bytes(models.small_cnn())
    x = np.random.default_rng(0).random((4, 3, 16, 16))  # float64, as NumPy makes it

    sess = rt.InferenceSession(str(model_file), providers=rt.get_available_providers())
    input_name = sess.get_inputs()[0].name
    input_shape = sess.get_inputs()[0].shape
    input_type = sess.get_inputs()[0].type
    output_name = sess.get_outputs()[0].name
    output_shape = sess.get_outputs()[0].shape
    assert (input_name, input_shape, input_type) == ("image", ["batch", 3, 16, 16], "tensor(float)")
    assert (output_name, output_shape) == ("probabilities", ["batch", 10])

    res = sess.run([output_name], {input_name: x.astype(np.float32)})
    prob_rt = res[0]
    assert prob_rt.shape == (4, 10)

    # The same through the CLI, on the provider the session chose.
    np.save(tmp_path / "x.npy", x.astype(np.float32))
    device = "vulkan" if sess.get_providers()[0] == "VulkanExecutionProvider" else "cpu"
    run_cli(cli, ["run", model_file, "-i", f"image={tmp_path / 'x.npy'}", "-o", tmp_path, "--device", device])
    assert np.max(np.abs(prob_rt - np.load(tmp_path / "probabilities.npy"))) <= 1e-6

    # All outputs, no names.
    (prob_all,) = sess.run(None, {input_name: x.astype(np.float32)})
    assert np.array_equal(prob_all, prob_rt)


def test_profiling_style(tmp_path, monkeypatch):
    import volvox as rt

    monkeypatch.chdir(tmp_path)  # the profile is written to the current folder, as ONNX Runtime does
    options = rt.SessionOptions()
    options.enable_profiling = True
    options.graph_optimization_level = rt.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = 1
    sess_profile = rt.InferenceSession(models.small_cnn(), options, providers=["CPUExecutionProvider"])
    input_name = sess_profile.get_inputs()[0].name
    x = np.zeros((1, 3, 16, 16), dtype=np.float32)
    for _ in range(3):
        sess_profile.run(None, {input_name: x})
    assert sess_profile.get_profiling_start_time_ns() > 0
    prof_file = sess_profile.end_profiling()
    assert prof_file.startswith("onnxruntime_profile_") and prof_file.endswith(".json")
    with open(prof_file) as f:
        events = json.load(f)
    runs = [e for e in events if e["cat"] == "Session" and e["name"] == "model_run"]
    nodes = [e for e in events if e["cat"] == "Node"]
    assert len(runs) == 3
    assert len(nodes) >= 3 * 3  # at least the fused conv chains and the softmax, per run
    assert all(e["dur"] >= 0 and e["name"].endswith("_kernel_time") for e in nodes)
    assert {e["args"]["provider"] for e in nodes} == {"CPUExecutionProvider"}
    assert any(e["args"]["op_name"] == "Softmax" for e in nodes)
    assert all(e["args"]["kernel"].startswith("cpu:") for e in nodes)
    # Profiling has ended: later runs are not recorded, and a second end returns "".
    sess_profile.run(None, {input_name: x})
    assert sess_profile.end_profiling() == ""


def test_profiling_on_vulkan_times_the_gpu(tmp_path, monkeypatch, vulkan):
    import volvox as rt

    monkeypatch.chdir(tmp_path)
    options = rt.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = "cnn_"
    sess = rt.InferenceSession(models.small_cnn(), sess_options=options, providers=["VulkanExecutionProvider"])
    sess.run(None, {"image": np.zeros((1, 3, 16, 16), np.float32)})
    events = json.loads((tmp_path / sess.end_profiling()).read_text())
    kernels = {e["args"]["kernel"].split(":")[0] for e in events if e["cat"] == "Node"}
    assert "vulkan" in kernels


def test_providers_of_other_runtimes_fall_back_with_a_warning():
    import volvox as rt

    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        sess = rt.InferenceSession(models.small_cnn(), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    with pytest.warns(UserWarning, match="TensorrtExecutionProvider"):
        sess = rt.InferenceSession(models.small_cnn(), providers=[("TensorrtExecutionProvider", {"device_id": 0})])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning for what Volvox has
        assert rt.InferenceSession(models.small_cnn()).get_providers() == ["CPUExecutionProvider"]
    assert "CPUExecutionProvider" in rt.get_available_providers()
    assert rt.get_all_providers() == ["VulkanExecutionProvider", "CPUExecutionProvider"]
    assert rt.get_device() in ("CPU", "GPU")


def test_provider_options_both_forms(vulkan):
    import volvox as rt

    a = rt.InferenceSession(models.small_cnn(), providers=[("VulkanExecutionProvider", {"device_id": 0}),
                                                           "CPUExecutionProvider"])
    b = rt.InferenceSession(models.small_cnn(), providers=["VulkanExecutionProvider", "CPUExecutionProvider"],
                            provider_options=[{"device_id": 0}, {}])
    assert a.get_providers() == b.get_providers() == ["VulkanExecutionProvider", "CPUExecutionProvider"]
    assert a.get_provider_options()["VulkanExecutionProvider"] == {"device_id": "0"}
    x = {"image": np.ones((1, 3, 16, 16), np.float32)}
    assert np.array_equal(a.run(None, x)[0], b.run(None, x)[0])


def test_session_options_and_run_options_are_accepted():
    import volvox as rt

    so = rt.SessionOptions()
    so.execution_mode = rt.ExecutionMode.ORT_SEQUENTIAL
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    so.add_session_config_entry("session.load_model_format", "ONNX")
    assert so.get_session_config_entry("session.load_model_format") == "ONNX"
    ro = rt.RunOptions()
    ro.log_severity_level = 3
    sess = rt.InferenceSession(models.small_cnn(), sess_options=so, providers=["CPUExecutionProvider"])
    assert sess.get_session_options() is so
    assert sess.get_overridable_initializers() == []
    (p,) = sess.run(None, {"image": np.ones((1, 3, 16, 16), np.float32)}, ro)
    assert p.shape == (1, 10)
