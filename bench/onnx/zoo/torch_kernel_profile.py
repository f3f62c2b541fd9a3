#!/usr/bin/env python3
"""Per-kernel GPU times of the PyTorch peer, to set beside `volvox bench --profile`'s per-node table.

For each model (built as torch_zoo_gpu.py builds it, batch 1, fp16 on CUDA) and each mode (eager: cuDNN
and cuBLAS; compile: torch.compile's default mode, whose kernels are those that reduce-overhead replays in
its CUDA graphs), runs --warmup-seconds of calls, then records --iters calls under torch.profiler and
writes <out>/<model>_<mode>.txt: every kernel of the last recorded call in launch order with its GPU
duration and the idle gap before it, then the kernels summed by name. Durations are CUPTI's; the gaps of
eager and default-mode compile include CPU launch time that a CUDA graph would hide.

  python3 bench/onnx/zoo/torch_kernel_profile.py --out DIR [--models resnet50,transformer_encoder]
"""
import argparse
import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_zoo_gpu  # noqa: E402  (definitions only; its main() is behind __main__)


def kernels_of_last_call(prof, iters):
    """[(name, start_us, duration_us)] of the kernels launched in the last of `iters` calls."""
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
              and e.name != 'Memcpy' and not e.name.startswith('Memset')]
    events.sort(key=lambda e: e.time_range.start)
    per_call = len(events) // iters
    return [(e.name, e.time_range.start, e.time_range.end - e.time_range.start) for e in events[-per_call:]]


def write_table(path, title, kernels):
    with open(path, 'w') as f:
        busy = sum(d for _, _, d in kernels)
        span = kernels[-1][1] + kernels[-1][2] - kernels[0][1] if kernels else 0
        f.write(f'{title}\n{len(kernels)} kernels, busy {busy / 1e3:.4f} ms, first start to last end '
                f'{span / 1e3:.4f} ms\n\n  #     us  gap_us  kernel\n')
        previous_end = None
        for i, (name, start, dur) in enumerate(kernels):
            gap = '' if previous_end is None else f'{start - previous_end:7.1f}'
            f.write(f'{i:3d} {dur:6.1f} {gap:>7}  {name[:150]}\n')
            previous_end = start + dur
        sums = {}
        for name, _, dur in kernels:
            count, total = sums.get(name, (0, 0.0))
            sums[name] = (count + 1, total + dur)
        f.write('\nby name: calls, total us\n')
        for name, (count, total) in sorted(sums.items(), key=lambda kv: -kv[1][1]):
            f.write(f'{count:4d} {total:8.1f}  {name[:150]}\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True)
    ap.add_argument('--models', default='resnet50,transformer_encoder')
    ap.add_argument('--iters', type=int, default=5)
    ap.add_argument('--warmup-seconds', type=float, default=1.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    for name in a.models.split(','):
        net, example, *_ = torch_zoo_gpu.build(name)
        model = net.to(device='cuda', dtype=torch.float16)
        x = example[0].to(device='cuda', dtype=torch.float16)
        for mode in ('eager', 'compile'):
            m = torch.compile(model) if mode == 'compile' else model
            with torch.inference_mode():
                start = time.perf_counter()
                while time.perf_counter() - start < a.warmup_seconds or time.perf_counter() - start < 0.1:
                    m(x)
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(a.iters):
                        m(x)
                    torch.cuda.synchronize()
            kernels = kernels_of_last_call(prof, a.iters)
            write_table(os.path.join(a.out, f'{name}_{mode}.txt'),
                        f'{name} fp16 batch 1, torch {torch.__version__}, {mode}, {torch.cuda.get_device_name(0)}',
                        kernels)
            print(f'{name} {mode}: {len(kernels)} kernels, busy {sum(d for *_, d in kernels) / 1e3:.4f} ms',
                  flush=True)
            m = None
            torch_zoo_gpu.free('cuda')


if __name__ == '__main__':
    main()
