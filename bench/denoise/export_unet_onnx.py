#!/usr/bin/python3
"""Exports OIDN's U-Net (base or small layout) to ONNX for the CPU peer benchmark (ort_bench.js).

Usage: /usr/bin/python3 bench/denoise/export_unet_onnx.py [--weights rt_hdr_alb_nrm.tza] [--variant base]
           [--ic 9] [--seed 1] [--out bench/models/unet_base_ic9.onnx]

With --weights the network's widths and input channels come from the TZA file (OIDN's weight format,
parsed here) and its tensors are loaded; without it the weights are random with a fixed seed (timings
do not depend on weight values). The graph has a dynamic height and width (sides must be multiples of
16, as OIDN pads them), opset 13. Beside the model it writes <model>.check.bin and <model>.check.json: a
small input and the PyTorch output for it, which ort_bench.js compares against before timing, so that a
wrong export cannot produce a meaningless speed.

Uses Debian's python3-torch (/usr/bin/python3), and its network is the same as
shared/anchors/torch_unet.py, with OIDN's tensor names so that TZA tensors load by name.
"""
import argparse, json, os, struct, sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

WIDTHS = {  # encoder E1..E5, decoder D4, D3, D2a, D2b, D1a, D1b (docs/OIDN-FACTS.md)
    'small': (32, 32, 32, 32, 32, 64, 64, 64, 32, 32, 32),
    'base': (32, 48, 64, 80, 96, 112, 96, 64, 64, 64, 32),
}
ENCODER = ['enc_conv0', 'enc_conv1', 'enc_conv2', 'enc_conv3', 'enc_conv4', 'enc_conv5a', 'enc_conv5b']
DECODER = ['dec_conv4a', 'dec_conv4b', 'dec_conv3a', 'dec_conv3b', 'dec_conv2a', 'dec_conv2b',
           'dec_conv1a', 'dec_conv1b', 'dec_conv0']


def read_tza(path):
    """Returns {name: float32 numpy array} from an OIDN .tza file (format in docs/OIDN-FACTS.md)."""
    data = open(path, 'rb').read()
    if len(data) < 12:
        sys.exit(f'{path}: too short for a TZA header')
    magic, major, _minor, table = struct.unpack_from('<HBBQ', data, 0)
    if magic != 0x41D7 or major != 2:
        sys.exit(f'{path}: not a TZA v2 file (magic {magic:#x}, major {major})')
    pos = table
    (count,) = struct.unpack_from('<I', data, pos); pos += 4
    tensors = {}
    for _ in range(count):
        (name_len,) = struct.unpack_from('<H', data, pos); pos += 2
        name = data[pos:pos + name_len].decode('utf-8'); pos += name_len
        ndims = data[pos]; pos += 1
        dims = struct.unpack_from(f'<{ndims}I', data, pos); pos += 4 * ndims
        layout = data[pos:pos + ndims].decode('ascii'); pos += ndims
        dtype = chr(data[pos]); pos += 1
        (offset,) = struct.unpack_from('<Q', data, pos); pos += 8
        if dtype not in 'fh':
            sys.exit(f'{path}: tensor {name} has unsupported dtype {dtype!r}')
        if layout not in ('oihw', 'x'):
            sys.exit(f'{path}: tensor {name} has unsupported layout {layout!r}')
        np_dtype = np.float16 if dtype == 'h' else np.float32
        numel = int(np.prod(dims))
        if offset + numel * np.dtype(np_dtype).itemsize > len(data):
            sys.exit(f'{path}: tensor {name} runs past the end of the file')
        tensors[name] = np.frombuffer(data, np_dtype, numel, offset).reshape(dims).astype(np.float32)
    return tensors


def widths_from_tza(tensors):
    """(ic, widths) read from the tensor shapes: out-channels of each conv in OIDN's order."""
    out = lambda n: tensors[n + '.weight'].shape[0]
    ic = tensors['enc_conv0.weight'].shape[1]
    widths = tuple(out(n) for n in ['enc_conv0', 'enc_conv2', 'enc_conv3', 'enc_conv4', 'enc_conv5a',
                                    'dec_conv4a', 'dec_conv3a', 'dec_conv2a', 'dec_conv2b', 'dec_conv1a',
                                    'dec_conv1b'])
    return ic, widths


