// The public JavaScript API (web/engine.js) checked against plain-JS double-precision references.
// Every expected value here is computed in this file from the math, never copied from the engine.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as engineModule from '../../web/engine.js';
import { createEngine } from '../../web/engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const engine = await createEngine();
const scalar = await createEngine({ simd: false });

// ---------------------------------------------------------------- helpers

// mulberry32: deterministic test inputs (Math.random would make failures unreproducible).
function uniforms(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function randomF32(n, seed, lo = -1, hi = 1) {
  const u = uniforms(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * u());
}
const f32 = (values) => Float32Array.from(values);
const sum = (xs) => xs.reduce((s, x) => s + x, 0);

// Element-wise |actual − expected| <= abs + rel·|expected|; names the first offending index.
function expectClose(actual, expected, { abs = 0, rel = 0 }, what = 'value') {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i], e = expected[i];
    if (!(Math.abs(a - e) <= abs + rel * Math.abs(e)))
      expect.unreachable(`${what}[${i}] = ${a}, expected ${e} (abs ${abs}, rel ${rel})`);
  }
}

// Row softmax and log-softmax in double, with max subtraction.
function softmaxRef(x, rows, cols, log = false) {
  const y = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const row = Array.from(x.subarray(i * cols, (i + 1) * cols));
    const m = Math.max(...row);
    const s = sum(row.map((v) => Math.exp(v - m)));
    row.forEach((v, j) => { y[i * cols + j] = log ? v - m - Math.log(s) : Math.exp(v - m) / s; });
  }
  return y;
}

function softmaxBackwardRef(p, dp, rows, cols) {
  const dx = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    let c = 0;
    for (let j = 0; j < cols; j++) c += p[i * cols + j] * dp[i * cols + j];
    for (let j = 0; j < cols; j++) dx[i * cols + j] = p[i * cols + j] * (dp[i * cols + j] - c);
  }
  return dx;
}

// Attention in double: S = scale·QKᵀ, S_ij = −∞ where (causal and j > i) or mask_ij = 0,
// P = row softmax(S) (a row with no allowed key is all zeros), O = P·V.
function attentionRef({ q, k, v, nq, nk, dk, dv, scale = 1 / Math.sqrt(dk), causal = false, mask }) {
  const weights = new Float64Array(nq * nk), output = new Float64Array(nq * dv);
  for (let i = 0; i < nq; i++) {
    const allowed = (j) => (!causal || j <= i) && (!mask || mask[i * nk + j] !== 0);
    const scores = [];
    for (let j = 0; j < nk; j++) {
      let s = 0;
      for (let p = 0; p < dk; p++) s += q[i * dk + p] * k[j * dk + p];
      scores.push(allowed(j) ? scale * s : -Infinity);
    }
    const m = Math.max(...scores);
    if (m === -Infinity) continue;                         // nothing to attend: zero row
    const e = scores.map((s) => Math.exp(s - m)), total = sum(e);
    for (let j = 0; j < nk; j++) {
      weights[i * nk + j] = e[j] / total;
      for (let c = 0; c < dv; c++) output[i * dv + c] += weights[i * nk + j] * v[j * dv + c];
    }
  }
  return { output, weights };
}

// ∂L/∂q, ∂L/∂k, ∂L/∂v of L = Σ output ⊙ gradOutput by central differences of attentionRef.
// h = 1e-5 in double: truncation error O(h²·L''') ≈ 1e-10 and rounding error ≈ 1e-16·|L|/h
// ≈ 1e-10, so these are exact to ~1e-9, far below the engine's float32 error.
function finiteDifferenceGrads(o, gradOutput, h = 1e-5) {
  const loss = (args) => sum(Array.from(attentionRef(args).output, (y, i) => y * gradOutput[i]));
  const grads = {};
  for (const name of ['q', 'k', 'v']) {
    const x = Float64Array.from(o[name]), g = new Float64Array(x.length);
    for (let i = 0; i < x.length; i++) {
      const x0 = x[i];
      x[i] = x0 + h; const up = loss({ ...o, [name]: x });
      x[i] = x0 - h; const down = loss({ ...o, [name]: x });
      x[i] = x0;
      g[i] = (up - down) / (2 * h);
    }
    grads[name] = g;
  }
  return grads;
}

function attentionInputs({ nq, nk, dk, dv, seed = 1, ...rest }) {
  return { q: randomF32(nq * dk, seed), k: randomF32(nk * dk, seed + 1), v: randomF32(nk * dv, seed + 2),
    nq, nk, dk, dv, ...rest };
}

// Two-pass mean and unbiased variance in double.
function twoPass(x) {
  const n = x.length, mean = sum(Array.from(x)) / n;
  return { n, mean, variance: sum(Array.from(x, (v) => (v - mean) ** 2)) / (n - 1) };
}

// ---------------------------------------------------------------- loading

describe('loading the engine', () => {
  it("import('attnlab') resolves to web/engine.js (package self-reference), the same module", async () => {
    const viaName = await import('attnlab');
    expect(viaName.createEngine).toBe(engineModule.createEngine);
    // And in plain Node, outside Vitest's resolver:
    const resolved = execFileSync(process.execPath,
      ['--input-type=module', '-e', "process.stdout.write(import.meta.resolve('attnlab'))"],
      { cwd: ROOT, encoding: 'utf8' });
    expect(resolved).toBe(pathToFileURL(`${ROOT}web/engine.js`).href);
  });

  it("the default engine in Node 20 is the SIMD build, xsimd arch 'sse4.1'", () => {
    expect(engine.simd).toBe(true);
    expect(engine.arch).toBe('sse4.1');
  });

  it("createEngine({ simd: false }) loads the scalar build", () => {
    expect(scalar.simd).toBe(false);
    expect(scalar.arch).toBe('scalar');
  });

  it('the scalar build gives the SIMD results within 1e-6 relative on softmax, logSoftmax, attention', () => {
    // 37 columns: SIMD body and tail. Logits in [-4, 4]: exp amplifies the float32 rounding of
    // x − max by |x − max| <= 8, so 8·6e-8 + a few ulps stays under 1e-6 relative.
    const x = randomF32(7 * 37, 11, -4, 4);
    const tol = { rel: 1e-6, abs: 1e-7 };                  // floor for values near 0
    expectClose(scalar.softmax(x, 7, 37), engine.softmax(x, 7, 37), tol, 'softmax');
    // log-softmax is x − lse: the subtraction leaves ~ulp(4) = 4.8e-7 absolute, even near 0.
    expectClose(scalar.logSoftmax(x, 7, 37), engine.logSoftmax(x, 7, 37), { rel: 1e-6, abs: 1e-6 }, 'logSoftmax');
    // v in [0.5, 1.5]: outputs are convex combinations, so no cancellation inflates relative errors.
    const o = { ...attentionInputs({ nq: 5, nk: 9, dk: 13, dv: 6, causal: true }), v: randomF32(54, 5, 0.5, 1.5) };
    const a = engine.attention(o), b = scalar.attention(o);
    expectClose(b.output, a.output, tol, 'attention output');
    expectClose(b.weights, a.weights, tol, 'attention weights');
  });
});

