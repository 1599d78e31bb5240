// The page's own engine, for light requests (web/engine-client.js): a second instance of the same
// module on the main thread, loaded once the worker's engine has started. A request that ran in
// under 12 ms at the same sizes (engine-client.js) is then computed in the task that asked for it, so its
// figure is drawn in the frame the reader's input schedules, not after it (the worker's answer
// waits for that frame: ~8–10 ms here, docs/PERFORMANCE-LOG.md). Heavy runs stay in the worker.
// Its scripts are the worker's own files, fetched once (vite.config.js builds the worker as a chunk
// of the page's module graph). (The single-file build swaps this module for local-engine-none.js:
// its one engine is inlined in the worker, and a second copy of the wasm would double the file.)
import { WARM_UP } from './warm-up.js';

const idle = () => new Promise((res) => requestIdleCallback(res, { timeout: 2000 }));

export async function loadLocalEngine() {
  // a page in an opaque origin (a sandboxed iframe) would fetch the wasm cross-origin: the worker only
  if (self.origin === 'null') throw new Error('no local engine in an opaque origin');
  const [{ createEngine }, all, training] = await Promise.all([
    import('./engine.js'), import('./experiments/index.js'), import('./experiments/training-ablation.js')]);
  // never the training runs (but a run's first chunk, trainingStart): training.workerOnly
  const experiments = Object.fromEntries(Object.entries(all.experiments).filter(([name]) => !training.workerOnly.includes(name)));
  const engine = await createEngine();
  // the worker's warm-up (web/warm-up.js), one call per idle period: a cold engine's first light
  // run takes 10–20 ms, which would send the next one back to the worker
  for (const call of WARM_UP) {
    await idle();
    try { call(engine); } catch { /* as in the worker: a warm-up is never worth an error */ }
  }
  return { engine, experiments };
}
