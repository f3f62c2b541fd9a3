#!/usr/bin/python3
"""Checks and times Volvox's ONNX CPU path against ONNX Runtime on the model zoo (make_zoo_models.py):
models nobody here designed, so that correctness and speed are measured on graphs as others write them.

For every model of the manifest:
  check    one deterministic, realistic input (.npy), run by ONNX Runtime (ort_run_model.js) and by
           `volvox run`; every output compared: max abs diff, and that over the peak |ORT output|
           (pass: <= 1e-3 of the peak);
  time     ROUNDS rounds, engines interleaved in each: `volvox bench --json`, then ort_bench_model.js,
           then ort_first_run.js (ORT's session creation + first run), /proc/loadavg read before and
           after each; medians of the round medians, minima, first runs;
  profile  `volvox bench --profile`: the ten slowest nodes (mean of the timed runs) and their kernel variants (the target: no
           cpu:reference node among them).
Writes bench/out/zoo_cpu.json and bench/out/zoo_cpu.md; inputs and outputs under bench/out/zoo_work/.

Usage: /usr/bin/python3 bench/onnx/zoo/zoo.py [--threads 2] [--rounds 3] [--runs 20] [--warmup 2]
           [--min-round-ms 200] [--models a,b] [--volvox build/release/volvox] [--skip-time] [--skip-profile]
Each option also reads the environment: THREADS, ROUNDS, RUNS, WARMUP, MIN_ROUND_MS (a fast model gets
more runs, the same for both engines, so that a round lasts at least this long), MODELS, VOLVOX,
SLOW_RUNS, SLOW_WARMUP (runs of the slow models: the U-Net at 1920x1088 takes seconds a run), MANIFEST.
"""
import argparse
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
import zlib

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
BENCH = os.path.join(ROOT, 'bench')
IMAGES = os.path.join(ROOT, '..', 'shared', 'images')
SLOW_MODELS = {'unet_hdr_alb_nrm'}  # timed with SLOW_RUNS / SLOW_WARMUP
MAX_RUNS_PER_ROUND = 5000  # the bound on MIN_ROUND_MS's runs (a model of 0.04 ms)
TOLERANCE = 1e-3  # of the peak |ORT output|
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32)


# ---------------------------------------------------------------- inputs

def load_image(name, height, width):
    """The shared path-traced render as float RGB in [0, 255], HWC, resized to the model's input: real
    image statistics rather than noise, which some models (detection, OCR) react to very differently."""
    from PIL import Image
    img = Image.open(os.path.join(IMAGES, name)).convert('RGB').resize((width, height), Image.BILINEAR)
    return np.asarray(img, np.float32)


def pu_forward(y):
    """OIDN's normalised PU transfer curve (docs/OIDN-FACTS.md): what the HDR U-Net sees as colour."""
    a, b, c, d, e, f, g = 1.41283765e3, 1.64593172, 4.31384981e-1, -2.94139609e-3, 1.92653254e-1, 6.26026094e-3, 9.98620152e-1
    y0, y1 = 1.57945760e-6, 3.22087631e-2
    curve = lambda v: np.where(v <= y0, a * v, np.where(v <= y1, b * np.power(np.maximum(v, 0), c) + d,
                                                        e * np.log(v + f) + g))
    return (curve(y) / curve(np.float64(65504.0))).astype(np.float32)


