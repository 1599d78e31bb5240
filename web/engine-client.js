// The page's handle on the worker. run(name, params, { channel, onProgress }) resolves with the
// result, or with null when a newer request (or cancel) on the same channel superseded it.
// onProgress(fraction, partial) hears each chunk; partial is what the experiment streams, if any.
//
// A dead engine (a wasm trap or abort inside the worker, such as running out of memory, or the
// worker itself failing) is not reused: a new worker takes over, the runs in flight fail with an
// error that says so (code ENGINE_RESTARTED), and onRestart(reason, count) lets the page tell the
// reader. After MAX_RESTARTS the engine stays down and every run fails with that reason.
//
// local: a loader of the page's own engine (local-engine.js), or null. Once it is loaded (after
// the worker's engine started), a request whose last run at the same sizes (the same parameters
// but the seed and the query shown, which picks one row of the same work; or the parameters the
// caller names as its cost's, run's `sizes`) took under LIGHT_MS is computed on the spot, in the
// task that made it: it
// resolves before the browser renders the reader's input, with no round trip. The run in flight
// on its channel, if any, is cancelled. Sizes never measured go to the worker first: the main
// thread never meets a heavy run it did not expect (a slider moved to 10⁵ rows, say).
import { startWorker } from './worker-start.js';

const MAX_RESTARTS = 5;
// A run on the page ends before the worker's answer could be handled: that answer waits behind
// the frame the reader's input schedules (6–10 ms of paint and layout here) and the round trip.
// Two A/Bs of 34 controls (docs/PERFORMANCE-LOG.md): 6 ms → 12 ms took their median from 21.2 to
// 17.4 ms and from 17.2 to 15.5 (2 ms → 6 ms, a session before: 15.4 to 13.3). Above 12 ms the
// main thread would hold the reader's input too long; such runs stay in the worker.
const LIGHT_MS = 12;
// Parameters that change a run's numbers but not its cost: which draws (seed), which row is shown.
const NOT_SIZES = new Set(['seed', 'query']);

