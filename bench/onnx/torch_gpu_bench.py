#!/usr/bin/env python3
"""PyTorch eager peer for the ONNX benchmark on a CUDA GPU: the same ResNet-50 and GPT-2-sized
decoder as make_models.py (same classes, same seed), batch 1, fp32 and fp16, timed with CUDA events
after warm-up. Prints one JSON object: {"resnet50": {"fp32": {"median_ms", "min_ms", "runs"}, ...}}.

  python3 bench/onnx/torch_gpu_bench.py [--runs 20] [--warmup 5] [--models resnet50,gpt2]
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import Decoder, ResNet50  # noqa: E402


def time_model(model, example, warmup, runs, warmup_seconds):
    with torch.inference_mode():
        for _ in range(warmup):
            model(example)
        # The GPU clock ramps only under sustained load (as volvox bench --warmup-seconds).
        start = time.perf_counter()
        while time.perf_counter() - start < warmup_seconds:
            model(example)
            torch.cuda.synchronize()
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(example)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    return {"median_ms": statistics.median(times), "min_ms": min(times), "runs": runs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--warmup-seconds", type=float, default=0.0)
    ap.add_argument("--models", default="resnet50,gpt2")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    # Plain fp32 (no TF32), as the fp32 peer.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    result = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)}
    for name in args.models.split(","):
        torch.manual_seed(0)
        if name == "resnet50":
            model, example = ResNet50(), torch.randn(1, 3, 224, 224)
        else:
            model, example = Decoder(), torch.randint(0, 50257, (1, 128))
        model = model.eval().cuda()
        example = example.cuda()
        entry = {"fp32": time_model(model, example, args.warmup, args.runs, args.warmup_seconds)}
        model = model.half()
        if example.is_floating_point():
            example = example.half()
        entry["fp16"] = time_model(model, example, args.warmup, args.runs, args.warmup_seconds)
        result[name] = entry
    print(json.dumps(result))


if __name__ == "__main__":
    main()
