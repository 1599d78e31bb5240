// The page's handle on the worker. run(name, params, { channel, onProgress }) resolves with the
// result, or with null when a newer request (or cancel) on the same channel superseded it.
// onProgress(fraction, partial) hears each chunk; partial is what the experiment streams, if any.
//
// A dead engine (a wasm trap or abort inside the worker, such as running out of memory, or the
// worker itself failing) is not reused: a new worker takes over, the runs in flight fail with an
// error that says so (code ENGINE_RESTARTED), and onRestart(reason, count) lets the page tell the
// reader. After MAX_RESTARTS the engine stays down and every run fails with that reason.
import { startWorker } from './worker-start.js';

const MAX_RESTARTS = 5;

export function connectEngine({ start = startWorker, onRestart } = {}) {
  const pending = new Map();
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

  const post = (channel, name, params, handlers = {}) => {
    if (down) return Promise.reject(down);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, ...handlers });
      performance.mark('attnlab:posted', { detail: id });  // marks for DevTools and the benchmark
      worker.postMessage({ id, channel, name, params });
    });
  };
  return {
    ready,
    run: (name, params, { channel = name, onProgress, onTiming } = {}) => post(channel, name, params, { onProgress, onTiming }),
    cancel: (channel) => post(channel, 'cancel', null),
  };
}
