// The experiments of the first three steps (setup, product-variance, dot-variance), run with the
// real engine as the worker runs them. Expected values come from the math, computed here.
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../web/engine.js';
import { drain, run } from './drain.js';
import { setupScores } from '../../web/experiments/setup.js';
import { FOURTH_MOMENT, besselK0, binMean, productDensity, productVariance } from '../../web/experiments/product-variance.js';
import { SWEEP_DK, dotVariance, dotVarianceSweep, sweepPairs } from '../../web/experiments/dot-variance.js';
import { borrowEntries, sampleDots } from '../../web/experiments/chunks.js';

const engine = await createEngine();


// ∫_a^b f by composite Simpson with m (even) panels.
function simpson(f, a, b, m = 200) {
  const h = (b - a) / m;
  let s = f(a) + f(b);
  for (let i = 1; i < m; i++) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}

describe('setup: Q, K and S = QKᵀ', () => {
  it('returns Q (3×d_k), K (4×d_k) and S (3×4) with S_ij = q_i·k_j, not the transpose', () => {
    for (const dk of [2, 5, 8]) {
      const r = run(setupScores(engine, { dk, seed: 3 }));
      expect(r.q.length).toBe(3 * dk);
      expect(r.k.length).toBe(4 * dk);
      expect(r.s.length).toBe(12);
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 4; j++) {
          let dot = 0, abs = 0;
          for (let l = 0; l < dk; l++) { dot += r.q[i * dk + l] * r.k[j * dk + l]; abs += Math.abs(r.q[i * dk + l] * r.k[j * dk + l]); }
          // float32 sum of dk products: |error| <= (dk + 1)·u·Σ|terms|, u = 2⁻²⁴
          expect(Math.abs(r.s[i * 4 + j] - dot)).toBeLessThanOrEqual((dk + 1) * 2 ** -24 * abs + 1e-30);
        }
    }
  });

  it('is reproducible from its seed, and Q and K come from different streams', () => {
    const a = run(setupScores(engine, { dk: 4, seed: 9 }));
    const b = run(setupScores(engine, { dk: 4, seed: 9 }));
    const c = run(setupScores(engine, { dk: 4, seed: 10 }));
    expect(b.s).toEqual(a.s);
    expect(c.s).not.toEqual(a.s);
    expect(Array.from(a.k.subarray(0, 12))).not.toEqual(Array.from(a.q));
  });

  it('a larger d_k appends entries to every query and key: the entries shown at the smaller d_k stay', () => {
    const small = run(setupScores(engine, { dk: 4, seed: 2 }));
    for (const dk of [5, 8, 64]) {
      const big = run(setupScores(engine, { dk, seed: 2 }));
      for (const m of ['q', 'k'])
        for (let i = 0; i < small[m].length / 4; i++)
          expect(Array.from(big[m].subarray(i * dk, i * dk + 4))).toEqual(Array.from(small[m].subarray(i * 4, i * 4 + 4)));
    }
    // and no two rows share their entries (each has a stream of its own)
    const rows = [...Array.from({ length: 3 }, (_, i) => small.q.subarray(i * 4, i * 4 + 4)),
      ...Array.from({ length: 4 }, (_, j) => small.k.subarray(j * 4, j * 4 + 4))].map((r) => Array.from(r).join());
    expect(new Set(rows).size).toBe(7);
  });
});

