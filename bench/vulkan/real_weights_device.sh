#!/usr/bin/env bash
# Device side of real_weights_check.py: the Vulkan denoiser at fp32 and fp16 on the prepared crops.
# Needs .gl/onnx (bench/onnx/prepare_device_run.sh: volvox and its libraries) and .gl/denoise.
# FP32_KERNELS="coopmat_x3sw ..." also runs fp32 with each of those conv kernels forced
# ($OUT/{hdr,ldr}_fp32_<kernel>.pfm).
set -euo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/vxlib && tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
V=.gl/onnx/volvox; D=.gl/denoise
for p in fp32 fp16; do
  $V denoise --weights $D/rt_hdr_alb_nrm.tza --hdr --color $D/hdr_color.pfm --albedo $D/albedo.pfm \
    --normal $D/normal.pfm -o "$OUT/hdr_$p.pfm" --device vulkan --precision $p --json | tail -1
  $V denoise --weights $D/rt_ldr_alb_nrm.tza --srgb --color $D/ldr_color.pfm --albedo $D/albedo.pfm \
    --normal $D/normal.pfm -o "$OUT/ldr_$p.pfm" --device vulkan --precision $p --json | tail -1
done
for k in ${FP32_KERNELS:-}; do
  $V denoise --weights $D/rt_hdr_alb_nrm.tza --hdr --color $D/hdr_color.pfm --albedo $D/albedo.pfm \
    --normal $D/normal.pfm -o "$OUT/hdr_fp32_$k.pfm" --device vulkan --precision fp32 --kernel "$k" --json | tail -1
  $V denoise --weights $D/rt_ldr_alb_nrm.tza --srgb --color $D/ldr_color.pfm --albedo $D/albedo.pfm \
    --normal $D/normal.pfm -o "$OUT/ldr_fp32_$k.pfm" --device vulkan --precision fp32 --kernel "$k" --json | tail -1
done
# COMPARE_HERE=1: also run the CPU filter on this machine and print the errors of every run against
# it (max abs, PSNR), e.g. when the device tool cannot bring back that many .pfm files.
if [ "${COMPARE_HERE:-0}" = 1 ]; then
  $V denoise --weights $D/rt_hdr_alb_nrm.tza --hdr --color $D/hdr_color.pfm --albedo $D/albedo.pfm \
    --normal $D/normal.pfm -o "$OUT/hdr_cpu.pfm" --device cpu > /dev/null
  $V denoise --weights $D/rt_ldr_alb_nrm.tza --srgb --color $D/ldr_color.pfm --albedo $D/albedo.pfm \
    --normal $D/normal.pfm -o "$OUT/ldr_cpu.pfm" --device cpu > /dev/null
  python3 - "$OUT" <<'PY'
import os, sys
import numpy as np
def read_pfm(path):
    with open(path, "rb") as f:
        f.readline(); w, h = map(int, f.readline().split()); scale = float(f.readline())
        return np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4").reshape(h, w, -1).astype(np.float64)
out = sys.argv[1]
for kind in ["hdr", "ldr"]:
    ref = read_pfm(f"{out}/{kind}_cpu.pfm")
    for f in sorted(os.listdir(out)):
        if f.startswith(kind + "_") and f.endswith(".pfm") and f != f"{kind}_cpu.pfm":
            d = read_pfm(f"{out}/{f}") - ref
            print(f[:-4], "max abs err %.3g" % np.abs(d).max(), "max ref %.3g" % ref.max(),
                  "PSNR %.1f dB" % (10 * np.log10(ref.max() ** 2 / np.mean(d ** 2))))
PY
  rm -f "$OUT"/*.pfm
fi