def make_input(kind, name, shape, dtype, seed):
    """One deterministic input of the kind the manifest names, in the range the model expects."""
    rng = np.random.default_rng(seed)
    if kind in ('imagenet_image', 'unit_image', 'image_pm1', 'ocr_det', 'ocr_rec', 'ocr_cls'):
        x = load_image('noisy.png', shape[2], shape[3]) / 255.0
        if kind in ('imagenet_image', 'ocr_det'):  # PaddleOCR's det uses ImageNet's mean / std too
            x = (x - IMAGENET_MEAN) / IMAGENET_STD
        elif kind in ('image_pm1', 'ocr_rec', 'ocr_cls'):
            x = (x - 0.5) / 0.5
        return np.ascontiguousarray(x.transpose(2, 0, 1)[None], np.float32)
    if kind == 'oidn_hdr_alb_nrm':
        h, w = shape[2], shape[3]
        srgb = load_image('noisy.png', h, w) / 255.0
        linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4) * 4.0  # HDR radiance
        albedo = load_image('albedo.png', h, w) / 255.0
        normal = load_image('normal.png', h, w) / 255.0  # stored as n*0.5+0.5: what the network sees
        x = np.concatenate([pu_forward(linear), albedo, normal], axis=2)
        return np.ascontiguousarray(x.transpose(2, 0, 1)[None], np.float32)
    if kind == 'silero_vad':
        if name == 'sr':
            return np.array(16000, np.int64)
        if name == 'state':
            return np.zeros(shape, np.float32)
        t = np.arange(shape[1]) / 16000.0
        voice = 0.3 * np.sin(2 * np.pi * 180 * t) * (1 + 0.5 * np.sin(2 * np.pi * 4 * t))
        return (voice + 0.02 * rng.standard_normal(shape[1]))[None].astype(np.float32)
    if kind == 'audio_int16':  # openWakeWord feeds raw int16 sample values as floats
        t = np.arange(shape[1]) / 16000.0
        tones = sum(np.sin(2 * np.pi * f * t) / (i + 1) for i, f in enumerate((220, 440, 880, 1760)))
        x = 6000 * tones + 800 * rng.standard_normal(shape[1])
        return np.clip(x, -32768, 32767)[None].astype(np.float32)
    if kind == 'normal':
        return rng.standard_normal(shape).astype(np.float32)
    raise ValueError(f'unknown input kind {kind}')


# ---------------------------------------------------------------- running things

def loadavg():
    """/proc/loadavg's three averages: the machine is shared, so every timing carries the load it ran under."""
    with open('/proc/loadavg') as f:
        return [float(v) for v in f.read().split()[:3]]


