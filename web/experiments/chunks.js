// The contract of every experiment: a generator function (engine, params) that yields
// { progress, partial? } between chunks of work (so the worker can report progress and drop a
// superseded run; partial: results so far, for figures that draw while they compute) and returns
// a plain, structured-cloneable result. Pure functions of their inputs: Node tests call them
// directly with an engine from createEngine().
//
// Shared chunked samplers live here.

// Normals per engine call: about 10 ms of work in wasm SIMD.
export const CHUNK_NORMALS = 1 << 21;

// q·k for `count` pairs, in chunks. Pair i always uses RNG stream i, so the chunking never
// changes the numbers.
export function* sampleDots(engine, { dk, count, seed, distribution = 'normal', mean = 0, std = 1, ...rest }) {
  const out = new Float32Array(count);
  const per = Math.max(1, Math.floor(CHUNK_NORMALS / (2 * dk)));
  for (let first = 0; first < count; first += per) {
    const n = Math.min(per, count - first);
    out.set(engine.sampleDotProducts({ dk, count: n, seed, first, distribution, mean, std, ...rest }), first);
    if (first + n < count) yield { progress: (first + n) / count };
  }
  return out;
}
