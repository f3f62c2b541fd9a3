"""Execution providers, ONNX Runtime's names for where a model runs, and the Volvox devices they
stand for: "VulkanExecutionProvider" is a Vulkan GPU (nodes it cannot run fall back to the CPU
inside the engine), "CPUExecutionProvider" the CPU. Like ONNX Runtime, a listed provider that
cannot be used (another runtime's, or Vulkan without a driver) is skipped with a warning, and the
CPU is used when no listed one can be."""
import functools
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _volvox
from ._errors import InvalidArgument, Unsupported

VULKAN = "VulkanExecutionProvider"
CPU = "CPUExecutionProvider"

ProviderSpec = Union[str, Tuple[str, Dict[str, Any]]]

# Provider options each provider takes (anything else is an error, as a typo would be).
_OPTIONS = {
    VULKAN: {"device_id", "precision", "max_memory_mb"},
    CPU: {"precision", "max_memory_mb"},  # precision: the engine refuses fp16 on the CPU
}
PRECISIONS = {"auto": 0, "fp32": 1, "fp16": 2}


@functools.lru_cache(maxsize=1)
def vulkan_available() -> bool:
    """Whether a Vulkan device can be made (tried once per process)."""
    try:
        _volvox.Device("vulkan", 0)
        return True
    except Unsupported:
        return False


def get_available_providers() -> List[str]:
    """The providers this machine can use, best first (as onnxruntime.get_available_providers)."""
    return [VULKAN, CPU] if vulkan_available() else [CPU]


def get_all_providers() -> List[str]:
    """Every provider Volvox knows, available here or not."""
    return [VULKAN, CPU]


def get_device() -> str:
    """"GPU" when a Vulkan device is available, else "CPU" (as onnxruntime.get_device)."""
    return "GPU" if vulkan_available() else "CPU"


def normalize(providers: Optional[Sequence[ProviderSpec]],
              provider_options: Optional[Sequence[Dict[str, Any]]]) -> List[Tuple[str, Dict[str, Any]]]:
    """[(name, options)] from ONNX Runtime's two forms: names (or (name, options) pairs), and an
    optional list of option dicts beside them."""
    if providers is None:
        providers = [CPU]
    if isinstance(providers, str):
        raise InvalidArgument(f"providers must be a list of names, not the string {providers!r}")
    if provider_options is not None and len(provider_options) != len(providers):
        raise InvalidArgument(f"{len(provider_options)} provider_options for {len(providers)} providers")
    pairs = []
    for i, spec in enumerate(providers):
        name, options = (spec, {}) if isinstance(spec, str) else (spec[0], dict(spec[1]))
        if provider_options is not None:
            options.update(provider_options[i])
        pairs.append((name, options))
    return pairs


def open_device(name: str, options: Dict[str, Any], num_threads: int) -> Optional[_volvox.Device]:
    """The device for provider `name`, or None (with a warning) when it cannot be used here."""
    if name not in _OPTIONS:
        warnings.warn(f"Specified provider '{name}' is not in available provider names. "
                      f"Available providers: {', '.join(get_available_providers())}", stacklevel=4)
        return None
    unknown = set(options) - _OPTIONS[name]
    if unknown:
        raise InvalidArgument(f"{name} takes no option {', '.join(sorted(map(repr, unknown)))} "
                              f"(options: {', '.join(sorted(_OPTIONS[name]))})")
    if name == CPU:
        return _volvox.Device("cpu", num_threads)
    kind = "vulkan" if "device_id" not in options else f"vulkan:{int(options['device_id'])}"
    try:
        return _volvox.Device(kind, 0)
    except Unsupported as error:
        warnings.warn(f"{name} is not available ({error}); trying the next provider", stacklevel=4)
        return None
