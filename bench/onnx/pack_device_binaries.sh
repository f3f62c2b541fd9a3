#!/usr/bin/env bash
# Packs binaries for a device call, to be unpacked there by bench/onnx/device_lib.sh's vx_setup:
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity
# writes .gl/t/binaries.tar.xz holding vx_new and test_parity (xz -9e: what the device tool carries,
# the working tree included, must stay under 64 MiB), and
# .gl/onnx/vxlib.tar.xz, the Debian libraries they link, where it is missing
# (prepare_device_run.sh, whose uncompressed copy of volvox is dropped again: it would not fit).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ $# -eq 0 ]]; then echo "usage: $0 NAME=PATH ..." >&2; exit 1; fi
mkdir -p "$ROOT/.gl/t"
for pair in "$@"; do
  name=${pair%%=*} path=${pair#*=}
  if [[ "$name" == "$pair" || ! -f "$path" ]]; then echo "$0: '$pair' is not NAME=PATH of a file" >&2; exit 1; fi
done
# One tar in one xz stream: builds of the same program share most of their bytes, which then
# compress once (main's and a branch's volvox, a test binary and a probe: 23.6 MB packed one by one,
# 11.1 MB together). Packed beside its place and moved there when whole; a failed step leaves nothing.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for pair in "$@"; do cp "${pair#*=}" "$stage/${pair%%=*}"; done
out="$ROOT/.gl/t/binaries.tar.xz"
rm -f "$ROOT"/.gl/t/*.xz
if ! (cd "$stage" && tar -cf - "${@%%=*}" | xz -9e -T1 > "$out.part"); then rm -f "$out.part"; exit 1; fi
mv "$out.part" "$out"
if [[ ! -f "$ROOT/.gl/onnx/vxlib.tar.xz" ]]; then
  bash "$ROOT/bench/onnx/prepare_device_run.sh" > /dev/null
  rm -f "$ROOT/.gl/onnx/volvox"
fi
ls -la "$ROOT/.gl/t"
du -sh "$ROOT/.gl"
