#!/usr/bin/env bash
# Streaming throughput of `volvox denoise --sequence` (issue 14 part 1): frames per second from EXR
# files to EXR files on one GPU, against the device-bound rate.
#
#  1. `stream_frames` (bench/denoise/stream_frames.cpp) writes FRAMES frames of SIZE HDR colour,
#     albedo and normal as half EXR into DIR (local disk), tiling ../shared/images with a pan;
#  2. the device-bound rate: `volvox denoise --json --repeat REPEAT` on frame 0, the median of the
#     runs' ms_device after the first (GPU timestamps: the device work, no host copies) -> 1000 / ms;
#  3. for each value of COMPRESSIONS (the outputs' --exr-compression), IO_THREADS and FILTERS,
#     `volvox denoise --sequence --overwrite --json` over all frames:
#     frames/s (steady state: after the first frame's set-up), the GPU busy fraction, the stages' mean
#     ms (read = EXR decode of 3 files, denoise = the filter thread's execute with its host copies,
#     write = EXR encode + atomic write), and what each stage alone allows: readers and writers
#     io_threads * 1000 / ms, the filters lanes * 1000 / ms_denoise; the smallest is the bottleneck.
#     The EXR codec's limit on this machine: nproc * 1000 / (ms_read + ms_write), every core decoding
#     and encoding.
#  4. DEVICES=all (or DEVICES=0,1,...: Vulkan indices): every run of step 3 is made with --device
#     DEVICE (one GPU) and again with --device vulkan:DEVICES, the frames dealt to the lanes of every
#     GPU (issue 14 part 2); the table adds the devices and, for the several-device runs, frames/s as
#     a multiple of the one-GPU run with the same settings (ideal: the number of GPUs) and of D x the
#     one-GPU device-bound rate (the GPUs assumed alike).
# Prints a table and writes $OUT/stream.md and $OUT/stream.json. Target (issue 14): frames/s at
# least 90% of the device-bound rate, or the bottleneck stage named with its measured limit.
#
# H200 (the lead runs it; binaries built here: ninja -C build/release volvox_cli stream_frames):
#   bash bench/denoise/stream_h200.sh
# Every GPU of a 2- or 4-GPU host against one (more EXR codec threads: the host has more cores):
#   DEVICES=all IO_THREADS="8 16 32" FILTERS="2" bash bench/denoise/stream_h200.sh
# Smoke test on lavapipe (this machine, a minute; DEVICES=0,0: its one device opened twice):
#   SIZE=64x48 FRAMES=8 IO_THREADS="1 2" FILTERS="1 2" COMPRESSIONS=zip REPEAT=3 OUT=/tmp/stream_smoke \
#     [DEVICES=0,0] bash bench/denoise/stream_h200.sh
# Environment: VOLVOX (build/release/volvox), STREAM_FRAMES (build/release/bench/denoise/stream_frames),
# SIZE (1920x1088), FRAMES (200), DEVICE (vulkan), PRECISION (fp16), IO_THREADS ("2 4 8 14"), FILTERS
# ("1 2 3": --filters), COMPRESSIONS ("zip piz": the outputs'), IN_COMPRESSION (zip: the inputs'), REPEAT (20),
# WEIGHTS (../shared/weights/rt_hdr_alb_nrm.tza when present, else the filter's choice), IMAGES
# (../shared/images; '' for procedural frames), DIR (/tmp/volvox_stream), OUT (bench/out/stream, or
# $OUT as the device machine sets it), EXTRA (more denoise flags, e.g. "--quality balanced"), DEVICES
# ('': one device only; all or 0,1,...: step 4).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
V="${VOLVOX:-$ROOT/build/release/volvox}"
SF="${STREAM_FRAMES:-$ROOT/build/release/bench/denoise/stream_frames}"
SIZE="${SIZE:-1920x1088}" FRAMES="${FRAMES:-200}" DEVICE="${DEVICE:-vulkan}" PRECISION="${PRECISION:-fp16}"
IO_THREADS="${IO_THREADS:-2 4 8 14}" FILTERS="${FILTERS:-1 2 3}" COMPRESSIONS="${COMPRESSIONS:-zip piz}"
IN_COMPRESSION="${IN_COMPRESSION:-zip}" REPEAT="${REPEAT:-20}" DIR="${DIR:-/tmp/volvox_stream}"
IMAGES="${IMAGES-$ROOT/../shared/images}" OUT="${OUT:-$ROOT/bench/out/stream}" EXTRA="${EXTRA:-}"
DEVICES="${DEVICES:-}"
WEIGHTS="${WEIGHTS-$ROOT/../shared/weights/rt_hdr_alb_nrm.tza}"
W="${SIZE%x*}" H="${SIZE#*x}"
for bin in "$V" "$SF"; do
  [[ -x "$bin" ]] || { echo "stream_h200.sh: no executable $bin (ninja -C build/release volvox_cli stream_frames)" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "stream_h200.sh: needs python3 (its json module reads the JSON lines)" >&2; exit 1; }