export function connectEngine({ start = startWorker, onRestart, local: loadLocal = null } = {}) {
  const pending = new Map();
  const costs = new Map();     // sizes (below) → ms its last run took
  const sizes = (name, params) => `${name} ${JSON.stringify(params, (k, v) => (NOT_SIZES.has(k) ? undefined : v))}`;
  const costKey = (name, params, given) => (given ? `${name} ${JSON.stringify(given)}` : sizes(name, params));  // (one JSON a request)
  let local = null;
  let nextId = 1, worker = null, restarts = 0, started = false, down = null;
  let resolveReady, rejectReady;
  const ready = new Promise((res, rej) => { resolveReady = res; rejectReady = rej; });

  const failAll = (error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };

  function restart(reason) {
    worker.terminate();
    restarts++;
    if (restarts > MAX_RESTARTS) {
      down = Object.assign(new Error(`${reason}; the engine stopped after ${MAX_RESTARTS} restarts: reload the page`), { code: 'ENGINE_DOWN' });
      failAll(down);
      onRestart?.(reason, restarts, false);
      return;
    }
    failAll(Object.assign(new Error(`${reason}; the engine was restarted: try again`), { code: 'ENGINE_RESTARTED' }));
    spawn();
    onRestart?.(reason, restarts, true);
  }

  function receive({ data }) {
    if ('ready' in data) {
      if (started) return;  // a restarted worker: the page already knows the build
      started = true;
      if (data.ready) resolveReady({ simd: data.simd, arch: data.arch });
      else rejectReady(Object.assign(new Error(data.error.message), { name: data.error.name }));
      return;
    }
    const p = pending.get(data.id);
    if (!p) return;
    if ('progress' in data) { p.onProgress?.(data.progress, data.partial); return; }
    performance.mark('attnlab:received', { detail: data.id });
    pending.delete(data.id);
    if ('ms' in data) costs.set(p.sizes, data.ms);
    if (data.superseded) p.resolve(null);
    else if (data.error) {
      p.reject(Object.assign(new Error(data.error.message), data.error));
      if (data.error.fatal) restart(`the engine failed (${data.error.message})`);
    } else { p.onTiming?.(data.ms); p.resolve(data.result); }
  }

  function spawn() {
    worker = start();
    worker.onmessage = receive;
    worker.onerror = (e) => {
      if (!started) { started = true; rejectReady(new Error(e.message || 'the engine worker failed to start')); return; }
      restart(`the engine worker failed (${e.message || 'no message'})`);
    };
  }
  spawn();

  // ahead: a run or cancel no reader asked for yet (web/ahead.js), marked apart from the others
  const post = (channel, name, params, handlers = {}, key = sizes(name, params), ahead = false) => {
    if (down) return Promise.reject(down);
    const id = nextId++, mark = ahead ? 'attnlab:posted-ahead' : 'attnlab:posted';
    // a reader's run has the worker: runs ahead of any figure stop (figure.js runs them again later)
    if (!ahead && name !== 'cancel') for (const p of pending.values()) if (p.ahead && p.name !== 'cancel') cancel(p.channel, { ahead: true });
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, channel, name, ahead, sizes: key, ...handlers });
      performance.mark(mark, { detail: id });  // marks for DevTools, the tests and the benchmark
      worker.postMessage({ id, channel, name, params });
    });
  };
  // A cancel asks for nothing back: if the engine restarted or is down, there is nothing left to
  // stop, and its promise says so without a rejection no one would handle.
  const cancel = (channel, { ahead = false } = {}) =>
    post(channel, 'cancel', null, {}, undefined, ahead).catch(() => null);
  // A light request on the page's engine: run to its end at once (a light run reports no progress
  // worth showing). A trap inside its wasm retires the page's engine: the worker takes every run.
  function runLocal(channel, name, params, onTiming, key) {
    if ([...pending.values()].some((p) => p.channel === channel)) cancel(channel);
    const t0 = performance.now();
    try {
      const it = local.experiments[name](local.engine, params);
      let s = it.next();
      while (!s.done) s = it.next();
      const ms = performance.now() - t0;
      costs.set(key, ms);
      onTiming?.(ms);
      return Promise.resolve(s.value);
    } catch (err) {
      if (err instanceof WebAssembly.RuntimeError) local = null;
      return Promise.reject(err);
    }
  }
  // loaded once the worker's engine started; without it (it failed) the worker does all
  if (loadLocal) ready.then(loadLocal).then((l) => { local = l; performance.mark('attnlab:page-engine'); }, () => {});

  return {
    ready,
    // worker: true keeps a light run in the worker too, where it overlaps the page's own run of
    // another request made with it (dot-variance's sweep beside its histograms).
    // sizes: the parameters the run's cost depends on, when the caller knows them better than
    // "all but the seed and query" (initialization's rule changes the weights, not the work: a
    // rule never chosen is then light at once, with no round trip behind the input's frame)
    // ahead: a run no reader asked for yet (web/ahead.js), marked attnlab:posted-ahead
    // optional: a run worth making on the page only (a training run's first chunk, which the
    // worker's own run sends too): it resolves null at once where the page's engine would not take
    // it, and goes to the worker only to learn its cost at sizes the page's engine has never met
    run: (name, params, { channel = name, onProgress, onTiming, worker: inWorker = false, sizes: given, ahead = false, optional = false } = {}) => {
      const key = costKey(name, params, given);
      if (!inWorker && local && !down && costs.get(key) < LIGHT_MS && local.experiments[name]) return runLocal(channel, name, params, onTiming, key);
      if (optional && (down || !local?.experiments[name] || costs.has(key))) return Promise.resolve(null);
      return post(channel, name, params, { onProgress, onTiming }, key, ahead);
    },
    cancel,
    // ms the last run of a request at these sizes took (undefined: none yet); given: as run's sizes
    cost: (name, params, given) => costs.get(costKey(name, params, given)),
    // whether a reader's run (not one ahead) is in the worker
    busy: () => [...pending.values()].some((p) => !p.ahead && p.name !== 'cancel'),
  };
}
