// (eq:softmax-saturation) How wide a row of attention scores spreads: the probability that the
// largest and the smallest of n scores are at least r apart, exactly, for the sampled rows to be
// checked against (experiments/softmax-saturation.js's softmaxSpreadOdds, the claims table).

import { simpson } from './quadrature.js';

// Standard normal CDF through erfc (Numerical Recipes' erfcc, fractional error below 1.2e-7).
function normCdf(z) {
  const x = Math.abs(z) / Math.SQRT2, t = 1 / (1 + 0.5 * x);
  const erfc = t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

// log Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: ~15 digits).
const LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
function logGamma(x) {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1, t = y + 7.5;
  let a = LANCZOS[0];
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

// Simpson's rule on [−9, 9] (the integrand is negligible outside), m intervals: the nodes z with
// their weights, φ(z) and Φ(z), kept per m: every range tail on the same grid shares them.
const grids = new Map();
function zGrid(m) {
  if (!grids.has(m)) {
    const h = 18 / m, z = Array.from({ length: m + 1 }, (_, i) => -9 + i * h);
    grids.set(m, { z, weight: z.map((_, i) => (i === 0 || i === m ? 1 : i % 2 ? 4 : 2) * h / 3),
      phi: z.map((v) => Math.exp(-0.5 * v * v) / Math.sqrt(2 * Math.PI)), Phi: z.map(normCdf) });
  }
  return grids.get(m);
}

// P(max − min of n i.i.d. N(0, σ²) draws ≥ r) = 1 − n ∫ φ(z) [Φ(z + r/σ) − Φ(z)]^{n−1} dz, on a
// grid of m intervals.
export function rangeTail(n, r, sigma, m = 3600) {
  const { z, weight, phi, Phi } = zGrid(m), w = r / sigma;
  let s = 0;
  for (let i = 0; i <= m; i++) s += weight[i] * phi[i] * (normCdf(z[i] + w) - Phi[i]) ** (n - 1);
  return Math.max(0, 1 - n * s);
}

// The same for the n scores s_j = q·k_j of one query against n keys, every entry of q and the k_j
// i.i.d. N(0, 1) in d_k dimensions: given ‖q‖ = ρ the scores are i.i.d. N(0, ρ²), and ρ has the χ
// distribution with d_k degrees of freedom, density ρ^(d_k−1) e^(−ρ²/2) / (2^(d_k/2−1) Γ(d_k/2)):
//   P(range ≥ r) = ∫ χ_dk(ρ) · rangeTail(n, r, ρ) dρ
// over √d_k ± 9 (ρ's standard deviation is below 1/√2 for every d_k). Sharing q makes wide rows
// likelier than n independent scores of variance d_k would (softmaxSpreadOdds reports how much).
// Memoised (a few ms each).
const rangeTails = new Map();
export function scoreRangeTail(n, r, dk, { inner = 240, outer = 120 } = {}) {
  const key = `${n},${r},${dk},${inner},${outer}`;
  if (!rangeTails.has(key)) {
    const logNorm = (dk / 2 - 1) * Math.log(2) + logGamma(dk / 2);
    const chi = (rho) => Math.exp((dk - 1) * Math.log(rho) - (rho * rho) / 2 - logNorm);
    const mid = Math.sqrt(dk);
    // at ρ = 0 the range is certain to be reached; the density is 0 there but for d_k = 1
    const f = (rho) => (rho > 0 ? chi(rho) * rangeTail(n, r, rho, inner) : dk === 1 ? Math.sqrt(2 / Math.PI) : 0);
    rangeTails.set(key, simpson(f, Math.max(0, mid - 9), mid + 9, outer));
  }
  return rangeTails.get(key);
}
