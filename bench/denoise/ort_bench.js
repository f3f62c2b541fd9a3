#!/usr/bin/env node
// CPU peer for Volvox's denoiser: times OIDN's U-Net exported to ONNX (export_unet_onnx.py) in ONNX
// Runtime's CPU execution provider (npm onnxruntime-node, installed by `npm install` in bench/).
//
// Usage: node bench/denoise/ort_bench.js [--model bench/models/unet_base_ic9_random.onnx]
//            [--sizes 1920x1080,3840x2160] [--threads 2] [--warmup 1] [--runs 5] [--json out.json]
// Sizes are WIDTHxHEIGHT of the image; each side is padded up to a multiple of 16 as OIDN does
// (1920x1080 runs as 1920x1088). Before timing, the model's output on the exporter's check input must
// match PyTorch's, so that a broken export cannot report a speed. Prints one JSON object.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

function parseArgs(argv) {
  const args = {
    model: path.join(__dirname, '..', 'models', 'unet_base_ic9_random.onnx'),
    sizes: '1920x1080,3840x2160', threads: 2, warmup: 1, runs: 5, json: null,
  };
  for (let i = 2; i < argv.length; ++i) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) throw new Error(`unknown or incomplete option ${argv[i]}`);
    args[key] = typeof args[key] === 'number' ? Number(argv[++i]) : argv[++i];
  }
  if (!(args.runs >= 1 && args.warmup >= 0 && args.threads >= 1)) throw new Error('bad --runs/--warmup/--threads');
  return args;
}

const roundUp16 = (n) => Math.ceil(n / 16) * 16;

// Deterministic input values in [0, 1): the speed does not depend on them, but NaNs or denormals could.
function fillInput(data) {
  let s = 12345;
  for (let i = 0; i < data.length; ++i) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    data[i] = (s >>> 8) / 16777216;
  }
}

async function checkAgainstPyTorch(ort, session, modelPath) {
  const stem = modelPath.replace(/\.onnx$/, '');
  const meta = JSON.parse(fs.readFileSync(stem + '.check.json', 'utf8'));
  const raw = fs.readFileSync(stem + '.check.bin');
  const floats = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  const inCount = meta.input_shape.reduce((a, b) => a * b, 1);
  const outCount = meta.output_shape.reduce((a, b) => a * b, 1);
  if (floats.length !== inCount + outCount) throw new Error(`${stem}.check.bin has the wrong size`);
  const input = new ort.Tensor('float32', floats.slice(0, inCount), meta.input_shape);
  const result = (await session.run({ [session.inputNames[0]]: input }))[session.outputNames[0]].data;
  let worst = 0;
  for (let i = 0; i < outCount; ++i) worst = Math.max(worst, Math.abs(result[i] - floats[inCount + i]));
  // fp32 on both sides; different summation orders over ~1M weights stay far below this.
  const tolerance = 1e-4 * Math.max(1, meta.output_max_abs);
  if (!(worst <= tolerance)) throw new Error(`ONNX Runtime differs from PyTorch by ${worst} (> ${tolerance})`);
  return { max_abs_diff: worst, tolerance, weights: meta.weights, ic: meta.ic };
}

async function main() {
  const args = parseArgs(process.argv);
  const ort = require('onnxruntime-node');
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  };
  const loadBefore = os.loadavg()[0];  // other work on the machine skews CPU timings: record it
  const session = await ort.InferenceSession.create(args.model, options);
  const check = await checkAgainstPyTorch(ort, session, args.model);
  const results = [];
  for (const size of args.sizes.split(',')) {
    const [width, height] = size.split('x').map(Number);
    const w = roundUp16(width), h = roundUp16(height);
    const data = new Float32Array(check.ic * h * w);
    fillInput(data);
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, [1, check.ic, h, w]) };
    for (let i = 0; i < args.warmup; ++i) await session.run(feeds);
    const times = [];
    for (let i = 0; i < args.runs; ++i) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    const row = {
      width, height, padded_width: w, padded_height: h, runs: args.runs,
      median_ms: +times[Math.floor(times.length / 2)].toFixed(1), min_ms: +times[0].toFixed(1),
      max_ms: +times[times.length - 1].toFixed(1),
    };
    results.push(row);
    process.stderr.write(`ort ${width}x${height} (${w}x${h}): median ${row.median_ms} ms, min ${row.min_ms} ms\n`);
  }
  const report = {
    peer: 'onnxruntime-node', ort_version: ort.env.versions?.node ?? 'unknown', provider: 'cpu',
    threads: args.threads, model: path.basename(args.model), weights: check.weights,
    check_max_abs_diff_vs_pytorch: check.max_abs_diff, cpu: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.cpus().length, load_average_1min_before: +loadBefore.toFixed(2),
    load_average_1min_after: +os.loadavg()[0].toFixed(2), results,
  };
  const text = JSON.stringify(report, null, 1);
  if (args.json) fs.writeFileSync(args.json, text + '\n');
  console.log(text);
}

main().catch((e) => {
  console.error(`ort_bench: ${e.message}`);
  process.exit(1);
});
