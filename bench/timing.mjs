// Timing shared by the benchmarks: each function warmed up for 300 ms (V8 first runs wasm in a
// baseline tier), then all of them timed in alternation, round by round, so a drift of the shared
// host's speed hits each alike; the medians, in ms.
// A round times a batch of calls of each function, as many as take about BATCH_MS (counted from
// the warm-up), and gives their mean: a page that is not cross-origin isolated reads
// performance.now() to 100 µs, so a 1.7 ms call timed alone is read to ±6% (the peers benchmark in
// Chromium gave its peak probe as exactly 2.0 ms, 41.94 GFLOP/s, at all three sizes).
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const BATCH_MS = 10;

// the calls per batch, from the warm-up's count in 300 ms
const batchOf = (calls, ms) => Math.max(1, Math.ceil(BATCH_MS / (ms / calls)));

export function timeInterleaved(fns, rounds) {
  const batch = fns.map((fn) => {
    let calls = 0;
    const t0 = performance.now();
    for (; performance.now() - t0 < 300; calls++) fn();
    return batchOf(calls, performance.now() - t0);
  });
  const times = fns.map(() => []);
  for (let r = 0; r < rounds; r++)
    fns.forEach((fn, i) => {
      const t0 = performance.now();
      for (let k = 0; k < batch[i]; k++) fn();
      times[i].push((performance.now() - t0) / batch[i]);
    });
  return times.map(median);
}

// The same for functions that may return a promise (onnxruntime-web's session.run), awaited.
export async function timeInterleavedAsync(fns, rounds) {
  const call = async (fn) => { const r = fn(); if (r && typeof r.then === 'function') await r; };
  const batch = [];
  for (const fn of fns) {
    let calls = 0;
    const t0 = performance.now();
    for (; performance.now() - t0 < 300; calls++) await call(fn);
    batch.push(batchOf(calls, performance.now() - t0));
  }
  const times = fns.map(() => []);
  for (let r = 0; r < rounds; r++)
    for (const [i, fn] of fns.entries()) {
      const t0 = performance.now();
      for (let k = 0; k < batch[i]; k++) await call(fn);
      times[i].push((performance.now() - t0) / batch[i]);
    }
  return times.map(median);
}
