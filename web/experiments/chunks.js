// The contract of every experiment: a generator function (engine, params) that yields
// { progress, partial? } between chunks of work (so the worker can report progress and drop a
// superseded run; partial: results so far, for figures that draw while they compute) and returns
// a plain, structured-cloneable result. Pure functions of their inputs: Node tests call them
// directly with an engine from createEngine().
//
// Shared chunked samplers live here.

// Normals per engine call: about 10 ms of work in wasm SIMD.
export const CHUNK_NORMALS = 1 << 21;

// The last samples each engine drew, by everything but their count (sampleDots below). Pair i
// always comes from RNG stream first + i, so a run with more pairs extends an earlier one and a
// run with fewer is its prefix: a count moved down draws nothing, and moved up draws only the new
// pairs. Per engine (a SIMD and a scalar build round their dot products
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

// q·k for `count` pairs, in chunks of about CHUNK_NORMALS draws (an entry costs `cost` normals'
// time: a Student-t entry, 2.6 at ν = 5). Pair i always uses RNG stream first + i, so the
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

// engine.sampleEntries kept in engine memory (a workspace), for an experiment whose products
// read them in place. A new draw then touches no fresh JavaScript memory (a page touched for the
// first time costs 5–30 µs in Chromium on this project's machines: several ms for the 1 MiB of
// initialization's tokens, docs/PERFORMANCE-LOG.md), and no product copies them into the engine.
// A stream's entries come one after another, so fewer are a prefix of more (more are drawn anew,
// into a block of their own). Returns { view(), release() }: view() is the `count` entries (read
// it again after any engine call: memory growth detaches an older view). A block stays while a run
// holds it (runs of other channels interleave at yields); after release, the newest blocks up to
// KEPT values stay, and the others are disposed, their memory back in the engine's heap.
const inEngine = new WeakMap();  // engine → Map(key → block { ws, size, users }), the oldest first

// the oldest blocks no run holds, until those kept come to KEPT values (the newest always stays)
function dropUnused(blocks) {
  const newest = [...blocks.keys()].at(-1);
  let size = 0;
  for (const b of blocks.values()) size += b.size;
  for (const [k, b] of blocks) {
    if (size <= KEPT) break;
    if (k === newest || b.users > 0) continue;
    blocks.delete(k);
    b.ws.dispose();
    size -= b.size;
  }
}

export function borrowEntries(engine, { count, ...params }) {
  if (!inEngine.has(engine)) inEngine.set(engine, new Map());
  const blocks = inEngine.get(engine);
  const key = JSON.stringify(params);
  let block = blocks.get(key);
  if (!block || block.size < count) {
    const ws = engine.workspace({ entries: count });
    try {
      engine.sampleEntries({ count, ...params, out: ws.entries });
    } catch (err) {
      ws.dispose();
      throw err;
    }
    // fewer entries, replaced: gone now, or when the last run holding them lets go (release)
    if (block?.users === 0) block.ws.dispose();
    block = { ws, size: count, users: 0 };
  }
  blocks.delete(key);
  blocks.set(key, block);
  block.users++;
  let held = true;
  return {
    view: () => block.ws.entries.subarray(0, count),
    release: () => {
      if (!held) return;
      held = false;
      block.users--;
      if (block.users === 0 && blocks.get(key) !== block) block.ws.dispose();  // replaced meanwhile
      dropUnused(blocks);
    },
  };
}
