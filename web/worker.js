// The Web Worker that owns the engine for the page. Requests arrive as
//   { id, channel, name, params }        name: an experiment (web/experiments/), or 'cancel'
// and are answered with one of
//   { id, progress, partial? }            (any number, for long runs; partial: results so far)
//   { id, result, ms }  |  { id, error: { name, message, code } }  |  { id, superseded: true }
// (ms: the run's own compute time, summed over its chunks)
// One run per channel: a newer request (or a 'cancel') on a channel supersedes the run there.
// Runs on different channels take turns chunk by chunk, so a long sweep in one figure never
// holds up another figure's quick update.
import { createEngine } from './engine.js';
import { experiments } from './experiments/index.js';
import { WARM_UP } from './warm-up.js';

const enginePromise = createEngine();
const active = new Map();  // channel → { id, it, t0 }
let looping = false;

// After a streamed run's first chunk (a training run's first two steps, ~1 ms) the worker rests
// for STREAM_PAUSE ms, all channels alike: the page's main thread is drawing the frame of the
// reader's input and then that chunk, and on two cores its raster threads need the core the
// training would take. First chunk's time to the screen, medians of 8 changes a control, A/B in
// both orders (docs/PERFORMANCE-LOG.md): seed 17.8, 17.0 → 12.3, 12.8 ms; init 13.4, 18.2 → 13.3,
// 12.4; 4 and 6 of the 7 training controls within 16 ms → 7 and 7. A run of 0.13–1.7 s ends those
// 12 ms later, and a request arriving during the rest waits for its end (a new run arms it again).
export const STREAM_PAUSE = 12;
let resumeAt = 0;  // no chunk of any run before this time (performance.now())

// Yield to the message queue between chunks. A MessageChannel round trip is not clamped the way
// nested setTimeout(0) is (to 4 ms and more), so a quick request pays microseconds, not ms.
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()?.();
const tick = () => new Promise((resolve) => { waiting.push(resolve); channel.port2.postMessage(0); });

// Why the engine could not start, in words a reader can act on. A Content-Security-Policy without
// 'wasm-unsafe-eval' makes WebAssembly compilation throw a CompileError that mentions it.
function startFailure(err) {
  const message = String(err?.message || err);
  if (/wasm-unsafe-eval|wasm-eval|Content Security Policy/i.test(message))
    return "WebAssembly is blocked by this page's Content-Security-Policy: it needs script-src 'wasm-unsafe-eval', so nothing can be computed here";
  return `the engine could not start: ${message}`;
}

enginePromise.then(
  (engine) => { postMessage({ ready: true, simd: engine.simd, arch: engine.arch }); warmUp(engine); },
  (err) => postMessage({ ready: false, error: { name: err.name, message: startFailure(err) } }),
);

// The warm-up calls (web/warm-up.js), one at a time and only while no run is waiting: a request
// that arrives meanwhile waits for one small call at most.
async function warmUp(engine) {
  for (const call of WARM_UP) {
    do await new Promise((resolve) => setTimeout(resolve, looping ? 50 : 0)); while (looping);
    try { call(engine); } catch { /* a warm-up is never worth an error: the page does not need it */ }
  }
}

self.onmessage = ({ data }) => {
  const old = active.get(data.channel);
  if (old) { old.it?.return(); postMessage({ id: old.id, superseded: true }); }
  if (data.name === 'cancel') { active.delete(data.channel); postMessage({ id: data.id, superseded: true }); return; }
  active.set(data.channel, { id: data.id, name: data.name, params: data.params, it: null });
  if (!looping) loop();
};

async function loop() {
  looping = true;
  let engine;
  try {
    engine = await enginePromise;
  } catch (err) {  // no engine (WebAssembly blocked by a CSP, say): every request gets the reason
    for (const run of active.values()) postMessage({ id: run.id, error: { name: err.name, message: startFailure(err) } });
    active.clear();
    looping = false;
    return;
  }
  await tick();  // let a burst of requests arrive: only the newest per channel survives
  while (active.size) {
    for (const [channel, run] of [...active]) {
      if (active.get(channel) !== run) continue;  // superseded meanwhile
      step(engine, channel, run);
      await tick();
      const pause = resumeAt - performance.now();
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
  looping = false;
}

// Advances one run by one chunk; finishes, fails or reports progress.
function step(engine, channel, run) {
  try {
    const t0 = performance.now();
    if (!run.it) {
      const experiment = experiments[run.name];
      if (!experiment) throw new Error(`worker: unknown experiment ${JSON.stringify(run.name)}`);
      run.it = experiment(engine, run.params, { channel });  // (a trainer is kept per channel)
      run.ms = 0;
    }
    const s = run.it.next();
    // the run's own time: its chunks, not the other channels' chunks between them (runs take
    // turns), which would make a light run look heavy and keep it off the page's engine
    run.ms += performance.now() - t0;
    if (s.done) {
      active.delete(channel);
      postMessage({ id: run.id, result: s.value, ms: run.ms });
    } else {
      postMessage({ id: run.id, progress: s.value.progress, partial: s.value.partial });
      if (s.value.partial && !run.streamed) { run.streamed = true; resumeAt = performance.now() + STREAM_PAUSE; }
    }
  } catch (err) {
    active.delete(channel);
    // a trap or abort inside wasm (out of memory, say) leaves the module unusable: the page
    // replaces this worker (engine-client.js)
    const fatal = err instanceof WebAssembly.RuntimeError;
    postMessage({ id: run.id, error: { name: err.name, message: String(err.message || err), code: err.code, fatal } });
  }
}