describe('product-variance: XY for independent entries', () => {
  it('K₀ matches reference values, and K₀(|x|)/π and ln(3/|x|)/6 are densities of variance 1', () => {
    // K₀(0.1), K₀(1), K₀(5) (Abramowitz & Stegun, Table 9.8, to 10 digits)
    expect(besselK0(0.1)).toBeCloseTo(2.4270690247, 9);
    expect(besselK0(1)).toBeCloseTo(0.4210244382, 9);
    expect(besselK0(5)).toBeCloseTo(0.0036910983, 9);
    for (const d of ['normal', 'uniform']) {
      const f = productDensity(d);
      // ∫₀¹ with x = e^(−t), which removes the logarithmic spike at 0; ∫₁^∞ directly
      // (in two parts, since the uniform product's density has a kink at 3)
      const low = (p) => simpson((t) => f(Math.exp(-t)) * Math.exp(-(p + 1) * t), 0, 60, 4000);
      const high = (p) => simpson((x) => x ** p * f(x), 1, 3, 2000) + simpson((x) => x ** p * f(x), 3, 40, 20000);
      const mass = 2 * (low(0) + high(0));
      const second = 2 * (low(2) + high(2));
      expect(mass).toBeCloseTo(1, 6);
      expect(second).toBeCloseTo(1, 6);
    }
    expect(productDensity('rademacher')).toBeNull();
  });

  it('a bin\'s exact mean density is finite at the spike, and the bins\' means integrate to 1', () => {
    // uniform entries, in closed form: ∫ ln(3/x)/6 dx = x(ln(3/x) + 1)/6
    const u = productDensity('uniform'), F = (x) => (x * (Math.log(3 / x) + 1)) / 6;
    expect(binMean(u, -0.1, 0.1)).toBeCloseTo((2 * F(0.1)) / 0.2, 6);  // the bar over the spike
    expect(binMean(u, 0.1, 0.3)).toBeCloseTo((F(0.3) - F(0.1)) / 0.2, 6);
    expect(binMean(u, -3.1, -2.9)).toBeCloseTo((F(3) - F(2.9)) / 0.2, 5);  // the kink at 3 inside
    // normal entries: bars of 0.2 over ±40 hold all the mass; the centre bar, from K₀'s series
    // near 0, ∫₀ᵃ K₀ ≈ a(1 − γ − ln(a/2)) + (a³/12)(4/3 − γ − ln(a/2)), is (2/π)·0.34216/0.2 = 1.0891
    const f = productDensity('normal');
    let total = 0;
    for (let b = 0; b < 401; b++) total += 0.2 * binMean(f, -40.1 + 0.2 * b, -39.9 + 0.2 * b);
    expect(total).toBeCloseTo(1, 6);
    expect(binMean(f, -0.1, 0.1)).toBeCloseTo(1.0891, 3);
    expect(binMean(f, 0.1, 0.3)).toBeLessThan(binMean(f, -0.1, 0.1));
  });

  it('measures variance 1 for every entry law, kurtosis E[X⁴]², and states its own uncertainty', () => {
    const n = 100000;
    for (const distribution of ['normal', 'uniform', 'rademacher']) {
      const r = run(productVariance(engine, { count: n, seed: 5, distribution }));
      const k = FOURTH_MOMENT[distribution] ** 2;
      expect(r.summary.n).toBe(n);
      // SE(s²) = √((E[(XY)⁴] − 1)/n); Rademacher: s² − 1 is O(1/n) (see the C++ claims)
      expect(Math.abs(r.summary.variance - 1)).toBeLessThan(5 * Math.sqrt((k - 1) / n) + 30 / n);
      expect(Math.abs(r.summary.mean)).toBeLessThan(5 / Math.sqrt(n));
      // the fourth moment E[(XY)⁴] and the kurtosis, each within 5 of its own SEs (plus O(1/n))
      const fourthSE = (r.fourth.ci[1] - r.fourth.ci[0]) / (2 * 1.96);
      expect(Math.abs(r.fourth.value - k)).toBeLessThan(5 * fourthSE + 30 / n);
      expect(Math.abs(r.kurtosis.value - k)).toBeLessThan(5 * r.kurtosis.se + 30 / n);
    }
    // normal factors: SE(κ̂) = √((E[Z⁸] − 4κE[Z⁶] + 4κ³ − κ²)/n) = √(5760/n), from 105², 15², 9
    const r = run(productVariance(engine, { count: n, seed: 6 }));
    expect(r.kurtosis.se).toBeGreaterThan(0.75 * Math.sqrt(5760 / n));
    expect(r.kurtosis.se).toBeLessThan(1.25 * Math.sqrt(5760 / n));
    expect(r.kurtosis.ci[0]).toBeGreaterThan(3);  // the product is measurably not normal
  });

  it('its histogram follows the exact density (chi-square over bins), and ±1 entries fill two bins only', () => {
    const n = 100000;
    const r = run(productVariance(engine, { count: n, seed: 7, distribution: 'normal' }));
    const { counts, lo, hi } = r.summary;
    expect(counts.length % 2).toBe(1);  // a bin centred on 0, where the density has its spike
    expect(lo).toBe(-hi);
    // beside the counts, the exact density's mean over each bin: finite over the spike (1.0891 for
    // bins of 0.2, from K₀'s series above); ±1 entries have no density
    expect(r.exactBars).toHaveLength(counts.length);
    expect(r.exactBars[(counts.length - 1) / 2]).toBeCloseTo(1.0891, 3);
    expect(run(productVariance(engine, { count: 1000, seed: 7, distribution: 'rademacher' })).exactBars).toBeNull();
    const w = (hi - lo) / counts.length, f = productDensity('normal');
    let chi2 = 0, dof = 0;
    counts.forEach((c, b) => {
      const a = lo + b * w, z = a + w;
      // the centre bin holds the singularity: its mass is 1 − the mass of |x| >= w/2
      const p = a < 0 && z > 0 ? null : simpson(f, a, z, 64);
      if (p === null || p * n < 5) return;
      chi2 += (c - n * p) ** 2 / (n * p);
      dof += 1;
    });
    // χ² with about 45 degrees of freedom: mean 45, SD √90 ≈ 9.5; 6 SD above the mean is far out
    expect(chi2).toBeLessThan(dof + 6 * Math.sqrt(2 * dof));
    // and the normal density with the same variance is rejected outright
    let chi2N = 0;
    counts.forEach((c, b) => {
      const a = lo + b * w;
      const p = simpson((x) => Math.exp(-x * x / 2) / Math.sqrt(2 * Math.PI), a, a + w, 64);
      if (p * n >= 5) chi2N += (c - n * p) ** 2 / (n * p);
    });
    expect(chi2N).toBeGreaterThan(100 * dof);

    const rad = run(productVariance(engine, { count: 2000, seed: 7, distribution: 'rademacher' }));
    const filled = Array.from(rad.summary.counts).map((c, b) => [c, lo + (b + 0.5) * w]).filter(([c]) => c > 0);
    expect(filled.map(([, x]) => Math.round(x * 10) / 10)).toEqual([-1, 1]);
    expect(filled[0][0] + filled[1][0]).toBe(2000);
  });

  it('is reproducible from its seed', () => {
    const a = run(productVariance(engine, { count: 5000, seed: 11 }));
    const b = run(productVariance(engine, { count: 5000, seed: 11 }));
    const c = run(productVariance(engine, { count: 5000, seed: 12 }));
    expect(b.kurtosis.value).toBe(a.kurtosis.value);
    expect(c.kurtosis.value).not.toBe(a.kurtosis.value);
  });
});

