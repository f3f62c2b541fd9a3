#!/usr/bin/env bash
# Session 42, call 1: bench/vulkan/gemm_step_probe with two more epilogue modes in its chain table:
# the kernels' epilogue as gemm_io.glsl's store_result writes it (bias per column, each value
# tested against run-time rows and columns, the loads behind run-time flags) and branch
# s41-epilogue-loads-first's form of it, beside the probe's own forms that session 41's call 3 ran
# (6.65 / 4.08 us a dispatch). Does the kernel's form pay what the probe's did?
# Packed with
#   rm -f .gl/t/*; cp build/release/bench/vulkan/gemm_step_probe.spv .gl/t/
#   bash bench/onnx/pack_device_binaries.sh probe=build/release/bench/vulkan/gemm_step_probe
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup probe
cp .gl/t/gemm_step_probe.spv /tmp/t/
timeout 200 /tmp/t/probe --runs 15 --warmup-ms 200 > "$R/probe.txt" 2>&1
echo "probe rc $?" >> "$R/probe.txt"
tail -10 "$R/probe.txt"
vx_pack s42c1.tar.xz
