// (eq:product-variance) experiments, and the theory they are compared with. See chunks.js for the
// generator contract.
import { sampleDots } from './chunks.js';
import { simpson } from './quadrature.js';

// E[X⁴] of the standardized entry distributions (mean 0, variance 1):
//   normal 3;  uniform on [−√3, √3]: 3²/5 = 9/5;  Rademacher (±1): 1.
// For independent X, Y of one of these, E[(XY)⁴] = E[X⁴]·E[Y⁴], which is also the kurtosis of XY.
export const FOURTH_MOMENT = { normal: 3, uniform: 9 / 5, rademacher: 1 };

// K₀(x), the modified Bessel function of the second kind, for x > 0, from its integral
//   K₀(x) = ∫₀^∞ exp(−x·cosh t) dt.
// The integrand is analytic and decays doubly exponentially, so the trapezoidal rule with step h
// converges geometrically (error ~ exp(−π²/h)); h = 1/8 gives full double precision. The sum
// stops once a term is below 10⁻¹⁷ of it.
export function besselK0(x) {
  if (!(x > 0)) return x === 0 ? Infinity : NaN;
  const h = 1 / 8;
  let sum = Math.exp(-x) / 2;
  for (let m = 1; ; m++) {
    const term = Math.exp(-x * Math.cosh(m * h));
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return h * sum;
}

// The density of XY for independent X, Y of the given distribution, or null when there is none.
//   normal:     K₀(|x|)/π, with a logarithmic spike at 0 (returned as NaN there: a gap in the curve)
//   uniform:    ln(3/|x|)/6 on |x| < 3: |X|/√3 and |Y|/√3 are U(0, 1), and UV has density −ln w
//   rademacher: XY = ±1 with probability ½ each, no density
export function productDensity(distribution) {
  if (distribution === 'normal') return (x) => (x === 0 ? NaN : besselK0(Math.abs(x)) / Math.PI);
  if (distribution === 'uniform') return (x) => (x === 0 ? NaN : Math.abs(x) < 3 ? Math.log(3 / Math.abs(x)) / 6 : 0);
  return null;
}

// The mean of an even density f over [a, b]: its probability there over the width, what a
// histogram's bar estimates. Where f's spike at 0 is an end, x = c·e^(−t) takes it away:
//   ∫₀ᶜ f = ∫₀^∞ f(c·e^(−t)) c·e^(−t) dt,
// whose integrand is smooth and decays like t·e^(−t) (the spike is logarithmic); elsewhere f is
// smooth. Composite Simpson in both cases.
export function binMean(f, a, b) {
  const fromZero = (c) => simpson((t) => (t === 0 ? f(c) : f(c * Math.exp(-t))) * c * Math.exp(-t), 0, 40, 400);
  const mass = (lo, hi) => (hi <= 0 ? mass(-hi, -lo) : lo < 0 ? fromZero(-lo) + fromZero(hi) : lo === 0 ? fromZero(hi) : simpson(f, lo, hi, 16));
  return mass(a, b) / (b - a);
}

// The exact density's mean over each of `bins` bins of [lo, hi] (null for ±1 entries, which have
// none): a few ms per law, so kept.
const bars = new Map();
function exactBars(distribution, lo, hi, bins) {
  const f = productDensity(distribution), key = `${distribution} ${lo} ${hi} ${bins}`, w = (hi - lo) / bins;
  if (f && !bars.has(key)) bars.set(key, Array.from({ length: bins }, (_, b) => binMean(f, lo + b * w, lo + (b + 1) * w)));
  return f ? bars.get(key) : null;
}

// (eq:product-variance) Sample `count` products XY (dot products with d_k = 1: the product
// experiment), histogram them over ±half with a bin centred on 0, and measure, each with a 95%
// interval: the mean and variance, the fourth moment E[(XY)⁴] and the kurtosis κ = m₄/m₂² (delta
// method), all from one engine.describe (cpp/stats.cpp, tails_of).
export function* productVariance(engine, { count, seed, distribution = 'normal', bins = 51, half = 5.1 }) {
  const z = yield* sampleDots(engine, { dk: 1, count, seed, distribution });
  const summary = engine.describe(z, { bins, lo: -half, hi: half });
  return {
    count, seed, distribution,
    summary,
    exactBars: exactBars(distribution, -half, half, bins),
    fourth: { value: summary.fourth, ci: summary.fourthCI },
    kurtosis: { value: summary.kurtosis, se: summary.kurtosisSE, ci: summary.kurtosisCI },
  };
}

export const experiments = { productVariance };
