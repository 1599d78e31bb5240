// The peers benchmark's measurements, shared by Node (bench/peers.mjs) and headless Chromium
// (bench/peers-browser.mjs), so the two cannot diverge: the caller loads the libraries and passes
// them in; this module sets them to one thread, checks every output against a double reference
// and times everything in alternation, round by round (bench/timing.mjs's protocol: 300 ms of
// warm-up each, then the medians), in ms.
//
// Attention forward O = softmax(Q·Kᵀ·scale)·V, n_q = n_k = n, d_k = d_v = d, scale = 1/√d:
// Q·Kᵀ and P·V are n²·d multiply-adds each, 4·n²·d flops in all (softmax's O(n²) not counted).
// Every implementation goes from Float32Arrays to a Float32Array of O, except TensorFlow.js, whose
// inputs stay resident tensors (its usual use; only O is read back with dataSync), and attnlab
// "no copies", whose inputs and outputs live in engine memory (engine.workspace).
// attnlab "with copies" is the plain call: q, k, v copied in; O and the n² weights copied out.
// Softmax also has "into out": X copied in and Y copied into an array the caller passes and reuses
// (the plain call returns a fresh array, and allocating 4 MiB costs more than copying into it).
// "inputs resident" is TensorFlow.js's own convention: the inputs stay in engine memory (a
// workspace, as its tensors stay in its wasm memory) and the output alone (O only, or Y) is copied
// out, into an array the caller reuses, where dataSync copies it into a new one.
import { timeInterleavedAsync } from './timing.mjs';
import { attentionModel, softmaxModel } from './onnx-model.mjs';

export const ATTENTION_SIZES = [[256, 64], [512, 64], [1024, 512]];
export const SOFTMAX_SIZE = [1024, 1024];
const ATTENTION_ATOL = 1e-4, SOFTMAX_RTOL = 1e-5;

// ------------------------------------------------------------ references (double) and checks
function attentionRowRef(q, k, v, n, d, i) {
  const s = new Float64Array(n);
  for (let j = 0; j < n; j++) { let a = 0; for (let c = 0; c < d; c++) a += q[i * d + c] * k[j * d + c]; s[j] = a / Math.sqrt(d); }
  let m = -Infinity, z = 0;
  for (const x of s) m = Math.max(m, x);
  for (let j = 0; j < n; j++) { s[j] = Math.exp(s[j] - m); z += s[j]; }
  const o = new Float64Array(d);
  for (let j = 0; j < n; j++) for (let c = 0; c < d; c++) o[c] += (s[j] / z) * v[j * d + c];
  return o;
}
const checkRows = (n) => [...new Set([0, 1, n >> 1, n - 2, n - 1])];

export function checkAttention(name, out, { q, k, v, n, d }) {
  if (!(out instanceof Float32Array) || out.length !== n * d)
    throw new Error(`${name}, attention ${n}×${d}: expected a Float32Array(${n * d}), got ${out?.constructor?.name}(${out?.length})`);
  for (const i of checkRows(n)) {
    const ref = attentionRowRef(q, k, v, n, d, i);
    for (let c = 0; c < d; c++) {
      const err = Math.abs(out[i * d + c] - ref[c]);
      if (!(err <= ATTENTION_ATOL))
        throw new Error(`${name}, attention ${n}×${d}: O[${i}][${c}] = ${out[i * d + c]}, the double reference says ${ref[c]} (|error| ${err} > ${ATTENTION_ATOL})`);
    }
  }
}

export function checkSoftmax(name, out, x, rows, cols) {
  if (!(out instanceof Float32Array) || out.length !== rows * cols)
    throw new Error(`${name}, softmax ${rows}×${cols}: expected a Float32Array(${rows * cols}), got ${out?.constructor?.name}(${out?.length})`);
  for (const i of checkRows(rows)) {
    let m = -Infinity, z = 0;
    for (let j = 0; j < cols; j++) m = Math.max(m, x[i * cols + j]);
    for (let j = 0; j < cols; j++) z += Math.exp(x[i * cols + j] - m);
    for (let j = 0; j < cols; j++) {
      const ref = Math.exp(x[i * cols + j] - m) / z, y = out[i * cols + j];
      if (!(Math.abs(y - ref) <= SOFTMAX_RTOL * ref + 1e-38))  // 1e-38: refs below float32's normal range
        throw new Error(`${name}, softmax ${rows}×${cols}: Y[${i}][${j}] = ${y}, the double reference says ${ref} (relative error ${Math.abs(y - ref) / ref} > ${SOFTMAX_RTOL})`);
    }
  }
}

// ------------------------------------------------------------ plain JS peers (Float32Array, no tricks)
export function jsAttention(q, k, v, n, d, scale = 1 / Math.sqrt(d)) {
  const o = new Float32Array(n * d), s = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let m = -Infinity;
    for (let j = 0; j < n; j++) {  // s_j = scale · q_i·k_j (rows of K are contiguous)
      let a = 0;
      for (let c = 0; c < d; c++) a += q[i * d + c] * k[j * d + c];
      s[j] = a * scale;
      if (s[j] > m) m = s[j];
    }
    let z = 0;
    for (let j = 0; j < n; j++) { s[j] = Math.exp(s[j] - m); z += s[j]; }
    const inv = 1 / z;
    for (let j = 0; j < n; j++) {  // o_i += p_j · v_j, a row of V at a time
      const p = s[j] * inv;
      for (let c = 0; c < d; c++) o[i * d + c] += p * v[j * d + c];
    }
  }
  return o;
}

