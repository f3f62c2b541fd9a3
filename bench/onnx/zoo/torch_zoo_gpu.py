#!/usr/bin/env python3
"""PyTorch peer for the model zoo on a CUDA GPU (the H200; driver: zoo_torch_h200.sh).

For each model: builds it as make_zoo_models.py does (same modules, seed and BatchNorm calibration; the U-Net
is bench/vulkan/torch_unet.py's base layout, 9 input channels, random weights), exports it on the CPU to
<export-dir>/<name>.onnx with the legacy TorchScript exporter (kept when the file exists) so that Volvox
times the very same graph, writes <export-dir>/shapes.txt ("<name> <input>=<dims>" a line), then times
batch 1 at fp32 (TF32 off) and fp16: eager, and torch.compile(mode="reduce-overhead") (CUDA graphs).

Every time is the wall clock a caller waits per call: perf_counter around `out = model(x)` and a
synchronize, input already on the device, under inference_mode. first_ms is the very first call (eager:
cudnn.benchmark's autotuning included; compile: compilation included, while its CUDA graphs are recorded in
the untimed calls that follow); median_ms and min_ms are over --runs calls after --warmup calls and
--warmup-seconds of sustained running (the GPU clock ramps only under load). back_to_back_median_ms and
_min_ms: batches of 10 calls with one synchronize each (--runs / 10 batches), per call: the GPU's time
per call where the host keeps ahead of it. A failure is recorded as
{"error": ...} and the rest goes on. Inductor's caches go to a fresh temporary folder, so compile times are
cold ones on every run.

  python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir DIR --json OUT.json [--models a,b] [--runs 20]
      [--warmup 5] [--warmup-seconds 2] [--no-compile] [--no-eager] [--precisions fp32,fp16] [--device cuda]
"""
import argparse
import atexit
import copy
import gc
import inspect
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# Before torch is imported: a cache left by an earlier run on the same machine would make compilation
# look faster than a user's first run. Removed at exit.
CACHES = [os.environ.setdefault(var, tempfile.mkdtemp(prefix=f'torch_zoo_{var.lower()}_'))
          for var in ('TORCHINDUCTOR_CACHE_DIR', 'TRITON_CACHE_DIR') if var not in os.environ]
atexit.register(lambda: [shutil.rmtree(d, ignore_errors=True) for d in CACHES])

import torch  # noqa: E402

sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', '..', 'vulkan'))
import make_zoo_models as zoo  # noqa: E402  (no side effects on import: definitions only)

DEFAULT_MODELS = ['resnet50', 'mobilenet_v3_large', 'deeplabv3_mobilenet_v3_large',
                  'ssdlite320_mobilenet_v3_large_heads', 'transformer_encoder', 'unet_hdr_alb_nrm']


def log(msg):
    print(f'torch_zoo_gpu: {msg}', file=sys.stderr, flush=True)


def build(name):
    """(module, example inputs, input names, output names, opset), BatchNorm calibrated, in eval mode."""
    if name == 'unet_hdr_alb_nrm':
        import torch_unet  # bench/vulkan: imports torch only; main() is behind __main__
        torch.manual_seed(zoo.SEED)
        net = torch_unet.UNet(9, torch_unet.WIDTHS['base'])  # rt_hdr_alb_nrm's layout, random weights
        example, in_names, out_names, opset = [torch.rand(1, 9, 1088, 1920)], ['input'], ['output'], 13
    else:
        net, example, in_names, out_names, opset, _notes = zoo.torch_model(name)
    zoo.calibrate_batchnorm(net, example[0].shape)
    return net.eval(), example, in_names, out_names, opset


def export(net, example, in_names, out_names, opset, path):
    """export_torch's options, with the legacy TorchScript exporter (torch >= 2.9 defaults to dynamo).
    Gradients stay enabled, as there: no_grad would send TransformerEncoder down its unexportable fast path."""
    kw = dict(opset_version=opset, input_names=in_names, output_names=out_names, do_constant_folding=True)
    # Checked on the signature rather than by catching TypeError: a TypeError raised inside the legacy
    # exporter must not quietly switch to the dynamo one.
    if 'dynamo' in inspect.signature(torch.onnx.export).parameters:
        kw['dynamo'] = False
    try:
        torch.onnx.export(net, tuple(example), path + '.part', **kw)
    except Exception as e:
        # torch >= 2 runs nn.MultiheadAttention through scaled_dot_product_attention, which the legacy
        # exporter writes from opset 14 on (torch 1.13, which made the zoo's file, had no such op).
        if type(e).__name__ != 'UnsupportedOperatorError' or opset >= 14:
            raise
        kw['opset_version'] = opset = 14
        torch.onnx.export(net, tuple(example), path + '.part', **kw)
    os.replace(path + '.part', path)  # an interrupted export must not be "kept" next time
    return opset


