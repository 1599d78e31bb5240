// (eq:claims) Recomputes every number the four source documents state. The list of claims, with
// the inputs each one states and what to compute for it, is data in web/steps/claims.js; this
// experiment only knows the operations (`op`) and returns one result per claim id.
// See chunks.js for the generator contract.
import { sampleDots } from './chunks.js';
import { exerciseTemperature } from './exercises.js';
import { softmaxDouble } from './reference.js';
import { softmaxSpreadOdds } from './softmax-saturation.js';

// RNG streams for the draws that are not q·k pairs (pairs use streams 0 … count − 1).
const ROWS_FIRST = 2 ** 32;   // sampleSoftmaxRows: + 2^20 per call
const ENTRY_STREAM = 2 ** 33; // sampleEntries: + 1 per matrix

const f32 = (xs) => Float32Array.from(xs);

function meanSE(x) {
  let s = 0, s2 = 0;
  for (const v of x) { s += v; s2 += v * v; }
  const n = x.length, mean = s / n;
  return { mean, se: Math.sqrt(Math.max(0, (s2 - n * mean * mean) / (n - 1)) / n) };
}

// The multiplier a scale spec stands for: 'none' (1), 'sqrt' (1/√d_k), 'dk' (1/d_k), or
// { tau: f } for a temperature τ = f·√d_k (multiplier 1/τ).
function multiplier(spec, dk) {
  if (spec === 'none') return 1;
  if (spec === 'sqrt') return 1 / Math.sqrt(dk);
  if (spec === 'dk') return 1 / dk;
  if (spec && typeof spec.tau === 'number') return 1 / (spec.tau * Math.sqrt(dk));
  throw new RangeError(`claims: unknown scale ${JSON.stringify(spec)}`);
}

// The column sums of squares of J give ‖∂p/∂x_j‖₂ for each logit j.
function columnNorms(jac, n) {
  return Array.from({ length: n }, (_, j) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += jac[i * n + j] ** 2;
    return Math.sqrt(s);
  });
}

