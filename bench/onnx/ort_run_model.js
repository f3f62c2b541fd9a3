#!/usr/bin/env node
// Runs an ONNX model once on ONNX Runtime's CPU provider with inputs from .npy files and writes each
// output as NAME.npy: the outputs the zoo check (zoo_check.py) compares Volvox's against.
//
// Usage: node bench/onnx/ort_run_model.js --model M.onnx --input NAME=FILE.npy [--input ...] --output-dir DIR
//            [--optimization all|extended|basic|disabled]
// Inputs and outputs are float32 or int64, C order, little-endian.
'use strict';
const fs = require('fs');
const path = require('path');

const DTYPES = { '<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array] };

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map(Number);
  if (!DTYPES[descr]) throw new Error(`${file}: dtype ${descr} is not handled (<f4, <i8)`);
  const [type, Array] = DTYPES[descr];
  const data = new Array(buf.buffer.slice(buf.byteOffset + start, buf.byteOffset + buf.length));
  return { type, data, shape };
}

function writeNpy(file, tensor) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k][0] === tensor.type);
  if (!descr) throw new Error(`output type ${tensor.type} is not handled`);
  const dims = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const body = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), body]));
}

async function main() {
  const args = { model: null, inputs: [], outputDir: null, optimization: 'all' };
  for (let i = 2; i < process.argv.length; i += 2) {
    const [key, value] = [process.argv[i], process.argv[i + 1]];
    if (value === undefined) throw new Error(`option ${key} needs a value`);
    if (key === '--model') args.model = value;
    else if (key === '--input') args.inputs.push(value);
    else if (key === '--output-dir') args.outputDir = value;
    else if (key === '--optimization') args.optimization = value;
    else throw new Error(`unknown option ${key}`);
  }
  if (!args.model || !args.inputs.length || !args.outputDir) throw new Error('--model, --input and --output-dir are required');
  const ort = require('onnxruntime-node');
  const session = await ort.InferenceSession.create(args.model,
                                                    { executionProviders: ['cpu'], graphOptimizationLevel: args.optimization });
  const feeds = {};
  for (const spec of args.inputs) {
    const at = spec.indexOf('=');
    const t = readNpy(spec.slice(at + 1));
    feeds[spec.slice(0, at)] = new ort.Tensor(t.type, t.data, t.shape);
  }
  const results = await session.run(feeds);
  fs.mkdirSync(args.outputDir, { recursive: true });
  for (const [name, tensor] of Object.entries(results)) writeNpy(path.join(args.outputDir, `${name}.npy`), tensor);
}

module.exports = { readNpy, writeNpy };  // zoo/ort_first_run.js reads its inputs with it

if (require.main === module) main().catch((e) => { console.error(e.message || e); process.exit(1); });
