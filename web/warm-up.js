// Small calls that the worker makes while it has nothing else to do, so that a reader's first
// change finds the engine's hot functions compiled by V8's optimizing tier and its memory mapped.
//
// Why: V8 runs a wasm function first in its baseline compiler (Liftoff) and optimizes it in the
// background once it has run for a while; the running call is not switched over. A step's first
// sweep therefore ran 10–40× slower than its later ones: breaking-assumptions' default sweep took
// 0.4–0.7 s the first two times in Chromium, then 8–25 ms; after three small dot-product calls
// and a pause, 13 ms the first time.
//
// A function is optimized once it has used up a budget of executed code, so a rarely taken path
// stays in the baseline tier long after its caller is optimized: the normal sampler's wedge and
// tail (Rng::normal_outside, portable_exp: 1.2% of draws) kept sampleDotProducts at d_k = 64 at
// 10–12 ms a call in a Chromium worker, against 6–7 ms with every function optimized; two million
// normals drawn first bring it to 6–8 ms. Hence the eight calls of 2¹⁸ normals.
//
// The calls first write the engine's free memory, 1 MiB a call up to TOUCH_MIB, and release it. A
// page of wasm memory costs 3–6 µs here the first time it is written (the host maps and zeroes
// it), and a new engine met fresh pages in each of its first runs: initialization's default run
// took 10–11, 7–8, 6–7 and 6–7 ms the first four times on a second engine in a warm Chromium page
// (its code already optimized; the same with V8's tiering off), then 3.6–4; with 8 MiB written
// first, 3.5–4 from the first run. In the page, initialization's first seed change went from 14.9
// to 4.8 ms of engine time (medians of 4 loads). The heap grows upwards from where it starts, so
// the runs that follow take their memory from these pages; 8 MiB stays inside the 16 MiB the
// engine starts with (tests/js/warm-up.test.js).
//
// Each call is a few ms, run one at a time between requests (web/worker.js), and returns nothing
// that anyone reads: the results of the experiments do not depend on it.
const TOUCH_MIB = 8;
const ROWS = 64;
const pairs = { count: 200, seed: 1 };
const randn = (engine, count, stream) => engine.sampleEntries({ count, seed: 1, stream });

export const WARM_UP = [
  ...Array.from({ length: TOUCH_MIB }, (_, i) => (e) => e.workspace({ touched: (i + 1) << 18 }).dispose()),  // (i + 1) MiB of floats
  (e) => e.sampleDotProducts({ dk: 64, ...pairs }),                          // the plain pair
  (e) => e.sampleDotProducts({ dk: 64, ...pairs, rho: 0.5 }),                // the general pair
  (e) => e.sampleDotProducts({ dk: 64, ...pairs, layernorm: true }),
  (e) => e.sampleDotProducts({ dk: 8, ...pairs, distribution: 'student-t', df: 5 }),
  (e) => e.sampleDotProducts({ dk: 64, ...pairs, distribution: 'uniform' }),
  (e) => e.sampleSoftmaxRows({ dk: 256, n: 16, rows: ROWS, seed: 1 }),
  (e) => e.sampleScores({ dk: 256, n: 16, rows: ROWS, seed: 1 }),
  (e) => e.describe(randn(e, 1 << 15, 0), { bins: 41, lo: -4, hi: 4 }),
  (e) => e.matmul(randn(e, 128 * 256, 1), randn(e, 256 * 64, 2), 128, 256, 64),
  (e) => e.rowDots(randn(e, 128 * 64, 3), randn(e, 128 * 64, 4), 128, 64),
  (e) => {
    const n = 32, dk = 64, dv = 16;
    const o = { q: randn(e, n * dk, 5), k: randn(e, n * dk, 6), v: randn(e, n * dv, 7), nq: n, nk: n, dk, dv };
    e.attention(o);
    e.attention({ ...o, causal: true });
    e.attentionBackward({ ...o, gradOutput: randn(e, n * dv, 8) });
  },
  (e) => {
    const x = randn(e, ROWS * 64, 9);
    const p = e.softmax(x, ROWS, 64);
    e.softmaxNaive(x, ROWS, 64);
    e.rowStats(p, ROWS, 64);
    e.softmaxBackward(p, x, ROWS, 64);
    e.softmaxJacobian(p.subarray(0, 16));
  },
  (e) => {
    const t = e.createTrainer();
    try { t.step(20); } finally { t.dispose(); }
  },
  ...Array.from({ length: 8 }, (_, i) => (e) => randn(e, 1 << 18, 100 + i)),  // the sampler's rare paths
];
