#!/usr/bin/env python3
"""Writes the generated seeds of tests/fuzz/corpus (run from anywhere; plain Python, no numpy).

  fuzz_image/  a format byte (0 PFM, 1 PNG, 2 Radiance HDR, 3 OpenEXR: fuzz_image.cpp) + each file of
               tests/data/images, + the EXR files given with --exr (e.g. from
               `volvox render --scene room --width 5 --height 3 --spp 1 --format exr -o /tmp/s`)
  fuzz_npy/    .npy files of every dtype the reader takes, format versions 1, 2 and 3, ranks 0 to 4
  fuzz_cli/    one command line of each subcommand (README's examples), one argv word per line
  fuzz_onnx/   small models and TensorProtos copied from Debian's libonnx-testdata, when installed

Seeds that are not generated (regressions: crash-*, hang-*, and fuzz_tza's valid_two_tensors.tza)
are never touched. Output is deterministic: re-running it rewrites the same bytes.
"""
import argparse
import pathlib
import shutil
import struct

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def npy(descr, shape, data, version=1, fortran=False, pad_to=64):
    shape_text = "()" if not shape else ("(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")")
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", shape_text)
    prefix = 10 if version == 1 else 12
    header += " " * ((pad_to - (prefix + len(header) + 1) % pad_to) % pad_to) + "\n"
    out = b"\x93NUMPY" + bytes([version, 0])
    out += struct.pack("<H" if version == 1 else "<I", len(header))
    return out + header.encode("utf-8" if version == 3 else "latin-1") + data


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def image_seeds(exr_files):
    codes = {".pfm": 0, ".png": 1, ".hdr": 2, ".exr": 3}
    for f in sorted((ROOT / "tests/data/images").iterdir()) + [pathlib.Path(p) for p in exr_files]:
        write(HERE / "fuzz_image" / f.name, bytes([codes[f.suffix.lower()]]) + f.read_bytes())


def npy_seeds():
    packers = {  # descr: struct format of one element, values
        "<f4": ("<f", [0.0, -1.5, 3.25, 1e30, -0.0, 7.0]),
        "<f2": ("<e", [0.0, -1.5, 3.25, 65504.0, -0.0, 7.0]),
        "<f8": ("<d", [0.0, -1.5, 3.25, 1e300, -0.0, 7.0]),
        "|i1": ("<b", [0, -1, 127, -128, 5, 6]),
        "|u1": ("<B", [0, 1, 255, 128, 5, 6]),
        "<i2": ("<h", [0, -1, 32767, -32768, 5, 6]),
        "<u2": ("<H", [0, 1, 65535, 32768, 5, 6]),
        "<i4": ("<i", [0, -1, 2**31 - 1, -(2**31), 5, 6]),
        "<u4": ("<I", [0, 1, 2**32 - 1, 2**31, 5, 6]),
        "<i8": ("<q", [0, -1, 2**63 - 1, -(2**63), 5, 6]),
        "<u8": ("<Q", [0, 1, 2**63 - 1, 2**40, 5, 6]),
        "|b1": ("<B", [0, 1, 1, 0, 1, 0]),
    }
    for descr, (fmt, values) in packers.items():
        name = descr[1:]
        for shape in [(6,), (2, 3), (1, 2, 1, 3)]:
            data = b"".join(struct.pack(fmt, v) for v in values[: count(shape)])
            dims = "x".join(map(str, shape))
            write(HERE / "fuzz_npy" / f"{name}_{dims}_v1.npy", npy(descr, shape, data))
    f4 = lambda vals: b"".join(struct.pack("<f", v) for v in vals)
    write(HERE / "fuzz_npy/f4_scalar_v1.npy", npy("<f4", (), f4([2.5])))
    write(HERE / "fuzz_npy/f4_empty_0x3_v1.npy", npy("<f4", (0, 3), b""))
    write(HERE / "fuzz_npy/f4_2x3_v2.npy", npy("<f4", (2, 3), f4(range(6)), version=2))
    write(HERE / "fuzz_npy/f4_2x3_v3.npy", npy("<f4", (2, 3), f4(range(6)), version=3))
    write(HERE / "fuzz_npy/f2_1x3x2x2_v2.npy", npy("<f2", (1, 3, 2, 2), b"".join(struct.pack("<e", v) for v in range(12)), version=2))
    write(HERE / "fuzz_npy/i8_4_native_order_v1.npy", npy("=i8", (4,), b"".join(struct.pack("<q", v) for v in range(4))))
    write(HERE / "fuzz_npy/f4_3_unpadded_v1.npy", npy("<f4", (3,), f4([1, 2, 3]), pad_to=1))
    # Rejected ones keep the fuzzer near the checks: big-endian, Fortran order.
    write(HERE / "fuzz_npy/rejected_big_endian_v1.npy", npy(">f4", (2,), struct.pack(">2f", 1, 2)))
    write(HERE / "fuzz_npy/rejected_fortran_v1.npy", npy("<f4", (2, 2), f4(range(4)), fortran=True))


