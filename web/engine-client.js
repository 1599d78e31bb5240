// The page's handle on the worker. run(name, params, { channel, onProgress }) resolves with the
// result, or with null when a newer request (or cancel) on the same channel superseded it.
// onProgress(fraction, partial) hears each chunk; partial is what the experiment streams, if any.
import { startWorker } from './worker-start.js';

export function connectEngine() {
  const worker = startWorker();
  const pending = new Map();
  let nextId = 1;
  let resolveReady, rejectReady;
  const ready = new Promise((res, rej) => { resolveReady = res; rejectReady = rej; });

  worker.onmessage = ({ data }) => {
    if ('ready' in data) {
      if (data.ready) resolveReady({ simd: data.simd, arch: data.arch });
      else rejectReady(Object.assign(new Error(data.error.message), { name: data.error.name }));
      return;
    }
    const p = pending.get(data.id);
    if (!p) return;
    if (!('progress' in data)) performance.mark('attnlab:received', { detail: data.id });
    if ('progress' in data) { p.onProgress?.(data.progress, data.partial); return; }
    pending.delete(data.id);
    if (data.superseded) p.resolve(null);
    else if (data.error) p.reject(Object.assign(new Error(data.error.message), data.error));
    else { p.onTiming?.(data.ms); p.resolve(data.result); }
  };
  worker.onerror = (e) => rejectReady(new Error(e.message || 'the engine worker failed to start'));

  const post = (channel, name, params, handlers = {}) => {
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
