#!/usr/bin/env node
// ONNX Runtime's own per-node times for one model, to set beside `volvox bench --profile`: a session
// with profiling on (CPU provider, graph optimisation "all", N intra-op threads), --runs runs on
// random inputs of the given shape (float32, one input), then each node's median over the runs after
// the first --skip, slowest first. Node names are ORT's after its fusions (a Conv + Relu is named
// by the Relu's output).
//
// Usage: node bench/onnx/zoo/ort_node_profile.js MODEL.onnx 1x3x224x224 [--threads 2] [--runs 25] [--skip 5] [--top 40]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

async function main() {
  const [model, shapeText, ...rest] = process.argv.slice(2);
  if (!model || !shapeText) throw new Error('usage: ort_node_profile.js MODEL.onnx AxBx... [--threads N] [--runs N] [--skip N] [--top N]');
  const opt = { threads: 2, runs: 25, skip: 5, top: 40 };
  for (let i = 0; i < rest.length; i += 2) {
    const key = rest[i].replace(/^--/, '');
    if (!(key in opt) || rest[i + 1] === undefined) throw new Error(`bad option ${rest[i]}`);
    opt[key] = Number(rest[i + 1]);
  }
  const ort = require(path.join(__dirname, '..', '..', 'node_modules', 'onnxruntime-node'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], intraOpNumThreads: opt.threads, interOpNumThreads: 1,
    enableProfiling: true, profileFilePrefix: path.join(dir, 'ort'),
  });
  const shape = shapeText.split('x').map(Number);
  const data = Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => Math.random());
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, shape) };
  for (let r = 0; r < opt.runs; ++r) await session.run(feeds);
  if (session.endProfiling) session.endProfiling();
  await session.release();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const nodes = new Map();
  let runs = [];
  for (const e of events) {
    if (e.cat === 'Session' && e.name === 'model_run') runs.push(e.dur);
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!nodes.has(name)) nodes.set(name, { op: e.args.op_name, times: [] });
    nodes.get(name).times.push(e.dur);
  }
  runs = runs.slice(opt.skip);
  const rows = [...nodes].map(([name, n]) => ({ name, op: n.op, ms: median(n.times.slice(opt.skip)) / 1000 }));
  rows.sort((a, b) => b.ms - a.ms);
  console.log(`${model}: ${runs.length} runs, median ${(median(runs) / 1000).toFixed(3)} ms; nodes: ${rows.length}, ` +
              `sum of node medians ${rows.reduce((a, r) => a + r.ms, 0).toFixed(3)} ms`);
  for (const r of rows.slice(0, opt.top)) console.log(`${r.ms.toFixed(3).padStart(9)}  ${r.op.padEnd(22)} ${r.name}`);
}

main().catch((e) => { console.error(`ort_node_profile.js: ${e.message}`); process.exit(1); });
