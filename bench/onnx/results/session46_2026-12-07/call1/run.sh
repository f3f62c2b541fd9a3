#!/usr/bin/env bash
# Session 46, call 1: where torch.compile's time goes, kernel by kernel, beside main's per-node
# profile, on ResNet-50 and the encoder (fp16, batch 1); on an H200 also main's GPU suites (the
# quad epilogue of session 45 ran them on an H100 only).
# Packed with: rm -f .gl/t/*; bash bench/onnx/pack_device_binaries.sh vx=build/release/volvox test_parity=build/release/tests/test_parity
# Device command as in session 41, carry .gl.
set -uo pipefail
source bench/onnx/device_lib.sh
vx_setup vx test_parity
vx_export resnet50,transformer_encoder
vx_profile vx resnet50
vx_profile vx transformer_encoder
vx_pack s46c1.tar.xz
timeout 200 python3 bench/onnx/zoo/torch_kernel_profile.py --out "$R" > "$R/torch_kernels.log" 2>&1
echo "torch_kernel_profile rc $?" >> "$R/torch_kernels.log"
cat "$R/torch_kernels.log" | grep -v Warning | tail -8
vx_pack s46c1.tar.xz
if grep -q H200 "$R/gpu.txt"; then vx_parity 240; vx_pack s46c1.tar.xz; fi
