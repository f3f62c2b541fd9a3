#!/usr/bin/env bash
# The installed libraries as a user meets them: `cmake --install` into a fresh prefix, then the outside
# project tests/install/consumer built against that prefix twice (find_package(Volvox), and
# pkg-config with a plain compiler call) and run, and tests/install/oidn_consumer (a renderer's OIDN
# build: find_package(OpenImageDenoise), C) built and run; each library's SONAME and exported
# symbols checked.
# Usage: install_test.sh <build dir> [weights file for the consumer's denoise check] [builtin]
# ("builtin": the library carries rt_ldr, so the consumer also denoises with no weights file at all,
# with VOLVOX_WEIGHTS unset and an empty cache).
set -euo pipefail
build="$1"
weights="${2:-}"
builtin="${3:-}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >/dev/null
lib=$(find "$prefix" -name 'libvolvox.so.*.*' | head -1)
[[ -n "$lib" ]] || { echo "no libvolvox.so.<version> under the prefix" >&2; exit 1; }
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
[[ "$soname" == libvolvox.so.0 ]] || { echo "SONAME is '$soname', expected libvolvox.so.0" >&2; exit 1; }
# Only the public API is exported: the C functions (vx*) and namespace volvox; none of the engine.
leaked=$(nm -D --defined-only -C "$lib" | awk '{print $3" "$4}' | grep -Ev '^(vx[A-Za-z]|volvox::)' | grep -v '^ *$' || true)
[[ -z "$leaked" ]] || { echo "libvolvox exports symbols beyond its API:" >&2; echo "$leaked" | head -5 >&2; exit 1; }
oidn_lib=$(find "$prefix" -name 'libOpenImageDenoise.so.2.*' | head -1)
[[ -n "$oidn_lib" ]] || { echo "no libOpenImageDenoise.so.2.<version> under the prefix" >&2; exit 1; }
soname=$(objdump -p "$oidn_lib" | awk '$1 == "SONAME" {print $2}')
[[ "$soname" == libOpenImageDenoise.so.2 ]] || { echo "SONAME is '$soname', expected libOpenImageDenoise.so.2" >&2; exit 1; }
leaked=$(nm -D --defined-only "$oidn_lib" | awk '{print $3}' | grep -Ev '^oidn[A-Z]' | grep -v '^ *$' || true)
[[ -z "$leaked" ]] || { echo "libOpenImageDenoise exports symbols beyond OIDN's API:" >&2; echo "$leaked" | head -5 >&2; exit 1; }
for f in include/volvox/volvox.h include/volvox/volvox.hpp include/volvox/model.h bin/volvox include/OpenImageDenoise/oidn.h \
  include/OpenImageDenoise/oidn.hpp include/OpenImageDenoise/config.h; do
  [[ -e "$prefix/$f" ]] || { echo "$f is not installed" >&2; exit 1; }
done

# 1. CMake: find_package(Volvox) and the imported target Volvox::volvox.
cmake -S "$here/consumer" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer" $weights
if [[ "$builtin" == builtin ]]; then
  (unset VOLVOX_WEIGHTS; XDG_CACHE_HOME="$work/empty-cache" "$work/cmake-build/consumer" builtin)
fi

# 2. OIDN's CMake package: find_package(OpenImageDenoise) and the imported target OpenImageDenoise.
cmake -S "$here/oidn_consumer" -B "$work/oidn-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/oidn-build" >/dev/null
# It denoises, as a renderer does: that needs weights, given or built in.
if [[ -n "$weights" || "$builtin" == builtin ]]; then
  "$work/oidn-build/oidn_consumer" $weights
else
  echo "oidn_consumer built against the prefix but not run: no weights (../shared absent, none built in)"
fi
if [[ "$builtin" == builtin ]]; then
  (unset VOLVOX_WEIGHTS; XDG_CACHE_HOME="$work/empty-cache" "$work/oidn-build/oidn_consumer")
fi

# 3. pkg-config: the flags it gives are all a compiler needs.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$(dirname "$lib")/pkgconfig"
libdir=$(pkg-config --variable=libdir volvox)
c++ -std=c++17 "$here/consumer/consumer.cpp" $(pkg-config --cflags --libs volvox) -Wl,-rpath,"$libdir" \
  -o "$work/pkg-consumer"
"$work/pkg-consumer" $weights
echo "install test passed ($prefix: $(basename "$lib"))"
