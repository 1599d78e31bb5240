// API soak: every function of the engine called again and again at the page's default sizes,
// interleaved round by round, with one refused request per function every tenth round (an error
// path must not leak either). Wasm memory never shrinks, so a leak shows as memoryBytes() growing
// after the warm-up rounds; the soak asserts it does not.
//
//   node bench/soak.mjs [rounds = 10000]     one call of each function per round; exit code 1 on growth
//
// tests/js/soak.test.js runs the same soak with fewer rounds (it must stay well under a minute on
// a 2-core machine); docs/RELIABILITY.md quotes this script's output.
import { pathToFileURL } from 'node:url';
import { createEngine } from '../web/engine.js';

// mulberry32: fixed inputs, so every run does the same work.
function randomF32(n, seed, lo = -1, hi = 1) {
  let a = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return lo + (hi - lo) * (((t ^ (t >>> 14)) >>> 0) / 4294967296);
  });
}

// The page's defaults: full-attention n = 8, dk = 64, dv = 4; softmax-saturation 64 queries of 16
// keys at dk = 64; dot-variance 5000 pairs at dk = 64; initialization 512 → 64 projections.
export const DEFAULTS = { rows: 64, cols: 16, n: 8, dk: 64, dv: 4, pairs: 5000, dmodel: 512, tokens: 64 };

// [name, a valid call at the default size, a call the engine refuses]
export function soakCalls(engine, d = DEFAULTS) {
  const x = randomF32(d.rows * d.cols, 1, -8, 8);
  const p = engine.softmax(x, d.rows, d.cols), g = randomF32(d.rows * d.cols, 2);
  const att = { q: randomF32(d.n * d.dk, 3), k: randomF32(d.n * d.dk, 4), v: randomF32(d.n * d.dv, 5), nq: d.n, nk: d.n, dk: d.dk, dv: d.dv };
  const gradOutput = randomF32(d.n * d.dv, 6);
  const a = randomF32(d.tokens * d.dmodel, 7), w = randomF32(d.dmodel * d.dk, 8);
  const qs = randomF32(d.pairs * d.dk, 9), ks = randomF32(d.pairs * d.dk, 10), dots = randomF32(d.pairs, 11, -4, 4);
  const jp = p.subarray(0, d.cols);
  const sample = { seed: 1, dk: d.dk, count: d.pairs };
  return [
    ['softmax', () => engine.softmax(x, d.rows, d.cols), () => engine.softmax(x, d.rows, d.cols + 1)],
    ['softmaxNaive', () => engine.softmaxNaive(x, d.rows, d.cols), () => engine.softmaxNaive(x, 0, d.cols)],
    ['logSoftmax', () => engine.logSoftmax(x, d.rows, d.cols), () => engine.logSoftmax(Float32Array.of(NaN), 1, 1)],
    ['softmaxBackward', () => engine.softmaxBackward(p, g, d.rows, d.cols), () => engine.softmaxBackward(p, g.subarray(1), d.rows, d.cols)],
    ['rowStats', () => engine.rowStats(p, d.rows, d.cols), () => engine.rowStats(p, d.rows, 2.5)],
    ['attention', () => engine.attention(att), () => engine.attention({ ...att, scale: Infinity })],
    ['attentionBackward', () => engine.attentionBackward({ ...att, gradOutput }), () => engine.attentionBackward({ ...att, gradOutput: x })],
    ['scores', () => engine.scores(att), () => engine.scores({ ...att, q: Float32Array.of(Infinity), nq: 1, dk: 1, k: Float32Array.of(1), nk: 1 })],
    ['matmul', () => engine.matmul(a, w, d.tokens, d.dmodel, d.dk), () => engine.matmul(a, w, d.tokens, d.dmodel, 2 ** 20)],
    ['rowDots', () => engine.rowDots(qs, ks, d.pairs, d.dk), () => engine.rowDots(qs, ks, d.pairs, -1)],
    ['softmaxJacobian', () => engine.softmaxJacobian(jp), () => engine.softmaxJacobian(new Float32Array(0))],
    ['describe', () => engine.describe(dots, { bins: 40, lo: -4, hi: 4 }), () => engine.describe(dots, { bins: 40, lo: 1, hi: 1 })],
    ['rowSummaries', () => engine.rowSummaries(x, d.rows, d.cols), () => engine.rowSummaries(x, d.rows, d.cols + 1)],
    ['sampleEntries', () => engine.sampleEntries({ seed: 1, count: d.dmodel * d.dk }), () => engine.sampleEntries({ seed: -1, count: 10 })],
    ['sampleDotProducts', () => engine.sampleDotProducts(sample), () => engine.sampleDotProducts({ ...sample, dk: 2 ** 20 })],
    ['sampleSoftmaxRows', () => engine.sampleSoftmaxRows({ dk: d.dk, n: d.cols, rows: d.rows, seed: 1 }), () => engine.sampleSoftmaxRows({ dk: d.dk, n: d.cols, rows: d.rows, seed: 1, scale: NaN })],
  ];
}

