// Engine throughput in Node, the SIMD build against the scalar build of the same code.
//   node bench/throughput.mjs [--json]
// The two builds are timed in alternation, round by round, so machine noise (±30% here between
// runs) hits both alike; each figure is the median over the rounds after a 300 ms warm-up (V8
// first runs wasm in a baseline tier). Results are checked against double-precision references
// so a fast wrong answer cannot pass.
import { timeInterleaved } from './timing.mjs';
import { createEngine } from '../web/engine.js';

const ROUNDS = 15;
const timeBoth = (fns) => timeInterleaved(fns, ROUNDS);

function attentionRow0({ q, k, v, n, d }) {  // row 0 of softmax(QKᵀ/√d)V in double
  const s = Array.from({ length: n }, (_, j) => { let a = 0; for (let c = 0; c < d; c++) a += q[c] * k[j * d + c]; return a / Math.sqrt(d); });
  const m = Math.max(...s), e = s.map((x) => Math.exp(x - m)), z = e.reduce((a, b) => a + b);
  return Array.from({ length: d }, (_, c) => e.reduce((acc, w, j) => acc + (w / z) * v[j * d + c], 0));
}

const engines = [await createEngine({ simd: true }), await createEngine({ simd: false })];
const builds = ['SIMD128', 'scalar'];
const results = [];
const record = (what, unit, perCall, ms) => ms.forEach((t, i) => results.push({ build: builds[i], what, unit, ms: t, perSecond: perCall / t * 1000 }));

// sampling: q·k at d_k = 512 (2·512 normal draws and one dot product each)
const dk = 512, count = 2000;
for (const e of engines) {
  const v = e.describe(e.sampleDotProducts({ dk, count: 20000, seed: 2 }), { bins: 10, lo: -100, hi: 100 }).variance;
  if (Math.abs(v - dk) > 5 * dk * Math.sqrt((2 + 6 / dk) / 20000)) throw new Error(`Var(q·k) = ${v}, not ≈ ${dk}`);
}
record('sampleDotProducts, d_k = 512', 'dot products/s', count, timeBoth(engines.map((e) => () => e.sampleDotProducts({ dk, count, seed: 1 }))));

// attention forward, n_q = n_k = n, d_k = d_v = d: 4·n²·d flops (Q·Kᵀ and P·V, a mul and an add each)
for (const [n, d] of [[256, 64], [512, 64], [1024, 512]]) {
  const [q, k, v] = [3, 4, 5].map((seed) => engines[0].sampleEntries({ count: n * d, seed }));
  for (const e of engines) {
    const out = e.attention({ q, k, v, nq: n, nk: n, dk: d, dv: d }).output;
    const err = Math.max(...attentionRow0({ q, k, v, n, d }).map((r, c) => Math.abs(out[c] - r)));
    if (err > 1e-4) throw new Error(`attention ${n}×${d}: row 0 differs from the double reference by ${err}`);
  }
  record(`attention forward ${n}×${n}×${d}`, 'GFLOP/s', 4 * n * n * d / 1e9,
    timeBoth(engines.map((e) => () => e.attention({ q, k, v, nq: n, nk: n, dk: d, dv: d }))));
}

// softmax of a 1024 × 1024 matrix
const x = engines[0].sampleEntries({ count: 1024 * 1024, seed: 6, std: 4 });
record('softmax 1024×1024', 'matrices/s', 1, timeBoth(engines.map((e) => () => e.softmax(x, 1024, 1024))));

if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2));
else {
  console.log(`engine throughput in Node ${process.version}, one thread; SIMD and scalar builds alternated over ${ROUNDS} rounds (medians)`);
  for (const what of [...new Set(results.map((r) => r.what))]) {
    const [s, c] = builds.map((b) => results.find((r) => r.build === b && r.what === what));
    const f = (r) => (r.perSecond >= 1000 ? Math.round(r.perSecond).toLocaleString('en-US') : r.perSecond.toFixed(2));
    console.log(`  ${what.padEnd(32)} SIMD ${f(s).padStart(8)}  scalar ${f(c).padStart(8)}  ${s.unit.padEnd(15)} SIMD/scalar ×${(s.perSecond / c.perSecond).toFixed(2)}  (${s.ms.toFixed(2)} vs ${c.ms.toFixed(2)} ms)`);
  }
}