export function jsSoftmax(x, rows, cols) {
  const y = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const r = i * cols;
    let m = -Infinity, z = 0;
    for (let j = 0; j < cols; j++) if (x[r + j] > m) m = x[r + j];
    for (let j = 0; j < cols; j++) { y[r + j] = Math.exp(x[r + j] - m); z += y[r + j]; }
    const inv = 1 / z;
    for (let j = 0; j < cols; j++) y[r + j] *= inv;
  }
  return y;
}

// ------------------------------------------------------------ attnlab with its inputs in engine memory
// engine.workspace: views of engine memory that calls read and write in place. The inputs are
// placed in the workspace once, outside the timing. Returns { mode, fn, resident, dispose }: fn,
// no copies (O and the weights, or Y, written into the workspace); resident, the output alone
// copied out into an array reused from call to call; each returning O or Y, to be checked.
function attentionInWorkspace(engine, o) {
  const ws = engine.workspace({ q: o.q.length, k: o.k.length, v: o.v.length, output: o.nq * o.dv, weights: o.nq * o.nk });
  for (const name of ['q', 'k', 'v']) ws[name].set(o[name]);
  const resident = () => ({ ...o, q: ws.q, k: ws.k, v: ws.v });  // read at each call: the views follow memory growth
  const output = new Float32Array(o.nq * o.dv);
  return { mode: 'workspace', fn: () => engine.attention({ ...resident(), out: { output: ws.output, weights: ws.weights } }).output,
    resident: () => engine.attention({ ...resident(), weights: false, out: { output } }).output, dispose: () => ws.dispose() };
}
function softmaxInWorkspace(engine, x, rows, cols) {
  const ws = engine.workspace({ x: x.length, y: x.length });
  ws.x.set(x);
  const y = new Float32Array(x.length);
  return { mode: 'workspace', fn: () => engine.softmax(ws.x, rows, cols, { out: ws.y }),
    resident: () => engine.softmax(ws.x, rows, cols, { out: y }), dispose: () => ws.dispose() };
}

// ------------------------------------------------------------ the wasm SIMD128 peak probe
// build/peak/peak.wasm (bench/peak.cpp): probes peakN and splitN do 8·N flops an iteration.
// Each is tried on its own (best of 5); the fastest is then timed along with the rest.
function peakProbe(bytes) {
  const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports;
  const iters = 1 << 20;
  let best = null;
  for (const name of Object.keys(exports).filter((e) => /^(peak|split)\d+$/.test(e))) {
    const N = Number(name.match(/\d+/)[0]), fn = exports[name];
    const flops = 8 * N * iters;
    for (let i = 0; i < 3; i++) fn(iters >> 4, 0.9999, 1e-4);  // tier-up
    let ms = Infinity;
    for (let i = 0; i < 5; i++) {  // (five calls a try, about 10 ms: timing.mjs says why)
      const t0 = performance.now();
      for (let k = 0; k < 5; k++) fn(iters, 0.99999, 1e-6);
      ms = Math.min(ms, (performance.now() - t0) / 5);
    }
    if (!best || flops / ms > best.flops / best.ms) best = { name, ms, flops, fn: () => fn(iters, 0.99999, 1e-6) };
  }
  if (!best) throw new Error('peak.wasm exports no probe');
  const v = best.fn();
  if (!(v > 0 && v < 1e4)) throw new Error(`peak probe ${best.name} returned ${v}, not a sum of a few dozen values near 1`);
  return best;
}

// ------------------------------------------------------------ the run
/**
 * libs: { createEngine, tf, tfWasm (the tfjs-backend-wasm namespace), ort, peakWasm (bytes, or
 * null: no probe) }; rounds: { small, large, softmax } rounds per group; sizes: the attention
 * sizes and the softmax's (tests/js/peers.test.js runs small ones). Returns { env, results }.
 */
