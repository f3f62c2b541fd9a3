#!/usr/bin/env bash
# The drop-in's reverse direction ("a program compiled against Volvox's OIDN headers links and runs
# against Intel's OIDN") checked without Intel's binary, which this machine cannot build (OIDN's CPU
# device needs ISPC, not in Debian 12):
#   1. ABI surface: abi_probe.py's program, compiled once against OIDN's headers and once against
#      Volvox's, prints every function's type, enumerator, constant and type size: the outputs
#      must be identical.
#   2. Symbols: OIDN's own programs (oidnTest, oidnDenoise, oidnBenchmark) compiled against
#      Volvox's headers may reference only functions OIDN's header declares (so they link against
#      Intel's library), and oidnTest built that way passes against Volvox's library on the CPU.
# Usage: VOLVOX_WEIGHTS=DIR check_abi.sh OIDN_SOURCE_DIR VOLVOX_LIB_DIR OUT_DIR   (as build_oidn_apps.sh)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
src=$1 lib=$2 out=$(mkdir -p "$3" && cd "$3" && pwd)
: "${VOLVOX_WEIGHTS:?the folder of the 21 OIDN weight files (volvox weights fetch --all --dir DIR)}"

bash "$here/build_oidn_apps.sh" "$src" "$lib" "$out/with-oidn-headers" >/dev/null
HEADERS="$root/include" bash "$here/build_oidn_apps.sh" "$src" "$lib" "$out/with-volvox-headers" >/dev/null

oidn_include="$out/with-oidn-headers/src/include"  # OIDN's headers, config.h configured
python3 "$here/abi_probe.py" "$oidn_include" >"$out/probe.cpp"
c++ -std=c++17 -I"$oidn_include" "$out/probe.cpp" -o "$out/probe-oidn"
c++ -std=c++17 -I"$root/include" "$out/probe.cpp" -o "$out/probe-volvox"
"$out/probe-oidn" >"$out/abi-oidn.txt"
"$out/probe-volvox" >"$out/abi-volvox.txt"
if ! diff -u "$out/abi-oidn.txt" "$out/abi-volvox.txt"; then
  echo "FAIL: the ABI surface of Volvox's headers differs from OIDN's (diff above)" >&2
  exit 1
fi
echo "ABI surface identical: $(grep -c '^function' "$out/abi-oidn.txt") functions, $(grep -c '^enumerator' "$out/abi-oidn.txt") enumerators, $(grep -c '^constant' "$out/abi-oidn.txt") constants, $(grep -c '^type' "$out/abi-oidn.txt") type lines"

awk '$1 == "function" {sub(":", "", $2); print $2}' "$out/abi-oidn.txt" | sort -u >"$out/oidn-functions.txt"
for app in oidnTest oidnDenoise oidnBenchmark; do
  nm -D --undefined-only "$out/with-volvox-headers/$app" | awk '{print $2}' | grep '^oidn' | sort -u >"$out/$app.uses"
  extra=$(comm -23 "$out/$app.uses" "$out/oidn-functions.txt")
  if [[ -n "$extra" ]]; then
    echo "FAIL: $app built against Volvox's headers calls functions OIDN does not declare: $extra" >&2
    exit 1
  fi
  echo "$app (Volvox's headers) calls $(wc -l <"$out/$app.uses") OIDN functions, all declared by OIDN's header"
done
"$out/with-volvox-headers/oidnTest" >"$out/oidnTest-volvox-headers.log" 2>&1 ||
  { tail -20 "$out/oidnTest-volvox-headers.log" >&2; echo "FAIL: oidnTest built against Volvox's headers" >&2; exit 1; }
tail -2 "$out/oidnTest-volvox-headers.log"
