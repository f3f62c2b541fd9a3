#!/usr/bin/env python3
"""Writes the tiny image files under tests/data/images/ with nothing but the standard library, so that
the readers are tested against files no Volvox code wrote. tests/unit/image_io_test.cpp recomputes the
same pixel formulas; change both together. Run: python3 tests/data/make_image_test_data.py"""
import os
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_file(width, height, bit_depth, color_type, raw, interlace=0, extra_chunks=b""):
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra_chunks +
            png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def grey16_png():
    # 3x2, 16-bit grey: value(x, y) = [0, 1, 257, 32768, 12345, 65535][y * 3 + x]; filter type 0.
    values = [0, 1, 257, 32768, 12345, 65535]
    raw = b"".join(b"\x00" + b"".join(struct.pack(">H", values[y * 3 + x]) for x in range(3)) for y in range(2))
    write("grey16_3x2.png", png_file(3, 2, 16, 0, raw))


def palette_png():
    # 4x3, 2-bit palette of 4 colours; index(x, y) = (x + y) % 4.
    palette = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (10, 20, 30)]
    plte = png_chunk(b"PLTE", bytes(c for rgb in palette for c in rgb))
    rows = []
    for y in range(3):
        bits = 0
        for x in range(4):
            bits = (bits << 2) | ((x + y) % 4)
        rows.append(b"\x00" + bytes([bits]))
    write("palette2bit_4x3.png", png_file(4, 3, 2, 3, b"".join(rows), extra_chunks=plte))


def rgba_interlaced_png():
    # 5x5 RGBA 8-bit, Adam7 interlaced: pixel(x, y) = (40x + 7y, 255 - 30y, 11xy, 200 + x + y).
    def pixel(x, y):
        return bytes([40 * x + 7 * y, 255 - 30 * y, 11 * x * y, 200 + x + y])

    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    raw = b""
    for x0, y0, dx, dy in passes:
        xs = range(x0, 5, dx)
        for y in range(y0, 5, dy):
            if len(xs):
                raw += b"\x00" + b"".join(pixel(x, y) for x in xs)
    write("rgba8_adam7_5x5.png", png_file(5, 5, 8, 6, raw, interlace=1))


def grey_alpha_png():
    # 2x2 grey+alpha 8-bit, with the Sub filter on row 1: (grey, alpha) = (60x + 100y, 255 - 50x - 100y).
    rows = []
    for y in range(2):
        samples = [v for x in range(2) for v in (60 * x + 100 * y, 255 - 50 * x - 100 * y)]
        if y == 1:
            filtered = [(samples[i] - (samples[i - 2] if i >= 2 else 0)) % 256 for i in range(len(samples))]
            rows.append(b"\x01" + bytes(filtered))
        else:
            rows.append(b"\x00" + bytes(samples))
    write("grey_alpha8_2x2.png", png_file(2, 2, 8, 4, b"".join(rows)))


def big_endian_pfm():
    # 3x2 "PF", positive scale (big-endian), rows bottom to top: value(x, y, c) = x + 10y + 0.25c - 1.5
    # with (x, y) counted from the top-left.
    data = b""
    for y in (1, 0):
        for x in range(3):
            for c in range(3):
                data += struct.pack(">f", x + 10 * y + 0.25 * c - 1.5)
    write("rgb_big_endian_3x2.pfm", b"PF\n3 2\n1.0\n" + data)


def grey_pfm():
    # 2x2 "Pf", little-endian with scale -2.5 and a comment-free header split over one line:
    # value(x, y) = [1e-3, 2, -7, 1e6][y * 2 + x].
    values = [1e-3, 2.0, -7.0, 1e6]
    data = b"".join(struct.pack("<f", values[y * 2 + x]) for y in (1, 0) for x in range(2))
    write("grey_2x2.pfm", b"Pf 2 2 -2.5\n" + data)


def rle_hdr():
    # 16x2, new-style RLE, extra header lines. RGBE bytes per pixel (x, y):
    # R = 200 for x < 10 else 100 + x (a run then literals), G = 128 (one run),
    # B = 10x (all literals), E = 129 + y (one run).
    header = b"#?RADIANCE\n# made by make_image_test_data.py\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=1.0\n\n-Y 2 +X 16\n"
    data = b""
    for y in range(2):
        data += bytes([2, 2, 0, 16])
        data += bytes([128 + 10, 200, 6]) + bytes(100 + x for x in range(10, 16))
        data += bytes([128 + 16, 128])
        data += bytes([16]) + bytes(10 * x for x in range(16))
        data += bytes([128 + 16, 129 + y])
    write("rle_16x2.hdr", header + data)


def flat_hdr():
    # 3x2, flat scanlines, bottom-to-top ("+Y"): RGBE(x, y) = (50 + x, 60 + y, 70 + x + y, 128 + x),
    # (x, y) from the top-left; pixel (2, 1) is black (E = 0).
    header = b"#?RGBE\nFORMAT=32-bit_rle_rgbe\n\n+Y 2 +X 3\n"
    data = b""
    for y in (1, 0):
        for x in range(3):
            data += bytes([0, 0, 0, 0]) if (x, y) == (2, 1) else bytes([50 + x, 60 + y, 70 + x + y, 128 + x])
    write("flat_bottom_up_3x2.hdr", header + data)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    grey16_png()
    palette_png()
    rgba_interlaced_png()
    grey_alpha_png()
    big_endian_pfm()
    grey_pfm()
    rle_hdr()
    flat_hdr()
