// The contract of every experiment: a generator function (engine, params) that yields
// { progress, partial? } between chunks of work (so the worker can report progress and drop a
// superseded run; partial: results so far, for figures that draw while they compute) and returns
// a plain, structured-cloneable result. Pure functions of their inputs: Node tests call them
// directly with an engine from createEngine().
//
// Shared chunked samplers live here.

// Normals per engine call: about 10 ms of work in wasm SIMD.
export const CHUNK_NORMALS = 1 << 21;

// The last samples each engine drew, by everything but their count (sampleDots and keptEntries
// below). Pair i always comes from RNG stream first + i, so a run with more pairs extends an
// earlier one and a run with fewer is its prefix: a count moved down draws nothing, and moved up
// draws only the new pairs. Per engine (a SIMD and a scalar build round their dot products
// differently), the newest runs up to KEPT values in all (4 MiB: a breaking-assumptions sweep
// keeps one run per d_k).
const KEPT = 1 << 20;
const kept = new WeakMap();  // engine → Map(key → Float32Array), the oldest first

function keptFor(engine, key) {
  if (!kept.has(engine)) kept.set(engine, new Map());
  return kept.get(engine).get(key);
}
function keep(engine, key, dots) {
  const runs = kept.get(engine);
  runs.delete(key);
  runs.set(key, dots);
  let size = 0;
  for (const d of runs.values()) size += d.length;
  for (const [k, d] of runs) {
    if (size <= KEPT || k === key) break;
    runs.delete(k);
    size -= d.length;
  }
}

// q·k for `count` pairs, in chunks of about CHUNK_NORMALS draws (an entry costs `cost` draws: a
// Student-t entry is a normal and a chi-square). Pair i always uses RNG stream first + i, so the
// chunking never changes the numbers, and what the engine drew before for the same parameters is
// reused (above).
export function* sampleDots(engine, { dk, count, seed, first = 0, distribution = 'normal', mean = 0, std = 1, ...rest }, { cost = 1 } = {}) {
  const params = { dk, seed, first, distribution, mean, std, ...rest };
  const key = JSON.stringify(params);
  const before = keptFor(engine, key);
  const out = new Float32Array(count);
  const reused = Math.min(count, before?.length ?? 0);
  if (reused) out.set(before.subarray(0, reused));
  const per = Math.max(1, Math.floor(CHUNK_NORMALS / (2 * dk * cost)));
  for (let at = reused; at < count; at += per) {
    const n = Math.min(per, count - at);
    out.set(engine.sampleDotProducts({ ...params, count: n, first: first + at }), at);
    if (at + n < count) yield { progress: (at + n - reused) / (count - reused) };
  }
  if (count > reused) keep(engine, key, out.slice());  // a copy: the caller may change `out`
  return out;
}

// engine.sampleEntries, from what this engine drew last for the same stream when it can: a
// stream's entries come one after another, so fewer are a prefix of more (more are drawn anew).
// A copy, unless `shared`: then the kept array itself (or a prefix view of it), for a caller that
// only reads it. Fresh memory is dear where the browser returns freed pages to the system (a page
// touched for the first time costs ~5 µs in Chromium on this project's machines: 5 ms for the
// 1 MiB of initialization's tokens, docs/PERFORMANCE.md).
export function keptEntries(engine, { count, ...params }, { shared = false } = {}) {
  const key = `entries ${JSON.stringify(params)}`;
  const before = keptFor(engine, key);
  if (before && before.length >= count) return shared ? before.subarray(0, count) : before.slice(0, count);
  const out = engine.sampleEntries({ count, ...params });
  keep(engine, key, shared ? out : out.slice());
  return out;
}
