#!/usr/bin/env bash
# Temporal denoising measured on rendered animations (the animation issue's metrics): for each
# sequence, `volvox render --frames` (4 spp, 256-spp references), `volvox denoise --sequence` per
# frame (--temporal none), with the TAA stage after the network (taa), with the noisy colour
# accumulated before it (accumulate), and both; then `volvox compare --sequence`: mean PSNR and the
# temporal error of each against per-frame denoising. CPU device.
#   bash bench/denoise/temporal_sequences.sh [OUT_DIR]      (default bench/out/temporal)
# Environment: VOLVOX (default build/release/volvox), SIZE (128), FRAMES (12), THREADS (0: all).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${1:-$ROOT/bench/out/temporal}"
V="${VOLVOX:-$ROOT/build/release/volvox}"
SIZE="${SIZE:-128}" FRAMES="${FRAMES:-12}" THREADS="${THREADS:-0}"
mkdir -p "$OUT"
summary="$OUT/summary.md"
{
  echo "| sequence | per-frame: PSNR / temporal error | taa | accumulate | both |"
  echo "| --- | ---: | ---: | ---: | ---: |"
} >"$summary"
for seq in "room orbit --moving" "spheres pan" "interior dolly" "spheres still --moving" "room still"; do
  read -r scene camera moving <<<"$seq"
  name="${scene}_${camera}${moving:+_moving}"
  dir="$OUT/$name"
  mkdir -p "$dir"
  "$V" render --scene "$scene" --width "$SIZE" --height "$SIZE" --spp 4 --frames "$FRAMES" --camera "$camera" $moving \
    --reference-spp 256 -o "$dir/r" 2>/dev/null
  for t in none taa accumulate both; do
    "$V" denoise --sequence --color "$dir/r_%04d_color.exr" --albedo "$dir/r_%04d_albedo.exr" \
      --normal "$dir/r_%04d_normal.exr" --motion "$dir/r_%04d_motion.exr" --depth "$dir/r_%04d_depth.exr" --hdr \
      --device cpu --threads "$THREADS" --temporal "$t" -o "$dir/out_${t}_%04d.exr" 2>/dev/null
  done
  "$V" compare --sequence --reference "$dir/r_%04d_reference.exr" --motion "$dir/r_%04d_motion.exr" \
    --depth "$dir/r_%04d_depth.exr" --normal "$dir/r_%04d_normal.exr" "$dir/out_none_%04d.exr" \
    "$dir/out_taa_%04d.exr" "$dir/out_accumulate_%04d.exr" "$dir/out_both_%04d.exr" >"$dir/compare.txt"
  python3 - "$dir/compare.txt" "$name" >>"$summary" <<'PY'
import re, sys
text, name = open(sys.argv[1]).read(), sys.argv[2]
rows = [(float(a), float(b)) for a, b in re.findall(r"mean PSNR ([0-9.]+) dB, temporal error ([0-9.]+)", text)]
p0, t0 = rows[0]
cells = [f"{p0:.2f} dB / {t0:.4f}"] + [f"{p - p0:+.2f} dB / x{t / t0:.2f}" for p, t in rows[1:]]
print(f"| {name} | " + " | ".join(cells) + " |")
PY
done
cat "$summary"
