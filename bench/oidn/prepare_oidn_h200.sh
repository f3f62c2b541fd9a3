#!/usr/bin/env bash
# Packs what bench/oidn/oidn_h200.sh needs into .gl3 (git-ignored; carried by the device tool in two
# calls, as the carry limit is 64 MiB): .gl3/run (the Debian packages and libraries of .gl, the
# OIDN-API test, test_denoise, test_parity, the two shared libraries, denoise_device_bench, OIDN's own oidnTest
# and oidnBenchmark built by build_oidn_apps.sh into $OIDN_APPS) and .gl3/weights (all 21 OIDN weight
# files from $WEIGHTS, `volvox weights fetch --all --dir DIR`, and ../shared's weights and images).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
B="$ROOT/build/release"
rm -rf "$ROOT/.gl3" && mkdir -p "$ROOT/.gl3/run" "$ROOT/.gl3/weights"
cp "$ROOT"/.gl/*.deb "$ROOT/.gl/onnx/vxlib.tar.xz" "$ROOT/.gl3/run/"
tar -C "$B" -cJf "$ROOT/.gl3/run/payload.tar.xz" --transform 's|.*/||' tests/oidn/test_oidn_api tests/test_denoise tests/test_parity \
  libOpenImageDenoise.so.2.4.1 libvolvox.so.0.1.0 bench/vulkan/denoise_device_bench volvox
tar -C "${OIDN_APPS:-/tmp/oidn-apps}" -cJf "$ROOT/.gl3/run/oidn_apps.tar.xz" oidnTest oidnBenchmark
tar -C "$ROOT/.." -cJf "$ROOT/.gl3/weights/shared.tar.xz" shared/weights shared/images  # in the second call: 64 MiB
cp "${WEIGHTS:?folder of the 21 weight files}"/rt_*.tza "$ROOT/.gl3/weights/"
du -sh "$ROOT/.gl3/run" "$ROOT/.gl3/weights"
