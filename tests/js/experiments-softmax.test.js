// The experiments of the softmax steps (softmax-saturation, vanishing-gradients, scaling-choices,
// temperature), run with the real engine as the worker runs them. Expected values come from the
// math, computed here in double precision, or from a direct engine call the experiment must agree with.
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../web/engine.js';
import { drain, run } from './drain.js';
import {
  COURSE_EXAMPLE, FORUM_EXAMPLE, SWEEP_DKS, softmaxSaturationRow, softmaxSpreadOdds, softmaxSweep,
} from '../../web/experiments/softmax-saturation.js';
import { vanishingGradientsRow, vanishingGradientsSweep } from '../../web/experiments/vanishing-gradients.js';
import { scalingChoicesRow, scalingChoicesSweep } from '../../web/experiments/scaling-choices.js';
import { TAU_GRID, stallCounter, temperatureSweep } from '../../web/experiments/temperature.js';

const engine = await createEngine();
const U = 2 ** -24;  // float32 unit roundoff

const mean = (xs) => Array.from(xs).reduce((s, x) => s + x, 0) / xs.length;
function softmaxD(x) {
  const m = Math.max(...x);
  const e = Array.from(x, (v) => Math.exp(v - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}
const f32 = (xs) => Array.from(Float32Array.from(xs));

// ---------------------------------------------------------------- the normal distribution, for an exact check

// erfc with relative error < 1.2·10⁻⁷ everywhere (Numerical Recipes' Chebyshev fit, erfcc).
function erfc(x) {
  const z = Math.abs(x), t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}
const Phi = (x) => 0.5 * erfc(-x / Math.SQRT2);
const phi = (x) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
function simpson(f, a, b, m = 400) {
  const h = (b - a) / m;
  let s = f(a) + f(b);
  for (let i = 1; i < m; i++) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}
const logGamma = (k) => { let s = 0; for (let i = 2; i < k; i++) s += Math.log(i); return s; };  // log Γ(k), integer k

// P(max − min of n scores >= w) when the scores are q·k_j for q, k_j with dk N(0, 1) entries:
// given ‖q‖ = r they are i.i.d. N(0, r²), and r has the χ distribution with dk degrees of freedom.
function spreadProbability(w, n, dk) {
  const range = (c) => 1 - n * simpson((x) => phi(x) * (Phi(x + c) - Phi(x)) ** (n - 1), -9, 9);
  const logNorm = (dk / 2 - 1) * Math.log(2) + logGamma(dk / 2);
  const chi = (r) => Math.exp((dk - 1) * Math.log(r) - (r * r) / 2 - logNorm);
  return simpson((r) => chi(r) * range(w / r), 3, 14, 200);
}

// ---------------------------------------------------------------- softmaxSweep

describe('softmaxSweep: per-row softmax statistics against d_k', () => {
  it('equals one direct sampleSoftmaxRows call per d_k and scale, however it is chunked', () => {
    const n = 8, rows = 40, seed = 11, dks = [1, 64, 1024];
    const s = run(softmaxSweep(engine, { n, rows, seed, dks, scales: ['none', 'sqrt', 'dk'] }));
    for (const [name, scale] of [['none', () => 1], ['sqrt', (d) => 1 / Math.sqrt(d)], ['dk', (d) => 1 / d]])
      dks.forEach((dk, i) => {
        const direct = engine.sampleSoftmaxRows({ dk, n, rows, seed, scale: scale(dk) });
        for (const stat of ['maxWeight', 'entropy', 'jacobianNorm', 'nonmaxGrad', 'scoreVariance'])
          expect(s.scales[name][stat].mean[i]).toBeCloseTo(mean(direct[stat]), 10);
        expect(s.scales[name].oneHot[i]).toBe(direct.nonmaxGrad.filter((g) => g === 0).length);
      });
  });

  it('reports progress on a fresh engine, and a second run reuses the draws: same numbers, no waiting', async () => {
    const fresh = await createEngine();
    const params = { n: 16, rows: 32, seed: 5 };
    const first = drain(softmaxSweep(fresh, params));
    expect(first.progress.length).toBeGreaterThan(3);
    for (let i = 1; i < first.progress.length; i++) expect(first.progress[i]).toBeGreaterThan(first.progress[i - 1]);
    expect(first.progress.at(-1)).toBeLessThanOrEqual(1);
    const second = drain(softmaxSweep(fresh, params));
    expect(second.progress).toEqual([]);
    expect(second.result).toEqual(first.result);
  });

  it('unscaled, the weights saturate as d_k grows; divided by √d_k they keep one distribution', () => {
    const s = run(softmaxSweep(engine, { n: 16, rows: 64, seed: 1 }));
    expect(s.dks).toEqual(SWEEP_DKS);
    const last = s.dks.length - 1, at16 = s.dks.indexOf(16);
    expect(s.scales.none.maxWeight.mean[last]).toBeGreaterThan(0.9);
    expect(s.scales.none.entropy.mean[last]).toBeLessThan(0.3);
    const scaled = s.scales.sqrt.maxWeight.mean.slice(at16);
    // 64 rows: SE of each mean ≈ 0.012, so all within ±0.06 of their average
    const avg = mean(scaled);
    for (const m of scaled) expect(Math.abs(m - avg)).toBeLessThan(0.06);
    for (let i = 0; i < s.dks.length; i++) {
      const { lo, hi, mean: m } = s.scales.sqrt.entropy;
      expect(lo[i]).toBeLessThanOrEqual(m[i]);
      expect(hi[i]).toBeGreaterThanOrEqual(m[i]);
    }
  });
  it('keeps every interval inside the range its statistic can take: no norm below 0, no max weight above 1', () => {
    const s = run(softmaxSweep(engine, { n: 2, rows: 8, seed: 1 }));
    const last = s.dks.length - 1, g = s.scales.none.nonmaxGrad;
    // 8 rows of 2 keys at d_k = 4096: a mean of 10⁻⁵ with one row carrying most of it, so the
    // normal interval's lower end falls below 0
    expect(g.mean[last] - (g.hi[last] - g.mean[last])).toBeLessThan(0);
    expect(g.lo[last]).toBe(0);
    for (const series of Object.values(s.scales))
      for (const stat of ['maxWeight', 'entropy', 'jacobianNorm', 'nonmaxGrad', 'scoreVariance'])
        series[stat].lo.forEach((lo, i) => {
          expect(lo).toBeGreaterThanOrEqual(0);
          expect(lo).toBeLessThanOrEqual(series[stat].mean[i]);
        });
    // …and none above a max weight's 1 or an entropy's ln n (rows near one-hot or near uniform)
    for (const series of Object.values(s.scales)) {
      for (const hi of series.maxWeight.hi) expect(hi).toBeLessThanOrEqual(1);
      for (const hi of series.entropy.hi) expect(hi).toBeLessThanOrEqual(Math.log(2));
    }
  });
});

// ---------------------------------------------------------------- softmax-saturation

describe('softmaxSaturationRow: one query, and the source texts recomputed', () => {
  const r = run(softmaxSaturationRow(engine, { dk: 64, n: 16, seed: 3, query: 5 }));

  it('shows one of the rows behind the curves: row query − 1 of sampleSoftmaxRows', () => {
    for (const [scale, max, entropy] of [[1, r.max, r.entropy], [1 / 8, r.maxScaled, r.entropyScaled]]) {
      const direct = engine.sampleSoftmaxRows({ dk: 64, n: 16, rows: 1, seed: 3, first: 4, scale });
      expect(max).toBe(direct.maxWeight[0]);
      expect(Math.abs(entropy - direct.entropy[0])).toBeLessThan(1e-6);
    }
  });

  it('computes the weights as the softmax of the shown scores, and the scaled scores as the raw ones over √d_k', () => {
    // float softmax: s_j − max rounds by up to |s_j − max|·u, which exp turns into that relative
    // error; a few more roundings in exp, the sum and the division
    const tol = (x, j) => (8 + 2 * Math.abs(x[j] - Math.max(...x))) * U;
    const ref = softmaxD(r.scores), refScaled = softmaxD(r.scaledScores);
    r.p.forEach((p, j) => expect(Math.abs(p - ref[j])).toBeLessThanOrEqual(tol(r.scores, j) * ref[j] + 1e-45));
    r.pScaled.forEach((p, j) => expect(Math.abs(p - refScaled[j])).toBeLessThanOrEqual(tol(r.scaledScores, j) * refScaled[j]));
    r.scaledScores.forEach((s, j) => expect(Math.abs(s - r.scores[j] / 8)).toBeLessThanOrEqual(2 * U * Math.abs(r.scores[j])));
  });

  it("checks the course text: its unscaled weights are right, its scaled ones sum to 0.85 and are off by more than rounding", () => {
    const c = r.sources.course;
    const ref = softmaxD(f32(COURSE_EXAMPLE.scores)), ref8 = softmaxD(f32(COURSE_EXAMPLE.scores.map((x) => x / 8)));
    c.p.forEach((p, j) => expect(Math.abs(p - ref[j])).toBeLessThanOrEqual(16 * U * ref[j]));
    c.pScaled.forEach((p, j) => expect(Math.abs(p - ref8[j])).toBeLessThanOrEqual(16 * U * ref8[j]));
    expect(c.claimedScaledSum).toBeCloseTo(0.85, 12);
    expect(c.error).toBeLessThanOrEqual(0.0005);              // within the text's last digit
    expect(c.errorScaled).toBeGreaterThan(0.05);              // 0.371 stated as 0.31
    expect(c.errorScaled).toBeCloseTo(Math.max(...ref8.map((p, j) => Math.abs(p - COURSE_EXAMPLE.claimedScaled[j]))), 6);
  });

  it('checks the peaked example: the ratio of the weights of 8.5 and 7.9 is e^0.6, not 99', () => {
    const p = r.sources.peaked;
    expect(p.ratio).toBeCloseTo(Math.exp(0.6), 5);
    expect(p.claimedRatio).toBeCloseTo(99, 10);
    expect(p.gapNeeded).toBeCloseTo(Math.log(99), 10);
  });

  it('checks the forum example: one-hot unscaled, still peaked when divided by 8', () => {
    const f = r.sources.forum;
    expect(f.root).toBe(8);
    expect(f.rescaleError).toBeCloseTo(0.025, 12);             // 3/8 = 0.375 written as 0.4
    const ref = softmaxD(FORUM_EXAMPLE.scaled);
    expect(f.maxScaled).toBeCloseTo(Math.max(...ref), 6);
    expect(f.maxScaled).toBeGreaterThan(0.9);
    expect(f.p[2]).toBeGreaterThan(1 - 1e-9);
  });

  it('estimates how often 4 scores at d_k = 64 spread 45 apart, in agreement with the exact probability', () => {
    const odds = run(softmaxSpreadOdds(engine, { seed: 3 }));
    expect(odds.spread).toBe(45);
    const p = spreadProbability(45, 4, 64);
    expect(p).toBeGreaterThan(1e-4);
    expect(p).toBeLessThan(1e-2);
    expect(odds.theory / p - 1).toBeCloseTo(0, 4);  // the page's own exact value, computed apart
    // independent scores of variance 64 (σ = 8) spread that wide about half as often
    const iid = 1 - 4 * simpson((x) => phi(x) * (Phi(x + 45 / 8) - Phi(x)) ** 3, -9, 9);
    expect(odds.independent / iid - 1).toBeCloseTo(0, 4);
    expect(odds.theory / odds.independent).toBeGreaterThan(1.8);
    // binomial: within 4 standard errors of the exact value
    expect(Math.abs(odds.fraction - p)).toBeLessThan(4 * Math.sqrt(p * (1 - p) / odds.rows));
    expect(odds.ci[0]).toBeLessThanOrEqual(odds.fraction);
    expect(odds.ci[1]).toBeGreaterThanOrEqual(odds.fraction);
  });
});

// ---------------------------------------------------------------- vanishing-gradients

describe('vanishingGradientsRow: the Jacobian of one query, the course example, the one-hot case', () => {
  const r = run(vanishingGradientsRow(engine, { dk: 64, n: 8, seed: 2, query: 3 }));

  it('J = diag(p) − ppᵀ, entry by entry, for the peaked and the spread row', () => {
    for (const side of [r.peaked, r.spread]) {
      const { p, J } = side, n = p.length;
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) expect(Math.abs(J[i * n + j] - p[i] * ((i === j) - p[j]))).toBeLessThanOrEqual(4 * U * p[i]);
      expect(side.frobenius).toBeLessThanOrEqual(Math.SQRT2);
    }
  });

  it('its norms agree with the engine’s per-row statistics for the same query', () => {
    for (const [side, scale] of [[r.spread, 1 / 8], [r.peaked, 1]]) {
      const direct = engine.sampleSoftmaxRows({ dk: 64, n: 8, rows: 1, seed: 2, first: 2, scale });
      expect(side.nonmaxGrad).toBeCloseTo(direct.nonmaxGrad[0], 6);
      if (side === r.spread) expect(side.frobenius).toBeCloseTo(direct.jacobianNorm[0], 6);
    }
    expect(r.uniformNorm).toBeCloseTo(Math.sqrt(7) / 8, 12);
  });

  it('the engine’s ‖J‖ at an even two-way split is ½, above the uniform row’s and above both rows shown', () => {
    expect(r.splitNorm).toBeCloseTo(0.5, 6);
    for (const x of [r.uniformNorm, r.peaked.frobenius, r.spread.frobenius]) expect(x).toBeLessThan(r.splitNorm);
  });

  it("the course text's numbers are J's diagonal p(1 − p); the gradient of p₁ is J's first column and sums to 0", () => {
    const c = r.course;
    c.diagonal.forEach((d, i) => expect(d).toBeCloseTo(c.p[i] * (1 - c.p[i]), 6));
    expect(c.error).toBeLessThan(1e-6);
    expect(c.gradP1.map((g) => Number(g.toFixed(6)))).toEqual([0.21, -0.09, -0.06, -0.06]);
    c.rowSums.forEach((s) => expect(Math.abs(s)).toBeLessThan(1e-6));
    expect(c.frobenius).toBeCloseTo(Math.sqrt(2 * 0.21 ** 2 + 2 * 0.16 ** 2 + 2 * 0.09 ** 2 + 8 * 0.06 ** 2 + 2 * 0.04 ** 2), 5);
  });

  it('a one-hot p has J = 0 and passes exactly no gradient', () => {
    expect(r.oneHot.maxAbsJ).toBe(0);
    expect(r.oneHot.maxAbsGrad).toBe(0);
    expect(r.oneHot.upstreamNorm).toBeGreaterThan(0);
    expect(r.oneHot.forum.frobenius).toBeGreaterThan(0);
    expect(r.oneHot.forum.frobenius).toBeLessThan(1e-9);
  });

  it('the forum row: float32 rounds p₃ to 1 and so loses J₃₃; exactly, ‖J‖ ≈ 2(1 − p₃)', () => {
    const { p, exactFrobenius, frobenius } = r.oneHot.forum;
    expect(p[2]).toBe(1);
    // Exactly, 1 − p₃ ≈ ε = Σ_{j≠3} e^{x_j − 25}, almost all of it p₂'s: to first order in ε, J is
    // ε·[[1, −1], [−1, 1]] on positions 2 and 3, whose Frobenius norm is 2ε.
    const eps = [-20, 3, -15].reduce((s, x) => s + Math.exp(x - 25), 0);
    expect(exactFrobenius / (2 * eps)).toBeCloseTo(1, 4);
    expect(exactFrobenius).toBeGreaterThan(frobenius * 1.1);
  });
});

describe('vanishingGradientsSweep', () => {
  it('measures the unscaled mean ‖J‖_F falling roughly like d_k^(−1/2) from d_k = 64', () => {
    const s = run(vanishingGradientsSweep(engine, { n: 16, rows: 128, seed: 1 }));
    expect(s.slopeFrom).toBe(64);
    // 128 skewed rows per point: the slope is uncertain to about ±0.1
    expect(s.jacobianSlope).toBeGreaterThan(-0.8);
    expect(s.jacobianSlope).toBeLessThan(-0.25);
    const last = s.dks.length - 1;
    expect(s.scales.none.nonmaxGrad.median[last]).toBeLessThan(1e-4 * s.scales.sqrt.nonmaxGrad.median[last]);
  });
});

// ---------------------------------------------------------------- scaling-choices

describe('scalingChoicesSweep and scalingChoicesRow: no scale, 1/√d_k, 1/d_k', () => {
  const s = run(scalingChoicesSweep(engine, { n: 16, rows: 64, seed: 1 }));

  it('measures the variance exponent 1 − 2a: 1, 0 and −1', () => {
    expect(s.slopes.none).toBeCloseTo(1, 1);
    expect(Math.abs(s.slopes.sqrt)).toBeLessThan(0.05);
    expect(s.slopes.dk).toBeCloseTo(-1, 1);
  });

  it('uses the same draws for the three scales: the variances differ by exactly the squared multiplier', () => {
    s.dks.forEach((dk, i) => {
      const v = s.scales.none.scoreVariance.mean[i];
      expect(s.scales.sqrt.scoreVariance.mean[i] / (v / dk)).toBeCloseTo(1, 5);
      expect(s.scales.dk.scoreVariance.mean[i] / (v / (dk * dk))).toBeCloseTo(1, 5);
    });
  });

  it('1/d_k tends to uniform weights: entropy log n, largest weight 1/n', () => {
    const last = s.dks.length - 1;
    expect(s.scales.dk.entropy.mean[last]).toBeGreaterThan(Math.log(16) - 0.01);
    expect(s.scales.dk.maxWeight.mean[last]).toBeLessThan(1 / 16 + 0.01);
  });

  it('computes float32 softmax of tiny logits to a few roundings; unscaled logits underflow', () => {
    const r = run(scalingChoicesRow(engine, { dk: 4096, n: 16, seed: 1, query: 1 }));
    expect(r.scales.dk.relError).toBeLessThanOrEqual(16 * U);
    expect(r.scales.sqrt.relError).toBeLessThanOrEqual(16 * U);
    expect(r.scales.dk.deviationError).toBeLessThan(1e-4);
    expect(r.scales.none.underflow).toBeGreaterThan(0);
    r.scales.dk.scores.forEach((x, j) => expect(Math.abs(x * 4096 - r.scales.none.scores[j])).toBeLessThanOrEqual(4 * U * Math.abs(r.scales.none.scores[j])));
  });
});

// ---------------------------------------------------------------- temperature

describe('temperatureSweep: softmax(s/τ) at fixed draws', () => {
  const r = run(temperatureSweep(engine, { dk: 64, n: 16, rows: 256, seed: 1, query: 2, tau: 0.5 }));

  it('sharpens below √d_k and softens above it, for every query', () => {
    expect(r.grid).toEqual(TAU_GRID);
    for (let i = 1; i < r.grid.length; i++) {
      expect(r.maxWeight.mean[i]).toBeLessThan(r.maxWeight.mean[i - 1]);
      expect(r.entropy.mean[i]).toBeGreaterThan(r.entropy.mean[i - 1]);
    }
    expect(r.strictRows).toBe(256);
    expect(r.monotoneMaxRows).toBe(256);
  });

  it('uses the sweep’s draws: at τ = √d_k query 2 matches sampleSoftmaxRows row 1', () => {
    const direct = engine.sampleSoftmaxRows({ dk: 64, n: 16, rows: 1, seed: 1, first: 1 });
    expect(r.reference.max).toBeCloseTo(direct.maxWeight[0], 6);
    expect(r.reference.entropy).toBeCloseTo(direct.entropy[0], 5);
  });

  it('gives the exercise’s weights as softmax(s/(t√d_k)) and the current τ’s among them', () => {
    for (const e of r.exercise) {
      const ref = softmaxD(Array.from(r.scores, (s) => s / (e.t * 8)));
      e.p.forEach((p, j) => expect(Math.abs(p - ref[j])).toBeLessThanOrEqual(32 * U * ref[j] + 1e-40));
    }
    expect(Array.from(r.current.p)).toEqual(Array.from(r.exercise[0].p));
  });

  it('a new query or τ on the grid reuses the curves (one row’s softmaxes), and gives what a fresh engine gives', async () => {
    const e = await createEngine();
    let softmaxRows = 0;
    const spy = { ...e, softmax: (x, rows, cols) => { softmaxRows += rows; return e.softmax(x, rows, cols); },
      scoreStats: (x, rows, n, scale) => { softmaxRows += rows; return e.scoreStats(x, rows, n, scale); } };
    const at = (p) => run(temperatureSweep(spy, { dk: 32, n: 8, rows: 128, seed: 5, ...p }));
    at({ query: 1, tau: 1 });
    expect(softmaxRows).toBe(TAU_GRID.length * 128 + 5);  // the grid, then the shown row at five τ
    const reused = [{ query: 9, tau: 1 }, { query: 9, tau: 2 }].map((p) => {
      softmaxRows = 0;
      const r = at(p);
      expect(softmaxRows).toBe(5);
      return [p, r];
    });
    for (const [p, r] of reused) expect(r).toEqual(run(temperatureSweep(await createEngine(), { dk: 32, n: 8, rows: 128, seed: 5, ...p })));
    softmaxRows = 0;
    at({ query: 9, tau: 2, seed: 6 });  // new draws: the grid again
    expect(softmaxRows).toBe(TAU_GRID.length * 128 + 5);
    const a = at({ query: 1, tau: 1 });
    a.maxWeight.mean[0] = -1;  // what a caller does to its result stays there
    expect(at({ query: 2, tau: 1 }).maxWeight.mean[0]).toBeGreaterThan(0);
  });

  it('tells a float32 stall near ln n from a real one: in double, those rows’ entropy still rises', () => {
    // n = 2 at dk = 64: 2 of 1,024 rows sit within 2×10⁻⁷ of ln 2 at τ ≥ 1.19√d_k, where float32
    // entropy steps cannot resolve the rise
    const args = { dk: 64, n: 2, rows: 1024, seed: 1, query: 1, tau: 1 };
    const t = run(temperatureSweep(engine, args));
    expect(t.strictRows).toBe(1022);
    expect(t.stalls.rounding.rows + t.stalls.oneHot.rows + t.stalls.other.rows).toBeGreaterThanOrEqual(1024 - t.strictRows);
    expect(t.stalls.rounding.rows).toBe(2);
    expect(t.stalls.other.rows).toBe(0);
    expect(t.stalls.rounding.within).toBeLessThan(1e-6);
    expect(t.stalls.rounding.from).toBeGreaterThan(1);
    // what a caller does to its counts stays there: a second call gives them again
    t.stalls.rounding.rows = -1;
    expect(run(temperatureSweep(engine, args)).stalls.rounding.rows).toBe(2);
  });

  it('counts each stalled row once per kind, however often it is asked', () => {
    // two rows of n = 2 at d_k = 1: row 0 one-hot in float32 at the lower τ, row 1 not
    const s = Float32Array.from([200, 0, 1, 0]);
    const c = stallCounter(s, { dk: 1, n: 2, rows: 2 });
    c.add(0, [0.25, 0], [0.5, 0]);
    c.add(0, [0.5, 0], [1, 0]);      // the same row, the same kind: still one row
    c.add(1, [1, 0.6], [2, 0.6]);    // in double its entropy rises from τ = 1 to 2: rounding
    const first = c.counts();
    expect(first.oneHot).toEqual({ rows: 1, upTo: 1 });
    expect(first.rounding.rows).toBe(1);
    expect(first.rounding.from).toBe(1);
    expect(first.other.rows).toBe(0);
    expect(c.counts()).toEqual(first);  // counting again adds nothing
  });

  it('clamps a query beyond the rows and adds a temperature that is not on the grid', () => {
    const s = run(temperatureSweep(engine, { dk: 16, n: 4, rows: 64, seed: 2, query: 1000, tau: 3 }));
    expect(s.query).toBe(64);
    expect(s.grid).toContain(3);
    expect(s.grid.length).toBe(TAU_GRID.length + 1);
    expect(s.current.t).toBe(3);
  });
});
