#!/usr/bin/env python3
"""ResNet-50 block by block: torch's kernels (torch_kernel_profile.py's table) beside Volvox's nodes
(`volvox bench --profile`'s table), to find where the time between the two goes.

torch's kernels are cut into blocks after each max-pool, add-ReLU or add-mean kernel (the stem, then
one block per bottleneck, then the head); a block's time is its kernels' busy time plus --gap-us a
kernel (the launch gap of a CUDA graph: ~1 us a kernel reproduces torch.compile's wall clock on the
H100). Volvox's nodes are cut after the max pool and each block's conv3; their profile times, which
per-node timestamps inflate, are scaled to --bench-ms (the GPU time of `volvox bench` without a
profile) when given.

  python3 bench/onnx/zoo/compare_block_times.py TORCH_TABLE VOLVOX_PROFILE [--bench-ms 0.745] [--gap-us 1]
"""
import argparse
import re


def torch_blocks(path):
    """[[(us, kernel name)]] per block, in launch order."""
    blocks, block = [], []
    for line in open(path):
        m = re.match(r'\s*(\d+)\s+([\d.]+)\s+([\d.]*)\s+(\S.*)', line)
        if not m or int(m.group(1)) != sum(len(b) for b in blocks) + len(block):
            continue
        block.append((float(m.group(2)), m.group(4)))
        if any(key in m.group(4) for key in ('max_pool', 'add_relu', 'add_mean')):
            blocks.append(block)
            block = []
    return blocks + ([block] if block else [])


def volvox_blocks(path):
    """[(name, us)] per block: the stem (up to the max pool), each bottleneck (up to its conv3), the head."""
    blocks, total, names = [], 0.0, []
    for line in open(path):
        parts = line.split()
        if len(parts) < 5 or not parts[0].startswith('/') or not parts[-1].endswith('%'):
            continue
        total += float(parts[-2]) * 1000
        node = parts[0]
        if 'maxpool' in node or '/conv3/' in node:
            blocks.append((node.split('/')[2] if 'layer' in node else 'stem', total))
            total = 0.0
    return blocks + [('head', total)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('torch_table')
    ap.add_argument('volvox_profile')
    ap.add_argument('--bench-ms', type=float, default=0.0, help="Volvox's GPU time without a profile (scales its nodes)")
    ap.add_argument('--gap-us', type=float, default=1.0)
    a = ap.parse_args()
    torch = torch_blocks(a.torch_table)
    volvox = volvox_blocks(a.volvox_profile)
    if len(torch) != len(volvox):
        raise SystemExit(f'compare_block_times: {len(torch)} torch blocks against {len(volvox)} Volvox blocks')
    profile_us = sum(us for _, us in volvox)
    scale = a.bench_ms * 1000 / profile_us if a.bench_ms > 0 else 1.0
    print(f'{"block":12s} {"kernels":>7s} {"torch us":>9s} {"volvox us":>9s} {"gap":>6s}')
    totals = [0.0, 0.0]
    for kernels, (name, us) in zip(torch, volvox):
        t = sum(d for d, _ in kernels) + a.gap_us * len(kernels)
        v = us * scale
        totals[0] += t
        totals[1] += v
        print(f'{name:12s} {len(kernels):7d} {t:9.1f} {v:9.1f} {v - t:6.1f}')
    print(f'{"total":12s} {sum(len(k) for k in torch):7d} {totals[0]:9.1f} {totals[1]:9.1f} {totals[1] - totals[0]:6.1f}')


if __name__ == '__main__':
    main()
