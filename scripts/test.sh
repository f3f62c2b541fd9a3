#!/usr/bin/env bash
# The whole test suite (README's second command; .ci/run calls it):
#   1. installs missing Debian packages (and checks that the list covers every file the build used),
#   2. builds what ctest runs in the release preset (volvox_tests: not the benchmarks) and runs every suite (unit, parity incl. Vulkan on lavapipe,
#      denoise with ../shared's real weights when present, ONNX conformance),
#   3. builds and tests the Python package (scripts/python-test.sh),
#   4. builds the address+undefined sanitizer preset and runs the unit suite under it (with the
#      CLI, which some unit tests run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

cmake --preset release >/dev/null
ninja -C build/release -j "$jobs" volvox_tests
# Every file the build used comes from a package install-deps.sh installs (a machine that already
# had a package would hide a missing one), and the check can fail: without the OpenCL headers'
# package it must report it (both from one scan).
python3 scripts/check-deps.py build/release --must-miss ocl-icd-opencl-dev
# One test more than cores: many tests wait on child processes or the Vulkan loader (cold: 331 s
# at -j3 against 369 s at -j2 on 2 cores).
ctest --preset release -j "$((jobs + 1))"
# The Python package against this build's libvolvox.so and CLI (fresh venv; about a minute on 2 cores).
scripts/python-test.sh

# The sanitizer build takes the release build's SPIR-V instead of compiling every shader again.
cmake --preset asan -DVOLVOX_EMBEDDED_SHADERS="$PWD/build/release/shaders_embedded.cpp" >/dev/null
ninja -C build/asan -j "$jobs" test_unit volvox_cli
ASAN_OPTIONS=detect_leaks=1 ctest --preset asan -j "$((jobs + 1))"
