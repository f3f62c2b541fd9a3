"""Where the tests find what they compare against: the `volvox` CLI of the same build (the C++
side of every "same numbers" check), OIDN's real weights and images in ../shared, and a Vulkan
device (lavapipe in CI). Tests that lack one skip saying which."""
import os
import shutil
import subprocess
from pathlib import Path
from typing import List

import numpy as np
import pytest

import volvox

REPO = Path(__file__).resolve().parents[2]


def _cli_path():
    for candidate in (os.environ.get("VOLVOX_CLI"), REPO / "build" / "release" / "volvox", shutil.which("volvox")):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def _shared_path():
    for candidate in (os.environ.get("VOLVOX_SHARED"), REPO.parent / "shared"):
        if candidate and (Path(candidate) / "weights").is_dir():
            return Path(candidate)
    return None


SHARED = _shared_path()
if SHARED is not None:
    # The filters of the tests and the CLI they run pick OIDN's real weights from here, not from
    # the user's cache (the CLI inherits the environment).
    os.environ["VOLVOX_WEIGHTS"] = str(SHARED / "weights")


@pytest.fixture(scope="session")
def cli() -> Path:
    path = _cli_path()
    if path is None:
        pytest.skip("no volvox CLI (build build/release/volvox or set VOLVOX_CLI): the C++ side to compare with")
    return path


@pytest.fixture(scope="session")
def shared() -> Path:
    if SHARED is None:
        pytest.skip("../shared is absent (or $VOLVOX_SHARED unset): real weights and images unavailable")
    return SHARED


@pytest.fixture(scope="session")
def vulkan() -> str:
    if "VulkanExecutionProvider" not in volvox.get_available_providers():
        pytest.skip("no Vulkan device (CI uses Mesa's lavapipe)")
    return "vulkan"


def run_cli(cli: Path, args: List[str]) -> str:
    """Runs `volvox ARGS`; fails the test with the CLI's stderr when it fails."""
    result = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        pytest.fail(f"volvox {' '.join(map(str, args))} failed: {result.stderr.strip()}")
    return result.stdout


def max_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0
