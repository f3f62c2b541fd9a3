"""ONNX Runtime's SessionOptions, RunOptions and their enums, as Volvox takes them.

What Volvox acts on: enable_profiling, profile_file_prefix, intra_op_num_threads (the CPU device's
threads). The rest is accepted so that ONNX Runtime code runs unchanged, and has no effect: Volvox
always optimises the graph fully, runs nodes in order and plans memory in one arena."""
import enum


class GraphOptimizationLevel(enum.IntEnum):
    """Accepted for compatibility; Volvox always applies all of its graph optimisations."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    """Accepted for compatibility; Volvox runs nodes in order (each node uses every thread)."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class SessionOptions:
    """Options of an InferenceSession, as ONNX Runtime's SessionOptions.

    enable_profiling: time every node of every run; end_profiling() writes them as a Chrome trace.
    profile_file_prefix: the trace's file name starts with it ("onnxruntime_profile_" by default, so
        that tools that look for ONNX Runtime's traces find it).
    intra_op_num_threads: threads of the CPU device (0: all cores).
    """

    def __init__(self) -> None:
        self.enable_profiling = False
        self.profile_file_prefix = "onnxruntime_profile_"
        self.intra_op_num_threads = 0
        # Accepted, no effect (see the module's docstring).
        self.inter_op_num_threads = 0
        self.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.execution_mode = ExecutionMode.ORT_SEQUENTIAL
        self.log_severity_level = 2
        self.log_verbosity_level = 0
        self.logid = ""
        self.enable_cpu_mem_arena = True
        self.enable_mem_pattern = True
        self.enable_mem_reuse = True
        self.use_deterministic_compute = False
        self.optimized_model_filepath = ""
        self._config = {}

    def add_session_config_entry(self, key: str, value: str) -> None:
        """Kept and returned by get_session_config_entry; Volvox reads none of them."""
        self._config[str(key)] = str(value)

    def get_session_config_entry(self, key: str) -> str:
        """The value add_session_config_entry gave `key` (KeyError when none)."""
        if key not in self._config:
            raise KeyError(key)
        return self._config[key]

    def __repr__(self) -> str:
        return (f"SessionOptions(enable_profiling={self.enable_profiling}, "
                f"intra_op_num_threads={self.intra_op_num_threads})")


class RunOptions:
    """ONNX Runtime's RunOptions: accepted by InferenceSession.run, with no effect in Volvox."""

    def __init__(self) -> None:
        self.log_severity_level = 2
        self.log_verbosity_level = 0
        self.logid = ""
        self.run_tag_name = ""
        self.terminate = False
