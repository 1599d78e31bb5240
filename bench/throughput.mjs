// Engine throughput in Node, SIMD build against the scalar build of the same code.
//   node bench/throughput.mjs [--json]
// Each figure is the median of 9 timed runs after a 300 ms warm-up; results are checked against a
// double-precision reference so a fast wrong answer cannot pass.
import { createEngine } from '../web/engine.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Warm up for at least 300 ms first: V8 compiles wasm with a baseline tier and swaps in the
// optimising tier later, so early runs would be slow for reasons unrelated to the code.
function time(fn, runs = 9) {
  for (const t0 = performance.now(); performance.now() - t0 < 300;) fn();
  const t = [];
  for (let r = 0; r < runs; r++) { const t0 = performance.now(); fn(); t.push(performance.now() - t0); }
  return median(t);
}

function attentionRef({ q, k, v, n, d }) {  // one row of softmax(QKᵀ/√d)V in double, row 0
  const s = Array.from({ length: n }, (_, j) => { let a = 0; for (let c = 0; c < d; c++) a += q[c] * k[j * d + c]; return a / Math.sqrt(d); });
  const m = Math.max(...s), e = s.map((x) => Math.exp(x - m)), z = e.reduce((a, b) => a + b);
  return Array.from({ length: d }, (_, c) => e.reduce((acc, w, j) => acc + (w / z) * v[j * d + c], 0));
}

const results = [];
for (const simd of [true, false]) {
  const e = await createEngine({ simd });
  const build = simd ? 'SIMD128' : 'scalar';
  // sampling: q·k at d_k = 512
  const count = 4000, dk = 512;
  const ms = time(() => e.sampleDotProducts({ dk, count, seed: 1 }));
  const dots = e.sampleDotProducts({ dk, count: 20000, seed: 2 });
  const v = e.describe(dots, { bins: 10, lo: -100, hi: 100 }).variance;
  if (Math.abs(v - dk) > 5 * dk * Math.sqrt((2 + 6 / dk) / 20000)) throw new Error(`${build}: Var(q·k) = ${v}, not ≈ ${dk}`);
  results.push({ build, what: 'sampleDotProducts, d_k = 512', perSecond: (count / ms) * 1000, unit: 'dot products/s' });
  // attention forward, n = 256, d = 64
  const n = 256, d = 64;
  const mk = (len, seed) => e.sampleEntries({ count: len, seed });
  const q = mk(n * d, 3), k = mk(n * d, 4), vv = mk(n * d, 5);
  const msA = time(() => e.attention({ q, k, v: vv, nq: n, nk: n, dk: d, dv: d }));
  const out = e.attention({ q, k, v: vv, nq: n, nk: n, dk: d, dv: d }).output;
  const ref = attentionRef({ q, k, v: vv, n, d });
  const err = Math.max(...ref.map((r, c) => Math.abs(out[c] - r)));
  if (err > 1e-4) throw new Error(`${build}: attention row 0 differs from the double reference by ${err}`);
  results.push({ build, what: `attention forward ${n}×${n}×${d}`, perSecond: (4 * n * n * d / msA) / 1e6, unit: 'GFLOP/s' });
  // softmax 1024 × 1024
  const x = mk(1024 * 1024, 6);
  const msS = time(() => e.softmax(x, 1024, 1024), 5);
  results.push({ build, what: 'softmax 1024×1024', perSecond: 1000 / msS, unit: 'calls/s', ms: msS });
}

if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2));
else {
  console.log('engine throughput in Node ' + process.version + ' (median of 9 runs, one thread)');
  for (const what of [...new Set(results.map((r) => r.what))]) {
    const [s, c] = ['SIMD128', 'scalar'].map((b) => results.find((r) => r.build === b && r.what === what));
    const f = (r) => (r.perSecond >= 1000 ? Math.round(r.perSecond).toLocaleString('en-US') : r.perSecond.toFixed(2));
    console.log(`  ${what.padEnd(32)} SIMD ${f(s).padStart(10)}  scalar ${f(c).padStart(10)}  ${s.unit.padEnd(15)} ×${(s.perSecond / c.perSecond).toFixed(2)}`);
  }
}
