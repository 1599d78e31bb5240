// (eq:breaking-assumptions) experiments: Var(q·k) against d_k when a premise of the derivation
// fails, with the formula that holds instead. See chunks.js for the generator contract and
// cpp/sampling.hpp for the sampler's semantics.
import { sampleDots } from './chunks.js';

export const BREAK_DKS = [2, 4, 8, 16, 32, 64, 128, 256, 512];

// The standardized Student-t's fourth moment, 3(ν − 2)/(ν − 4) (infinite for ν <= 4).
export const tFourthMoment = (df) => (df > 4 ? (3 * (df - 2)) / (df - 4) : Infinity);

// Per departure: the strength it reads (μ, ρ or ν; LayerNorm has none), the sampler's options,
// E[q·k] and Var(q·k) as functions of d_k, and the cost of one entry in normal draws.
export const DEPARTURES = {
  mean: {
    strength: 'mu',
    options: ({ mu }) => ({ mean: mu }),
    mean: (dk, { mu }) => dk * mu * mu,
    variance: (dk, { mu }) => dk * (1 + 2 * mu * mu),
    cost: () => 1,
  },
  rho: {
    strength: 'rho',
    options: ({ rho }) => ({ rho }),
    mean: (dk, { rho }) => dk * rho,
    variance: (dk, { rho }) => dk * (1 + rho * rho),
    cost: () => 1.5,
  },
  'student-t': {
    strength: 'df',
    options: ({ df }) => ({ distribution: 'student-t', df }),
    mean: () => 0,
    variance: (dk) => dk,
    // a Box–Muller pair (two normals' work), then ⌊ν/2⌋ uniforms with a ln per three: measured
    // 2.6 normals' time at ν = 5 and 5.5 at ν = 20 (cpp/rng.hpp student_t)
    cost: ({ df }) => 2 + Math.floor(df / 2) / 3,
  },
  layernorm: {
    strength: null,
    options: () => ({ layernorm: true }),
    mean: () => 0,
    variance: (dk) => (dk * dk) / (dk - 1),
    cost: () => 1.5,
  },
};

// A run below this many draws finishes in one go (about the 16 ms budget).
const LIGHT_DRAWS = 1 << 20;
// Pairs at the i-th d_k use RNG streams i·2²⁴ + j: the d_k are independent of one another.
const STREAM_STRIDE = 2 ** 24;

// The request for breakingSweep at the page's values: the departure's own strength only, so that
// moving a strength the departure does not read (ρ while the mean is broken) asks for the same
// sweep, which the figure then reuses without the engine (web/figure.js).
export function breakingRequest({ departure, count, seed, ...strengths }) {
  const strength = DEPARTURES[departure]?.strength;
  return { departure, ...(strength ? { [strength]: strengths[strength] } : {}), count, seed };
}

// (eq:breaking-assumptions) For each d_k in `dks`, `count` pairs (q, k) that break one premise;
// returns per d_k the mean and variance of q·k with 95% intervals, and the formulas.
export function* breakingSweep(engine, { departure, mu = 0.5, rho = 0.5, df = 5, count, seed, dks = BREAK_DKS }) {
  const spec = DEPARTURES[departure];
  if (!spec) throw new RangeError(`breakingSweep: unknown departure ${JSON.stringify(departure)}`);
  const p = { mu, rho, df };
  const options = spec.options(p);
  const cost = spec.cost(p);
  const drawsOf = (dk) => 2 * dk * count * cost;
  const total = dks.reduce((s, dk) => s + drawsOf(dk), 0);
  const light = total <= LIGHT_DRAWS;
  let done = 0;
  const points = [];
  for (const [i, dk] of dks.entries()) {
    // in chunks (sampleDots), reusing what the engine drew for a smaller count
    const run = sampleDots(engine, { dk, count, seed, first: i * STREAM_STRIDE, ...options }, { cost });
    let step = run.next();
    for (; !step.done; step = run.next()) if (!light) yield { progress: (done + step.value.progress * drawsOf(dk)) / total };
    const dots = step.value;
    done += drawsOf(dk);
    if (!light && done < total) yield { progress: done / total };
    const s = engine.describe(dots);
    points.push({
      dk, mean: s.mean, meanCI: s.meanCI, variance: s.variance, varianceCI: s.varianceCI, varianceSE: s.varianceSE,
      formulaMean: spec.mean(dk, p), formulaVariance: spec.variance(dk, p),
      // the half-width of a 95% interval for the variance relative to d_k: measured (1.96 SE; not
      // half the interval, whose lower end stops at 0), with normal entries (kurtosis of q·k
      // 3 + 6/d_k) and with these entries (3 + (m₄² − 3)/d_k, m₄ their 4th moment)
      halfWidth: (1.96 * s.varianceSE) / dk,
      normalHalfWidth: 1.96 * Math.sqrt((2 + 6 / dk) / count),
      tHalfWidth: departure === 'student-t' ? 1.96 * Math.sqrt((2 + (tFourthMoment(df) ** 2 - 3) / dk) / count) : undefined,
    });
  }
  return { departure, mu, rho, df, count, seed, points };
}

export const experiments = { breakingSweep };
