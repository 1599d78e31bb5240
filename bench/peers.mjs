// attnlab against the engines people would pick instead, in Node, one thread, fp32 (issue 6):
// attention forward at 256×64, 512×64 and 1024×512 and softmax of a 1024×1024 matrix, for the
// attnlab SIMD128 and scalar builds, plain JS, TensorFlow.js's wasm backend (two forms of Q·Kᵀ),
// onnxruntime-web's wasm backend (a hand-written ONNX model, bench/onnx-model.mjs) and a wasm
// SIMD128 mul+add peak probe (bench/peak.cpp), all alternated round by round in one process.
//   bash bench/build-peak.sh && node bench/peers.mjs [--json] [--rounds=N]
// (npm run bench:peers runs this and the Chromium variant, bench/peers-browser.mjs.) Every output
// is checked against a double-precision reference first; a wrong one stops the run with an error.
// The measurements themselves are in bench/peers-core.mjs, shared with the browser variant.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import * as tf from '@tensorflow/tfjs-core';
import * as tfWasm from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web';
import { createEngine } from '../web/engine.js';
import { runPeers } from './peers-core.mjs';
import { ratios, table } from './peers-report.mjs';

const PEAK = new URL('../build/peak/peak.wasm', import.meta.url);
const json = process.argv.includes('--json');
const fixed = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9)) || 0;
const rounds = { small: fixed || 15, large: fixed || 5, softmax: fixed || 15 };

for (const f of ['../web/wasm/attnlab.wasm', '../web/wasm/attnlab-scalar.wasm'])
  if (!existsSync(new URL(f, import.meta.url))) throw new Error(`web/wasm/ is missing ${f.slice(11)}: run \`bash tools/build.sh --wasm-only\` first`);
if (!existsSync(PEAK)) throw new Error('build/peak/peak.wasm is missing: run `bash bench/build-peak.sh` first');

const log = json ? () => {} : (s) => console.error(`  … ${s}`);
const run = await runPeers({ createEngine, tf, tfWasm, ort, peakWasm: await readFile(PEAK) }, rounds, log);
Object.assign(run.env, { runtime: `Node ${process.version}`, cpu: cpus()[0]?.model, cores: cpus().length });
if (json) console.log(JSON.stringify({ ...run, ratios: ratios(run.results) }, null, 2));
else console.log(table(run, `Node ${process.version}`).join('\n'));
