// (eq:dot-variance) experiments. See chunks.js for the generator contract.
import { sampleDots } from './chunks.js';

// (eq:dot-variance) Sample q·k, summarise it raw and divided by √d_k, and histogram both over
// ±4 theoretical standard deviations.
export function* dotVariance(engine, { dk, count, seed, bins = 41 }) {
  const dots = yield* sampleDots(engine, { dk, count, seed });
  const sd = Math.sqrt(dk);
  const raw = engine.describe(dots, { bins, lo: -4 * sd, hi: 4 * sd });
  const scaled = new Float32Array(dots.length);
  for (let i = 0; i < dots.length; i++) scaled[i] = dots[i] / sd;
  const unit = engine.describe(scaled, { bins, lo: -4, hi: 4 });
  return { dk, count, seed, raw, scaled: unit };
}

// The sweep's d_k: 1, 2, 4, …, 4096.
export const SWEEP_DK = Array.from({ length: 13 }, (_, i) => 2 ** i);

// Pairs sampled at d_k = d in the sweep: n(d) = clamp(2¹⁵/d, 64, 4096). A pair costs 2d normals, so
// every point from d_k = 8 to 512 costs 2¹⁶ normals; the small d_k get more pairs (they are cheap),
// the largest keep at least 64 (relative SE of the variance √(2/64) ≈ 18%). About 1.4 million
// normals in all. tests/steps-basics.tests.cpp checks the same schedule.
export const sweepPairs = (dk) => Math.min(4096, Math.max(64, Math.floor(2 ** 15 / dk)));

// (eq:dot-variance) Var(q·k) against d_k = 1 … 4096, one engine call per d_k (at most 2¹⁹ normals,
// a few ms), with progress between them. Pair i at every d_k uses RNG stream i of the seed, as in
// dotVariance, so at the histogram's d_k (if it is swept) the point and the histogram share their
// first min(count, n(d_k)) pairs: the shorter run is the longer one's beginning.
// Returns per point the variance of q·k with its 95% interval and SE; those of q·k/√d_k are the
// same divided by d_k.
export function* dotVarianceSweep(engine, { seed, dks = SWEEP_DK }) {
  const points = [];
  let normals = 0;
  for (const [i, dk] of dks.entries()) {
    const count = sweepPairs(dk);
    const dots = engine.sampleDotProducts({ dk, count, seed });
    const s = engine.describe(dots);
    points.push({ dk, count, variance: s.variance, varianceCI: s.varianceCI, varianceSE: s.varianceSE });
    normals += 2 * dk * count;
    if (i + 1 < dks.length) yield { progress: (i + 1) / dks.length };
  }
  return { seed, points, normals };
}

export const experiments = { dotVariance, dotVarianceSweep };