def run(cmd, timeout=900):
    """(returncode, stdout, stderr) of a command; a timeout is a failure, not a crash of the whole run."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, '', f'timed out after {timeout} s: {" ".join(cmd)}'


def wait_for(binary):
    """The volvox binary may be rebuilt under a running zoo: wait a little for it to reappear."""
    for _ in range(60):
        if os.access(binary, os.X_OK):
            return
        time.sleep(5)


def last_json(text):
    """The last line of output that parses as a JSON object (the tools print one JSON line)."""
    for line in reversed(text.strip().splitlines()):
        if line.startswith('{'):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def error_line(stdout, stderr, rc):
    """One line that says why a command failed: the last non-empty line of its error output."""
    lines = [l for l in (stderr + '\n' + stdout).strip().splitlines() if l.strip()]
    return lines[-1].strip() if lines else f'exit status {rc}'


def shape_text(shape):
    return 'x'.join(str(d) for d in shape)


# ---------------------------------------------------------------- check

def compare(ort_dir, vx_dir, vx_files, tolerance=TOLERANCE):
    """Per ORT output: shapes, max abs diff, peak |ORT| and their ratio; passes at <= tolerance."""
    outputs, ok = [], True
    for file in sorted(os.listdir(ort_dir)):
        name = file[:-4]
        ref = np.load(os.path.join(ort_dir, file))
        got_path = vx_files.get(name, os.path.join(vx_dir, file))
        row = dict(name=name, ort_shape=list(ref.shape), dtype=str(ref.dtype))
        if not os.path.exists(got_path):
            row.update(error='Volvox wrote no such output')
            ok = False
        else:
            got = np.load(got_path)
            row['volvox_shape'] = list(got.shape)
            if got.shape != ref.shape:
                row.update(error='shapes differ')
                ok = False
            else:
                r, g = ref.astype(np.float64), got.astype(np.float64)
                row['nonfinite_ort'], row['nonfinite_volvox'] = int((~np.isfinite(r)).sum()), int((~np.isfinite(g)).sum())
                same = np.isfinite(r) & np.isfinite(g)
                diff = float(np.abs(r - g)[same].max()) if same.any() else 0.0
                peak = float(np.abs(r[np.isfinite(r)]).max()) if np.isfinite(r).any() else 0.0
                rel = diff / peak if peak > 0 else diff
                row.update(max_abs_diff=diff, peak=peak, rel=rel)
                ok = ok and rel <= tolerance and np.array_equal(np.isfinite(r), np.isfinite(g))
        outputs.append(row)
    return ok, outputs


def canonical_rows(out_dir, files, names):
    """Rewrites the row-aligned outputs `names` (e.g. a detector's labels, boxes, scores: one detection per
    row) in one canonical order, sorted by their own values (each name's rows rounded to 1e-3 of its
    peak, in the order of `names`), so that engines listing near-tied rows in different orders compare
    equal when they found the same rows."""
    arrays = {n: np.load(files.get(n, os.path.join(out_dir, n + '.npy'))) for n in names}
    keys = []
    for n in reversed(names):  # np.lexsort: the last key is the primary one
        a = arrays[n].reshape(len(arrays[n]), -1).astype(np.float64)
        step = max(float(np.abs(a).max()) if a.size else 0.0, 1e-30) * 1e-3
        keys += [np.round(a[:, c] / step) for c in reversed(range(a.shape[1]))]
    order = np.lexsort(keys) if keys and len(keys[0]) else np.arange(0)
    for n in names:
        path = os.path.join(out_dir, n + '.canonical.npy')
        np.save(path, arrays[n][order])
        files[n] = path


def check(path, inputs, work, volvox, unordered_rows=None, ort_level='all', tolerance=TOLERANCE):
    """Runs both engines once on the saved inputs and compares every output (`unordered_rows`: outputs
    whose rows are compared as a set, canonical_rows; `ort_level`: ONNX Runtime's graph
    optimisation level, the manifest's for models that its fusions reject; `tolerance`: of the peak,
    the manifest's `check_tolerance` for quantised models)."""
    ort_dir, vx_dir = os.path.join(work, 'ort'), os.path.join(work, 'volvox')
    for d in (ort_dir, vx_dir):
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    result = {}
    cmd = ['node', os.path.join(BENCH, 'onnx', 'ort_run_model.js'), '--model', path, '--output-dir', ort_dir,
           '--optimization', ort_level]
    for name, file in inputs.items():
        cmd += ['--input', f'{name}={file}']
    t0 = time.time()
    rc, out, err = run(cmd)
    result['ort_wall_s'] = round(time.time() - t0, 2)
    if rc != 0:
        result.update(status='error', ort_error=error_line(out, err, rc))
    wait_for(volvox)
    cmd = [volvox, 'run', path, '-o', vx_dir] + [arg for n, f in inputs.items() for arg in ('-i', f'{n}={f}')]
    t0 = time.time()
    rc, out, err = run(cmd)
    result['volvox_wall_s'] = round(time.time() - t0, 2)
    if rc != 0:
        result.update(status='error', volvox_error=error_line(out, err, rc))
        return result
    if result.get('status') == 'error':
        return result
    vx_files = {m.group(1): m.group(2) for m in re.finditer(r'^(.+?): \S+ \[[^\]]*\] -> (.+\.npy)$', out, re.M)}
    if unordered_rows:
        ort_files = {}
        canonical_rows(ort_dir, ort_files, unordered_rows)
        canonical_rows(vx_dir, vx_files, unordered_rows)
        for n, f in ort_files.items():
            os.replace(f, os.path.join(ort_dir, n + '.npy'))
    ok, outputs = compare(ort_dir, vx_dir, vx_files, tolerance)
    result.update(status='pass' if ok else 'fail', outputs=outputs,
                  worst_rel=None if any('rel' not in o for o in outputs) else max((o['rel'] for o in outputs), default=None))
    return result


# ---------------------------------------------------------------- time

def synthetic_inputs(model):
    """Whether both engines may time the model on random inputs of the declared shapes: fine for tensors,
    not for a scalar that must hold a particular value (Silero's sample rate picks one of two networks);
    such models are timed on their .npy inputs."""
    return all(s['shape'] and s['dtype'] in ('float32', 'int64') for s in model['inputs'])


def volvox_input_args(model, inputs):
    """`volvox bench`'s input arguments: the shapes of random inputs, or the .npy files (synthetic_inputs)."""
    if not synthetic_inputs(model):
        return [arg for n, f in inputs.items() for arg in ('--input', f'{n}={f}')]
    return [arg for s in model['inputs'] if s['shape'] for arg in ('--shape', f'{s["name"]}={shape_text(s["shape"])}')]


def ort_optimization(model):
    """ONNX Runtime's graph optimisation level for the model: "all", unless the manifest names a lower one
    (a graph whose fusions ONNX Runtime rejects at "all")."""
    return model.get('ort_optimization', 'all')


def runs_for_round(model, path, inputs, volvox, a, runs, warmup):
    """(runs, warm-up runs) of a round that lasts at least MIN_ROUND_MS: 20 runs of a 0.1 ms model (Silero
    VAD) measured its ratio anywhere from 0.5 to 1.3 from one zoo run to the next. Estimated from a short
    `volvox bench`; both engines then time that many runs."""
    if a.min_round_ms <= 0 or model.get('skip_volvox_time'):
        return runs, warmup
    rc, out, _ = run([volvox, 'bench', path, '--threads', str(a.threads), '--warmup', '2', '--runs', '5', '--json']
                     + volvox_input_args(model, inputs))
    res = last_json(out) if rc == 0 else None
    if not res or not res.get('median_ms'):
        return runs, warmup
    wanted = min(MAX_RUNS_PER_ROUND, math.ceil(a.min_round_ms / res['median_ms']))
    return max(runs, wanted), max(warmup, wanted // 10)


def time_model(model, path, inputs, volvox, a):
    """ROUNDS rounds of volvox bench, ORT bench and ORT first run, interleaved, with the load around each."""
    slow = model['name'] in SLOW_MODELS
    runs, warmup = (a.slow_runs, a.slow_warmup) if slow else (a.runs, a.warmup)
    if not slow:
        runs, warmup = runs_for_round(model, path, inputs, volvox, a, runs, warmup)
    specs = model['inputs']
    vx_cmd = [volvox, 'bench', path, '--threads', str(a.threads), '--warmup', str(warmup), '--runs', str(runs),
              '--json'] + volvox_input_args(model, inputs)
    if synthetic_inputs(model):
        ort_cmd = ['node', os.path.join(BENCH, 'onnx', 'ort_bench_model.js'), '--model', path, '--threads',
                   str(a.threads), '--warmup', str(warmup), '--runs', str(runs)]
        ort_cmd += [arg for s in specs for arg in ('--input', f'{s["name"]}:{s["dtype"]}:{shape_text(s["shape"])}')]
    else:
        ort_cmd = ['node', os.path.join(BENCH, 'onnx', 'zoo', 'ort_first_run.js'), '--model', path, '--threads',
                   str(a.threads), '--warmup', str(warmup), '--runs', str(runs)]
        ort_cmd += [arg for n, f in inputs.items() for arg in ('--input', f'{n}={f}')]
    first_cmd = ['node', os.path.join(BENCH, 'onnx', 'zoo', 'ort_first_run.js'), '--model', path, '--threads',
                 str(a.threads)] + [arg for n, f in inputs.items() for arg in ('--input', f'{n}={f}')]
    ort_cmd += ['--optimization', ort_optimization(model)]
    first_cmd += ['--optimization', ort_optimization(model)]
    rounds = []
    for _ in range(a.rounds):
        entry = {}
        for key, cmd in (('volvox', vx_cmd), ('ort', ort_cmd), ('ort_first', first_cmd)):
            if key == 'volvox':
                if model.get('skip_volvox_time'):
                    entry[key] = dict(error=model['skip_volvox_time'])
                    continue
                wait_for(volvox)
            before = loadavg()
            rc, out, err = run(cmd)
            res = last_json(out) if rc == 0 else None
            entry[key] = res if res is not None else dict(error=error_line(out, err, rc))
            entry[key].pop('model', None)
            entry[key]['loadavg_before'], entry[key]['loadavg_after'] = before, loadavg()
        rounds.append(entry)
    vals = lambda engine, field: [r[engine][field] for r in rounds if field in r[engine]]
    med = lambda xs: statistics.median(xs) if xs else None
    summary = dict(runs=runs, warmup=warmup, threads=a.threads, rounds=rounds,
                   volvox_median_ms=med(vals('volvox', 'median_ms')), volvox_min_ms=min(vals('volvox', 'min_ms'), default=None),
                   volvox_first_run_ms=med(vals('volvox', 'first_run_ms')),
                   ort_median_ms=med(vals('ort', 'median_ms')), ort_min_ms=min(vals('ort', 'min_ms'), default=None),
                   ort_first_run_ms=med(vals('ort_first', 'first_run_ms')),
                   ort_session_ms=med(vals('ort_first', 'session_ms')),
                   loadavg_1min=[l for r in rounds for e in r.values() if 'loadavg_before' in e
                                 for l in (e['loadavg_before'][0], e['loadavg_after'][0])])
    if summary['volvox_median_ms'] and summary['ort_median_ms']:
        summary['ratio'] = summary['volvox_median_ms'] / summary['ort_median_ms']
    errors = [f'{k}: {r[k]["error"]}' for r in rounds for k in r if 'error' in r[k]]
    if errors:
        summary['errors'] = sorted(set(errors))
    return summary


# ---------------------------------------------------------------- profile

def profile(model, path, inputs, volvox, a):
    """`volvox bench --profile`: every node's mean ms over the timed runs (steady state, not the first
    run's one-time set-up) and its kernel variant, the ten slowest kept."""
    slow = model['name'] in SLOW_MODELS
    runs, warmup = (a.slow_runs, a.slow_warmup) if slow else (a.runs, a.warmup)
    cmd = [volvox, 'bench', path, '--threads', str(a.threads), '--warmup', str(warmup), '--runs', str(runs),
           '--profile'] + volvox_input_args(model, inputs)
    wait_for(volvox)
    rc, out, err = run(cmd)
    if rc != 0:
        return dict(error=error_line(out, err, rc))
    nodes, total, in_table = [], None, False
    for line in out.splitlines():
        if re.match(r'^node\s+op\s+variant\s+ms\s+share', line):
            in_table = True
            continue
        if in_table and line.startswith('total'):
            total = float(line.split()[-1])
            break
        if in_table:
            parts = line.rsplit(None, 4)
            if len(parts) == 5 and parts[4].endswith('%'):
                nodes.append(dict(node=parts[0], op=parts[1], variant=parts[2], ms=float(parts[3]),
                                  share=float(parts[4][:-1])))
    slowest = sorted(nodes, key=lambda n: -n['ms'])[:10]
    variants = {}
    for n in nodes:
        variants[n['variant']] = round(variants.get(n['variant'], 0.0) + n['ms'], 3)
    return dict(total_ms=total, nodes=len(nodes), ms_by_variant=variants, slowest=slowest,
                reference_in_top10=[n['node'] for n in slowest if 'reference' in n['variant']])


# ---------------------------------------------------------------- report

def fmt(v, digits=1):
    """v with `digits` decimals, or 3 below 1 (a model of 0.1 ms reads 0.112, not 0.1)."""
    if v is None:
        return '-'
    return f'{v:.{3 if digits == 1 and abs(v) < 1 else digits}f}'


def markdown(report):
    """The human-readable report: one table row per model, then each model's ten slowest nodes."""
    builds = sorted({m['volvox_mtime'] for m in report['models'] if 'volvox_mtime' in m}) or [report['volvox']['mtime']]
    built = builds[0] if len(builds) == 1 else f'{", ".join(builds)} (rebuilt during the run: per model in the JSON)'
    lines = ['# Model zoo on the CPU: Volvox against ONNX Runtime', '',
             f'{report["date"]}, {report["host"]["cpus"]} CPUs ({report["host"]["cpu_model"]}), '
             f'{report["threads"]} threads, {report["rounds"]} rounds (engines interleaved), runs {report["runs"]} '
             f'(more where a round would last less than {report.get("min_round_ms", 0):g} ms: per model below; '
             f'slow models {report["slow_runs"]}), warm-up {report["warmup"]}; ONNX Runtime {report["ort_version"]} '
             f'(onnxruntime-node, CPU provider); volvox {report["volvox"]["path"]} built {built}, tree '
             f'{report["git_head"]} (plus any uncommitted changes); whole run {report["wall_s"]:.0f} s.', '',
             f'Check: max abs diff of every output against ONNX Runtime, over the peak |ORT output| (pass <= '
             f'{TOLERANCE:g}). Times in ms: medians of the round medians, minima over all runs, first run (Volvox: '
             f'the planning run; ORT: session creation + first run). Load: 1-min load average, lowest-highest '
             f'seen around the timed commands.', '',
             '| model | source | check (diff / peak) | Volvox median / min | Volvox first run | ORT median / min | '
             'ORT session + first run | Volvox / ORT | load |',
             '|---|---|---|---:|---:|---:|---:|---:|---|']
    for m in report['models']:
        c, t = m.get('check', {}), m.get('timing', {})
        if c.get('status') in ('pass', 'fail'):
            check_text = f'{c["status"]} {c["worst_rel"]:.1e}' if c.get('worst_rel') is not None else c['status']
        else:
            check_text = 'error' if c else '-'
        load = t.get('loadavg_1min') or []
        source = 'npm' if m.get('source', '').startswith('npm') else ('OIDN' if 'unet' in m['name'] else 'torch')
        lines.append(f'| {m["name"]} | {source} | {check_text} | {fmt(t.get("volvox_median_ms"))} / '
                     f'{fmt(t.get("volvox_min_ms"))} | {fmt(t.get("volvox_first_run_ms"))} | '
                     f'{fmt(t.get("ort_median_ms"))} / {fmt(t.get("ort_min_ms"))} | {fmt(t.get("ort_session_ms"))} + '
                     f'{fmt(t.get("ort_first_run_ms"))} | {fmt(t.get("ratio"), 2)} | '
                     f'{f"{min(load):.1f}-{max(load):.1f}" if load else "-"} |')
    lines += ['', '## Models', '']
    for m in report['models']:
        ins = ', '.join(f'{i["name"]} {i["dtype"]} [{shape_text(i["shape"])}]' for i in m.get('inputs', []))
        t = m.get('timing', {})
        timed = f'; {t["runs"]} runs a round after {t["warmup"]} warm-up' if 'runs' in t else ''
        lines.append(f'- {m["name"]}: {m.get("source", "?")}; input {ins}{timed}' + (f'; {m["notes"]}' if m.get('notes') else ''))
    problems = []
    for m in report['models']:
        c, t, p = m.get('check', {}), m.get('timing', {}), m.get('profile', {})
        for key in ('export_error', 'missing'):
            if m.get(key):
                problems.append(f'- {m["name"]}: {m[key]}')
        for key in ('volvox_error', 'ort_error'):
            if c.get(key):
                problems.append(f'- {m["name"]} ({key.replace("_error", "")} run): `{c[key]}`')
        for o in c.get('outputs', []):
            if o.get('error') or (o.get('rel') or 0) > c.get('tolerance', TOLERANCE):
                problems.append(f'- {m["name"]} output {o["name"]}: {o.get("error", "")} ORT {o["ort_shape"]} Volvox '
                                f'{o.get("volvox_shape")} diff {o.get("max_abs_diff")} peak {o.get("peak")}')
        for e in t.get('errors', []):
            problems.append(f'- {m["name"]} timing: `{e}`')
    if problems:
        lines += ['', '## Failures and notes', ''] + problems
    lines += ['', '## Ten slowest nodes per model (`volvox bench --profile`: mean of the timed runs)', '']
    for m in report['models']:
        p = m.get('profile')
        if not p:
            continue
        if 'error' in p:
            lines += [f'### {m["name"]}', '', f'profile failed: `{p["error"]}`', '']
            continue
        ref = p['reference_in_top10']
        lines += [f'### {m["name"]}', '',
                  f'{p["nodes"]} nodes, {fmt(p["total_ms"])} ms; by variant: ' +
                  ', '.join(f'{k} {v:.1f} ms' for k, v in sorted(p['ms_by_variant'].items(), key=lambda kv: -kv[1])) +
                  f'; cpu:reference among the ten slowest: {", ".join(ref) if ref else "none"}', '',
                  '| node | op | variant | ms | share |', '|---|---|---|---:|---:|']
        lines += [f'| `{n["node"]}` | {n["op"]} | {n["variant"]} | {n["ms"]:.2f} | {n["share"]:.1f}% |' for n in p['slowest']]
        lines.append('')
    return '\n'.join(lines) + '\n'


def mtime(path):
    return time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(os.path.getmtime(path))) if os.path.exists(path) else '?'


def write_report(report, out, started):
    report['wall_s'] = round(time.time() - started, 1)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'zoo_cpu.json'), 'w') as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(out, 'zoo_cpu.md'), 'w') as f:
        f.write(markdown(report))