// ---------------------------------------------------------------- softmax family

describe('softmax, softmaxNaive, logSoftmax', () => {
  it('softmax rows sum to 1', () => {
    for (const [rows, cols] of [[1, 1], [3, 5], [4, 8], [2, 1000]]) {
      const y = engine.softmax(randomF32(rows * cols, rows + cols, -10, 10), rows, cols);
      for (let i = 0; i < rows; i++)                        // n float32 terms, each within a few ulps
        expect(Math.abs(sum(Array.from(y.subarray(i * cols, (i + 1) * cols))) - 1)).toBeLessThan(2e-6);
    }
  });

  it('softmax of [x, 0, 0, 0] is e^x/(e^x+3) and 1/(e^x+3)', () => {
    for (const x of [-20, -3, -0.5, 0, 1, 2.5, 10, 30]) {
      const e = Math.exp(x);
      const expected = [e / (e + 3), 1 / (e + 3), 1 / (e + 3), 1 / (e + 3)];
      expectClose(engine.softmax(f32([x, 0, 0, 0]), 1, 4), expected, { rel: 1e-6 }, `x = ${x}`); // exp within a few ulps
    }
  });

  it('softmax matches the double reference on random rows (SIMD body and tail)', () => {
    // Logits in [-4, 4]: exp's condition number |x − max| <= 8 times float32 rounding, plus a few ulps.
    const x = randomF32(6 * 23, 3, -4, 4);
    expectClose(engine.softmax(x, 6, 23), softmaxRef(x, 6, 23), { rel: 1e-6 }, 'softmax');
  });

  it('logSoftmax equals log(softmax) where softmax is not tiny', () => {
    const x = randomF32(4 * 19, 21, -6, 6);
    const log = engine.logSoftmax(x, 4, 19), p = engine.softmax(x, 4, 19);
    let compared = 0;
    for (let i = 0; i < p.length; i++) {
      if (p[i] < 1e-4) continue;
      // |Δlog p| ≈ |Δp|/p: both sides carry a few float32 ulps of relative error.
      expect(Math.abs(log[i] - Math.log(p[i])), `index ${i}`).toBeLessThan(2e-6);
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('logSoftmax stays finite (x − logsumexp) where softmax underflows to 0', () => {
    const x = f32([0, -200, 3]);
    const lse = 3 + Math.log(1 + Math.exp(-3) + Math.exp(-203));
    expect(engine.softmax(x, 1, 3)[1]).toBe(0);
    expectClose(engine.logSoftmax(x, 1, 3), [0 - lse, -200 - lse, 3 - lse], { rel: 1e-6 }, 'logSoftmax');
  });

  it('softmaxNaive returns NaN/Infinity for logits in [90, 100] while softmax stays finite', () => {
    const x = f32([90, 92.5, 95, 97.5, 100]);
    for (const y of engine.softmaxNaive(x, 1, 5)) expect(Number.isFinite(y)).toBe(false);
    expectClose(engine.softmax(x, 1, 5), softmaxRef(x, 1, 5), { rel: 1e-6 }, 'softmax'); // float32 ulps
  });

  it('softmaxNaive agrees with softmax for moderate logits', () => {
    const x = randomF32(3 * 9, 8, -4, 4);
    expectClose(engine.softmaxNaive(x, 3, 9), softmaxRef(x, 3, 9), { rel: 1e-6 }, 'softmaxNaive'); // float32 ulps
  });

  it('an all −Infinity row gives NaN (IEEE), and the other rows are unaffected', () => {
    const y = engine.softmax(f32([-Infinity, -Infinity, -Infinity, 0, Math.log(3), 0]), 2, 3);
    expect(Array.from(y.subarray(0, 3)).every(Number.isNaN)).toBe(true);
    expectClose(y.subarray(3), [0.2, 0.6, 0.2], { rel: 1e-6 }, 'row 1'); // float32 ulps
  });

  it('−Infinity entries get weight exactly 0, the rest is the softmax of the finite entries', () => {
    // 9 columns: −∞ both in a SIMD lane (index 1, 6) and in the scalar tail (index 8).
    const x = f32([0.5, -Infinity, 2, -1, 3, 0, -Infinity, 1, -Infinity]);
    const finite = [0, 2, 3, 4, 5, 7];
    const ref = softmaxRef(f32(finite.map((j) => x[j])), 1, finite.length);
    for (const e of [engine, scalar]) {
      const y = e.softmax(x, 1, 9);
      for (const j of [1, 6, 8]) expect(Object.is(y[j], 0), `${e.arch} y[${j}] = ${y[j]}`).toBe(true);
      expectClose(finite.map((j) => y[j]), ref, { rel: 1e-6 }, `${e.arch} finite entries`); // float32 ulps
    }
  });

  it('softmaxBackward equals p ⊙ (dp − Σ p·dp)', () => {
    const p = f32(softmaxRef(randomF32(3 * 11, 31, -3, 3), 3, 11)), dp = randomF32(33, 32);
    // Terms of size ~1, float32: a few ulps absolute.
    expectClose(engine.softmaxBackward(p, dp, 3, 11), softmaxBackwardRef(p, dp, 3, 11), { abs: 1e-6 }, 'dx');
  });

  it('rowStats gives each row’s max and entropy −Σ p log p', () => {
    const p = f32([0.25, 0.25, 0.25, 0.25, 1, 0, 0, 0, 0.1, 0.2, 0.3, 0.4]);
    const { max, entropy } = engine.rowStats(p, 3, 4);
    expect(Array.from(max)).toEqual([0.25, 1, 0.4].map(Math.fround));
    const h = [Math.log(4), 0, -sum([0.1, 0.2, 0.3, 0.4].map((x) => Math.fround(x) * Math.log(Math.fround(x))))];
    expectClose(entropy, h, { rel: 1e-6 }, 'entropy'); // float32 ulps
  });
});

// ---------------------------------------------------------------- attention

describe('attention', () => {
  const shapes = [
    { nq: 3, nk: 5, dk: 4, dv: 6 },                          // default scale 1/√dk
    { nq: 5, nk: 5, dk: 8, dv: 3, causal: true },
    { nq: 4, nk: 7, dk: 5, dv: 2, causal: true, scale: 0.3 },  // nq < nk, causal
    { nq: 7, nk: 3, dk: 9, dv: 10, causal: true },             // nq > nk, causal
    { nq: 6, nk: 3, dk: 16, dv: 9, scale: 1 },
    { nq: 1, nk: 1, dk: 1, dv: 1, scale: -2 },
  ];

  it.each(shapes)('matches the double reference: %o', (shape) => {
    const o = attentionInputs({ ...shape, seed: shape.nq * 10 + shape.dk });
    const { output, weights } = engine.attention(o), ref = attentionRef(o);
    expectClose(output, ref.output, { abs: 1e-5 }, 'output');   // values ~1, float32 sums of ≤ 16 terms
    expectClose(weights, ref.weights, { abs: 1e-5 }, 'weights');
  });

  it('omitting scale means 1/√dk, not 1', () => {
    const o = attentionInputs({ nq: 3, nk: 4, dk: 16, dv: 2, seed: 40 });
    o.q = o.q.map((x) => 4 * x);                              // large enough scores for the scale to matter
    const out = engine.attention(o).output;
    expectClose(out, engine.attention({ ...o, scale: 0.25 }).output, { abs: 1e-7 }, 'scale 1/4'); // same float
    expect(Math.max(...out.map((y, i) => Math.abs(y - attentionRef({ ...o, scale: 1 }).output[i])))).toBeGreaterThan(1e-2);
  });

  it('a fully masked row gives a zero output row and a zero weights row', () => {
    const o = attentionInputs({ nq: 3, nk: 4, dk: 5, dv: 3, seed: 50 });
    o.mask = Uint8Array.from([1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1]);  // row 1 masked out
    const { output, weights } = engine.attention(o), ref = attentionRef(o);
    expect(Array.from(output.subarray(3, 6))).toEqual([0, 0, 0]);
    expect(Array.from(weights.subarray(4, 8))).toEqual([0, 0, 0, 0]);
    expect(weights[1]).toBe(0);                               // a masked key in a live row
    expectClose(output, ref.output, { abs: 1e-5 }, 'output');  // float32 sums, values ~1
    expectClose(weights, ref.weights, { abs: 1e-5 }, 'weights');
  });
});

describe('attentionBackward', () => {
  // Engine float32 gradients vs the (exact to ~1e-9) double finite differences: gradients are ~1,
  // built from float32 matmuls of ≤ 16 terms, so 1e-5 absolute plus 1e-5 relative is ~20× the
  // observed error, and a wrong term (missing scale, transposed product) is off by > 1e-2.
  const tol = { abs: 1e-5, rel: 1e-5 };
  it.each([
    { nq: 3, nk: 4, dk: 5, dv: 2 },
    { nq: 4, nk: 4, dk: 3, dv: 6, causal: true },
    { nq: 5, nk: 3, dk: 6, dv: 4, causal: true, scale: 0.7 },
    { nq: 3, nk: 4, dk: 4, dv: 3, mask: Uint8Array.from([1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0]) },
  ])('matches central differences of the reference forward for q, k and v: %o', (shape) => {
    const o = attentionInputs({ ...shape, seed: 60 + shape.nq });
    const gradOutput = randomF32(shape.nq * shape.dv, 70);
    const { gradQ, gradK, gradV } = engine.attentionBackward({ ...o, gradOutput });
    const fd = finiteDifferenceGrads(o, gradOutput);
    expectClose(gradQ, fd.q, tol, 'gradQ');
    expectClose(gradK, fd.k, tol, 'gradK');
    expectClose(gradV, fd.v, tol, 'gradV');
  });
});

// ---------------------------------------------------------------- sampling

describe('sampling', () => {
  it('the same seed gives identical samples, a different seed different ones', () => {
    const dots = (seed) => engine.sampleDotProducts({ seed, dk: 16, count: 200 });
    const entries = (seed) => engine.sampleEntries({ seed, count: 500, distribution: 'uniform' });
    expect(dots(5)).toEqual(dots(5));
    expect(entries(5)).toEqual(entries(5));
    expect(dots(6)).not.toEqual(dots(5));
    expect(entries(6)).not.toEqual(entries(5));
    expect(engine.sampleEntries({ seed: 5, count: 500, stream: 1 })).not.toEqual(engine.sampleEntries({ seed: 5, count: 500 }));
  });

  it('pair i uses stream first + i: count 100 equals (37, first 0) followed by (63, first 37)', () => {
    for (const distribution of ['normal', 'uniform', 'rademacher']) {
      const base = { seed: 99, dk: 7, distribution };
      const whole = engine.sampleDotProducts({ ...base, count: 100 });
      const head = engine.sampleDotProducts({ ...base, count: 37, first: 0 });
      const tail = engine.sampleDotProducts({ ...base, count: 63, first: 37 });
      expect(Array.from(whole)).toEqual([...head, ...tail]);
      expect(Array.from(tail.subarray(0, 5))).not.toEqual(Array.from(head.subarray(0, 5)));
    }
  });

  it('at dk = 64 the dot products have mean 0 and variance dk (within 5 standard errors)', () => {
    const d = 64, N = 20000;
    const { mean, variance } = twoPass(engine.sampleDotProducts({ seed: 2024, dk: d, count: N }));
    // q·k of N(0,1) entries: Var = d, E(q·k)^4 = 3d² + 6d, so SE(s²) = sqrt((2d² + 6d)/N).
    expect(Math.abs(variance - d)).toBeLessThan(5 * d * Math.sqrt((2 + 6 / d) / N));
    expect(Math.abs(mean)).toBeLessThan(5 * Math.sqrt(d / N));
  });

  it('normal entries have the requested mean and std (within 5 standard errors)', () => {
    const N = 20000, mu = 1.5, sigma = 2;
    const { mean, variance } = twoPass(engine.sampleEntries({ seed: 3, count: N, mean: mu, std: sigma }));
    expect(Math.abs(mean - mu)).toBeLessThan(5 * sigma / Math.sqrt(N));
    expect(Math.abs(variance - sigma ** 2)).toBeLessThan(5 * sigma ** 2 * Math.sqrt(2 / N)); // normal: Var(s²) = 2σ⁴/N
  });

  it("'rademacher' entries are only mean ± std, each about half the time", () => {
    const x = engine.sampleEntries({ seed: 8, count: 4000, distribution: 'rademacher', mean: 0.5, std: 2 });
    const plus = x.filter((v) => v === 2.5).length, minus = x.filter((v) => v === -1.5).length;
    expect(plus + minus).toBe(4000);
    expect(Math.abs(plus - 2000)).toBeLessThan(5 * Math.sqrt(4000 / 4));  // binomial SE = √(N/4)
  });

  it("'uniform' entries stay within mean ± √3·std and fill that interval", () => {
    const mu = -1, sigma = 0.5, half = Math.sqrt(3) * sigma;
    const x = engine.sampleEntries({ seed: 9, count: 10000, distribution: 'uniform', mean: mu, std: sigma });
    // Rounding to float32 is monotonic, so the float32-rounded bounds are exact bounds.
    for (const v of x) expect(v >= Math.fround(mu - half) && v <= Math.fround(mu + half), `${v}`).toBe(true);
    expect(Math.min(...x)).toBeLessThan(mu - 0.99 * half);
    expect(Math.max(...x)).toBeGreaterThan(mu + 0.99 * half);
    expect(Math.abs(twoPass(x).variance - sigma ** 2)).toBeLessThan(0.02 * sigma ** 2); // SE ≈ 0.9%
  });
});

// ---------------------------------------------------------------- describe

describe('describe', () => {
  const x = engine.sampleEntries({ seed: 12, count: 5001, mean: 3, std: 2 });

  it('counts sum to n when [lo, hi] covers all values, including values equal to lo and hi', () => {
    const lo = Math.min(...x), hi = Math.max(...x);
    const d = engine.describe(x, { bins: 37, lo, hi });
    expect(d.counts.length).toBe(37);
    expect(d.n).toBe(x.length);
    expect(sum(Array.from(d.counts))).toBe(x.length);
    expect(d.counts[0]).toBeGreaterThan(0);
    expect(d.counts[36]).toBeGreaterThan(0);
  });

  it('values outside [lo, hi] are left out of the counts but not of the moments', () => {
    const d = engine.describe(f32([-5, 0.1, 0.6, 0.7, 5]), { bins: 2, lo: 0, hi: 1 });
    expect(Array.from(d.counts)).toEqual([1, 2]);
    expect(d.n).toBe(5);
  });

  it('mean and variance equal a two-pass computation within 1e-9 relative', () => {
    const d = engine.describe(x, { bins: 10, lo: -5, hi: 11 }), ref = twoPass(x);
    expect(Math.abs(d.mean - ref.mean)).toBeLessThan(1e-9 * Math.abs(ref.mean));
    expect(Math.abs(d.variance - ref.variance)).toBeLessThan(1e-9 * ref.variance);
  });

  it('the 95% intervals contain the estimate; the mean interval is ± 1.96·s/√n', () => {
    const d = engine.describe(x, { bins: 10, lo: -5, hi: 11 });
    expect(d.meanCI[0]).toBeLessThan(d.mean);
    expect(d.meanCI[1]).toBeGreaterThan(d.mean);
    expect(d.varianceCI[0]).toBeLessThan(d.variance);
    expect(d.varianceCI[1]).toBeGreaterThan(d.variance);
    const half = 1.959963984540054 * Math.sqrt(d.variance / d.n);
    expect(Math.abs((d.meanCI[1] - d.meanCI[0]) / 2 - half)).toBeLessThan(1e-12 * half + 1e-15);
    expect(d.varianceSE).toBeGreaterThan(0);
  });

  it('without a range it gives the same moments, intervals and tails, and no histogram', () => {
    const { counts, lo, hi, ...withRange } = engine.describe(x, { bins: 10, lo: -5, hi: 11 });
    expect(counts.length).toBe(10);
    const alone = engine.describe(x);
    expect(alone).toEqual(withRange);
    expect('counts' in alone || 'lo' in alone || 'hi' in alone).toBe(false);
    expect(engine.describe(x, {})).toEqual(withRange);
  });

  it('bins, lo and hi come together: a range with one missing is a TypeError naming it', () => {
    expect(() => engine.describe(x, { lo: -1, hi: 1 })).toThrow(/^describe: bins /);
    expect(() => engine.describe(x, { bins: 4, hi: 1 })).toThrow(/^describe: lo /);
    expect(() => engine.describe(x, { bins: 4, lo: -1 })).toThrow(/^describe: hi /);
    expect(() => engine.describe(x, { bins: 4, lo: -1 })).toThrow(TypeError);
    expect(() => engine.describe(new Float32Array(0))).toThrow(/x must hold at least one value/);
    expect(() => engine.describe(f32([1, NaN]))).toThrow(/x must be finite/);
  });
});

describe('rowSummaries', () => {
  it("gives each row's mean and interval exactly as describe does, and the median of the sorted row", () => {
    for (const cols of [1, 4, 7]) {
      const x = f32(Array.from(randomF32(3 * cols, cols, -2, 2), (v) => Math.round(4 * v) / 4));  // ties
      const s = engine.rowSummaries(x, 3, cols);
      for (const k of ['mean', 'meanLo', 'meanHi', 'median']) expect(s[k]).toBeInstanceOf(Float64Array);
      for (let r = 0; r < 3; r++) {
        const row = x.subarray(r * cols, (r + 1) * cols), d = engine.describe(row);
        expect([s.mean[r], s.meanLo[r], s.meanHi[r]]).toEqual([d.mean, ...d.meanCI]);
        const sorted = Array.from(row).sort((a, b) => a - b), m = cols >> 1;
        const median = cols % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
        expect(s.median[r] === median, `row ${r} of ${cols}: ${s.median[r]}, not ${median}`).toBe(true);  // (either zero may be the middle)
      }
    }
  });

  it('refuses a wrong length or a non-finite value, naming them, and stays usable', () => {
    const x = f32([1, 2, 3, 4, 5, 6]);
    expect(() => engine.rowSummaries(x, 4, 2)).toThrow('rowSummaries: x has 6 elements, expected rows*cols = 8');
    expect(() => engine.rowSummaries([1, 2], 1, 2)).toThrow(TypeError);
    expect(() => engine.rowSummaries(f32([1, 2, Infinity, 4]), 2, 2)).toThrow(/^rowSummaries: x\[2\] \(row 1, column 0\) is \+Infinity: x must be finite/);
    expect(Array.from(engine.rowSummaries(x, 2, 3).median)).toEqual([2, 5]);
  });
});

// ---------------------------------------------------------------- errors

// A correct call per method and a check of its result against the math (or, for the RNG, against
// a fresh engine), used after every error to show the module is still usable.
const reference = await createEngine();
const SX = f32([0.5, -1, 2, 3, 0, -0.25]);                      // (2, 3)
const SP = f32(softmaxRef(SX, 2, 3)), SG = f32([1, -2, 0.5, 0, 3, -1]);
const ATT = attentionInputs({ nq: 2, nk: 3, dk: 4, dv: 5, seed: 90 });
const GOUT = randomF32(10, 91);
const SAMPLE = { seed: 17, dk: 8, count: 50 }, ENTRIES = { seed: 17, count: 50, distribution: 'uniform' };
const ROWS = { dk: 8, n: 5, rows: 20, seed: 3 };
const ROW_SCORES = reference.sampleScores({ ...ROWS, scale: 1 });  // (20, 5)
const GOOD = {
  softmax: [[SX, 2, 3], (y) => expectClose(y, softmaxRef(SX, 2, 3), { rel: 1e-6 }, 'softmax')],
  softmaxNaive: [[SX, 2, 3], (y) => expectClose(y, softmaxRef(SX, 2, 3), { rel: 1e-6 }, 'softmaxNaive')],
  logSoftmax: [[SX, 2, 3], (y) => expectClose(y, softmaxRef(SX, 2, 3, true), { abs: 1e-6 }, 'logSoftmax')],
  softmaxBackward: [[SP, SG, 2, 3], (y) => expectClose(y, softmaxBackwardRef(SP, SG, 2, 3), { abs: 1e-6 }, 'dx')],
  rowStats: [[SP, 2, 3], ({ max }) => expect(Array.from(max)).toEqual([Math.max(...SP.subarray(0, 3)), Math.max(...SP.subarray(3))])],
  attention: [[ATT], ({ output }) => expectClose(output, attentionRef(ATT).output, { abs: 1e-5 }, 'output')],
  attentionBackward: [[{ ...ATT, gradOutput: GOUT }],
    ({ gradK }) => expectClose(gradK, finiteDifferenceGrads(ATT, GOUT).k, { abs: 1e-5, rel: 1e-5 }, 'gradK')],
  sampleDotProducts: [[SAMPLE], (y) => expect(y).toEqual(reference.sampleDotProducts(SAMPLE))],
  sampleEntries: [[ENTRIES], (y) => expect(y).toEqual(reference.sampleEntries(ENTRIES))],
  sampleSoftmaxRows: [[ROWS], (r) => expect(r).toEqual(reference.sampleSoftmaxRows(ROWS))],
  // sampleSoftmaxRows is scoreStats of the rows' scores drawn at scale 1, bit for bit
  scoreStats: [[ROW_SCORES, ROWS.rows, ROWS.n, 1 / Math.sqrt(ROWS.dk)], (r) => expect(r).toEqual(reference.sampleSoftmaxRows(ROWS))],
  sampleScores: [[ROWS], (s) => {
    expect(s).toEqual(reference.sampleScores(ROWS));
    expect(s.length).toBe(ROWS.rows * ROWS.n);
  }],
  scores: [[{ q: ATT.q, k: ATT.k, nq: 2, nk: 3, dk: 4 }], (s) =>
    expectClose(s, Array.from({ length: 6 }, (_, t) => {
      const i = Math.floor(t / 3), j = t % 3;
      let d = 0;
      for (let c = 0; c < 4; c++) d += ATT.q[i * 4 + c] * ATT.k[j * 4 + c];
      return d / 2;  // default scale 1/√4
    }), { abs: 1e-6 }, 'scores')],
  matmul: [[SX, SG, 2, 3, 2].map((v, i) => (i === 1 ? f32([1, 0, 0, 1, 1, 1]) : v)), (c) =>
    expectClose(c, [0.5 + 2, -1 + 2, 3 - 0.25, 0 - 0.25], { abs: 1e-6 }, 'matmul')],
  rowDots: [[SX, SG, 2, 3], (d) => expectClose(d, [0.5 * 1 + -1 * -2 + 2 * 0.5, 3 * 0 + 0 * 3 + -0.25 * -1], { abs: 1e-6 }, 'rowDots')],
  softmaxJacobian: [[f32([0.25, 0.75])], (j) => expectClose(j, [0.1875, -0.1875, -0.1875, 0.1875], { abs: 1e-7 }, 'J')],
  workspace: [[{ a: 4, b: 2 }], (ws) => {
    expect(Array.from(ws.a)).toEqual([0, 0, 0, 0]);
    expect(ws.b).toHaveLength(2);
    ws.dispose();
  }],
  describe: [[SX, { bins: 3, lo: -1, hi: 3 }], (d) => {
    // bins of width 4/3 over [-1, 3]: {-1, 0, -0.25} | {0.5} | {2, 3 (= hi, into the last bin)}
    expect(Array.from(d.counts)).toEqual([3, 1, 2]);
    expect(Math.abs(d.variance - twoPass(SX).variance)).toBeLessThan(1e-12);
  }],
  // SX as 2 rows of 3: [0.5, −1, 2] and [3, 0, −0.25]
  rowSummaries: [[SX, 2, 3], (s) => {
    expectClose(s.mean, [0.5, 2.75 / 3], { abs: 1e-12 }, 'rowSummaries mean');
    expect(Array.from(s.median)).toEqual([0.5, 0]);
  }],
};

// Bad-argument cases: [what, args, expected error class, code (set by the C++ checks; the
// type checks in engine.js set none), the text the message must contain after "<method>: "].
const NOT_ARRAYS = [['a plain Array', [1, 2, 3, 4, 5, 6]], ['a string', 'abcdef'], ['undefined', undefined],
  ['null', null], ['an object', { length: 6 }], ['a Float64Array', new Float64Array(6)]];
const NOT_OPTIONS = [['undefined', undefined], ['null', null], ['a string', 'q'], ['an Array', [1]],
  ['a Float32Array', new Float32Array(4)]];
const arrayCases = (name, make, wrongLength) => [
  ...NOT_ARRAYS.map(([what, v]) => [`${name} is ${what}`, make(v), TypeError, undefined, name]),
  [`${name} has the wrong length`, make(wrongLength), Error, 'SHAPE_MISMATCH', `${name} has ${wrongLength.length} elements`],
];
const sizeCases = (name, make, huge) => [
  ...[NaN, -2, 0, 1.5, Infinity, -Infinity].map((v) => [`${name} = ${v}`, make(v), RangeError, 'BAD_SIZE', name]),
  [`${name} = ${huge}`, make(huge), RangeError, 'SIZE_LIMIT', name],
  ...[['a string', '2'], ['undefined', undefined], ['null', null]].map(([what, v]) => [`${name} is ${what}`, make(v), TypeError, undefined, name]),
];
// Two-input (rows, cols) methods check in a fixed order, every array's type, then the sizes, then
// every length, so the first fault named is the same whichever way the arguments go wrong.
const orderCases = (a, b) => [
  [`${b} is a string and rows = NaN`, [SX, 'x', NaN, 3], TypeError, undefined, `${b} must be a Float32Array`],
  [`${a} is too short and cols = NaN`, [new Float32Array(5), SG, 2, NaN], RangeError, 'BAD_SIZE', 'cols must be'],
  [`${a} and ${b} are both too short`, [new Float32Array(5), new Float32Array(5), 2, 3], Error, 'SHAPE_MISMATCH', `${a} has 5 elements`],
];
const optionsCases = () => NOT_OPTIONS.map(([what, v]) => [`the options are ${what}`, [v], TypeError, undefined, 'options object']);
const seedCases = (name, make) => [
  ...[-1, 1.5, NaN, Infinity, 2 ** 53].map((v) => [`${name} = ${v}`, make(v), RangeError, 'BAD_VALUE', name]),
  [`${name} is a string`, make('7'), TypeError, undefined, name],
];
// The row-wise methods' last argument, { out }: an array to fill (its type, then its length).
const rowsOutCases = (make) => [
  ...NOT_OPTIONS.slice(1).map(([what, v]) => [`the options are ${what}`, make(v), TypeError, undefined, 'options object']),
  ...arrayCases('out', (out) => make({ out }), new Float32Array(5)).filter(([what]) => what !== 'out is undefined'),
];
const softmaxCases = [
  ...arrayCases('x', (x) => [x, 2, 3], new Float32Array(5)),
  ...sizeCases('rows', (r) => [SX, r, 3], 2 ** 25),
  ...sizeCases('cols', (c) => [SX, 2, c], 2 ** 25),
  ['rows = cols = 2^20', [SX, 2 ** 20, 2 ** 20], RangeError, 'SIZE_LIMIT', 'rows*cols'],
  ...rowsOutCases((o) => [SX, 2, 3, o]),
];
const att = (o) => [{ ...ATT, ...o }];
const attentionCases = [
  ...optionsCases(),
  ...['q', 'k', 'v'].flatMap((n) => arrayCases(n, (x) => att({ [n]: x }), new Float32Array(ATT[n].length + 1))),
  ...['nq', 'nk', 'dk', 'dv'].flatMap((n) => sizeCases(n, (x) => att({ [n]: x }), 2 ** 16 + 1)),
  ['nq = nk = 2^16', att({ nq: 2 ** 16, nk: 2 ** 16 }), RangeError, 'SIZE_LIMIT', 'nq*nk'],
  ['the shape of the documented example', [{ q: new Float32Array(100), k: new Float32Array(128),
    v: new Float32Array(128), nq: 8, nk: 8, dk: 16, dv: 16 }], Error, 'SHAPE_MISMATCH', 'q has 100 elements, expected nq*dk = 128'],
  ...[1, 'true', null, 0].map((c) => [`causal = ${c}`, att({ causal: c }), TypeError, undefined, 'causal']),
  ...[NaN, Infinity, -Infinity].map((s) => [`scale = ${s}`, att({ scale: s }), RangeError, 'BAD_VALUE', 'scale']),
  ['scale is a string', att({ scale: '0.5' }), TypeError, undefined, 'scale'],
  ['mask is a plain Array', att({ mask: [1, 1, 1, 1, 1, 1] }), TypeError, undefined, 'mask'],
  ['mask is a Float32Array', att({ mask: new Float32Array(6) }), TypeError, undefined, 'mask'],
  ['mask has the wrong length', att({ mask: new Uint8Array(5) }), Error, 'SHAPE_MISMATCH', 'mask has 5 elements'],
  ['bias is a plain Array', att({ bias: [0, 0, 0, 0, 0, 0] }), TypeError, undefined, 'bias'],
  ['bias is a Uint8Array', att({ bias: new Uint8Array(6) }), TypeError, undefined, 'bias'],
  ['bias has the wrong length', att({ bias: new Float32Array(7) }), Error, 'SHAPE_MISMATCH', 'bias has 7 elements'],
];
// The `out` option of attention and attentionBackward: output arrays by name.
const outCases = (names, wrongLength, expected) => [
  ...[['an Array', []], ['null', null], ['a Float32Array', new Float32Array(6)]].map(([what, v]) =>
    [`out is ${what}`, [{ out: v }], TypeError, undefined, `out to be an object of output arrays (${names.join(', ')})`]),
  ...names.flatMap((name) => NOT_ARRAYS.filter(([what]) => what !== 'undefined').map(([what, v]) =>
    [`out.${name} is ${what}`, [{ out: { [name]: v } }], TypeError, undefined, `out.${name}`])),
  [`out.${names[0]} has the wrong length`, [{ out: { [names[0]]: new Float32Array(wrongLength) } }], Error, 'SHAPE_MISMATCH',
    `out.${names[0]} has ${wrongLength} elements, expected ${expected}`],
  ['out names an array that is not an output', [{ out: { outptu: new Float32Array(6) } }], TypeError, undefined, 'out.outptu is not an output'],
];
const withGrad = (cases) => cases.map(([what, [o], ...rest]) =>
  [what, [o && typeof o === 'object' && !Array.isArray(o) && !ArrayBuffer.isView(o) ? { ...o, gradOutput: GOUT } : o], ...rest]);
const sampleCases = (base, extra) => [
  ...optionsCases(),
  ...seedCases('seed', (s) => [{ ...base, seed: s }]),
  ...['gaussian', 'Normal', '', 'toString', 0].map((d) => [`distribution = ${JSON.stringify(d)}`,
    [{ ...base, distribution: d }], RangeError, 'BAD_VALUE', 'distribution']),
  ...[2, 3.5, 101, NaN].map((df) => [`df = ${df} (student-t)`, [{ ...base, distribution: 'student-t', df }], RangeError, 'BAD_VALUE', 'df']),
  ['df is a string', [{ ...base, df: '5' }], TypeError, undefined, 'df'],
  ...[-1, NaN, Infinity].map((s) => [`std = ${s}`, [{ ...base, std: s }], RangeError, 'BAD_VALUE', 'std']),
  ...[NaN, -Infinity].map((m) => [`mean = ${m}`, [{ ...base, mean: m }], RangeError, 'BAD_VALUE', 'mean']),
  ['std is a string', [{ ...base, std: '1' }], TypeError, undefined, 'std'],
  ...extra,
];
const CASES = {
  softmax: softmaxCases, softmaxNaive: softmaxCases, logSoftmax: softmaxCases,
  softmaxBackward: [
    ...arrayCases('p', (p) => [p, SG, 2, 3], new Float32Array(7)),
    ...arrayCases('gradP', (g) => [SP, g, 2, 3], new Float32Array(5)),
    ...sizeCases('rows', (r) => [SP, SG, r, 3], 2 ** 25),
    ...sizeCases('cols', (c) => [SP, SG, 2, c], 2 ** 25),
    ...orderCases('p', 'gradP'),
    ...rowsOutCases((o) => [SP, SG, 2, 3, o]),
  ],
  rowStats: [
    ...arrayCases('p', (p) => [p, 2, 3], new Float32Array(4)),
    ...sizeCases('rows', (r) => [SP, r, 3], 2 ** 25),
    ...sizeCases('cols', (c) => [SP, 2, c], 2 ** 25),
  ],
  attention: [...attentionCases, ...outCases(['output', 'weights'], 9, 'nq*dv = 10').map(([what, [o], ...rest]) => [what, att(o), ...rest])],
  attentionBackward: [
    ...withGrad(attentionCases),
    ...arrayCases('gradOutput', (g) => att({ gradOutput: g }), new Float32Array(9)),
    ...outCases(['gradQ', 'gradK', 'gradV'], 7, 'nq*dk = 8').map(([what, [o], ...rest]) => [what, att({ ...o, gradOutput: GOUT }), ...rest]),
  ],
  sampleDotProducts: sampleCases(SAMPLE, [
    ...sizeCases('dk', (d) => [{ ...SAMPLE, dk: d }], 2 ** 16 + 1),
    ...sizeCases('count', (c) => [{ ...SAMPLE, count: c }], 2 ** 24 + 1),
    ...seedCases('first', (f) => [{ ...SAMPLE, first: f }]),
    ...[1.5, -2, NaN].map((r) => [`rho = ${r}`, [{ ...SAMPLE, rho: r }], RangeError, 'BAD_VALUE', 'rho']),
    ['rho is a string', [{ ...SAMPLE, rho: '0.5' }], TypeError, undefined, 'rho'],
    ...[1, 'yes'].map((l) => [`layernorm = ${JSON.stringify(l)}`, [{ ...SAMPLE, layernorm: l }], TypeError, undefined, 'layernorm']),
    ['layernorm with dk = 1', [{ ...SAMPLE, dk: 1, layernorm: true }], RangeError, 'BAD_VALUE', 'layernorm needs dk >= 2'],
  ]),
  // the two take the same options: one random query against n keys per row
  ...Object.fromEntries(['sampleSoftmaxRows', 'sampleScores'].map((fn) => [fn, [
    ...optionsCases(),
    ...sizeCases('dk', (d) => [{ ...ROWS, dk: d }], 2 ** 16 + 1),
    ...sizeCases('n', (n) => [{ ...ROWS, n }], 2 ** 16 + 1),
    ...sizeCases('rows', (r) => [{ ...ROWS, rows: r }], 2 ** 24 + 1),
    ['n = rows = 2^16', [{ ...ROWS, n: 2 ** 16, rows: 2 ** 16 }], RangeError, 'SIZE_LIMIT', 'rows*n'],
    ...seedCases('seed', (s) => [{ ...ROWS, seed: s }]),
    ...seedCases('first', (f) => [{ ...ROWS, first: f }]),
    ...[NaN, Infinity, -Infinity, 1e39].map((v) => [`scale = ${v}`, [{ ...ROWS, scale: v }], RangeError, 'BAD_VALUE', 'scale']),
  ]])),
  scoreStats: [
    ...arrayCases('scores', (x) => [x, 20, 5], new Float32Array(99)),
    ...sizeCases('rows', (r) => [ROW_SCORES, r, 5], 2 ** 24 + 1),
    ...sizeCases('n', (n) => [ROW_SCORES, 20, n], 2 ** 16 + 1),
    ...[NaN, Infinity, -Infinity, 1e39].map((v) => [`scale = ${v}`, [ROW_SCORES, 20, 5, v], RangeError, 'BAD_VALUE', 'scale']),
    ['scale is a string', [ROW_SCORES, 20, 5, '2'], TypeError, undefined, 'scale'],
    ...[NaN, Infinity].map((v) => [`a score is ${v}`, [ROW_SCORES.map((x, i) => (i === 7 ? v : x)), 20, 5], RangeError, 'BAD_VALUE', 'scores must be finite']),
  ],
  scores: [
    ...optionsCases(),
    ...['q', 'k'].flatMap((n) => arrayCases(n, (x) => [{ q: ATT.q, k: ATT.k, nq: 2, nk: 3, dk: 4, [n]: x }], new Float32Array(ATT[n].length - 1))),
    ...['nq', 'nk', 'dk'].flatMap((n) => sizeCases(n, (x) => [{ q: ATT.q, k: ATT.k, nq: 2, nk: 3, dk: 4, [n]: x }], 2 ** 16 + 1)),
    ...[NaN, -Infinity, -1e39].map((v) => [`scale = ${v}`, [{ q: ATT.q, k: ATT.k, nq: 2, nk: 3, dk: 4, scale: v }], RangeError, 'BAD_VALUE', 'scale']),
  ],
  matmul: [
    ...arrayCases('a', (a) => [a, SG, 2, 3, 2], new Float32Array(5)),
    ...arrayCases('b', (b) => [SX, b, 2, 3, 2], new Float32Array(7)),
    ...['m', 'k', 'n'].flatMap((name, i) => sizeCases(name, (v) => { const args = [SX, SG, 2, 3, 2]; args[2 + i] = v; return args; }, 2 ** 25)),
  ],
  rowDots: [
    ...arrayCases('a', (a) => [a, SG, 2, 3], new Float32Array(5)),
    ...arrayCases('b', (b) => [SX, b, 2, 3], new Float32Array(7)),
    ...sizeCases('rows', (r) => [SX, SG, r, 3], 2 ** 25),
    ...sizeCases('cols', (c) => [SX, SG, 2, c], 2 ** 25),
    ...orderCases('a', 'b'),
  ],
  softmaxJacobian: [
    ...NOT_ARRAYS.map(([what, v]) => [`p is ${what}`, [v], TypeError, undefined, 'p']),
    ['p is empty', [new Float32Array(0)], RangeError, 'BAD_SIZE', 'p must hold at least one value'],
    ['p is too long for an n×n result', [new Float32Array(4097)], RangeError, 'SIZE_LIMIT', 'n*n'],
  ],
  sampleEntries: sampleCases(ENTRIES, [
    ...sizeCases('count', (c) => [{ ...ENTRIES, count: c }], 2 ** 24 + 1),
    ...seedCases('stream', (s) => [{ ...ENTRIES, stream: s }]),
  ]),
  workspace: [
    ...NOT_OPTIONS.map(([what, v]) => [`the sizes are ${what}`, [v], TypeError, undefined, 'an object of sizes']),
    ['no names', [{}], RangeError, 'BAD_SIZE', 'name at least one array'],
    ...sizeCases('q', (n) => [{ k: 4, q: n }], 2 ** 24 + 1),
    ...['dispose', 'disposed'].map((name) => [`an array named ${name}`, [{ [name]: 4 }], RangeError, 'BAD_VALUE', `${name} cannot name an array`]),
  ],
  describe: [
    ...arrayCases('x', (x) => [x, { bins: 3, lo: -1, hi: 3 }], new Float32Array(0)).slice(0, -1),
    ['x is empty', [new Float32Array(0), { bins: 3, lo: -1, hi: 3 }], RangeError, 'BAD_SIZE', 'x'],
    // (no options at all is the moments without a histogram)
    ...NOT_OPTIONS.filter(([, v]) => v !== undefined).map(([what, v]) => [`the options are ${what}`, [SX, v], TypeError, undefined, 'options object']),
    ...sizeCases('bins', (b) => [SX, { bins: b, lo: -1, hi: 3 }], 4097),
    ...[[1, 1], [3, -1], [NaN, 1], [0, Infinity], [-Infinity, 0]].map(([lo, hi]) =>
      [`[lo, hi] = [${lo}, ${hi}]`, [SX, { bins: 3, lo, hi }], RangeError, 'BAD_VALUE', '[lo, hi]']),
    ['lo is a string', [SX, { bins: 3, lo: '0', hi: 1 }], TypeError, undefined, 'lo'],
  ],
  rowSummaries: [
    ...arrayCases('x', (x) => [x, 2, 3], new Float32Array(5)),
    ...sizeCases('rows', (r) => [SX, r, 3], 2 ** 25),
    ...sizeCases('cols', (c) => [SX, 2, c], 2 ** 25),
    ...[NaN, Infinity].map((v) => [`a value is ${v}`, [SX.map((x, i) => (i === 4 ? v : x)), 2, 3], RangeError, 'BAD_VALUE', 'x must be finite']),
  ],
};

describe('errors', () => {
  it('every method has bad-argument cases and a correct call (the tables cover the whole API)', () => {
    // createTrainer's argument cases live in tests/js/train.test.js
    const methods = Object.keys(engine).filter((k) => typeof engine[k] === 'function' && k !== 'memoryBytes' && k !== 'createTrainer');
    expect(methods.sort()).toEqual(Object.keys(CASES).sort());
    expect(Object.keys(GOOD).sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))('%s: each bad argument throws an Error named after the method and the argument, and the engine stays usable', (fn) => {
    const [goodArgs, check] = GOOD[fn];
    check(engine[fn](...goodArgs));
    for (const [what, args, Type, code, names] of CASES[fn]) {
      let err;
      try { engine[fn](...args); } catch (e) { err = e; }
      const label = `${fn} with ${what}`;
      expect(err, `${label}: no error thrown`).toBeInstanceOf(Error);
      expect(err, `${label}: ${err.constructor.name} ${err.message}`).toBeInstanceOf(Type);
      expect(err.message.startsWith(`${fn}: `), `${label}: message "${err.message}"`).toBe(true);
      expect(err.message, label).toContain(names);
      if (code !== undefined) expect(err.code, `${label}: ${err.message}`).toBe(code);
      check(engine[fn](...goodArgs));              // still usable, still correct
    }
  });
});

// ---------------------------------------------------------------- memory

describe('memory', () => {
  it('after a warm-up, 2000 mixed calls at fixed sizes do not grow memoryBytes()', () => {
    // Arrays of 2^18 floats (1 MiB): a buffer leaked per call would add >= 200 MiB over 2000
    // calls, far more than the slack the heap keeps after growing, so memoryBytes() would grow.
    const e = engine, x = randomF32(256 * 1024, 100), gradOutput = randomF32(256 * 64, 101);
    const o = attentionInputs({ nq: 256, nk: 256, dk: 64, dv: 64, seed: 102, causal: true });
    const calls = [
      () => e.softmax(x, 256, 1024), () => e.logSoftmax(x, 256, 1024), () => e.softmaxBackward(x, x, 256, 1024),
      () => e.attention(o), () => e.attentionBackward({ ...o, gradOutput }), () => e.rowStats(x, 256, 1024),
      () => e.sampleDotProducts({ seed: 1, dk: 64, count: 500 }), () => e.sampleEntries({ seed: 1, count: 2 ** 18 }),
      () => e.describe(x, { bins: 50, lo: -1, hi: 1 }),
      () => { try { e.attention({ ...o, nq: 255 }); } catch { /* an error path too */ } },
    ];
    for (const call of calls) call();
    const before = e.memoryBytes();
    for (let i = 0; i < 2000; i++) calls[i % calls.length]();
    expect(e.memoryBytes()).toBe(before);
    expectClose(e.softmax(SX, 2, 3), softmaxRef(SX, 2, 3), { rel: 1e-6 }, 'softmax afterwards'); // float32 ulps
  });
});

describe('attention bias (an additive float mask)', () => {
  const o = attentionInputs({ nq: 3, nk: 5, dk: 4, dv: 2, seed: 70 });
  it('a bias that is constant along each row changes nothing: softmax depends only on differences', () => {
    const bias = new Float32Array(15).map((_, t) => [3, -7, 0.5][Math.floor(t / 5)]);
    expectClose(engine.attention({ ...o, bias }).weights, engine.attention(o).weights, { abs: 1e-6 }, 'weights');
  });
  it('a bias of −1e9 at some keys gives the same weights as masking those keys', () => {
    const keep = new Uint8Array(15).map((_, t) => (t % 5 === 1 || t === 7 ? 0 : 1));
    const bias = Float32Array.from(keep, (m) => (m ? 0 : -1e9));
    const masked = engine.attention({ ...o, mask: keep }).weights;
    expectClose(engine.attention({ ...o, bias }).weights, masked, { abs: 1e-7 }, 'weights');
    expect(masked[1]).toBe(0);
    // and a bias that is not constant does change the weights
    expect(engine.attention({ ...o, bias: new Float32Array(15).map((_, t) => t % 5) }).weights).not.toEqual(engine.attention(o).weights);
  });
});

describe('memory growth', () => {
  it('the first call whose inputs make the wasm memory grow succeeds (the heap view is read after the growth)', async () => {
    for (const simd of [true, false]) {
      const fresh = await createEngine({ simd });
      const before = fresh.memoryBytes();
      const rows = 1024, cols = 4096;  // 16 MiB of input: more than a fresh engine has
      const x = new Float32Array(rows * cols).map((_, i) => (i % cols) / cols);
      const p = fresh.softmax(x, rows, cols);
      expect(fresh.memoryBytes()).toBeGreaterThan(before);
      let sum = 0;
      for (let j = 0; j < cols; j++) sum += p[j];
      expect(sum).toBeCloseTo(1, 4);
      // and the mask slot, written the same way
      const n = 8, o = { q: new Float32Array(n * 4).fill(0.5), k: new Float32Array(n * 4).fill(0.5), v: new Float32Array(n * 4).fill(1), nq: n, nk: n, dk: 4, dv: 4 };
      expect(fresh.attention({ ...o, mask: new Uint8Array(n * n).fill(1) }).output[0]).toBeCloseTo(1, 6);
    }
  });
});
