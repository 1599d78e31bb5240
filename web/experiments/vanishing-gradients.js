// (eq:vanishing-gradients) experiments. The d_k curves come from softmaxSweep
// (softmax-saturation.js); see chunks.js for the generator contract.
import { rowScores, softmaxSweep } from './softmax-saturation.js';
import { softmaxJacobianNormDouble } from './reference.js';

// The course section's (seed 002) "healthy" example: "when softmax ≈ [0.3, 0.3, 0.2, 0.2],
// gradients ≈ [0.21, 0.21, 0.16, 0.16]". Its input and its stated output, checked below.
export const COURSE_GRADIENT = { p: [0.3, 0.3, 0.2, 0.2], claimed: [0.21, 0.21, 0.16, 0.16] };
// The forum post's (seed 000) unscaled row at d_k = 64.
const FORUM_SCORES = [-20, 3, 25, -15];
// its ‖J‖ in double: what a reader works out by hand, against which float32's is compared
const FORUM_EXACT_NORM = softmaxJacobianNormDouble(FORUM_SCORES);

const f32 = (a) => Float32Array.from(a);

// ‖J‖_F, the largest |J_ij|, and the mean over non-max j of ‖column j‖₂ = ‖∂p/∂s_j‖₂ (J is symmetric).
export function jacobianSummary(J, p) {
  const n = p.length;
  let fro = 0, maxAbs = 0, m = 0;
  for (let i = 0; i < n; i++) if (p[i] > p[m]) m = i;
  const col = new Float64Array(n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const v = J[i * n + j];
      fro += v * v;
      col[j] += v * v;
      maxAbs = Math.max(maxAbs, Math.abs(v));
    }
  let nonmax = 0;
  for (let j = 0; j < n; j++) if (j !== m) nonmax += Math.sqrt(col[j]);
  return { frobenius: Math.sqrt(fro), maxAbs, nonmaxGrad: n > 1 ? nonmax / (n - 1) : 0, argmax: m };
}

// The course's example: the engine's full Jacobian for p = [0.3, 0.3, 0.2, 0.2]; its diagonal
// p_i(1 − p_i) against the stated "gradients"; the gradient of p_1 with respect to the logits
// (softmaxBackward with upstream e_1: the first column of J); the row sums.
function courseGradient(engine) {
  const p = f32(COURSE_GRADIENT.p);
  const n = p.length;
  const J = engine.softmaxJacobian(p);
  const diagonal = Array.from({ length: n }, (_, i) => J[i * n + i]);
  const e1 = new Float32Array(n);
  e1[0] = 1;
  const gradP1 = Array.from(engine.softmaxBackward(p, e1, 1, n));
  const rowSums = Array.from({ length: n }, (_, i) => J.subarray(i * n, (i + 1) * n).reduce((s, v) => s + v, 0));
  return {
    ...COURSE_GRADIENT, J, diagonal, gradP1, rowSums,
    error: Math.max(...diagonal.map((d, i) => Math.abs(d - COURSE_GRADIENT.claimed[i]))),
    frobenius: jacobianSummary(J, p).frobenius,
  };
}

// A one-hot p, exactly: J = 0 and softmaxBackward passes 0 for any upstream gradient (here a
// random one). And the forum's unscaled row, which softmax leaves nearly, not exactly, one-hot.
function oneHotCheck(engine, { n, seed }) {
  const p = new Float32Array(n);
  p[0] = 1;
  const J = engine.softmaxJacobian(p);
  const g = engine.sampleEntries({ count: n, seed, stream: 2 ** 33 });
  const dx = engine.softmaxBackward(p, g, 1, n);
  const forumP = engine.softmax(f32(FORUM_SCORES), 1, FORUM_SCORES.length);
  const forumJ = engine.softmaxJacobian(forumP);
  return {
    n,
    maxAbsJ: Math.max(...J.map(Math.abs)),
    maxAbsGrad: Math.max(...dx.map(Math.abs)),
    upstreamNorm: Math.hypot(...g),
    forum: { scores: FORUM_SCORES, p: Array.from(forumP), ...jacobianSummary(forumJ, forumP), exactFrobenius: FORUM_EXACT_NORM },
  };
}

// (eq:vanishing-gradients) One query against n keys at the current d_k: the Jacobian of the
// peaked (unscaled) and the spread (scaled by 1/√d_k) softmax, with their norms; the course
// section's example; the one-hot case.
export function* vanishingGradientsRow(engine, { dk, n, seed, query }) {
  const out = { dk, n, seed, query };
  for (const [name, scale] of [['peaked', 1], ['spread', 1 / Math.sqrt(dk)]]) {
    const s = rowScores(engine, { dk, n, seed, query, scale });
    const p = engine.softmax(s, 1, n);
    const J = engine.softmaxJacobian(p);
    out[name] = { scores: s, p, J, ...jacobianSummary(J, p) };
  }
  out.uniformNorm = Math.sqrt(n - 1) / n;  // theory: ‖(I − 11ᵀ/n)/n‖_F
  // the largest ‖J‖_F any row has, at two weights of ½ (theory: ½), computed by the engine
  const split = f32(Array.from({ length: n }, (_, j) => (j < 2 ? 0.5 : 0)));
  out.splitNorm = jacobianSummary(engine.softmaxJacobian(split), split).frobenius;
  out.course = courseGradient(engine);
  out.oneHot = oneHotCheck(engine, { n, seed });
  return out;
}

// Least-squares slope of log y against log x.
export function logSlope(xs, ys) {
  const lx = xs.map(Math.log), ly = ys.map(Math.log);
  const mx = lx.reduce((s, v) => s + v, 0) / lx.length, my = ly.reduce((s, v) => s + v, 0) / ly.length;
  let sxy = 0, sxx = 0;
  for (let i = 0; i < lx.length; i++) { sxy += (lx[i] - mx) * (ly[i] - my); sxx += (lx[i] - mx) ** 2; }
  return sxy / sxx;
}

// (eq:vanishing-gradients) The d_k sweep (shared with the saturation step), and the measured
// exponent b of the unscaled mean ‖J‖_F ∝ d_k^b for d_k >= 64. Near ties carry that mean: the
// chance that the two best of n scores of spread σ lie within ε of each other is about ∝ ε/σ,
// so b should be close to −1/2.
export function* vanishingGradientsSweep(engine, { n, rows, seed }) {
  const sweep = yield* softmaxSweep(engine, { n, rows, seed, scales: ['none', 'sqrt'] });
  const from = sweep.dks.findIndex((d) => d >= 64);
  const slope = logSlope(sweep.dks.slice(from), sweep.scales.none.jacobianNorm.mean.slice(from));
  return { ...sweep, slopeFrom: sweep.dks[from], jacobianSlope: slope };
}

export const experiments = { vanishingGradientsRow, vanishingGradientsSweep };
