// (eq:exercises) the five exercises of the course section, each a small experiment of its own so
// that a control recomputes only its exercise. See chunks.js for the generator contract.
import { sampleDots } from './chunks.js';

// Mean and standard error of a sample, in double.
function meanSE(x) {
  let s = 0, s2 = 0;
  for (const v of x) { s += v; s2 += v * v; }
  const n = x.length, mean = s / n;
  const variance = n > 1 ? Math.max(0, (s2 - n * mean * mean) / (n - 1)) : 0;
  return { mean, se: Math.sqrt(variance / n) };
}

// Frobenius norm of a matrix given row-major, in double.
const frobenius = (m) => Math.sqrt(m.reduce((s, x) => s + x * x, 0));

// (1) The standard deviation of unscaled scores q·k at d_k = 512: measured from `pairs` sampled
// pairs, beside the theory √d_k. SE(s) ≈ SE(s²)/(2s) by the delta method.
export function* exerciseScoreStd(engine, { pairs, seed, dk = 512 }) {
  const dots = yield* sampleDots(engine, { dk, count: pairs, seed });
  const d = engine.describe(dots);
  const std = Math.sqrt(d.variance);
  return {
    dk, pairs, seed, theory: Math.sqrt(dk), std, stdSE: d.varianceSE / (2 * std),
    stdCI: d.varianceCI.map((v) => Math.sqrt(Math.max(0, v))), variance: d.variance,
    // the two answers students often give instead: the variance, and the d_k = 64 value
    varianceTheory: dk, stdAt64: Math.sqrt(64),
  };
}

// (2) softmax([x, 0, 0, 0]) on a grid of x in [0, xMax], as one engine call of `m` rows; for each
// threshold t the first grid x whose largest weight exceeds t, and the closed form
// e^x/(e^x + 3) = t  ⇔  x = ln(3t/(1 − t)).
export function* exerciseSaturation(engine, { thresholds, xMax = 10, step = 0.01 }) {
  const m = Math.round(xMax / step) + 1;
  const logits = new Float32Array(4 * m);
  const x = new Float64Array(m);
  for (let i = 0; i < m; i++) { x[i] = i * step; logits[4 * i] = x[i]; }
  const p = engine.softmax(logits, m, 4);
  const p1 = new Float32Array(m), rest = new Float32Array(m);
  for (let i = 0; i < m; i++) { p1[i] = p[4 * i]; rest[i] = p[4 * i + 1]; }
  const crossings = thresholds.map((t) => {
    const i = p1.findIndex((v) => v > t);
    return { t, x: i < 0 ? null : x[i], closedForm: Math.log((3 * t) / (1 - t)) };
  });
  return { x, p1, rest, crossings, step, xMax, uniform: 1 / 4 };
}

// Means (with SE) of sampleSoftmaxRows' per-row statistics.
function rowMeans(rows) {
  const out = {};
  for (const key of ['maxWeight', 'entropy', 'jacobianNorm', 'nonmaxGrad']) out[key] = meanSE(rows[key]);
  return out;
}

// (3) What the ablation starts from: at initialisation, `rows` random queries against n random
// keys, the same draws with scale 1 and with 1/√d_k.
export function* exerciseAblationPreview(engine, { dk, seed, n = 16, rows = 100 }) {
  const unscaled = rowMeans(engine.sampleSoftmaxRows({ dk, n, rows, seed, scale: 1 }));
  const scaled = rowMeans(engine.sampleSoftmaxRows({ dk, n, rows, seed }));
  return { dk, n, rows, seed, unscaled, scaled, logN: Math.log(n) };
}

// (4) One query against n keys at τ = ½√d_k, √d_k, 2√d_k (logits s/τ), and the mean peakedness
// over `rows` further random queries at each τ.
export const EXERCISE_4_KEYS = 8;  // the course's exercise 4: one query against 8 keys
export function* exerciseTemperature(engine, { dk, seed, n = EXERCISE_4_KEYS, rows = 100 }) {
  const q = engine.sampleEntries({ count: dk, seed, stream: 0 });
  const k = engine.sampleEntries({ count: n * dk, seed, stream: 1 });
  const root = Math.sqrt(dk);
  const factors = [0.5, 1, 2];
  const taus = factors.map((f) => f * root);
  const logits = new Float32Array(3 * n);
  taus.forEach((tau, t) => logits.set(engine.scores({ q, k, nq: 1, nk: n, dk, scale: 1 / tau }), t * n));
  const weights = engine.softmax(logits, 3, n);
  const { max, entropy } = engine.rowStats(weights, 3, n);
  const means = taus.map((tau) => rowMeans(engine.sampleSoftmaxRows({ dk, n, rows, seed, scale: 1 / tau, first: 2 })));
  return { dk, n, rows, seed, factors, taus, weights, max, entropy, means, logN: Math.log(n) };
}

// (5) The softmax Jacobian J = diag(p) − ppᵀ for a peaked p = softmax([peak, 0, 0, 0]) and the
// uniform p = softmax([0, 0, 0, 0]), with Frobenius norms and their closed forms:
//   ‖J‖_F² = Σp² − 2Σp³ + (Σp²)²,  uniform over n: ‖J‖_F = √(n − 1)/n.
export function* exerciseJacobians(engine, { peak, n = 4 }) {
  const logits = new Float32Array(2 * n);
  logits[0] = peak;
  const p = engine.softmax(logits, 2, n);
  const one = (probs) => {
    const jac = engine.softmaxJacobian(probs);
    let s2 = 0, s3 = 0, maxAbs = 0;
    for (const v of probs) { s2 += v * v; s3 += v * v * v; }
    for (const v of jac) maxAbs = Math.max(maxAbs, Math.abs(v));
    return { p: probs, jacobian: jac, norm: frobenius(jac), closedForm: Math.sqrt(Math.max(0, s2 - 2 * s3 + s2 * s2)), maxAbs };
  };
  return { n, peak, peaked: one(p.slice(0, n)), uniform: one(p.slice(n)), uniformTheory: Math.sqrt(n - 1) / n };
}

export const experiments = { exerciseScoreStd, exerciseSaturation, exerciseAblationPreview, exerciseTemperature, exerciseJacobians };
