#!/usr/bin/python3
"""Per-layer achieved TFLOP/s and GB/s of a vulkan_unet_bench run, against the H200's limits.

  /usr/bin/python3 bench/vulkan/layer_roofline.py results/v9x_vulkan.json [--precision fp16] [--md out.md]

FLOPs are the convolution's own (2 x MACs, unpadded channels); bytes are the least traffic a layer
must move: its input(s) read once (the low-resolution source of an upsample+concat at its own
size), its output written once (a quarter of the pixels after a fused pool) and its weights, all
at the storage precision (2 bytes fp16, 4 fp32). Limits: the issue's figures for the H200, about
990 TFLOP/s dense fp16 (0.5 ms for the 520 GFLOP network at 1920x1088) and 4.27 TB/s measured
with a Vulkan copy kernel; a layer's floor is the larger of its FLOP time and its byte time.
The upsample + concat layers' kernel (conv_coopmat_up, phase decomposition) executes fewer MACs
than the 3x3 conv it computes: for those the TFLOP/s are effective rates.
"""
import argparse
import json

PEAK_TFLOPS = {"fp16": 990.0, "fp32": 67.0}  # dense fp16 tensor cores; fp32 FMA (no TF32 in Vulkan)
PEAK_GBS = 4270.0

# OIDN base U-Net, ic = 9: (name, input channels at full size of this layer, low-res upsampled
# input channels, output channels, resolution divisor, fused 2x2 pool)
LAYERS = [
    ("enc_conv0", 9, 0, 32, 1, False), ("enc_conv1", 32, 0, 32, 1, True),
    ("enc_conv2", 32, 0, 48, 2, True), ("enc_conv3", 48, 0, 64, 4, True),
    ("enc_conv4", 64, 0, 80, 8, True), ("enc_conv5a", 80, 0, 96, 16, False),
    ("enc_conv5b", 96, 0, 96, 16, False), ("dec_conv4a", 64, 96, 112, 8, False),
    ("dec_conv4b", 112, 0, 112, 8, False), ("dec_conv3a", 48, 112, 96, 4, False),
    ("dec_conv3b", 96, 0, 96, 4, False), ("dec_conv2a", 32, 96, 64, 2, False),
    ("dec_conv2b", 64, 0, 64, 2, False), ("dec_conv1a", 9, 64, 64, 1, False),
    ("dec_conv1b", 64, 0, 32, 1, False), ("dec_conv0", 32, 0, 3, 1, False),
]


def rows(result):
    h, w = result["height"], result["width"]
    size = 2 if result["precision"] == "fp16" else 4
    peak = PEAK_TFLOPS[result["precision"]]
    times = {l["layer"].split(" ")[0]: (l["median_ms"], l["layer"]) for l in result["layers"]}
    out = []
    for name, cin, cin_low, cout, div, pool in LAYERS:
        if name not in times:
            continue
        ms, label = times[name]
        pixels = (h // div) * (w // div)
        flops = 2.0 * 9 * (cin + cin_low) * cout * pixels
        nbytes = size * (cin * pixels + cin_low * pixels // 4 + cout * (pixels // 4 if pool else pixels)
                         + 9 * (cin + cin_low) * cout)
        floor_ms = max(flops / (peak * 1e9), nbytes / (PEAK_GBS * 1e6))
        out.append((label, ms, flops / (ms * 1e9), nbytes / (ms * 1e6), floor_ms))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--precision", default="fp16")
    ap.add_argument("--kernels", default="auto", help="which config of the run (its 'kernels' field)")
    ap.add_argument("--md", help="also write the tables to this Markdown file")
    a = ap.parse_args()
    text = []
    for r in json.load(open(a.json))["results"]:
        if r["precision"] != a.precision or r["kernels"] != a.kernels:
            continue
        text.append(f"\n### {r['width']}x{r['height']} {r['precision']} {r['kernels']}: {r['median_ms']:.3f} ms\n")
        text.append("| layer (kernel) | median ms | TFLOP/s | % of peak | GB/s | % of 4.27 TB/s | floor ms | x floor |")
        text.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        peak = PEAK_TFLOPS[r["precision"]]
        total_floor = 0.0
        for label, ms, tflops, gbs, floor_ms in rows(r):
            total_floor += floor_ms
            text.append(f"| {label} | {ms:.3f} | {tflops:.0f} | {100 * tflops / peak:.0f}% | {gbs:.0f} | "
                        f"{100 * gbs / PEAK_GBS:.0f}% | {floor_ms:.3f} | {ms / floor_ms:.1f} |")
        text.append(f"\nSum of the layers' floors: {total_floor:.3f} ms; measured {r['median_ms']:.3f} ms.")
    print("\n".join(text))
    if a.md:
        open(a.md, "w").write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