CLI_LINES = [
    "--help",
    "denoise --hdr --color beauty.exr --albedo albedo.exr --normal normal.exr -o denoised.exr",
    "denoise --srgb --color noisy.png --albedo albedo.png --normal normal.png -o out.png --weights rt_ldr_alb_nrm.tza",
    "denoise --color c.pfm -o d.pfm --max-tile 512 --threads 2 --json --profile",
    "denoise --device vulkan --precision fp16 --profile --hdr --color c.exr -o d.exr",
    "denoise --device vulkan --target-tile-ms 16 --hdr --color c.exr -o d.exr",
    "denoise --color c.pfm -o d.pfm --input-scale 0.5 --max-memory-mb 64 --quality fast --kernel auto,dec_conv0=direct --repeat 2",
    "denoise --color c.pfm -o d.pfm --max-tile -1 --threads -3 --input-scale nan",
    "devices",
    "devices --device cpu",
    "inspect rt_hdr_alb_nrm.tza",
    "inspect model.onnx",
    "render --scene room --spp 4 --reference-spp 1024 -o room",
    "render --scene spheres --width 64 --height 32 --seed 3 --max-depth 4 --format exr -o s",
    "compare --reference room_reference.exr room_color.exr denoised.exr --side-by-side strip.png",
    "weights fetch rt_hdr_alb_nrm",
    "weights fetch --dir /tmp/w --base-url http://127.0.0.1:1/ --force rt_hdr_alb_nrm",
    "weights list",
    "weights path rt_hdr_alb_nrm",
    "run model.onnx --input x=x.npy --output-dir out/ --profile",
    "run model.onnx --input x=x.npy --device vulkan --precision fp16 --profile",
    "run model.onnx -i x=x.npy -i y=y.npy --eager",
    "bench model.onnx --shape x=1x3x224x224 --runs 20 --device vulkan --warmup-seconds 3 --json",
    "bench model.onnx --shape x=1x3x224x224 --runs 20 --warmup 2 --threads 2 --eager",
]


def cli_seeds():
    for i, line in enumerate(CLI_LINES):
        words = line.split(" ")
        name = "_".join(w.strip("-").replace("/", "") for w in words[:2] if w)[:40] or "empty"
        write(HERE / "fuzz_cli" / f"{i:02d}_{name}.txt", ("\n".join(words) + "\n").encode())
    # An empty word and a NUL separator, which the target treats like a newline.
    write(HERE / "fuzz_cli/90_empty_value.txt", b"denoise\n--color\n\n-o\nd.pfm\n")
    write(HERE / "fuzz_cli/91_nul_separated.txt", b"inspect\0model.onnx")


ONNX_TESTDATA = pathlib.Path("/usr/share/libonnx-testdata/data/node")
ONNX_CASES = ["test_add", "test_conv_with_strides_padding", "test_reshape_reordered_all_dims", "test_constant",
              "test_cast_FLOAT_to_FLOAT16", "test_gather_0", "test_matmul_2d", "test_maxpool_2d_pads",
              "test_resize_upsample_scales_nearest", "test_slice", "test_split_equal_parts_1d", "test_lstm_defaults"]


def onnx_seeds():
    if not ONNX_TESTDATA.is_dir():
        print("libonnx-testdata is absent: fuzz_onnx keeps its committed seeds")
        return
    for case in ONNX_CASES:
        d = ONNX_TESTDATA / case
        if not (d / "model.onnx").exists():
            print("missing", d)
            continue
        shutil.copyfile(d / "model.onnx", HERE / "fuzz_onnx" / f"{case}.onnx")
        if (d / "test_data_set_0/input_0.pb").exists():  # test_constant has no input
            shutil.copyfile(d / "test_data_set_0/input_0.pb", HERE / "fuzz_onnx" / f"{case}.input_0.pb")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exr", nargs="*", default=[], help="OpenEXR files to add to fuzz_image")
    args = parser.parse_args()
    (HERE / "fuzz_onnx").mkdir(parents=True, exist_ok=True)
    image_seeds(args.exr)
    npy_seeds()
    cli_seeds()
    onnx_seeds()
