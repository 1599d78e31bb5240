// (eq:dot-variance) experiments. See chunks.js for the generator contract.
import { sampleDots } from './chunks.js';

// (eq:dot-variance) Sample q·k, summarise it raw and divided by √d_k, and histogram both over
// ±4 theoretical standard deviations.
export function* dotVariance(engine, { dk, count, seed, bins = 41 }) {
  const dots = yield* sampleDots(engine, { dk, count, seed });
  const sd = Math.sqrt(dk);
  const raw = engine.describe(dots, { bins, lo: -4 * sd, hi: 4 * sd });
  const scaled = dots.map((x) => x / sd);
  const unit = engine.describe(scaled, { bins, lo: -4, hi: 4 });
  return { dk, count, seed, raw, scaled: unit };
}

export const experiments = { dotVariance };