describe('dot-variance: the sweep over d_k', () => {
  it('follows the stated schedule: 1 … 4096, n = clamp(2¹⁵/d_k, 64, 4096), with progress between points', () => {
    const { result, progress } = drain(dotVarianceSweep(engine, { seed: 1 }));
    expect(result.points.map((p) => p.dk)).toEqual(SWEEP_DK);
    expect(SWEEP_DK[0]).toBe(1);
    expect(SWEEP_DK.at(-1)).toBe(4096);
    expect(result.points.map((p) => p.count)).toEqual(SWEEP_DK.map((d) => Math.min(4096, Math.max(64, 2 ** 15 / d))));
    expect(result.points.map((p) => p.count)).toEqual(SWEEP_DK.map(sweepPairs));
    expect(result.normals).toBe(SWEEP_DK.reduce((s, d) => s + 2 * d * sweepPairs(d), 0));
    expect(progress.length).toBe(SWEEP_DK.length - 1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]);
    expect(progress.at(-1)).toBeLessThan(1);
  });

  it('measures Var(q·k) within 5 SE of d_k at every point', () => {
    const { points } = run(dotVarianceSweep(engine, { seed: 2 }));
    for (const p of points) {
      const se = p.dk * Math.sqrt((2 + 6 / p.dk) / p.count);  // 4th central moment of q·k: 3d² + 6d
      expect(Math.abs(p.variance - p.dk), `d_k = ${p.dk}`).toBeLessThan(5 * se);
      expect(p.varianceCI[0]).toBeGreaterThan(0);  // drawable on a log axis
    }
  });

  it('each point is the variance of the first n pairs the histogram draws at that d_k', () => {
    const seed = 4, dk = 64;
    const sweep = run(dotVarianceSweep(engine, { seed, dks: [dk] }));
    const n = sweep.points[0].count;
    const pairs = engine.sampleDotProducts({ dk, count: 5000, seed });
    const first = engine.describe(pairs.subarray(0, n), { bins: 1, lo: -1, hi: 1 });
    expect(sweep.points[0].variance).toBe(first.variance);
    const hist = run(dotVariance(engine, { dk, count: 5000, seed }));
    const all = engine.describe(pairs, { bins: 1, lo: -1, hi: 1 });
    expect(hist.raw.variance).toBe(all.variance);
  });
});