class UNet(nn.Module):
    def __init__(self, ic, widths):
        super().__init__()
        e1, e2, e3, e4, e5, d4, d3, d2a, d2b, d1a, d1b = widths
        shapes = [(ic, e1), (e1, e1), (e1, e2), (e2, e3), (e3, e4), (e4, e5), (e5, e5),
                  (e5 + e3, d4), (d4, d4), (d4 + e2, d3), (d3, d3), (d3 + e1, d2a), (d2a, d2b),
                  (d2b + ic, d1a), (d1a, d1b), (d1b, 3)]
        for name, (i, o) in zip(ENCODER + DECODER, shapes):
            setattr(self, name, nn.Conv2d(i, o, 3, padding=1))

    def forward(self, x):
        c = lambda name, t: F.relu(getattr(self, name)(t))
        pool = lambda t: F.max_pool2d(t, 2)
        up = lambda t: F.interpolate(t, scale_factor=2.0, mode='nearest')
        inp = x
        x = c('enc_conv0', x)
        x = pool1 = pool(c('enc_conv1', x))
        x = pool2 = pool(c('enc_conv2', x))
        x = pool3 = pool(c('enc_conv3', x))
        x = pool(c('enc_conv4', x))
        x = c('enc_conv5b', c('enc_conv5a', x))
        x = c('dec_conv4b', c('dec_conv4a', torch.cat([up(x), pool3], 1)))
        x = c('dec_conv3b', c('dec_conv3a', torch.cat([up(x), pool2], 1)))
        x = c('dec_conv2b', c('dec_conv2a', torch.cat([up(x), pool1], 1)))
        x = c('dec_conv1b', c('dec_conv1a', torch.cat([up(x), inp], 1)))
        return c('dec_conv0', x)  # OIDN clamps the output at 0, so this ReLU changes nothing


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--weights', help='OIDN .tza file (its widths and input channels win over --variant/--ic)')
    ap.add_argument('--variant', default='base', choices=WIDTHS)
    ap.add_argument('--ic', type=int, default=9, choices=(3, 6, 9))
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', help='output .onnx (default bench/models/unet_<variant>_ic<ic>[_<weights>].onnx)')
    a = ap.parse_args()

    torch.manual_seed(a.seed)
    ic, widths, tag = a.ic, WIDTHS[a.variant], f'unet_{a.variant}_ic{a.ic}_random'
    tensors = None
    if a.weights:
        tensors = read_tza(a.weights)
        ic, widths = widths_from_tza(tensors)
        variant = next((k for k, v in WIDTHS.items() if v == widths), 'custom')
        tag = f'unet_{variant}_ic{ic}_' + os.path.basename(a.weights).removesuffix('.tza')
    model = UNet(ic, widths).eval()
    if tensors is not None:
        state = model.state_dict()
        missing = sorted(set(state) - set(tensors))
        if missing:
            sys.exit(f'{a.weights}: lacks tensors {missing} (large U-Net files are not supported here)')
        for name in state:
            if tuple(tensors[name].shape) != tuple(state[name].shape):
                sys.exit(f'{a.weights}: {name} has shape {tensors[name].shape}, expected {tuple(state[name].shape)}')
        model.load_state_dict({n: torch.from_numpy(tensors[n].copy()) for n in state})

    out = a.out or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'models', tag + '.onnx')
    out = os.path.normpath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    dummy = torch.rand(1, ic, 64, 64)
    with torch.no_grad():
        torch.onnx.export(model, dummy, out, opset_version=13, input_names=['input'], output_names=['output'],
                          dynamic_axes={'input': {2: 'height', 3: 'width'}, 'output': {2: 'height', 3: 'width'}})

    # A small check pair (48x80: not square, three pool levels deep) for ort_bench.js.
    gen = torch.Generator().manual_seed(a.seed + 1)
    check_in = torch.rand(1, ic, 48, 80, generator=gen)
    with torch.no_grad():
        check_out = model(check_in)
    stem = out.removesuffix('.onnx')
    with open(stem + '.check.bin', 'wb') as f:
        f.write(check_in.numpy().astype('<f4').tobytes())
        f.write(check_out.numpy().astype('<f4').tobytes())
    meta = dict(input_shape=list(check_in.shape), output_shape=list(check_out.shape),
                output_max_abs=float(check_out.abs().max()), ic=ic, widths=list(widths),
                weights=os.path.basename(a.weights) if a.weights else f'random(seed={a.seed})',
                params=sum(p.numel() for p in model.parameters()), torch=torch.__version__)
    json.dump(meta, open(stem + '.check.json', 'w'), indent=1)
    print(json.dumps(dict(model=out, **meta)))


if __name__ == '__main__':
    main()