export async function runPeers({ createEngine, tf, tfWasm, ort, peakWasm }, rounds, log = () => {},
  { attentionSizes = ATTENTION_SIZES, softmaxSize = SOFTMAX_SIZE } = {}) {
  const simd = await createEngine({ simd: true }), scalar = await createEngine({ simd: false });
  tfWasm.setThreadsCount(1);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
  await tf.ready();
  if (tfWasm.getThreadsCount() !== 1) throw new Error(`tfjs wasm runs ${tfWasm.getThreadsCount()} threads, not 1`);
  if (!(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'))) throw new Error('tfjs wasm: no SIMD support detected');
  Object.assign(ort.env.wasm, { numThreads: 1, proxy: false });
  const ortOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const peak = peakWasm ? peakProbe(peakWasm) : null;
  if (peak) log(`peak probe: ${peak.name}, ${(peak.flops / peak.ms / 1e6).toFixed(1)} GFLOP/s in its first try`);

  const results = [];
  let noCopiesMode = null;
  // impls: [name, fn returning the output (or a promise of it)]; checked once, then timed
  async function group(what, impls, check, perCall, unit, n) {
    const fns = [];
    for (const [name, fn] of impls) {
      if (!fn) { results.push({ what, impl: name, ms: null, value: null, unit }); continue; }
      if (name !== 'peak') check(name, await fn());
      fns.push([name, fn]);
    }
    log(`${what}: ${fns.filter(([name]) => name !== 'peak').length} outputs checked, timing ${n} rounds…`);
    const ms = await timeInterleavedAsync(fns.map(([, fn]) => fn), n);
    fns.forEach(([name], i) => results.push({ what, impl: name, ms: ms[i],
      value: name === 'peak' ? peak.flops / ms[i] / 1e6 : unit === 'ms' ? ms[i] : perCall / ms[i] / 1e6, unit: name === 'peak' ? 'GFLOP/s' : unit }));
  }

  for (const [n, d] of attentionSizes) {
    const [q, k, v] = [3, 4, 5].map((seed) => simd.sampleEntries({ count: n * d, seed }));
    const o = { q, k, v, nq: n, nk: n, dk: d, dv: d }, scale = 1 / Math.sqrt(d);
    const [tq, tk, tv] = [q, k, v].map((a) => tf.tensor2d(a, [n, d])), ts = tf.scalar(scale);
    const tfRun = (f) => () => { const t = tf.tidy(f); const out = t.dataSync(); t.dispose(); return out; };
    const session = await ort.InferenceSession.create(attentionModel(n, d, scale), ortOptions);
    const inWorkspace = attentionInWorkspace(simd, o);
    const feeds = Object.fromEntries([['Q', q], ['K', k], ['V', v]].map(([name, a]) => [name, new ort.Tensor('float32', a, [n, d])]));
    await group(`attention ${n}×${d}`, [
      ['attnlab SIMD128', () => simd.attention(o).output],
      ['attnlab SIMD128 O only', () => simd.attention({ ...o, weights: false }).output],
      ['attnlab SIMD128 inputs resident', inWorkspace.resident],
      ['attnlab SIMD128 no copies', inWorkspace.fn],
      ['attnlab scalar', () => scalar.attention(o).output],
      ['plain JS', () => jsAttention(q, k, v, n, d, scale)],
      ['tfjs matMul(q, k, false, true)', tfRun(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(tq, tk, false, true), ts)), tv))],
      ['tfjs matMul(q, transpose(k))', tfRun(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(tq, tf.transpose(tk)), ts)), tv))],
      ['onnxruntime-web', async () => (await session.run(feeds)).O.data],
      ['peak', peak?.fn],
    ], (name, out) => checkAttention(name, out, { q, k, v, n, d }), 4 * n * n * d, 'GFLOP/s', n * d > 1e5 ? rounds.large : rounds.small);
    tf.dispose([tq, tk, tv, ts]);
    inWorkspace.dispose();
    noCopiesMode = inWorkspace.mode;
    await session.release();
  }

  const [rows, cols] = softmaxSize;
  const x = simd.sampleEntries({ count: rows * cols, seed: 6, std: 4 });
  const tx = tf.tensor2d(x, [rows, cols]);
  const session = await ort.InferenceSession.create(softmaxModel(rows, cols), ortOptions);
  const inWorkspace = softmaxInWorkspace(simd, x, rows, cols);
  const y = new Float32Array(rows * cols);  // "into out": X copied in, Y copied into this array, reused
  const feeds = { X: new ort.Tensor('float32', x, [rows, cols]) };
  await group(`softmax ${rows}×${cols}`, [
    ['attnlab SIMD128', () => simd.softmax(x, rows, cols)],
    ['attnlab SIMD128 into out', () => simd.softmax(x, rows, cols, { out: y })],
    ['attnlab SIMD128 inputs resident', inWorkspace.resident],
    ['attnlab SIMD128 no copies', inWorkspace.fn],
    ['attnlab scalar', () => scalar.softmax(x, rows, cols)],
    ['plain JS', () => jsSoftmax(x, rows, cols)],
    ['tfjs softmax', () => { const t = tf.softmax(tx); const out = t.dataSync(); t.dispose(); return out; }],
    ['onnxruntime-web', async () => (await session.run(feeds)).Y.data],
  ], (name, out) => checkSoftmax(name, out, x, rows, cols), 0, 'ms', rounds.softmax);
  tx.dispose();
  inWorkspace.dispose();
  await session.release();
  if (tf.memory().numTensors !== 0) throw new Error(`tfjs leaked ${tf.memory().numTensors} tensors`);

  const env = { arch: simd.arch, tfjs: tf.version_core, ort: ort.env.versions?.web, tfjsThreads: tfWasm.getThreadsCount(),
    ortThreads: ort.env.wasm.numThreads, peakProbe: peak?.name ?? null, noCopies: noCopiesMode, rounds };
  return { env, results };
}
