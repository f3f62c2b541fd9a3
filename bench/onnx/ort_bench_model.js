#!/usr/bin/env node
// ONNX Runtime (CPU execution provider, npm onnxruntime-node installed by `npm install` in bench/)
// timing of any ONNX model on synthetic inputs: the peer of `volvox bench`.
//
// Usage: node bench/onnx/ort_bench_model.js --model M.onnx --input NAME:float32:1x3x224x224
//            [--input ...] [--threads 2] [--warmup 2] [--runs 10] [--optimization all|extended|basic|disabled]
// Float inputs are uniform in [-1, 1); integer inputs are small ids in [0, 10) (as volvox bench).
// Prints one JSON line: model, median_ms, min_ms, times_ms, threads, load average before the run.
'use strict';
const os = require('os');

function parseArgs(argv) {
  const args = { model: null, inputs: [], threads: 2, warmup: 2, runs: 10, optimization: 'all' };
  for (let i = 2; i < argv.length; ++i) {
    const key = argv[i].replace(/^--/, '');
    if (i + 1 >= argv.length) throw new Error(`option ${argv[i]} needs a value`);
    const value = argv[++i];
    if (key === 'input') args.inputs.push(value);
    else if (key === 'model') args.model = value;
    else if (key === 'optimization') args.optimization = value;
    else if (['threads', 'warmup', 'runs'].includes(key)) args[key] = Number(value);
    else throw new Error(`unknown option ${argv[i - 1]}`);
  }
  if (!args.model || !args.inputs.length) throw new Error('--model and at least one --input are required');
  if (!(args.runs >= 1 && args.warmup >= 0 && args.threads >= 1)) throw new Error('bad --runs/--warmup/--threads');
  return args;
}

function makeInput(ort, spec, seed) {
  const [name, type, shapeText] = spec.split(':');
  const shape = shapeText.split('x').map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  let s = seed >>> 0;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  if (type === 'float32') {
    const data = new Float32Array(count);
    for (let i = 0; i < count; ++i) data[i] = (next() >>> 8) / 8388608 - 1;
    return [name, new ort.Tensor('float32', data, shape)];
  }
  if (type === 'int64') {
    const data = new BigInt64Array(count);
    for (let i = 0; i < count; ++i) data[i] = BigInt((next() >>> 8) % 10);
    return [name, new ort.Tensor('int64', data, shape)];
  }
  throw new Error(`input type ${type} is not handled (float32, int64)`);
}

async function main() {
  const args = parseArgs(process.argv);
  const ort = require('onnxruntime-node');
  const load = os.loadavg()[0];
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'], intraOpNumThreads: args.threads, interOpNumThreads: 1,
    graphOptimizationLevel: args.optimization,
  });
  const feeds = Object.fromEntries(args.inputs.map((spec, i) => makeInput(ort, spec, 1234 + i)));
  for (let i = 0; i < args.warmup; ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < args.runs; ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  console.log(JSON.stringify({ model: args.model, median_ms: median, min_ms: sorted[0], times_ms: times,
                               threads: args.threads, ort_version: require('onnxruntime-node/package.json').version,
                               loadavg_1min_before: load }));
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
