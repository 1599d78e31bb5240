// Timing shared by the benchmarks: each function warmed up for 300 ms (V8 first runs wasm in a
// baseline tier), then all of them timed in alternation, round by round, so a drift of the shared
// host's speed hits each alike; the medians, in ms.
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function timeInterleaved(fns, rounds) {
  for (const fn of fns) for (const t0 = performance.now(); performance.now() - t0 < 300;) fn();
  const times = fns.map(() => []);
  for (let r = 0; r < rounds; r++)
    fns.forEach((fn, i) => { const t0 = performance.now(); fn(); times[i].push(performance.now() - t0); });
  return times.map(median);
}

// The same for functions that may return a promise (onnxruntime-web's session.run), awaited.
export async function timeInterleavedAsync(fns, rounds) {
  const call = async (fn) => { const r = fn(); if (r && typeof r.then === 'function') await r; };
  for (const fn of fns) for (const t0 = performance.now(); performance.now() - t0 < 300;) await call(fn);
  const times = fns.map(() => []);
  for (let r = 0; r < rounds; r++)
    for (const [i, fn] of fns.entries()) { const t0 = performance.now(); await call(fn); times[i].push(performance.now() - t0); }
  return times.map(median);
}
