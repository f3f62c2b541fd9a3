#!/usr/bin/env bash
# Packs what bench/vulkan/check_h200.sh needs into .gl (git-ignored, carried by the device tool):
# the Debian libraries the binaries link (bench/onnx/prepare_device_run.sh), test_parity,
# test_denoise, test_ops (the op table), test_conformance, volvox, denoise_device_bench,
# vulkan_unet_bench and the custom-op example's SPIR-V from build/release, ../shared's weights and
# images, and ONNX's conformance data (libonnx-testdata): none of them travel otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
B="$ROOT/build/release"
bash "$ROOT/bench/onnx/prepare_device_run.sh" >/dev/null
mkdir -p "$ROOT/.gl/check" "$ROOT/.gl/shared"
tar -C "$B" -cJf "$ROOT/.gl/check/payload.tar.xz" --transform 's|.*/||' tests/test_parity tests/test_denoise tests/ops/test_ops \
  tests/test_conformance volvox bench/vulkan/denoise_device_bench bench/vulkan/vulkan_unet_bench tests/custom_ops/scaled_swish.spv
rm -f "$ROOT/.gl/check/vulkan_unet_bench"  # now in the payload
tar -C /usr/share/libonnx-testdata -cJf "$ROOT/.gl/check/onnx_testdata.tar.xz" data
cp -r "$ROOT/../shared/weights" "$ROOT/../shared/images" "$ROOT/.gl/shared/"
du -sh "$ROOT/.gl"
