#!/usr/bin/env bash
# Builds OIDN 2.4's own programs (oidnDenoise, oidnBenchmark and its test suite oidnTest) from an
# OIDN source tree, with OIDN's own headers, and links them against Volvox's
# libOpenImageDenoise.so.2: the proof that a program written for OIDN runs unchanged on Volvox.
# Usage: build_oidn_apps.sh OIDN_SOURCE_DIR VOLVOX_LIB_DIR OUT_DIR
#   OIDN_SOURCE_DIR: OIDN v2.4.1's sources (e.g. `git clone --branch v2.4.1 --depth 1
#     https://github.com/RenderKit/oidn`; submodules are not needed: only include/, common/, apps/
#     and external/catch.hpp are used).
#   VOLVOX_LIB_DIR: the folder holding libOpenImageDenoise.so.2 (build/release, or <prefix>/lib).
# The programs land in OUT_DIR (rpath set to VOLVOX_LIB_DIR).
# HEADERS=DIR (a folder holding OpenImageDenoise/{oidn.h,oidn.hpp,config.h}, e.g. Volvox's include/):
# build OIDN's programs against those headers instead of OIDN's (check_abi.sh, the reverse direction).
set -euo pipefail
src=$(cd "$1" && pwd)
lib=$(cd "$2" && pwd)
out=$(mkdir -p "$3" && cd "$3" && pwd)
[[ -f "$src/include/OpenImageDenoise/config.h.in" && -f "$src/apps/oidnTest.cpp" ]] ||
  { echo "$src is not an OIDN source tree (no include/OpenImageDenoise/config.h.in or apps/oidnTest.cpp)" >&2; exit 1; }
[[ -e "$lib/libOpenImageDenoise.so.2" ]] || { echo "no libOpenImageDenoise.so.2 in $lib" >&2; exit 1; }

# A copy of the sources used (OIDN's sources include its headers by relative paths), with config.h
# configured as OIDN's CMake would for a CPU build without an API namespace.
rm -rf "$out/src"
mkdir -p "$out/src/external"
cp -r "$src/include" "$src/common" "$src/apps" "$out/src/"
cp "$src/external/catch.hpp" "$out/src/external/"
src="$out/src"
sed -e 's/@OIDN_VERSION_MAJOR@/2/g; s/@OIDN_VERSION_MINOR@/4/g; s/@OIDN_VERSION_PATCH@/1/g' \
    -e 's/@OIDN_VERSION_NUMBER@/20401/g; s/@OIDN_VERSION_NOTE@//g' \
    -e 's|^#cmakedefine OIDN_API_NAMESPACE.*|/* #undef OIDN_API_NAMESPACE */|' \
    -e 's|^#cmakedefine OIDN_STATIC_LIB|/* #undef OIDN_STATIC_LIB */|' \
    -e 's/@OIDN_API_NAMESPACE@/oidn_api/g' \
    -e 's|^  #cmakedefine OIDN_DEVICE_CPU|  #define OIDN_DEVICE_CPU|' \
    -e 's|^  #cmakedefine \(OIDN_DEVICE_[A-Z]*\)|  /* #undef \1 */|' \
    -e 's|^#cmakedefine \(OIDN_FILTER_[A-Z]*\)|#define \1|' \
    "$src/include/OpenImageDenoise/config.h.in" >"$src/include/OpenImageDenoise/config.h"
if grep -q '@\|cmakedefine' "$src/include/OpenImageDenoise/config.h"; then
  echo "config.h.in has lines this script does not configure:" >&2
  grep -n '@\|cmakedefine' "$src/include/OpenImageDenoise/config.h" >&2
  exit 1
fi
if [[ -n "${HEADERS:-}" ]]; then
  cp "$HEADERS"/OpenImageDenoise/{oidn.h,oidn.hpp,config.h} "$src/include/OpenImageDenoise/"
fi

flags=(-std=c++17 -O2 -I"$src/include" -I"$src" -I"$src/apps" -I"$src/external" -pthread)
objs=()
for f in "$src"/common/*.cpp "$src"/apps/utils/*.cpp; do
  o="$out/obj/$(basename "$(dirname "$f")")_$(basename "$f" .cpp).o"
  mkdir -p "$out/obj"
  c++ "${flags[@]}" -c "$f" -o "$o"
  objs+=("$o")
done
for app in oidnDenoise oidnBenchmark oidnTest; do
  c++ "${flags[@]}" "$src/apps/$app.cpp" "${objs[@]}" -L"$lib" -l:libOpenImageDenoise.so.2 -Wl,-rpath,"$lib" \
    -o "$out/$app"
  echo "built $out/$app"
done