// Runs `rounds` rounds after `warmup` rounds; returns per-function call counts and times and the
// memory at the end of the warm-up, at `checkpoints` points after it, and at the end.
export async function soak(engine, { rounds = 10000, warmup = Math.max(10, Math.ceil(rounds / 100)), checkpoints = 10, defaults = DEFAULTS } = {}) {
  const calls = soakCalls(engine, defaults);
  const stats = Object.fromEntries(calls.map(([name]) => [name, { calls: 0, errors: 0, ms: 0 }]));
  const round = (r) => {
    for (const [name, good, bad] of calls) {
      const t0 = performance.now();
      good();
      if (r % 10 === 0) {
        try { bad(); } catch (err) {
          if (!(err instanceof Error)) throw new Error(`${name}: refused with a non-Error ${String(err)}`);
          stats[name].errors++;
        }
      }
      stats[name].ms += performance.now() - t0;
      stats[name].calls++;
    }
  };
  const start = engine.memoryBytes();
  for (let r = 0; r < warmup; r++) round(r);
  const afterWarmup = engine.memoryBytes();
  const memory = [];
  const every = Math.max(1, Math.floor(rounds / checkpoints));
  for (let r = 0; r < rounds; r++) {
    round(warmup + r);
    if ((r + 1) % every === 0 || r === rounds - 1) memory.push(engine.memoryBytes());
  }
  const refused = Object.values(stats).every((s) => s.errors > 0);
  return { rounds, warmup, stats, start, afterWarmup, memory, end: engine.memoryBytes(), refused };
}

// How sensitive the plateau is: the largest block (doubling from 4 KiB) the heap still holds
// without growing. A leak of more than headroom/calls bytes per call would have grown it. (Run
// last: the probe that does not fit grows the heap.)
export function headroom(engine) {
  const before = engine.memoryBytes();
  let fits = 0;
  for (let count = 1024; count <= 2 ** 24; count *= 2) {
    engine.sampleEntries({ seed: 1, count });
    if (engine.memoryBytes() !== before) break;
    fits = 4 * count;
  }
  return fits;
}

async function main() {
  const rounds = Number(process.argv[2] ?? 10000);
  const engine = await createEngine();
  const t0 = performance.now();
  const r = await soak(engine, { rounds });
  const seconds = (performance.now() - t0) / 1000;
  const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  console.log(`attnlab API soak: ${rounds} rounds after ${r.warmup} warm-up rounds, one call of each of ${Object.keys(r.stats).length} functions per round ` +
    `(and a refused one every 10th), Node ${process.version}, ${engine.arch}, ${seconds.toFixed(1)} s`);
  for (const [name, s] of Object.entries(r.stats))
    console.log(`  ${name.padEnd(18)} ${String(s.calls).padStart(6)} calls  ${String(s.errors).padStart(5)} refused  ${(s.ms / s.calls).toFixed(3).padStart(8)} ms/call`);
  console.log(`  memoryBytes: ${mib(r.start)} at start, ${mib(r.afterWarmup)} after warm-up, then ${r.memory.map(mib).join(', ')}`);
  const growth = r.end - r.afterWarmup;
  const calls = Object.values(r.stats).reduce((n, s) => n + s.calls + s.errors, 0);
  const room = headroom(engine);
  console.log(`  growth after warm-up: ${growth} bytes${growth === 0 ? ' (plateau)' : ' (LEAK?)'} over ${calls} calls; ` +
    `the heap still held a ${mib(room)} block, so a leak above ${Math.ceil(room / calls)} bytes per call would have grown it`);
  process.exitCode = growth === 0 && r.refused ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
