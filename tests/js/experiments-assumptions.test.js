// The experiments of shift-vs-scale, initialization and breaking-assumptions, run with the real
// engine as the worker runs them. Expected values come from the math, computed here.
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../web/engine.js';
import { drain, run } from './drain.js';
import { FLT_MAX, LN_FLT_MAX, shiftVsScale, ulpsBetween } from '../../web/experiments/shift-vs-scale.js';
import { initRequest, initVariance, weightVariance } from '../../web/experiments/initialization.js';
import { BREAK_DKS, breakingRequest, breakingSweep, tFourthMoment } from '../../web/experiments/breaking-assumptions.js';

const engine = await createEngine();
const scalar = await createEngine({ simd: false });

// float32 neighbours, from the bit pattern (independent of the code under test)
const f32 = new Float32Array(1), i32 = new Int32Array(f32.buffer);
const nextUp = (x) => { f32[0] = x; i32[0] += x >= 0 ? 1 : -1; return f32[0]; };

describe('shift-vs-scale', () => {
  const r = run(shiftVsScale(engine, { offset: 95, seed: 1, divisor: 10 }));

  it('counts ulps between float32 values', () => {
    expect(ulpsBetween(1, 1)).toBe(0);
    expect(ulpsBetween(1, nextUp(1))).toBe(1);
    expect(ulpsBetween(nextUp(nextUp(0.3)), Math.fround(0.3))).toBe(2);
    expect(ulpsBetween(-0, 0)).toBe(0);
    expect(ulpsBetween(-(2 ** -149), 2 ** -149)).toBe(2);   // the two smallest subnormals, across zero
    expect(ulpsBetween(NaN, 1)).toBeNaN();
  });

  it('FLT_MAX is the largest float32 and LN_FLT_MAX its logarithm', () => {
    expect(Math.fround(FLT_MAX)).toBe(FLT_MAX);
    expect(Math.fround(FLT_MAX * (1 + 2 ** -23))).toBe(Infinity);
    expect(Math.exp(LN_FLT_MAX)).toBeCloseTo(FLT_MAX, -25);
    expect(Math.fround(Math.exp(LN_FLT_MAX + 1e-6))).toBe(Infinity);
  });

  it('softmax of the row and of the row minus its max agree within 2 ulp; the naive one breaks above the threshold', () => {
    expect(r.maxUlps).toBeLessThanOrEqual(2);
    expect(Math.abs(r.stableSum - 1)).toBeLessThan(8 * 2 ** -24 * 8);
    for (const l of r.logits) {
      // the largest logit is c: a logit above the engine's lane threshold must give NaN
      if (l.x > r.thresholds.laneLargest) expect(l.naive).toBeNaN();
    }
    expect(r.logits.some((l) => l.x === 95)).toBe(true);
  });

  it('the sweep: stable rows always sum to 1; the naive one is finite while ln Σe^x < ln FLT_MAX and fails beyond', () => {
    for (const s of r.sweep) expect(Math.abs(s.stableSum - 1)).toBeLessThan(1e-6);
    for (const s of r.sweep) {
      if (s.lse > LN_FLT_MAX + 1e-3) expect(s.status).not.toBe('ok');
      // finite denominators and a max below the SIMD exp's threshold: the naive softmax works
      if (s.lse < LN_FLT_MAX - 1e-3 && s.c <= r.thresholds.laneLargest) expect(s.status).toBe('ok');
    }
    expect(r.breakAt.c).toBeGreaterThan(80);
    expect(r.breakAt.c).toBeLessThan(LN_FLT_MAX + 0.25);
    // the stable denominator Σ e^(x − max x) lies in [1, n]
    for (const s of r.sweep) { expect(s.lseShifted).toBeGreaterThanOrEqual(0); expect(s.lseShifted).toBeLessThanOrEqual(Math.log(8) + 1e-6); }
  });

  it('measures where exp overflows: a lone logit at the last float below ln FLT_MAX, a SIMD lane no later', () => {
    const t = r.thresholds;
    expect(t.loneLargest).toBeLessThan(LN_FLT_MAX);
    expect(t.loneNext).toBe(nextUp(t.loneLargest));
    expect(t.loneNext).toBeGreaterThan(LN_FLT_MAX);
    expect(t.laneLargest).toBeLessThanOrEqual(t.loneLargest);
    expect(t.laneLargest).toBeGreaterThan(88.3);
    const s = run(shiftVsScale(scalar, { offset: 95, seed: 1, divisor: 10 })).thresholds;
    expect(s.laneLargest).toBe(s.loneLargest);   // no vector exp in the scalar build
    expect(s.loneLargest).toBe(t.loneLargest);
  });

  it('equal differences give equal weights, equal ratios do not', () => {
    const [row, divided, lowered, maxSub] = r.scaleRows;
    expect(row.values).toEqual([100, 102, 103]);
    for (const other of [lowered, maxSub]) {
      expect(other.gaps).toEqual(row.gaps);
      for (const u of other.ulpsFromRow) expect(u).toBeLessThanOrEqual(2);
    }
    expect(lowered.ratios[0]).not.toBeCloseTo(row.ratios[0], 2);
    for (let j = 0; j < 2; j++) expect(divided.ratios[j]).toBeCloseTo(row.ratios[j], 6);
    expect(Math.abs(divided.softmax[0] - row.softmax[0])).toBeGreaterThan(0.2);
    // the weights themselves, from the math: e^(x_j − 103)/Σ
    const e = [Math.exp(-3), Math.exp(-1), 1], z = e[0] + e[1] + e[2];
    row.softmax.forEach((p, j) => expect(p).toBeCloseTo(e[j] / z, 6));
    expect(r.seedRowNaive.every(Number.isNaN)).toBe(true);   // e^100 overflows float32
  });

  it('the blog post\'s weights are not the softmax of its rows; they fit [101, 102, 103] and [10.1, 10.2, 10.3]', () => {
    const [first, second] = r.claims;
    expect(first.rowMatches).toBe(false);
    expect(second.rowMatches).toBe(false);
    expect(first.fits).toEqual([101, 102, 103]);
    expect(second.fits).toEqual([10.1, 10.2, 10.3]);
    expect(first.fitMatches && second.fitMatches).toBe(true);
    const e = [Math.exp(-2), Math.exp(-1), 1], z = e[0] + e[1] + e[2];
    first.engineFit.forEach((p, j) => expect(p).toBeCloseTo(e[j] / z, 6));
  });

  it('the divisor changes only the divided row; the seed changes only the random row', () => {
    const d2 = run(shiftVsScale(engine, { offset: 95, seed: 1, divisor: 2 }));
    expect(d2.scaleRows[1].softmax).not.toEqual(r.scaleRows[1].softmax);
    expect(d2.logits).toEqual(r.logits);
    const s2 = run(shiftVsScale(engine, { offset: 95, seed: 2, divisor: 10 }));
    expect(s2.logits.map((l) => l.x)).not.toEqual(r.logits.map((l) => l.x));
    expect(run(shiftVsScale(engine, { offset: 95, seed: 1, divisor: 10 }))).toEqual(r);
  });
});

