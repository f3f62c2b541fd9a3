#!/usr/bin/env bash
# Session 46, call 10 (an H200, when one comes): main's GPU suites (the cooperative-matrix, GEMM,
# runner and conv ones), owed since session 45 changed the staged GEMM's epilogue on an H100 only;
# with 272 s of device time left, the GEMM and runner suites and the denoiser's cooperative-matrix ones.
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh test_parity=build/release/tests/test_parity
# Device command as in session 41, carry .gl.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup test_parity
vx_parity 150 '*CooperativeMatrix*:*VulkanGemm*:*VulkanRunnerBlocks*'
vx_pack s46c10.tar.xz
