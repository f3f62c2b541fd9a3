#!/usr/bin/python3
"""Builds the OIDN reference outputs that tests/denoise/oidn_reference_test.cpp compares against.

OIDN itself is not packaged in Debian, so the reference is OIDN's published algorithm written out
independently of our C++: its input processing (docs/OIDN-FACTS.md), its U-Net in PyTorch in float64
(the network code and the TZA reader are shared with bench/denoise/export_unet_onnx.py), and its
output processing. Inputs are crops of ../shared/images with ../shared/weights.

Usage (Debian's python3-torch, python3-numpy and python3-pil):
  /usr/bin/python3 tests/data/oidn_reference/make_reference.py ../shared
Writes <case>.pfm beside this script: 3-channel float32, little-endian, bottom-to-top rows (PFM).
"""
import math, os, sys

import numpy as np
import torch
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', '..', 'bench', 'denoise'))
from export_unet_onnx import read_tza, widths_from_tza, UNet  # noqa: E402

# The crop: odd sizes, so padding to multiples of 16 is exercised. Kept in sync with the C++ test.
X0, Y0, W, H = 384, 448, 75, 61

PU = dict(a=1.41283765e3, b=1.64593172, c=4.31384981e-1, d=-2.94139609e-3, e=1.92653254e-1,
          f=6.26026094e-3, g=9.98620152e-1, y0=1.57945760e-6, y1=3.22087631e-2, x0=2.23151711e-3,
          x1=3.70974749e-1)


def pu_forward(y):
    p = PU
    return np.where(y <= p['y0'], p['a'] * y,
                    np.where(y <= p['y1'], p['b'] * np.power(np.maximum(y, 0), p['c']) + p['d'],
                             p['e'] * np.log(y + p['f']) + p['g']))


def pu_inverse(x):
    p = PU
    return np.where(x <= p['x0'], x / p['a'],
                    np.where(x <= p['x1'], np.power(np.maximum((x - p['d']) / p['b'], 0), 1 / p['c']),
                             np.exp((x - p['g']) / p['e']) - p['f']))


PU_NORM = 1.0 / float(pu_forward(np.float64(65504.0)))


def srgb_forward(y):
    return np.where(y <= 0.0031308, 12.92 * y, 1.055 * np.power(np.maximum(y, 0), 1 / 2.4) - 0.055)


def srgb_inverse(x):
    return np.where(x <= 0.04045, x / 12.92, np.power((x + 0.055) / 1.055, 2.4))


def autoexposure(color):
    h, w, _ = color.shape
    lum = 0.212671 * color[..., 0] + 0.715160 * color[..., 1] + 0.072169 * color[..., 2]
    bh, bw = (h + 15) // 16, (w + 15) // 16
    logs = []
    for i in range(bh):
        for j in range(bw):
            y0, y1 = i * h // bh, (i + 1) * h // bh
            x0, x1 = j * w // bw, (j + 1) * w // bw
            m = lum[y0:y1, x0:x1].mean()
            if m > 1e-8:
                logs.append(math.log2(m))
    return 0.18 / 2 ** (sum(logs) / len(logs)) if logs else 1.0


def load_png(path):
    return np.asarray(Image.open(path).convert('RGB'), dtype=np.float64)[Y0:Y0 + H, X0:X0 + W] / 255.0


def denoise(weights_path, color, albedo, normal, hdr, srgb):
    tensors = read_tza(weights_path)
    ic, widths = widths_from_tza(tensors)
    model = UNet(ic, widths).double().eval()
    model.load_state_dict({k: torch.from_numpy(v.astype(np.float64)) for k, v in tensors.items()})
    scale = autoexposure(np.nan_to_num(color)) if hdr else 1.0
    c = np.clip(np.nan_to_num(color * scale), 0, np.finfo(np.float32).max if hdr else 1.0)
    c = pu_forward(c) * PU_NORM if hdr else (c if srgb else srgb_forward(c))
    planes = [c]
    if ic >= 6:
        planes.append(np.clip(albedo, 0, 1))
    if ic >= 9:
        planes.append(np.clip(normal, -1, 1) * 0.5 + 0.5)
    x = np.concatenate(planes, axis=2).transpose(2, 0, 1)
    ph, pw = -(-H // 16) * 16, -(-W // 16) * 16
    padded = np.zeros((1, ic, ph, pw))
    padded[0, :, :H, :W] = x
    with torch.no_grad():
        y = model(torch.from_numpy(padded)).numpy()[0, :, :H, :W].transpose(1, 2, 0)
    y = np.maximum(np.nan_to_num(y), 0)
    y = pu_inverse(y / PU_NORM) if hdr else (y if srgb else srgb_inverse(y))
    if not hdr:
        y = np.minimum(y, 1)
    return y / scale, scale


def write_pfm(path, img):
    with open(path, 'wb') as f:
        f.write(b'PF\n%d %d\n-1.0\n' % (img.shape[1], img.shape[0]))
        f.write(np.ascontiguousarray(img[::-1].astype('<f4')).tobytes())


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', '..', '..', '..', 'shared')
    img = lambda n: load_png(os.path.join(shared, 'images', n))
    wts = lambda n: os.path.join(shared, 'weights', n + '.tza')
    noisy, albedo, normal = img('noisy.png'), img('albedo.png'), img('normal.png') * 2 - 1
    cases = {
        'ldr_alb_nrm_srgb': (wts('rt_ldr_alb_nrm'), noisy, albedo, normal, False, True),
        'hdr_alb_nrm': (wts('rt_hdr_alb_nrm'), srgb_inverse(noisy) * 4, albedo, normal, True, False),
        'ldr_linear': (wts('rt_ldr'), srgb_inverse(noisy), None, None, False, False),
    }
    for name, args in cases.items():
        out, scale = denoise(*args)
        write_pfm(os.path.join(HERE, name + '.pfm'), out)
        print(f'{name}: input scale {scale:.9g}, output mean {out.mean():.6f}, max {out.max():.6f}')


if __name__ == '__main__':
    main()