export function* claimsCheck(engine, { seed, pairs, claims }) {
  // q·k samples, shared by every claim that uses the same d_k. Above d_k = 64 the count shrinks
  // so that each d_k costs the same number of normals.
  const dotCache = new Map();
  const pairsFor = (dk) => (dk <= 64 ? pairs : Math.max(100, Math.round((pairs * 64) / dk)));
  function* dots(dk) {
    if (!dotCache.has(dk)) dotCache.set(dk, yield* sampleDots(engine, { dk, count: pairsFor(dk), seed }));
    return dotCache.get(dk);
  }
  let rowsCall = 0, entryStream = 0;
  const softmaxRows = (dk, n, rows, scale) =>
    engine.sampleSoftmaxRows({ dk, n, rows, seed, scale, first: ROWS_FIRST + 2 ** 20 * rowsCall++ });
  const entries = (count, std = 1) => engine.sampleEntries({ count, seed, std, stream: ENTRY_STREAM + entryStream++ });
  const softmax = (x) => Array.from(engine.softmax(f32(x), 1, x.length));

  // a sampled moment of q·k (times a scale), with its standard error
  function* spread(dk, scaleSpec) {
    const x = yield* dots(dk);
    const d = engine.describe(x);
    const s = multiplier(scaleSpec, dk);
    const std = Math.sqrt(d.variance);
    return { n: x.length, variance: d.variance * s * s, varianceSE: d.varianceSE * s * s, std: std * s, stdSE: (d.varianceSE / (2 * std)) * s };
  }

  const ops = {
    *productMoment({ moment }) {
      const x = yield* dots(1);
      const d = engine.describe(x);
      if (moment === 'mean') return { values: [d.mean], se: [(d.meanCI[1] - d.meanCI[0]) / (2 * 1.959963984540054)], n: x.length };
      if (moment === 'variance') return { values: [d.variance], se: [d.varianceSE], n: x.length };
      const sq = meanSE(Array.from(x, (v) => v * v));
      return { values: [sq.mean], se: [sq.se], n: x.length };
    },
    *dotVariance({ dk, scale = 'none' }) {
      const s = yield* spread(dk, scale);
      return { values: [s.variance], se: [s.varianceSE], n: s.n, dk };
    },
    *dotStd({ dk, scale = 'none' }) {
      const s = yield* spread(dk, scale);
      return { values: [s.std], se: [s.stdSE], n: s.n, dk };
    },
    // std(q·k) at d_k = to over std at d_k = from, SE by the delta method
    *stdGrowth({ from, to }) {
      const a = yield* spread(from, 'none'), b = yield* spread(to, 'none');
      const ratio = b.std / a.std;
      return { values: [ratio], se: [ratio * Math.hypot(a.stdSE / a.std, b.stdSE / b.std)], std: [a.std, b.std], n: [a.n, b.n], dks: [from, to] };
    },
    *scaledStds({ dks }) {
      const s = [];
      for (const dk of dks) s.push(yield* spread(dk, 'sqrt'));
      return { values: s.map((x) => x.std), se: s.map((x) => x.stdSE), n: s.map((x) => x.n), dks };
    },
    *softmax({ x, alt, ratioOf, split, typical }) {
      const values = softmax(x);
      const r = { values, sum: values.reduce((a, b) => a + b, 0) };
      if (alt) { r.alt = softmax(alt); r.altInput = alt; }
      if (ratioOf) { r.ratio = values[ratioOf[0]] / values[ratioOf[1]]; r.gap = x[ratioOf[0]] - x[ratioOf[1]]; }
      if (split) { r.split = split[0] / split[1]; r.gapNeeded = Math.log(r.split); }  // e^gap = split[0]/split[1]
      if (typical) {
        const rows = softmaxRows(typical.dk, typical.n, typical.rows, multiplier(typical.scale, typical.dk));
        r.typical = { ...typical, maxWeight: meanSE(rows.maxWeight) };
      }
      return r;
    },
    *divide({ x, by }) { return { values: x.map((v) => v / by) }; },
    *shift({ x }) { const m = Math.max(...x); return { values: x.map((v) => v - m) }; },
    *gaps({ x, by = 1, shift = false }) {
      const m = shift ? Math.max(...x) : 0;
      const y = x.map((v) => (v - m) / by);
      return { values: y.slice(1).map((v, i) => Math.abs(v - y[i])), transformed: y };
    },
    *ratio({ a, b }) { return { values: [a / b] }; },
    // softmax(x) against softmax(x − max x): the weights, and what the shift does to a ratio
    *shiftInvariance({ x }) {
      const m = Math.max(...x), shifted = x.map((v) => v - m);
      const p = softmax(x), q = softmax(shifted);
      return { values: [Math.max(...p.map((v, i) => Math.abs(v - q[i])))], p, shifted,
        ratioBefore: x[1] / x[0], ratioAfter: shifted[1] / shifted[0] };
    },
    // exp(x)/Σexp(x) as written, against the max-subtracted softmax
    *overflow({ x }) {
      const naive = Array.from(engine.softmaxNaive(f32(x), 1, x.length));
      const stable = softmax(x);
      return { values: naive, naive, stable, maxDiff: Math.max(...naive.map((v, i) => Math.abs(v - stable[i]))) };
    },
    *jacobian({ p }) {
      const n = p.length, jac = Array.from(engine.softmaxJacobian(f32(p)));
      let maxOff = 0, rowSum = 0;
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) { s += jac[i * n + j]; if (i !== j) maxOff = Math.max(maxOff, Math.abs(jac[i * n + j])); }
        rowSum = Math.max(rowSum, Math.abs(s));
      }
      const diag = Array.from({ length: n }, (_, i) => jac[i * n + i]);
      return { values: diag, diag, norm: Math.hypot(...jac), maxOff, rowSum };
    },
    *jacobianNorm({ p }) {
      return { values: [Math.hypot(...engine.softmaxJacobian(f32(p)))] };
    },
    // the largest ‖∂p/∂x_j‖ over the logits j that are not the maximum, and the same for uniform p
    *nonmaxGrad({ x }) {
      const n = x.length, p = softmax(x), top = p.indexOf(Math.max(...p));
      const cols = columnNorms(engine.softmaxJacobian(f32(p)), n);
      const uniform = columnNorms(engine.softmaxJacobian(engine.softmax(new Float32Array(n), 1, n)), n);
      return { values: [Math.max(...cols.filter((_, j) => j !== top))], p, uniform: uniform[0] };
    },
    // mean peakedness of softmax(scale·Kq) over random queries, for each scale
    *rowsMean({ dk, n, rows, scales }) {
      const out = scales.map((spec) => {
        const r = softmaxRows(dk, n, rows, multiplier(spec, dk));
        return { maxWeight: meanSE(r.maxWeight), entropy: meanSE(r.entropy) };
      });
      return { values: out.map((o) => o.maxWeight.mean), rows: out, logN: Math.log(n), uniform: 1 / n, dk, n, count: rows };
    },
    // τ = ½√d_k, √d_k, 2√d_k: the exercises step's own answer to its exercise 4 (the same rows, so
    // both show the same numbers)
    *temperatureMeans({ dk, n, rows }) {
      const r = yield* exerciseTemperature(engine, { dk, seed, n, rows });
      return { values: r.means.map((m) => m.maxWeight.mean), rows: r.means, logN: r.logN, uniform: 1 / n, dk, n, count: rows };
    },
    // rows of one query against n keys, unscaled, at d_k: how often their spread reaches the
    // example's (the saturation step's own rows and count, so both show the same numbers)
    *spread({ dk, n, example, typicalRows }) {
      const odds = yield* softmaxSpreadOdds(engine, { seed, dk, scores: example });
      const typical = meanSE(softmaxRows(dk, n, typicalRows, 1).maxWeight);
      return { values: [odds.fraction], spread: odds.spread, inSigmas: odds.spread / Math.sqrt(dk), rows: odds.rows, hits: odds.hits,
        widest: odds.widest, theory: odds.theory, typicalMax: typical, dk, n };
    },
    // a Xavier-normal projection W (fan_in × fan_out), Var(W) = 2/(fan_in + fan_out), of N(0, 1) inputs
    *xavier({ fanIn, fanOut, rows }) {
      const x = entries(rows * fanIn), w = entries(fanIn * fanOut, Math.sqrt(2 / (fanIn + fanOut)));
      const q = engine.matmul(x, w, rows, fanIn, fanOut);
      const d = engine.describe(q);
      return { values: [d.variance], theory: (2 * fanIn) / (fanIn + fanOut), fanIn, fanOut, rows };
    },
    // the float engine's softmax of scores divided by d_k (or √d_k) against a double softmax of
    // the same float scores: the largest relative error of a weight
    *precision({ dk, n, rows }) {
      const q = entries(rows * dk), k = entries(n * dk);
      const err = (scale) => {
        const s = engine.scores({ q, k, nq: rows, nk: n, dk, scale });
        const p = engine.softmax(s, rows, n);
        let worst = 0, smallest = Infinity;
        for (let i = 0; i < rows; i++) {
          const ref = softmaxDouble(s.subarray(i * n, (i + 1) * n));
          ref.forEach((v, j) => { worst = Math.max(worst, Math.abs(p[i * n + j] - v) / v); });
          for (let j = 0; j < n; j++) if (s[i * n + j] !== 0) smallest = Math.min(smallest, Math.abs(s[i * n + j]));
        }
        return { worst, smallest };
      };
      const byDk = err(1 / dk), bySqrt = err(1 / Math.sqrt(dk));
      return { values: [byDk.worst], byDk, bySqrt, unitRoundoff: 2 ** -24, tiniest: 2 ** -126, dk, n, rows };
    },
  };

  // Yield between claims only after about 10 ms of work: each yield costs the worker a tick.
  const results = {};
  let since = performance.now();
  for (let i = 0; i < claims.length; i++) {
    const { id, compute, stated } = claims[i];
    const op = ops[compute.op];
    if (!op) throw new RangeError(`claims: unknown op ${JSON.stringify(compute.op)} in claim ${id}`);
    results[id] = yield* op(compute);
    if (stated) results[id].statedSum = stated.reduce((a, b) => a + b, 0);
    if (i + 1 < claims.length && performance.now() - since > 10) {
      yield { progress: (i + 1) / claims.length };
      since = performance.now();
    }
  }
  return { seed, pairs, results };
}

export const experiments = { claimsCheck };
