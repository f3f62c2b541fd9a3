#!/usr/bin/env node
// ONNX Runtime's cold start on one model, the peer of `volvox bench`'s first_run_ms: session creation
// (CPU provider, graph optimisation "all" unless --optimization says otherwise) and the first run,
// timed separately, on inputs from .npy files. With --runs N it also times N more runs after --warmup W (for models whose inputs
// ort_bench_model.js cannot make, such as a scalar sample rate that must be 16000).
//
// Usage: node bench/onnx/zoo/ort_first_run.js --model M.onnx --input NAME=FILE.npy [--input ...]
//            [--threads 2] [--warmup 0] [--runs 0] [--optimization all|extended|basic|disabled]
// Prints one JSON line: session_ms, first_run_ms, and median_ms / min_ms / times_ms when --runs > 0.
'use strict';
const path = require('path');
const { readNpy } = require('../ort_run_model.js');

function parseArgs(argv) {
  const args = { model: null, inputs: [], threads: 2, warmup: 0, runs: 0, optimization: 'all' };
  for (let i = 2; i < argv.length; i += 2) {
    const [key, value] = [argv[i].replace(/^--/, ''), argv[i + 1]];
    if (value === undefined) throw new Error(`option ${argv[i]} needs a value`);
    if (key === 'model') args.model = value;
    else if (key === 'input') args.inputs.push(value);
    else if (key === 'optimization') args.optimization = value;
    else if (['threads', 'warmup', 'runs'].includes(key)) args[key] = Number(value);
    else throw new Error(`unknown option ${argv[i]}`);
  }
  if (!args.model || !args.inputs.length) throw new Error('--model and at least one --input are required');
  return args;
}

async function main() {
  const args = parseArgs(process.argv);
  const ort = require(path.join(__dirname, '..', '..', 'node_modules', 'onnxruntime-node'));
  const feeds = {};
  for (const spec of args.inputs) {
    const at = spec.indexOf('=');
    const t = readNpy(spec.slice(at + 1));
    feeds[spec.slice(0, at)] = new ort.Tensor(t.type, t.data, t.shape);
  }
  const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
  let t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'], intraOpNumThreads: args.threads, interOpNumThreads: 1,
    graphOptimizationLevel: args.optimization,
  });
  const sessionMs = ms(t0);
  t0 = process.hrtime.bigint();
  await session.run(feeds);
  const result = { model: args.model, session_ms: sessionMs, first_run_ms: ms(t0), threads: args.threads };
  if (args.runs > 0) {
    for (let i = 0; i < args.warmup; ++i) await session.run(feeds);
    const times = [];
    for (let i = 0; i < args.runs; ++i) {
      t0 = process.hrtime.bigint();
      await session.run(feeds);
      times.push(ms(t0));
    }
    const sorted = [...times].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    Object.assign(result, { median_ms: sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2,
                            min_ms: sorted[0], times_ms: times });
  }
  console.log(JSON.stringify(result));
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
