#!/usr/bin/env bash
# The whole test suite (README's second command; .ci/run calls it):
#   1. installs missing Debian packages,
#   2. builds the release preset and runs every suite (unit, parity incl. Vulkan on lavapipe,
#      denoise with ../shared's real weights when present, ONNX conformance),
#   3. builds the address+undefined sanitizer preset and runs the unit suite under it (with the
#      CLI, which some unit tests run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

cmake --preset release >/dev/null
ninja -C build/release -j "$jobs"
ctest --preset release -j "$jobs"

cmake --preset asan >/dev/null
ninja -C build/asan -j "$jobs" test_unit volvox_cli
ASAN_OPTIONS=detect_leaks=1 ctest --preset asan -j "$jobs"
