"""InferenceSession: ONNX Runtime's session API over Volvox's model engine, so that code written for
onnxruntime.InferenceSession runs by changing the import.

    sess = volvox.InferenceSession("model.onnx", providers=["VulkanExecutionProvider", "CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    (logits,) = sess.run(None, {name: image})

Differences: runs on one session are serialised (threads may call it; each run has the whole
device); get_modelmeta, io_binding, OrtValue and run_with_ort_values are not provided."""
import json
import os
import threading
import time
import warnings
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _providers, _volvox
from ._errors import InvalidArgument
from ._session_options import RunOptions, SessionOptions


# ONNX Runtime's own keyword arguments of InferenceSession, accepted and ignored.
_IGNORED_KEYWORDS = {"disabled_optimizers", "read_config_from_model"}


class NodeArg:
    """A model input or output as the file declares it: `name`, `type` ("tensor(float)", ...) and
    `shape` (ints for fixed extents, the symbolic name as a string, None where the model names none)."""

    def __init__(self, name: str, type: str, shape: List[Union[int, str, None]]) -> None:
        self.name = name
        self.type = type
        self.shape = shape

    def __repr__(self) -> str:
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


class _Profiler:
    """The per-node times of profiled runs, written as a Chrome trace (chrome://tracing, Perfetto)
    as ONNX Runtime writes its profile: one "Session" event per run, one "Node" event per node. The
    engine measures each node's duration (GPU time on Vulkan); the nodes are laid end to end from
    the start of their run."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.start_ns = time.time_ns()
        self.events: List[Dict[str, Any]] = []
        self.lock = threading.Lock()

    def record(self, run_start_ns: int, run_end_ns: int, rows, provider: str) -> None:
        start_us = (run_start_ns - self.start_ns) / 1000.0
        events = [{"cat": "Session", "pid": os.getpid(), "tid": threading.get_ident(), "ph": "X",
                   "name": "model_run", "ts": start_us, "dur": (run_end_ns - run_start_ns) / 1000.0, "args": {}}]
        t = start_us
        for node, op, kernel, ms in rows:
            events.append({"cat": "Node", "pid": os.getpid(), "tid": threading.get_ident(), "ph": "X",
                           "name": f"{node}_kernel_time", "ts": t, "dur": ms * 1000.0,
                           "args": {"op_name": op, "provider": provider, "kernel": kernel}})
            t += ms * 1000.0
        with self.lock:
            self.events.extend(events)

    def write(self) -> str:
        path = f"{self.prefix}{time.strftime('%Y-%m-%d_%H-%M-%S')}.json"
        with open(path, "w") as f:
            json.dump(self.events, f)
        return path


class InferenceSession:
    """An ONNX model loaded for inference, as onnxruntime.InferenceSession.

    path_or_bytes: a path to an .onnx file (its external data beside it) or the model's bytes.
    sess_options: a SessionOptions (profiling, CPU threads).
    providers: where to run, best first: "VulkanExecutionProvider" (a Vulkan GPU) and/or
        "CPUExecutionProvider", each a name or a (name, options) pair; default the CPU. Options:
        Vulkan: device_id (int); both: precision ("auto" = "fp32", or "fp16": fp16 storage with fp32
        arithmetic, Vulkan only), max_memory_mb (refuse a run whose plan needs more). Other runtimes' providers are
        skipped with a warning.
    provider_options: a list of option dicts beside `providers` (ONNX Runtime's other form).
    ONNX Runtime's keyword arguments disabled_optimizers and read_config_from_model are ignored.
    Errors are volvox.Error subclasses carrying the engine's message (InvalidFile for a corrupt
    model, Unsupported for an op Volvox cannot run, ...).
    """

    def __init__(self, path_or_bytes: Union[str, bytes, os.PathLike], sess_options: Optional[SessionOptions] = None,
                 providers: Optional[Sequence[Any]] = None,
                 provider_options: Optional[Sequence[Dict[str, Any]]] = None, **kwargs: Any) -> None:
        unknown = set(kwargs) - _IGNORED_KEYWORDS
        if unknown:
            raise TypeError(f"InferenceSession got unexpected keyword arguments {', '.join(sorted(unknown))}")
        self._options = sess_options if sess_options is not None else SessionOptions()
        if self._options.optimized_model_filepath:
            warnings.warn("SessionOptions.optimized_model_filepath is not supported by Volvox: nothing is written",
                          stacklevel=2)
        if isinstance(path_or_bytes, (bytearray, memoryview)):
            path_or_bytes = bytes(path_or_bytes)
        elif not isinstance(path_or_bytes, bytes):
            path_or_bytes = os.fspath(path_or_bytes)
        self._model, self._provider, self._provider_options = self._load(
            path_or_bytes, _providers.normalize(providers, provider_options))
        self._inputs = [NodeArg(*arg) for arg in self._model.inputs()]
        self._outputs = [NodeArg(*arg) for arg in self._model.outputs()]
        self._profiler: Optional[_Profiler] = None
        if self._options.enable_profiling:
            self._start_profiling()

    def _load(self, source, pairs):
        """The model on the first usable provider (the CPU when none is)."""
        for name, options in pairs + [(_providers.CPU, {})]:
            device = _providers.open_device(name, options, int(self._options.intra_op_num_threads))
            if device is None:
                continue
            model = _volvox.Model(device, source)
            precision = options.get("precision", "auto")
            if precision not in _providers.PRECISIONS:
                raise InvalidArgument(f"precision {precision!r} (expected one of {', '.join(_providers.PRECISIONS)})")
            if precision != "auto":
                model.set_int("precision", _providers.PRECISIONS[precision])
            if "max_memory_mb" in options:
                model.set_int("maxMemoryMB", int(options["max_memory_mb"]))
            return model, name, options
        raise AssertionError("the CPU provider is always usable")

    def get_inputs(self) -> List[NodeArg]:
        """The model's inputs (name, type, declared shape)."""
        return list(self._inputs)

    def get_outputs(self) -> List[NodeArg]:
        """The model's outputs (name, type, declared shape)."""
        return list(self._outputs)

    def get_overridable_initializers(self) -> List[NodeArg]:
        """Always empty: Volvox folds initializers into the graph."""
        return []

    def get_providers(self) -> List[str]:
        """The providers this session uses: the CPU last, as it runs what a GPU does not."""
        return [self._provider, _providers.CPU] if self._provider != _providers.CPU else [_providers.CPU]

    def get_provider_options(self) -> Dict[str, Dict[str, str]]:
        """{provider: {option: value as a string}} of the providers in use."""
        return {name: {k: str(v) for k, v in (self._provider_options if name == self._provider else {}).items()}
                for name in self.get_providers()}

    def get_session_options(self) -> SessionOptions:
        """The SessionOptions the session was made with."""
        return self._options

    def run(self, output_names: Optional[Sequence[str]], input_feed: Dict[str, Any],
            run_options: Optional[RunOptions] = None) -> List[np.ndarray]:
        """Runs the model: input_feed maps every input's name to an array (or anything np.asarray
        takes) of the declared type; returns the outputs named in output_names (all of them, in the
        model's order, when None or empty) as new NumPy arrays. The GIL is released while the engine
        runs; runs on one session from several threads take turns."""
        if not isinstance(input_feed, dict):
            raise InvalidArgument(f"input_feed must be a dict of name -> array, not {type(input_feed).__name__}")
        names = list(output_names) if output_names else []
        profiler = self._profiler
        start_ns = time.time_ns()
        outputs, rows = self._model.run(input_feed, names, profiler is not None)
        if rows is not None and profiler is not None:
            profiler.record(start_ns, time.time_ns(), rows, self._provider)
        return outputs

    def _start_profiling(self) -> None:
        self._model.set_int("profiling", 1)
        self._profiler = _Profiler(self._options.profile_file_prefix)

    def end_profiling(self) -> str:
        """Stops profiling and writes the profiled runs to a JSON file (Chrome trace format) in the
        current folder; returns its name ("" when profiling was off)."""
        if self._profiler is None:
            return ""
        profiler, self._profiler = self._profiler, None
        self._model.set_int("profiling", 0)
        return profiler.write()

    def get_profiling_start_time_ns(self) -> int:
        """When profiling started (time.time_ns()), 0 when it is off."""
        return self._profiler.start_ns if self._profiler is not None else 0

    def close(self) -> None:
        """Frees the model and its device memory now; later calls raise volvox.InvalidArgument."""
        self._model.close()

    def __enter__(self) -> "InferenceSession":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