def time_calls(model, x, a, sync):
    """Wall-clock milliseconds per call: the first call, then median and min of a.runs steady calls."""
    def call():
        t0 = time.perf_counter()
        out = model(x)
        sync()
        return (time.perf_counter() - t0) * 1e3, out

    with torch.inference_mode():
        first, out = call()
        for _ in range(a.warmup):
            call()
        start = time.perf_counter()
        while time.perf_counter() - start < a.warmup_seconds:
            call()
        times = [call()[0] for _ in range(a.runs)]
        # The same calls back to back, one synchronize per batch of 10: the time a call occupies the
        # GPU where the host keeps ahead (the peer of Volvox's GPU time, which its timestamps give).
        batches = []
        for _ in range(max(1, a.runs // 10)):
            t0 = time.perf_counter()
            for _ in range(10):
                out = model(x)
            sync()
            batches.append((time.perf_counter() - t0) * 1e3 / 10)
    del out
    return dict(first_ms=round(first, 3), median_ms=round(statistics.median(times), 4), min_ms=round(min(times), 4),
                runs=a.runs, back_to_back_median_ms=round(statistics.median(batches), 4),
                back_to_back_min_ms=round(min(batches), 4))


def free(device):
    """Drops compiled code, CUDA graph pools and cached blocks, so that one model's memory does not stay."""
    if hasattr(torch, '_dynamo'):
        torch._dynamo.reset()
    gc.collect()
    if device == 'cuda':
        try:  # private API: the CUDA graph pools, released explicitly whatever this version's dynamo reset does
            from torch._inductor.cudagraph_trees import reset_cudagraph_trees
            reset_cudagraph_trees()
        except ImportError:
            pass
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--export-dir', required=True)
    ap.add_argument('--json', required=True)
    ap.add_argument('--models', default=','.join(DEFAULT_MODELS))
    ap.add_argument('--runs', type=int, default=20)
    ap.add_argument('--warmup', type=int, default=5)
    ap.add_argument('--warmup-seconds', type=float, default=2.0)
    ap.add_argument('--no-compile', action='store_true')
    ap.add_argument('--no-eager', action='store_true')
    ap.add_argument('--precisions', default='fp32,fp16', help='comma-separated: fp32, fp16')
    ap.add_argument('--device', default='cuda', help='cuda (the benchmark) or cpu (to test this script)')
    a = ap.parse_args()
    names = [m for m in a.models.replace(' ', ',').split(',') if m]
    os.makedirs(a.export_dir, exist_ok=True)

    cuda = a.device == 'cuda'
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False  # plain fp32, as torch_gpu_bench.py and Volvox's fp32
    torch.backends.cudnn.allow_tf32 = False
    import torchvision
    result = dict(torch=torch.__version__, torchvision=torchvision.__version__, device=a.device,
                  gpu=torch.cuda.get_device_name(0) if cuda else 'cpu', models={})
    if cuda:  # context, cuBLAS and cuDNN set up before the first model, so that its first call does not pay for them
        with torch.inference_mode():
            torch.nn.functional.conv2d(torch.ones(1, 1, 8, 8, device='cuda'), torch.ones(1, 1, 3, 3, device='cuda'))
            torch.ones(8, 8, device='cuda') @ torch.ones(8, 8, device='cuda')
        sync()

    shapes = []

    def save():
        with open(a.json, 'w') as f:
            json.dump(result, f, indent=1)
        with open(os.path.join(a.export_dir, 'shapes.txt'), 'w') as f:
            f.write(''.join(s + '\n' for s in shapes))

    for name in names:
        entry = result['models'][name] = {}
        try:
            net, example, in_names, out_names, opset = build(name)
        except Exception as e:
            entry['error'] = f'build: {type(e).__name__}: {e}'
            log(f'{name}: {entry["error"]}')
            save()
            continue
        entry['input'] = {n: list(t.shape) for n, t in zip(in_names, example)}
        path = os.path.join(a.export_dir, name + '.onnx')
        try:
            if os.path.exists(path):
                entry['export'] = 'kept'
            else:
                t0 = time.perf_counter()
                used = export(net, example, in_names, out_names, opset, path)
                entry['export'] = f'exported in {time.perf_counter() - t0:.1f} s (opset {used})'
            shapes.append(f'{name} {in_names[0]}=' + 'x'.join(map(str, example[0].shape)))
        except Exception as e:
            entry['export'] = f'error: {type(e).__name__}: {e}'.splitlines()[0]
        log(f'{name}: {entry["export"]}')

        for prec, dtype in (('fp32', torch.float32), ('fp16', torch.float16)):
            if prec not in a.precisions.split(','):
                continue
            entry[prec] = {}
            try:
                model = copy.deepcopy(net).to(device=a.device, dtype=dtype)
                x = example[0].to(device=a.device, dtype=dtype)
            except Exception as e:
                entry[prec] = {'error': f'{type(e).__name__}: {e}'.splitlines()[0][:500]}
                continue
            for mode in ([] if a.no_eager else ['eager']) + ([] if a.no_compile else ['compile']):
                try:
                    m = torch.compile(model, mode='reduce-overhead') if mode == 'compile' else model
                    entry[prec][mode] = time_calls(m, x, a, sync)
                except Exception as e:
                    entry[prec][mode] = {'error': f'{type(e).__name__}: {e}'.splitlines()[0][:500]}
                m = None
                free(a.device)
                log(f'{name} {prec} {mode}: {entry[prec][mode]}')
            del model, x
            free(a.device)
        del net, example
        free(a.device)
        save()  # after every model: a run cut short still leaves what it measured


if __name__ == '__main__':
    main()
