#!/usr/bin/env bash
# Temporal denoising measured on rendered animations (the animation issue's metrics): for each
# sequence, `volvox render --frames` (4 spp, 256-spp references), `volvox denoise --sequence` per
# frame (--temporal none), with the TAA stage after the network (taa), with the noisy colour
# accumulated before it (accumulate), and both; then `volvox compare --sequence`: mean PSNR and the
# temporal error of each against per-frame denoising. CPU device.
# The references (256 spp) are not noise-free, and their noise enters the temporal error as a floor
# that no output can go below (a perfectly still output of the static room scores 0.050 against a
# per-frame 0.059). So every sequence's references are rendered twice (seeds 1 and 2): compared as
# one more sequence, the second scores sqrt(2) times the floor (both carry it), and the table also
# gives the temporal error with the floor removed, sqrt(error^2 - floor^2) (independent noise adds
# in squares), and the worst frame's PSNR change (the issue: never below -0.3 dB).
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
  echo "| sequence | per-frame: PSNR / temporal error / without the references' noise | taa: PSNR change (worst frame) / error ratio / ratio without reference noise | accumulate | both |"
  echo "| --- | ---: | ---: | ---: | ---: |"
} >"$summary"
for seq in "room orbit --moving" "spheres pan" "interior dolly" "spheres still --moving" "room still"; do
  read -r scene camera moving <<<"$seq"
  name="${scene}_${camera}${moving:+_moving}"
  dir="$OUT/$name"
  mkdir -p "$dir"
  "$V" render --scene "$scene" --width "$SIZE" --height "$SIZE" --spp 4 --frames "$FRAMES" --camera "$camera" $moving \
    --reference-spp 256 -o "$dir/r" 2>/dev/null
  "$V" render --scene "$scene" --width "$SIZE" --height "$SIZE" --spp 1 --frames "$FRAMES" --camera "$camera" $moving \
    --reference-spp 256 --seed 2 -o "$dir/second" 2>/dev/null
  for t in none taa accumulate both; do
    "$V" denoise --sequence --color "$dir/r_%04d_color.exr" --albedo "$dir/r_%04d_albedo.exr" \
      --normal "$dir/r_%04d_normal.exr" --motion "$dir/r_%04d_motion.exr" --depth "$dir/r_%04d_depth.exr" --hdr \
      --device cpu --threads "$THREADS" --temporal "$t" -o "$dir/out_${t}_%04d.exr" 2>/dev/null
  done
  "$V" compare --sequence --reference "$dir/r_%04d_reference.exr" --motion "$dir/r_%04d_motion.exr" \
    --depth "$dir/r_%04d_depth.exr" --normal "$dir/r_%04d_normal.exr" "$dir/out_none_%04d.exr" \
    "$dir/out_taa_%04d.exr" "$dir/out_accumulate_%04d.exr" "$dir/out_both_%04d.exr" \
    "$dir/second_%04d_reference.exr" >"$dir/compare.txt"
  python3 - "$dir/compare.txt" "$name" >>"$summary" <<'PY'
import math, re, sys
text, name = open(sys.argv[1]).read(), sys.argv[2]
rows = [(float(a), float(b)) for a, b in re.findall(r"mean PSNR ([0-9.]+) dB, temporal error ([0-9.]+)", text)]
floor2 = rows[-1][1] ** 2 / 2  # the second reference: both references' noise, so twice the floor
rows = rows[:-1]
# Per-frame PSNR columns: frame, then (PSNR, temporal) per compared sequence.
frames = [line.split() for line in text.splitlines() if re.match(r"^\d+\s", line)]
psnr = [[float(f[1 + 2 * i]) for f in frames] for i in range(len(rows))]
def clean(t):
    return math.sqrt(max(0.0, t * t - floor2))
p0, t0 = rows[0]
cells = [f"{p0:.2f} dB / {t0:.4f} / {clean(t0):.4f}"]
for i, (p, t) in enumerate(rows[1:], 1):
    worst = min(a - b for a, b in zip(psnr[i], psnr[0]))
    cells.append(f"{p - p0:+.2f} dB ({worst:+.2f}) / x{t / t0:.2f} / x{clean(t) / clean(t0):.2f}")
print(f"| {name} | " + " | ".join(cells) + " |")
PY
done
cat "$summary"
