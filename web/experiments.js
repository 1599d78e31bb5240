// The page's computations, as generators over the engine: each yields { progress } between
// chunks (so the worker can post progress and drop a superseded run) and returns a plain,
// transferable result. Pure functions of (engine, params): Node tests call them directly.

// Samples per engine call: ~10 ms of work at d_k = 512 in wasm SIMD.
const CHUNK_NORMALS = 1 << 21;

// q·k for `count` pairs, in chunks. Pair i always uses RNG stream i, so the chunking never
// changes the numbers.
export function* sampleDots(engine, { dk, count, seed, distribution = 'normal', mean = 0, std = 1 }) {
  const out = new Float32Array(count);
  const per = Math.max(1, Math.floor(CHUNK_NORMALS / (2 * dk)));
  for (let first = 0; first < count; first += per) {
    const n = Math.min(per, count - first);
    out.set(engine.sampleDotProducts({ dk, count: n, seed, first, distribution, mean, std }), first);
    if (first + n < count) yield { progress: (first + n) / count };
  }
  return out;
}

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
