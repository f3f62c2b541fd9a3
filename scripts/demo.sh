#!/usr/bin/env bash
# README's first command: installs what is needed, builds, renders a sample scene at a few samples
# per pixel, denoises it with OIDN's weights, and writes noisy | denoised | reference side by side
# with the PSNR of each against the converged reference. Output in demo-out/.
#
# Weights: --weights FILE, or $VOLVOX_WEIGHTS (a folder), or the user cache that
# `volvox weights fetch` fills, or the copies built into the CLI and the libraries: all 21 of OIDN's
# weights, fetched once (verified by SHA-256) and built in; ../shared/weights when offline.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
ninja -C build/release volvox_cli
vx=build/release/volvox

# All 21 of OIDN's weight sets, built into the CLI and both libraries as OIDN carries its own;
# without a network, ../shared's three.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/volvox/weights"
echo "== fetching OIDN's weights into $cache and building them in"
if $vx weights fetch --all --dir "$cache"; then
  cmake --preset release -DVOLVOX_BUILTIN_WEIGHTS_DIR="$cache" >/dev/null
  ninja -C build/release volvox_cli volvox_shared OpenImageDenoise
elif [ -z "${VOLVOX_WEIGHTS:-}" ] && [ -d ../shared/weights ]; then
  echo "== could not fetch them: using ../shared/weights"
  export VOLVOX_WEIGHTS=$(cd ../shared/weights && pwd)
else
  exit 1
fi

out=demo-out
mkdir -p $out
scene=${SCENE:-room}; spp=${SPP:-4}; ref_spp=${REF_SPP:-1024}; size=${SIZE:-512}
echo "== rendering '$scene' at $spp spp (reference at $ref_spp spp)"
$vx render --scene "$scene" --spp "$spp" --reference-spp "$ref_spp" --width "$size" --height "$size" \
  --format exr -o $out/$scene
echo "== denoising"
$vx denoise --hdr --color $out/${scene}_color.exr --albedo $out/${scene}_albedo.exr \
  --normal $out/${scene}_normal.exr -o $out/${scene}_denoised.exr "$@"
echo "== comparing with the reference"
$vx compare --reference $out/${scene}_reference.exr $out/${scene}_color.exr $out/${scene}_denoised.exr \
  --side-by-side $out/${scene}_side_by_side.png
echo "== done: $out/${scene}_side_by_side.png (noisy | denoised | reference)"
