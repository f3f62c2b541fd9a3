#!/usr/bin/env python3
"""The zoo on all cores of the device machine's CPU: `volvox bench --device cpu --threads N` against
ONNX Runtime's Python package (whatever version that machine has) with the same thread count, the
engines interleaved per model and round, /proc/loadavg recorded. Random normal inputs of the given
shapes (timing only; zoo.py checks outputs on this machine). Used by zoo_torch_h200.sh; runnable
anywhere both engines are:

  python3 bench/onnx/zoo/zoo_cpu_device.py --volvox build/release/volvox --threads 16 \
      --model DIR/a.onnx:x=1x3x224x224 [--model ...] --json out.json --md out.md [--rounds 2 --runs 10]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def loadavg():
    with open('/proc/loadavg') as f:
        return float(f.read().split()[0])


def ort_times(path, feeds, threads, warmup, runs):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    start = time.perf_counter()
    sess = ort.InferenceSession(path, so, providers=['CPUExecutionProvider'])
    sess.run(None, feeds)
    first = (time.perf_counter() - start) * 1e3  # session creation + first run, as ort_first_run.js
    for _ in range(warmup):
        sess.run(None, feeds)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - t0) * 1e3)
    return {'median_ms': statistics.median(times), 'min_ms': min(times), 'first_ms': first}


def volvox_times(volvox, path, shape_arg, threads, warmup, runs):
    cmd = [volvox, 'bench', path, '--device', 'cpu', '--threads', str(threads), '--warmup', str(warmup),
           '--runs', str(runs), '--json', '--shape', shape_arg]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return {'error': (p.stderr.strip().splitlines() or ['failed'])[-1]}
    r = json.loads(p.stdout.strip().splitlines()[-1])
    return {'median_ms': r['median_ms'], 'min_ms': r['min_ms'], 'first_ms': r.get('first_run_ms')}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--volvox', required=True)
    ap.add_argument('--threads', type=int, default=os.cpu_count())
    ap.add_argument('--model', action='append', default=[], help='PATH:NAME=DIMS (one input)')
    ap.add_argument('--rounds', type=int, default=2)
    ap.add_argument('--runs', type=int, default=10)
    ap.add_argument('--warmup', type=int, default=2)
    ap.add_argument('--json', required=True)
    ap.add_argument('--md', required=True)
    args = ap.parse_args()
    try:
        import onnxruntime
        ort_version = onnxruntime.__version__
    except ImportError as e:
        ort_version = None
        print(f'zoo_cpu_device: no onnxruntime ({e}); timing Volvox alone', file=sys.stderr)
    result = {'threads': args.threads, 'onnxruntime': ort_version, 'cpus': os.cpu_count(), 'models': {}}
    for spec in args.model:
        path, shape_arg = spec.rsplit(':', 1)
        name, dims = shape_arg.split('=')
        shape = [int(d) for d in dims.split('x')]
        model = os.path.splitext(os.path.basename(path))[0]
        feeds = {name: np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
        rounds = []
        for _ in range(args.rounds):
            r = {'load_before': loadavg()}
            r['volvox'] = volvox_times(args.volvox, path, shape_arg, args.threads, args.warmup, args.runs)
            if ort_version:
                try:
                    r['ort'] = ort_times(path, feeds, args.threads, args.warmup, args.runs)
                except Exception as e:  # noqa: BLE001 - one model's failure must not end the run
                    r['ort'] = {'error': str(e).splitlines()[0]}
            r['load_after'] = loadavg()
            rounds.append(r)
        result['models'][model] = {'shape': shape_arg, 'rounds': rounds}
        print(model, json.dumps(rounds[-1]), file=sys.stderr)
    with open(args.json, 'w') as f:
        json.dump(result, f, indent=1)

    def med(rounds, engine, key):
        vals = [r[engine][key] for r in rounds if engine in r and key in r[engine] and r[engine][key] is not None]
        return statistics.median(vals) if vals else None

    rows = [f'CPU, {args.threads} threads of {os.cpu_count()}, ONNX Runtime {ort_version}; medians of {args.rounds} '
            f'interleaved rounds of {args.runs} runs each', '',
            '| model | Volvox median (min) ms | ORT median (min) ms | ratio | first run Volvox / ORT ms | load |',
            '| --- | ---: | ---: | ---: | ---: | --- |']
    for model, m in result['models'].items():
        rs = m['rounds']
        vm, vn, vf = med(rs, 'volvox', 'median_ms'), med(rs, 'volvox', 'min_ms'), med(rs, 'volvox', 'first_ms')
        om, on, of = med(rs, 'ort', 'median_ms'), med(rs, 'ort', 'min_ms'), med(rs, 'ort', 'first_ms')
        err = rs[-1]['volvox'].get('error') or rs[-1].get('ort', {}).get('error')
        fmt = lambda v: f'{v:.2f}' if v is not None else '-'  # noqa: E731
        ratio = f'{vm / om:.2f}' if vm and om else (err or '-')
        load = f"{min(r['load_before'] for r in rs):.1f}-{max(r['load_after'] for r in rs):.1f}"
        rows.append(f'| {model} | {fmt(vm)} ({fmt(vn)}) | {fmt(om)} ({fmt(on)}) | {ratio} | {fmt(vf)} / {fmt(of)} | {load} |')
    with open(args.md, 'w') as f:
        f.write('\n'.join(rows) + '\n')
    print('\n'.join(rows))


if __name__ == '__main__':
    main()