describe('sampleDots: a count moved reuses what the engine drew', () => {
  // an engine that counts the pairs it is asked to draw
  const counting = (e) => {
    const spy = { ...e, drawn: 0 };
    spy.sampleDotProducts = (p) => { spy.drawn += p.count; return e.sampleDotProducts(p); };
    return spy;
  };
  it('draws only the new pairs when the count grows, none when it shrinks, and returns what a fresh engine does', async () => {
    const e = counting(await createEngine());
    const fresh = await createEngine();
    const params = { dk: 32, seed: 11, distribution: 'uniform', std: 2 };
    const steps = [[3000, 3000], [8000, 5000], [1000, 0], [8000, 0], [9000, 1000]];
    for (const [count, drawn] of steps) {
      e.drawn = 0;
      const got = run(sampleDots(e, { ...params, count }));
      expect(e.drawn).toBe(drawn);
      expect(Array.from(got)).toEqual(Array.from(fresh.sampleDotProducts({ ...params, count })));  // one call, nothing kept
    }
    // another seed, another dk or a stream offset is another sample: drawn anew
    for (const other of [{ seed: 12 }, { dk: 16 }, { first: 5 }]) {
      e.drawn = 0;
      const got = run(sampleDots(e, { ...params, ...other, count: 100 }));
      expect(e.drawn).toBe(100);
      expect(Array.from(got)).toEqual(Array.from(fresh.sampleDotProducts({ ...params, ...other, count: 100 })));
    }
  });
  it('returns a copy: changing a result does not change the next', async () => {
    const e = await createEngine();
    const a = run(sampleDots(e, { dk: 8, count: 50, seed: 2 }));
    const keep = Array.from(a);
    a.fill(0);
    expect(Array.from(run(sampleDots(e, { dk: 8, count: 50, seed: 2 })))).toEqual(keep);
  });
  it('borrowEntries: sampleEntries\' values, drawn once into engine memory; fewer entries are a prefix view of the same block', async () => {
    const e = await createEngine();
    let drawn = 0;
    const spy = { ...e, sampleEntries: (p) => { drawn += p.count; return e.sampleEntries(p); } };
    const a = borrowEntries(spy, { count: 64, seed: 4, stream: 0 });
    expect(Array.from(a.view())).toEqual(Array.from(e.sampleEntries({ count: 64, seed: 4, stream: 0 })));
    const b = borrowEntries(spy, { count: 16, seed: 4, stream: 0 });
    expect(b.view().byteOffset).toBe(a.view().byteOffset);
    expect(b.view().length).toBe(16);
    expect(drawn).toBe(64);
    a.release(); b.release();
    expect(Array.from(borrowEntries(spy, { count: 64, seed: 4, stream: 0 }).view())).toEqual(Array.from(e.sampleEntries({ count: 64, seed: 4, stream: 0 })));
    expect(drawn).toBe(64);
  });
  it('borrowEntries never disposes a block a run holds; released ones beyond 2²⁰ values go oldest first, and a new draw reuses engine memory', async () => {
    const e = await createEngine();
    const n = 400_000;  // three blocks are more than the 2²⁰ values kept
    const [first, second, third] = [1, 2, 3].map((seed) => borrowEntries(e, { count: n, seed, stream: 0 }));
    second.release();
    third.release();
    expect(first.view().length).toBe(n);  // held: still there, though the oldest
    expect(() => second.view()).toThrow(/disposed/);  // the oldest no run holds: gone
    expect(third.view().length).toBe(n);  // the newest
    first.release();
    expect(first.view().length).toBe(n);  // two blocks are within 2²⁰ values
    borrowEntries(e, { count: n, seed: 4, stream: 0 }).release();
    expect(() => first.view()).toThrow(/disposed/);
    expect(third.view().length).toBe(n);
    // more entries of a stream replace its block once the run holding the old one lets go
    const small = borrowEntries(e, { count: 10, seed: 7, stream: 0 });
    const large = borrowEntries(e, { count: 20, seed: 7, stream: 0 });
    expect(Array.from(small.view())).toEqual(Array.from(large.view().subarray(0, 10)));
    small.release();
    expect(() => small.view()).toThrow(/disposed/);
    large.release();
    // draws of new seeds land in memory freed by the old ones
    const bytes = e.memoryBytes();
    for (let seed = 10; seed < 20; seed++) borrowEntries(e, { count: n, seed, stream: 0 }).release();
    expect(e.memoryBytes()).toBe(bytes);
  });
});
