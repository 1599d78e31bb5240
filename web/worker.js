// The Web Worker that owns the engine for the page. Requests arrive as
//   { id, channel, name, params }        name: an experiment (web/experiments/)
// and are answered with one of
//   { id, progress }                      (any number, for long runs)
//   { id, result }  |  { id, error: { name, message, code } }  |  { id, superseded: true }
// Per channel only the newest request runs: an older one still queued, or one between two of
// its chunks, is dropped with `superseded`.
import { createEngine } from './engine.js';
import { experiments } from './experiments/index.js';

const enginePromise = createEngine();
const latest = new Map();  // channel → newest request id
const queue = [];
let draining = false;

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

enginePromise.then(
  (engine) => postMessage({ ready: true, simd: engine.simd, arch: engine.arch }),
  (err) => postMessage({ ready: false, error: { name: err.name, message: String(err.message || err) } }),
);

self.onmessage = ({ data }) => {
  latest.set(data.channel, data.id);
  queue.push(data);
  if (!draining) drain();
};

async function drain() {
  draining = true;
  const engine = await enginePromise;
  await tick();  // let a burst of requests arrive, so only the newest of each channel runs
  while (queue.length) {
    const req = queue.shift();
    if (latest.get(req.channel) !== req.id) { postMessage({ id: req.id, superseded: true }); continue; }
    await run(engine, req);
  }
  draining = false;
}

async function run(engine, { id, channel, name, params }) {
  try {
    const experiment = experiments[name];
    if (!experiment) throw new Error(`worker: unknown experiment ${JSON.stringify(name)}`);
    const it = experiment(engine, params);
    for (let step = it.next(); ; step = it.next()) {
      if (step.done) { postMessage({ id, result: step.value }); return; }
      postMessage({ id, progress: step.value.progress });
      await tick();  // newer requests land in `latest` here
      if (latest.get(channel) !== id) { it.return(); postMessage({ id, superseded: true }); return; }
    }
  } catch (err) {
    postMessage({ id, error: { name: err.name, message: String(err.message || err), code: err.code } });
  }
}
