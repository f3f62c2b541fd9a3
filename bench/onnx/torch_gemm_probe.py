#!/usr/bin/env python3
"""PyTorch's time for one fp16 product Y = A B at the shapes of make_gemm_models.py, the peer of
`volvox bench gemm_<name>.onnx`: A [M, K] and B [K, N] on the GPU, torch.matmul captured in a CUDA
graph of 20 products and replayed (as torch.compile's reduce-overhead mode runs), GPU time per
product by CUDA events over 50 replays after 1 s of replays, median and min of 10 such timings.

  python3 bench/onnx/torch_gemm_probe.py NAME ...   # prints "name M K N median_us min_us kernel"
"""
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from make_gemm_models import PROBES, SHAPES  # noqa: E402

PER_GRAPH, REPLAYS, TIMINGS = 20, 50, 10


def main():
    for name in sys.argv[1:]:
        m, k, n = SHAPES[name] if name in SHAPES else PROBES[name]
        a = torch.randn(m, k, device='cuda', dtype=torch.float16)
        b = torch.randn(k, n, device='cuda', dtype=torch.float16) / k ** 0.5
        y = torch.empty(m, n, device='cuda', dtype=torch.float16)
        torch.matmul(a, b, out=y)  # cuBLAS's choice made outside the capture
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(PER_GRAPH):
                torch.matmul(a, b, out=y)
        start = time.perf_counter()
        while time.perf_counter() - start < 1.0:
            graph.replay()
        torch.cuda.synchronize()
        times = []
        for _ in range(TIMINGS):
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            for _ in range(REPLAYS):
                graph.replay()
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end) * 1e3 / (REPLAYS * PER_GRAPH))
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            torch.matmul(a, b, out=y)
            torch.cuda.synchronize()
        kernels = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        print(f'{name} {m} {k} {n} {statistics.median(times):.2f} {min(times):.2f} {"|".join(kernels)[:120]}',
              flush=True)


if __name__ == '__main__':
    main()