describe('initialization', () => {
  it('maps each rule to its weight variance', () => {
    expect(weightVariance('glorot-uniform', 512, 64)).toBeCloseTo(2 / 576, 15);
    expect(weightVariance('glorot-normal', 512, 64)).toBeCloseTo(2 / 576, 15);
    expect(weightVariance('glorot-heads', 512, 64)).toBeCloseTo(1 / 512, 15);
    expect(weightVariance('glorot-packed', 512, 64)).toBeCloseTo(2 / 2048, 15);
    expect(weightVariance('lecun-normal', 512, 64)).toBeCloseTo(1 / 512, 15);
    expect(weightVariance('he-normal', 512, 64)).toBeCloseTo(2 / 512, 15);
    expect(weightVariance('custom', 512, 64, 0.02)).toBeCloseTo(0.0004, 15);
    expect(() => weightVariance('nope', 512, 64)).toThrow(RangeError);
  });

  it('uniform entries with std a/√3 are U(±a): Glorot uniform stays inside ±√(6/(fan_in + fan_out))', () => {
    const a = Math.sqrt(6 / 576);
    const w = engine.sampleEntries({ count: 32768, seed: 1, stream: 1, distribution: 'uniform', std: Math.sqrt(2 / 576) });
    const m = Math.max(...w.map(Math.abs));
    expect(m).toBeLessThanOrEqual(a * (1 + 1e-6));
    expect(m).toBeGreaterThan(0.999 * a);
  });

  // Tolerance: 5 SE of the sample over tokens plus 5 SD of the weights' own draw (see the C++ test).
  const close = (s, target, relW) => Math.abs(s.variance - target) < 5 * Math.hypot(s.varianceSE, target * relW);

  it('Glorot uniform on a 512 → 64 head: Var(q_i) = 2·512/576 and Var(q·k/√d_k) = (2·512/576)², far from 1', () => {
    const { result: r, progress } = drain(initVariance(engine, { dmodel: 512, dk: 64, init: 'glorot-uniform', seed: 1 }));
    const sq = (2 * 512) / 576;
    expect(progress).toEqual([]);   // the default sizes run in one go
    expect(r.formula.q).toBeCloseTo(sq, 12);
    expect(r.formula.score).toBeCloseTo(sq * sq, 12);
    const relW = Math.sqrt(0.8 / (512 * 64));
    expect(close(r.q, sq, relW)).toBe(true);
    expect(close(r.k, sq, relW)).toBe(true);
    expect(close(r.score, sq * sq, 2 * relW)).toBe(true);
    expect((r.score.variance - 1) / r.score.varianceSE).toBeGreaterThan(5);
    expect(Math.abs(r.x.variance - 1)).toBeLessThan(5 * r.x.varianceSE);
    // the value given the weights is close to the formula, within the weights' own spread
    expect(Math.abs(r.given.q / sq - 1)).toBeLessThan(5 * relW);
    expect(Math.abs(r.given.score / (sq * sq) - 1)).toBeLessThan(10 * relW);
  });

  it('LeCun normal gives unit variance for q and for q·k/√d_k', () => {
    const r = run(initVariance(engine, { dmodel: 512, dk: 64, init: 'lecun-normal', seed: 2 }));
    const relW = Math.sqrt(2 / (512 * 64));
    expect(close(r.q, 1, relW)).toBe(true);
    expect(close(r.score, 1, 2 * relW)).toBe(true);
  });

  it('the value given the weights is ‖W_Q W_Kᵀ‖²_F/d_k, computed here from the same draws', () => {
    const dmodel = 48, dk = 8, seed = 5;
    const r = run(initVariance(engine, { dmodel, dk, init: 'he-normal', seed, tokens: 64 }));
    const std = Math.sqrt(2 / dmodel);
    // the streams hold W_Qᵀ and W_Kᵀ, (d_k, d_model) row-major: (W_Q)_ic is wqT[c·d_model + i]
    const wqT = engine.sampleEntries({ count: dmodel * dk, seed, stream: 1, std });
    const wkT = engine.sampleEntries({ count: dmodel * dk, seed, stream: 2, std });
    let frob = 0, nq = 0;
    for (let i = 0; i < dmodel; i++)
      for (let j = 0; j < dmodel; j++) {
        let m = 0;
        for (let c = 0; c < dk; c++) m += wqT[c * dmodel + i] * wkT[c * dmodel + j];
        frob += m * m;
      }
    for (const w of wqT) nq += w * w;
    expect(r.given.score).toBeCloseTo(frob / dk, 4);
    expect(r.given.q).toBeCloseTo(nq / dk, 5);
  });

  it('is reproducible from its seed, and large sizes report progress', () => {
    const a = run(initVariance(engine, { dmodel: 128, dk: 16, init: 'glorot-normal', seed: 3 }));
    expect(run(initVariance(engine, { dmodel: 128, dk: 16, init: 'glorot-normal', seed: 3 }))).toEqual(a);
    expect(run(initVariance(engine, { dmodel: 128, dk: 16, init: 'glorot-normal', seed: 4 })).score.variance).not.toBe(a.score.variance);
    const { progress } = drain(initVariance(engine, { dmodel: 1024, dk: 128, init: 'lecun-normal', seed: 3 }));
    expect(progress.length).toBeGreaterThan(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]);
    expect(progress.at(-1)).toBeLessThan(1);
  });

  it('a new d_k or initialisation reuses the tokens drawn for the seed and d_model, and gives what a fresh engine gives', async () => {
    const e = await createEngine();
    const asked = [];
    const spy = { ...e, sampleEntries: (p) => { asked.push(p.count); return e.sampleEntries(p); } };
    const first = { dmodel: 256, dk: 32, init: 'lecun-normal', seed: 9, tokens: 128 };
    const seed10 = { ...first, seed: 10 };
    for (const params of [first, { ...first, dk: 16 }, { ...first, init: 'glorot-uniform' }, { ...first, dmodel: 128 }, seed10]) {
      asked.length = 0;
      expect(run(initVariance(spy, params))).toEqual(run(initVariance(await createEngine(), params)));
      // the weights always; the 129 tokens only for a new seed (fewer d_model: a prefix of the stream)
      const weights = [params.dmodel * params.dk, params.dmodel * params.dk];
      expect(asked).toEqual(params === first || params === seed10 ? [129 * params.dmodel, ...weights] : weights);
    }
  });
  it('two heavy runs taking turns chunk by chunk, as the worker runs two figures, give what each gives alone', async () => {
    const e = await createEngine();
    const params = [{ dmodel: 1024, dk: 64, init: 'lecun-normal', seed: 5 }, { dmodel: 1024, dk: 64, init: 'he-normal', seed: 6 }];
    const alone = params.map((p) => run(initVariance(e, p)));
    const its = params.map((p) => initVariance(e, p));
    const done = [null, null];
    for (let turn = 0; done.includes(null); turn = 1 - turn) {
      if (done[turn]) continue;
      const s = its[turn].next();
      if (s.done) done[turn] = s.value;
    }
    expect(done).toEqual(alone);
  });
  it('reads σ only for the custom initialisation, so the page asks for it only then', () => {
    const base = { dmodel: 128, dk: 16, seed: 3, tokens: 64 };
    const numbers = (r) => ({ ...r, sigma: undefined });
    expect(numbers(run(initVariance(engine, { ...base, init: 'he-normal', sigma: 0.5 }))))
      .toEqual(numbers(run(initVariance(engine, { ...base, init: 'he-normal', sigma: 0.01 }))));
    expect(run(initVariance(engine, { ...base, init: 'custom', sigma: 0.5 })).q.variance)
      .not.toBe(run(initVariance(engine, { ...base, init: 'custom', sigma: 0.01 })).q.variance);
    expect(initRequest({ init: 'glorot-uniform', sigma: 0.5, dmodel: 512, dk: 64, seed: 1 })).toEqual({ init: 'glorot-uniform', dmodel: 512, dk: 64, seed: 1 });
    expect(initRequest({ init: 'custom', sigma: 0.5, dmodel: 512, dk: 64, seed: 1 })).toEqual({ init: 'custom', sigma: 0.5, dmodel: 512, dk: 64, seed: 1 });
  });
});

