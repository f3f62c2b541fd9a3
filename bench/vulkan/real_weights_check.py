#!/usr/bin/python3
"""The whole Vulkan denoiser on real weights against the CPU filter (BENCHMARKS.md).

  /usr/bin/python3 bench/vulkan/real_weights_check.py prepare   # crops + weights into .gl/denoise
  (device, carry .gl)  bash bench/vulkan/real_weights_device.sh  # $OUT/{hdr,ldr}_{fp32,fp16}.pfm
  /usr/bin/python3 bench/vulkan/real_weights_check.py compare DIR  # CPU filter here, errors printed

The inputs: a 512x512 crop of ../shared/images (noisy, albedo, normal PNG) as LDR sRGB values and as
HDR (sRGB decoded to linear, x4), with rt_ldr_alb_nrm / rt_hdr_alb_nrm.
"""
import os
import subprocess
import sys

import numpy as np
from PIL import Image

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.environ.get("VOLVOX_SHARED", os.path.join(ROOT, "..", "shared"))
DEST = os.path.join(ROOT, ".gl", "denoise")
VOLVOX = os.path.join(ROOT, "build", "release", "volvox")


def write_pfm(path, a):
    h, w, _ = a.shape
    with open(path, "wb") as f:
        f.write(f"PF\n{w} {h}\n-1.0\n".encode())
        f.write(np.ascontiguousarray(a[::-1]).astype("<f4").tobytes())


def read_pfm(path):
    with open(path, "rb") as f:
        f.readline()
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        data = np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4")
    return data.reshape(h, w, -1)[::-1].astype(np.float64)


def prepare():
    os.makedirs(DEST, exist_ok=True)
    load = lambda n: np.asarray(Image.open(os.path.join(SHARED, "images", n)).convert("RGB")).astype(np.float32) / 255
    crop = lambda a: a[256:768, 256:768]
    color, albedo, normal = crop(load("noisy.png")), crop(load("albedo.png")), crop(load("normal.png")) * 2 - 1
    linear = np.where(color <= 0.04045, color / 12.92, ((color + 0.055) / 1.055) ** 2.4) * 4
    for name, img in [("ldr_color", color), ("hdr_color", linear), ("albedo", albedo), ("normal", normal)]:
        write_pfm(os.path.join(DEST, name + ".pfm"), img)
    for w in ["rt_hdr_alb_nrm.tza", "rt_ldr_alb_nrm.tza"]:
        subprocess.run(["cp", os.path.join(SHARED, "weights", w), DEST], check=True)


def denoise_cpu(kind, out):
    weights, flag = ("rt_hdr_alb_nrm.tza", "--hdr") if kind == "hdr" else ("rt_ldr_alb_nrm.tza", "--srgb")
    subprocess.run([VOLVOX, "denoise", "--weights", os.path.join(DEST, weights), flag, "--color",
                    os.path.join(DEST, kind + "_color.pfm"), "--albedo", os.path.join(DEST, "albedo.pfm"),
                    "--normal", os.path.join(DEST, "normal.pfm"), "-o", out, "--device", "cpu"], check=True)


def compare(folder):
    for kind in ["hdr", "ldr"]:
        ref_path = f"/tmp/vx_{kind}_cpu.pfm"
        denoise_cpu(kind, ref_path)
        ref = read_pfm(ref_path)
        runs = sorted(f[len(kind) + 1:-4] for f in os.listdir(folder) if f.startswith(kind + "_") and f.endswith(".pfm"))
        for precision in runs:  # fp32, fp16 and fp32_<kernel> for the forced fp32 kernels
            out = read_pfm(os.path.join(folder, f"{kind}_{precision}.pfm"))
            err = np.abs(out - ref).max()
            psnr = 10 * np.log10(ref.max() ** 2 / np.mean((out - ref) ** 2))
            print(f"{kind} {precision}: max abs error {err:.3g} (values up to {ref.max():.3g}), PSNR {psnr:.1f} dB")


if __name__ == "__main__":
    if sys.argv[1:2] == ["prepare"]:
        prepare()
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 3:
        compare(sys.argv[2])
    else:
        sys.exit(__doc__)
