#!/usr/bin/env bash
# Packs binaries for a device call, to be unpacked there by bench/onnx/device_lib.sh's vx_setup:
#   bash bench/onnx/pack_device_binaries.sh vx_new=build/release/volvox test_parity=build/release/tests/test_parity
# writes .gl/t/vx_new.xz and .gl/t/test_parity.xz (xz -9e: what the device tool carries, the working
# tree included, must stay under 64 MiB; volvox packs to ~8 MB, a test binary to ~4), and
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
# Each packed beside its place and moved there when whole; a failed xz fails the script and leaves
# nothing (a bare `wait` would return 0 and leave a truncated archive to be carried).
pids=()
for pair in "$@"; do
  out="$ROOT/.gl/t/${pair%%=*}.xz"
  (xz -9e -T0 -c "${pair#*=}" > "$out.part" && mv "$out.part" "$out" || { rm -f "$out.part"; exit 1; }) &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
if [[ ! -f "$ROOT/.gl/onnx/vxlib.tar.xz" ]]; then
  bash "$ROOT/bench/onnx/prepare_device_run.sh" > /dev/null
  rm -f "$ROOT/.gl/onnx/volvox"
fi
ls -la "$ROOT/.gl/t"
du -sh "$ROOT/.gl"