def main():
    env = os.environ.get
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--manifest', default=env('MANIFEST', os.path.join(BENCH, 'models', 'zoo', 'manifest.json')))
    ap.add_argument('--volvox', default=env('VOLVOX', os.path.join(ROOT, 'build', 'release', 'volvox')))
    ap.add_argument('--threads', type=int, default=int(env('THREADS', 2)))
    ap.add_argument('--rounds', type=int, default=int(env('ROUNDS', 3)))
    ap.add_argument('--runs', type=int, default=int(env('RUNS', 20)))
    ap.add_argument('--warmup', type=int, default=int(env('WARMUP', 2)))
    ap.add_argument('--slow-runs', type=int, default=int(env('SLOW_RUNS', 3)))
    ap.add_argument('--slow-warmup', type=int, default=int(env('SLOW_WARMUP', 1)))
    ap.add_argument('--min-round-ms', type=float, default=float(env('MIN_ROUND_MS', 200)),
                    help='more runs for fast models, so that a round lasts at least this long (0: RUNS only)')
    ap.add_argument('--models', default=env('MODELS', ''), help='comma- or space-separated subset (default: all)')
    ap.add_argument('--out', default=os.path.join(BENCH, 'out'), help='folder for zoo_cpu.json / zoo_cpu.md')
    ap.add_argument('--skip-time', action='store_true')
    ap.add_argument('--skip-profile', action='store_true')
    a = ap.parse_args()
    volvox = os.path.abspath(a.volvox)
    if not os.path.exists(a.manifest):
        sys.exit(f'zoo: no {a.manifest}; run /usr/bin/python3 bench/onnx/zoo/make_zoo_models.py first')
    model_dir = os.path.dirname(os.path.abspath(a.manifest))
    models = json.load(open(a.manifest))['models']
    wanted = [m for m in re.split(r'[,\s]+', a.models) if m]
    unknown = sorted(set(wanted) - {m['name'] for m in models})
    if unknown:
        sys.exit(f'zoo: {unknown} not in {a.manifest}')
    if wanted:
        models = [m for m in models if m['name'] in wanted]
    work_root = os.path.join(a.out, 'zoo_work')
    rc, head, _ = run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'])
    cpu_model = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
    report = dict(date=datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
                  host=dict(cpus=os.cpu_count(), cpu_model=cpu_model), threads=a.threads, rounds=a.rounds,
                  runs=a.runs, warmup=a.warmup, slow_runs=a.slow_runs, slow_warmup=a.slow_warmup, min_round_ms=a.min_round_ms,
                  tolerance=TOLERANCE, git_head=head.strip() if rc == 0 else '?',
                  volvox=dict(path=os.path.relpath(volvox, ROOT), mtime=mtime(volvox)),
                  ort_version=json.load(open(os.path.join(BENCH, 'node_modules', 'onnxruntime-node', 'package.json')))['version'],
                  models=[])
    started = time.time()
    for model in models:
        entry = dict(model)
        report['models'].append(entry)
        path = os.path.join(model_dir, model['file'])
        if model.get('export_error') or not os.path.exists(path):
            entry.setdefault('missing', f'no {path}')
            print(f'{model["name"]}: skipped ({model.get("export_error") or "missing"})', file=sys.stderr)
            continue
        t0 = time.time()
        entry['volvox_mtime'] = mtime(volvox)  # the binary may be rebuilt during a run: say which one ran
        work = os.path.join(work_root, model['name'])
        os.makedirs(os.path.join(work, 'inputs'), exist_ok=True)
        seed = zlib.crc32(model['name'].encode())
        inputs = {}
        for i, spec in enumerate(model['inputs']):
            x = make_input(model['input_kind'], spec['name'], spec['shape'], spec['dtype'], seed + i)
            inputs[spec['name']] = os.path.join(work, 'inputs', re.sub(r'[^\w.-]', '_', spec['name']) + '.npy')
            np.save(inputs[spec['name']], x)
        entry['check'] = check(path, inputs, work, volvox, model.get('unordered_rows'), ort_optimization(model),
                               model.get('check_tolerance', TOLERANCE))
        entry['check']['tolerance'] = model.get('check_tolerance', TOLERANCE)
        if 'volvox_error' in entry['check']:  # no point timing what cannot run; ORT still timed
            model = dict(model, skip_volvox_time='volvox cannot run the model (see the check)')
        if not a.skip_time:
            entry['timing'] = time_model(model, path, inputs, volvox, a)
        if not a.skip_profile and 'volvox_error' not in entry['check']:
            entry['profile'] = profile(model, path, inputs, volvox, a)
        write_report(report, a.out, started)  # after every model: a long run that dies keeps what it did
        c, t = entry['check'], entry.get('timing', {})
        print(f'{model["name"]}: check {c.get("status")} {c.get("worst_rel", c.get("volvox_error", c.get("ort_error")))}; '
              f'volvox {fmt(t.get("volvox_median_ms"))} ms, ORT {fmt(t.get("ort_median_ms"))} ms '
              f'({time.time() - t0:.0f} s)', file=sys.stderr)
    write_report(report, a.out, started)
    print(os.path.join(a.out, 'zoo_cpu.md'), file=sys.stderr)


if __name__ == '__main__':
    main()