weights=()
[[ -n "$WEIGHTS" && -f "$WEIGHTS" ]] && weights=(--weights "$WEIGHTS")
mkdir -p "$OUT" "$DIR/in" "$DIR/out"

# 1. The frames, kept between runs when they are already there at this size and count.
stamp="$DIR/in/frames.txt"
if [[ "$(cat "$stamp" 2>/dev/null)" != "$SIZE $FRAMES $IMAGES $IN_COMPRESSION" ]]; then
  rm -f "$DIR"/in/f_*.exr "$stamp"
  t0=$(date +%s.%N)
  "$SF" --width "$W" --height "$H" --frames "$FRAMES" --images "$IMAGES" --compression "$IN_COMPRESSION" -o "$DIR/in/f"
  echo "frames written in $(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s"
  echo "$SIZE $FRAMES $IMAGES $IN_COMPRESSION" >"$stamp"
fi
inputs=(--color "$DIR/in/f_%04d_color.exr" --albedo "$DIR/in/f_%04d_albedo.exr" --normal "$DIR/in/f_%04d_normal.exr")
common=(--hdr --precision "$PRECISION" "${weights[@]}" $EXTRA)
device_specs=("$DEVICE")
[[ -n "$DEVICES" ]] && device_specs+=("vulkan:$DEVICES")

# 2. The device-bound rate (one device).
"$V" denoise --color "$DIR/in/f_0000_color.exr" --albedo "$DIR/in/f_0000_albedo.exr" \
  --normal "$DIR/in/f_0000_normal.exr" --device "$DEVICE" "${common[@]}" --json --repeat "$REPEAT" \
  -o "$DIR/out/single.exr" >"$OUT/single.jsonl"

# 3. The sequences (4.: each on one device, then on DEVICES).
: >"$OUT/sequences.jsonl"
for c in $COMPRESSIONS; do
  for n in $IO_THREADS; do
    for k in $FILTERS; do
      for d in "${device_specs[@]}"; do
        rm -f "$DIR"/out/o_*.exr
        "$V" denoise --sequence "${inputs[@]}" --device "$d" "${common[@]}" --temporal none --overwrite \
          --io-threads "$n" --filters "$k" --exr-compression "$c" --json -o "$DIR/out/o_%04d.exr" \
          2>"$OUT/sequence_${c}_io${n}_f${k}_${d//[:,]/_}.log" |
          tail -1 | python3 -c "import json, sys; j = json.load(sys.stdin); j['exr_compression'] = '$c'; j['device_spec'] = '$d'; print(json.dumps(j))" \
          >>"$OUT/sequences.jsonl"
      done
    done
  done
done
rm -f "$DIR"/out/o_*.exr