describe('breaking-assumptions', () => {
  // |measured − formula| < 5 SE at every d_k (the SE from the sample's own 4th moment)
  const within = (r) => r.points.every((p) => Math.abs(p.variance - p.formulaVariance) < 5 * p.varianceSE);

  it('a count moved down and up again gives the points a fresh engine gives', async () => {
    const e = await createEngine();
    for (const count of [500, 200, 1000]) {
      const params = { departure: 'student-t', df: 6, count, seed: 4 };
      expect(run(breakingSweep(e, params))).toEqual(run(breakingSweep(await createEngine(), params)));
    }
  });

  it('a mean μ: Var = d_k(1 + 2μ²), E = d_k·μ², and the plain d_k is rejected', () => {
    const { result: r, progress } = drain(breakingSweep(engine, { departure: 'mean', mu: 0.75, count: 500, seed: 1 }));
    expect(progress).toEqual([]);
    expect(r.points.map((p) => p.dk)).toEqual(BREAK_DKS);
    for (const p of r.points) {
      expect(p.formulaVariance).toBeCloseTo(p.dk * (1 + 2 * 0.75 ** 2), 10);
      expect(Math.abs(p.mean - p.dk * 0.5625)).toBeLessThan(5 * Math.sqrt(p.variance / 500));
    }
    expect(within(r)).toBe(true);
    const rejected = r.points.filter((p) => p.dk < p.varianceCI[0]).length;
    expect(rejected).toBeGreaterThanOrEqual(BREAK_DKS.length - 1);
  });

  it('a correlation ρ: Var = d_k(1 + ρ²), E = d_k·ρ', () => {
    const r = run(breakingSweep(engine, { departure: 'rho', rho: -0.75, count: 2000, seed: 2 }));
    for (const p of r.points) {
      expect(p.formulaVariance).toBeCloseTo(p.dk * (1 + 0.5625), 10);
      expect(Math.abs(p.mean + 0.75 * p.dk)).toBeLessThan(5 * Math.sqrt(p.variance / 2000));
    }
    expect(within(r)).toBe(true);
  });

  it('LayerNorm: Var = d_k²/(d_k − 1); at d_k = 2 every q·k is ±2, so the variance is 4 exactly', () => {
    const r = run(breakingSweep(engine, { departure: 'layernorm', count: 2000, seed: 3 }));
    expect(within(r)).toBe(true);
    const two = r.points[0];
    expect(two.dk).toBe(2);
    expect(two.formulaVariance).toBe(4);
    expect(Math.abs(two.variance - 4 * (1 - (two.mean / 2) ** 2) * 2000 / 1999)).toBeLessThan(1e-4);
  });

  it('heavy tails: Var = d_k still, intervals wider than normal entries give, infinite 4th moment for ν ≤ 4', () => {
    expect(tFourthMoment(5)).toBe(9);
    expect(tFourthMoment(10)).toBe(4);
    expect(tFourthMoment(4)).toBe(Infinity);
    const { result: r, progress } = drain(breakingSweep(engine, { departure: 'student-t', df: 10, count: 3000, seed: 4, dks: [2, 4, 64] }));
    expect(progress.length).toBeGreaterThan(0);
    expect(within(r)).toBe(true);
    for (const p of r.points) {
      expect(p.formulaVariance).toBe(p.dk);
      expect(p.tHalfWidth).toBeGreaterThan(p.normalHalfWidth);
    }
    // at d_k = 2 the t-entries' interval is clearly wider than a normal-entries one
    const w = (r.points[0].varianceCI[1] - r.points[0].varianceCI[0]) / 2 / 2;
    expect(w).toBeGreaterThan(1.1 * r.points[0].normalHalfWidth);
    const low = run(breakingSweep(engine, { departure: 'student-t', df: 4, count: 200, seed: 4, dks: [2] }));
    expect(low.points[0].tHalfWidth).toBe(Infinity);
  });

  it('heavy tails: the measured half-width is 1.96 SE, also where the interval’s lower end stops at 0', () => {
    // ν = 3 (no 4th moment): at seed 1, 200 pairs, the interval at d_k = 16 would reach below 0
    const r = run(breakingSweep(engine, { departure: 'student-t', df: 3, count: 200, seed: 1 }));
    for (const p of r.points) expect(p.halfWidth).toBeCloseTo((1.96 * p.varianceSE) / p.dk, 12);
    const clipped = r.points.find((p) => p.dk === 16);
    expect(clipped.varianceCI[0]).toBe(0);
    expect(clipped.halfWidth).toBeGreaterThan((clipped.varianceCI[1] - clipped.varianceCI[0]) / 2 / 16);
  });

  it('a sweep does not depend on the strengths its departure does not read, so the page asks for them only', () => {
    const base = { count: 200, seed: 5, dks: [4, 16] };
    const sweep = (p) => run(breakingSweep(engine, { ...base, ...p })).points;
    expect(sweep({ departure: 'mean', mu: 0.5, rho: 0.9, df: 3 })).toEqual(sweep({ departure: 'mean', mu: 0.5, rho: -0.5, df: 20 }));
    expect(sweep({ departure: 'rho', rho: 0.5, mu: 2 })).toEqual(sweep({ departure: 'rho', rho: 0.5, mu: 0 }));
    expect(sweep({ departure: 'layernorm', mu: 2, rho: 0.9 })).toEqual(sweep({ departure: 'layernorm' }));
    const values = { mu: 0.5, rho: 0.25, df: 8, count: 500, seed: 3 };
    expect(breakingRequest({ departure: 'mean', ...values })).toEqual({ departure: 'mean', mu: 0.5, count: 500, seed: 3 });
    expect(breakingRequest({ departure: 'rho', ...values })).toEqual({ departure: 'rho', rho: 0.25, count: 500, seed: 3 });
    expect(breakingRequest({ departure: 'student-t', ...values })).toEqual({ departure: 'student-t', df: 8, count: 500, seed: 3 });
    expect(breakingRequest({ departure: 'layernorm', ...values })).toEqual({ departure: 'layernorm', count: 500, seed: 3 });
    // and a strength it reads does change it
    expect(sweep({ departure: 'rho', rho: 0.5 })).not.toEqual(sweep({ departure: 'rho', rho: 0.25 }));
  });

  it('is reproducible, and an unknown departure is refused', () => {
    const a = run(breakingSweep(engine, { departure: 'rho', rho: 0.5, count: 200, seed: 9, dks: [4, 16] }));
    expect(run(breakingSweep(engine, { departure: 'rho', rho: 0.5, count: 200, seed: 9, dks: [4, 16] }))).toEqual(a);
    expect(() => run(breakingSweep(engine, { departure: 'nope', count: 10, seed: 1 }))).toThrow(RangeError);
  });
});
