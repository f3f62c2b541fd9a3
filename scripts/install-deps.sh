#!/usr/bin/env bash
# Installs the Debian 12 packages Volvox needs to build and test (see docs in README.md).
# Idempotent: installs only what is missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
  # build
  g++ cmake ninja-build pkg-config glslc libvulkan-dev libvulkan-volk-dev
  # libraries
  # oneDNN's CMake config calls find_package(OpenCL): its headers and library are only a Recommends
  # of libdnnl-dev, which --no-install-recommends drops (tests/install/deps_check.sh guards this)
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers libprotobuf-dev protobuf-compiler libonnx-dev libopenexr-dev libpng-dev libcli11-dev
  nlohmann-json3-dev libcurl4-openssl-dev libssl-dev libarchive-dev
  libgif-dev  # giflib: animated GIFs (formats/gif_writer.cpp, volvox compare --sequence --gif)
  # tests: gtest, benchmarks, lavapipe (a Vulkan device on the CPU), validation layers, ONNX's
  # conformance data, clang for libFuzzer, python3 for the local HTTP test server scripts
  libgtest-dev libgmock-dev libbenchmark-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libonnx-testdata clang libclang-rt-14-dev python3
  # the Python package (python/): pybind11 and Python's headers to build it, venv, setuptools and
  # wheel to install it offline, NumPy to run it, pytest to test it
  pybind11-dev python3-dev python3-venv python3-setuptools python3-wheel python3-numpy python3-pytest
  # the farm test (tests/farm/slurm_test.sh): Slurm's daemons and commands, and munge for their
  # authentication; the test starts its own one-node cluster, never the system's services
  slurmctld slurmd slurm-client munge
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  # munge's postinst starts munged (and slurmd's would start slurmd with a system slurm.conf): a
  # policy-rc.d that denies every service start, only during this install and only where the machine
  # has none (Docker images have one), keeps daemons from being left running on a build machine.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
