#!/usr/bin/env bash
# Puts build/release/volvox and the Debian libraries it links (all but glibc and libstdc++, which
# the device machine has newer) into .gl/onnx (git-ignored, carried by the device tool), xz-packed
# to stay under the carry limit. See run_h200.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEST="$ROOT/.gl/onnx"
mkdir -p "$DEST"
cp "$ROOT/build/release/volvox" "$DEST/volvox"
if [[ ! -f "$DEST/vxlib.tar.xz" ]]; then
  stage=$(mktemp -d)
  mkdir -p "$stage/vxlib"
  ldd "$ROOT/build/release/volvox" | awk '{print $1, $3}' |
    grep -v -E "^(libc\.|libm\.|libstdc\+\+|libgcc_s|linux-vdso|/lib64|libz\.|libpthread|libdl|librt|libvulkan)" |
    while read -r name path; do cp -L "$path" "$stage/vxlib/$name"; done
  tar -C "$stage" -cJf "$DEST/vxlib.tar.xz" vxlib
  rm -rf "$stage"
fi
ls -la "$DEST"