python3 - "$OUT" "$SIZE" "$FRAMES" "$DEVICE" "$PRECISION" "$(nproc)" "$IN_COMPRESSION" <<'EOF'
import json, statistics, sys
out, size, frames, device, precision, cores, in_compression = sys.argv[1:]
cores = int(cores)
runs = [json.loads(l) for l in open(f"{out}/single.jsonl") if l.startswith("{")]
steady = runs[1:] or runs
device_ms = statistics.median(r["ms_device"] for r in steady)
total_ms = statistics.median(r["ms_total"] for r in steady)
clock = "ms_device (GPU timestamps)" if device_ms > 0 else "ms_total (no device timestamps)"
bound_ms = device_ms if device_ms > 0 else total_ms
bound_fps = 1000 / bound_ms
rows = []
one_device_fps = {}  # (compression, io-threads, filters per device): the one-device run's frames/s
for l in open(f"{out}/sequences.jsonl"):
    s = json.loads(l)
    n, k, gpus = s["io_threads"], s["filters"], len(s["devices"])
    key = (s["exr_compression"], n, k // gpus)
    if gpus == 1 and s["device_spec"] == device:
        one_device_fps[key] = s["frames_per_second"]
    limits = {
        f"readers ({n} x EXR decode of 3 files)": n * 1000 / s["ms_read"] if s["ms_read"] > 0 else float("inf"),
        f"filters ({k} x execute with host copies)": k * 1000 / s["ms_denoise"] if s["ms_denoise"] > 0 else float("inf"),
        f"writers ({n} x EXR encode + atomic write)": n * 1000 / s["ms_write"] if s["ms_write"] > 0 else float("inf"),
    }
    bottleneck = min(limits, key=limits.get)
    codec = cores * 1000 / (s["ms_read"] + s["ms_write"]) if s["ms_read"] + s["ms_write"] > 0 else float("inf")
    one = one_device_fps.get(key) if s["device_spec"] != device else None
    rows.append({**s, "gpus": gpus, "ratio_to_device_bound": s["frames_per_second"] / (gpus * bound_fps),
                 "ratio_to_one_device": s["frames_per_second"] / one if one else None, "stage_limits_fps": limits,
                 "bottleneck": bottleneck, "codec_limit_all_cores_fps": codec})
md = [f"# volvox denoise --sequence: {frames} frames of {size}, HDR + albedo + normal EXR ({in_compression}), "
      f"{device} {precision}", "",
      f"Device-bound rate: {bound_fps:.1f} frames/s (median {clock} {bound_ms:.3f} ms over {len(steady)} runs; "
      f"execute's ms_total {total_ms:.3f} ms); network: {runs[0]['network']}", "",
      "| output EXR | io-threads | filters | devices | frames/s | x one device | of device-bound | GPU busy | read ms | denoise ms | device ms | write ms | "
      f"readers limit | filters limit | writers limit | EXR codec limit ({cores} cores) | bottleneck |",
      "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
for r in rows:
    L = list(r["stage_limits_fps"].values())
    x_one = f"{r['ratio_to_one_device']:.2f}" if r["ratio_to_one_device"] else "-"
    md.append(f"| {r['exr_compression']} | {r['io_threads']} | {r['filters']} | {r['device_spec']} ({r['gpus']}) | "
              f"{r['frames_per_second']:.1f} | {x_one} | {100 * r['ratio_to_device_bound']:.1f}% | "
              f"{100 * r['gpu_busy_fraction']:.1f}% | {r['ms_read']:.2f} | {r['ms_denoise']:.2f} | {r['ms_device']:.3f} | "
              f"{r['ms_write']:.2f} | {L[0]:.1f} | {L[1]:.1f} | {L[2]:.1f} | {r['codec_limit_all_cores_fps']:.1f} | "
              f"{r['bottleneck']} |")
best = max(rows, key=lambda r: r["frames_per_second"])
verdict = ("meets the target (>= 90% of the device-bound rate)" if best["ratio_to_device_bound"] >= 0.9 else
           f"below the target: bound by the {best['bottleneck']} at {best['stage_limits_fps'][best['bottleneck']]:.1f} frames/s")
md += ["", f"Best: {best['frames_per_second']:.1f} frames/s with {best['exr_compression']} outputs, {best['io_threads']} io-threads and {best['filters']} filters "
       f"on {best['device_spec']}, {100 * best['ratio_to_device_bound']:.1f}% of the device-bound rate: {verdict}."]
several = [r for r in rows if r["ratio_to_one_device"]]
if several:
    b = max(several, key=lambda r: r["frames_per_second"])
    each = "; ".join(f"{d['device']}: {d['frames']} frames, busy {100 * d['gpu_busy_fraction']:.0f}%" for d in b["devices"])
    md += [f"Several devices: best {b['frames_per_second']:.1f} frames/s on {b['device_spec']} ({b['gpus']} devices) = "
           f"{b['ratio_to_one_device']:.2f} x one device with the same settings (ideal {b['gpus']}); {each}."]
md += ["",
       "Stage limits: what each stage alone allows (readers and writers: io-threads x 1000 / mean ms; the filters: "
       "filters x 1000 / mean ms, where a lane's ms includes waiting for the device behind the others, so with several "
       "filters this limit is low when the device is the bound). EXR codec limit: every core decoding and encoding, cores x 1000 / (read + write "
       "ms); above it no io-threads setting helps. frames/s and GPU busy are the steady state's (after the first "
       "frame); GPU busy sums the filters' device times, so overlapping lanes can exceed 100%."]
open(f"{out}/stream.md", "w").write("\n".join(md) + "\n")
json.dump({"size": size, "frames": int(frames), "device": device, "precision": precision,
           "device_bound_ms": bound_ms, "device_bound_fps": bound_fps, "clock": clock, "runs": rows},
          open(f"{out}/stream.json", "w"), indent=1)
print("\n".join(md))
EOF
