// (eq:training-ablation) experiments: one attention layer trained four times side by side (scale
// 1/√d_k, none, 1/d_k, a learned 1/τ) from the same initial weights on the same batches. The
// engine owns the model (cpp/train.hpp); this streams its curves chunk by chunk.
// See chunks.js for the generator contract.

// Steps per chunk: about 10–40 ms of training at the default size in wasm SIMD. A run's first
// chunk is smaller (~0.5 ms at the default size, ~10 at d_k = 512, L = 32), so that its curves
// start within a frame of the reader's change.
const CHUNK_STEPS = 10;
export const FIRST_CHUNK_STEPS = 2;

// The live trainers: one per channel (a figure; the worker runs one request per channel at a
// time), kept between runs so that pausing (which supersedes the run) and playing again continue
// where training stopped. One for the whole worker made two training figures (two
// <attnlab-step> elements) dispose each other's trainer mid-run. The least recently used beyond
// MAX_LIVE are disposed: figures gone from the page.
const MAX_LIVE = 8;
const live = new Map();  // channel → { engine, key, trainer }, least recently used first

const configKey = (config) => JSON.stringify(Object.entries(config).sort());

// A trainer for `config` at step `from`: the channel's live one when it fits, else a new one (or a
// reset one) fast-forwarded. Same seed, same curves: a replay gives exactly the points it had.
function* trainerAt(engine, config, from, channel) {
  const key = configKey(config);
  let entry = live.get(channel);
  live.delete(channel);
  if (entry?.engine !== engine || entry.key !== key) {
    if (entry?.engine === engine) entry.trainer.dispose();
    entry = { engine, key, trainer: engine.createTrainer(config) };
  }
  live.set(channel, entry);
  for (const [ch, old] of live) {
    if (live.size <= MAX_LIVE) break;
    if (old.engine === engine) old.trainer.dispose();
    live.delete(ch);
  }
  const t = entry.trainer;
  if (t.steps > from) t.reset();
  while (t.steps < from) {
    t.step(Math.min(CHUNK_STEPS * 4, from - t.steps));
    if (t.steps < from) yield { progress: 0 };
  }
  return t;
}

// Trains from step `from` to step `to` and streams the new points: each yield's `partial` is
// { step, from, variants: { name: { loss, accuracy, entropy, gradNorm, scale } } } for its chunk.
// Returns the last chunk (or an empty one when from = to) with the trainer's config.
// `channel`: the worker's (web/worker.js), whose trainer this run continues.
export function* trainingRun(engine, { config, from = 0, to }, { channel = '' } = {}) {
  const t = yield* trainerAt(engine, config, from, channel);
  let last = null;  // the chunk the last step returned; with none to train, the curves from `from` on
  for (let chunk = FIRST_CHUNK_STEPS; t.steps < to; chunk = CHUNK_STEPS) {
    last = t.step(Math.min(chunk, to - t.steps));
    if (t.steps < to) yield { progress: (t.steps - from) / Math.max(1, to - from), partial: last };
  }
  return { ...(last ?? t.curves(from)), config: t.config };
}

// A trajectory's first chunk, steps 0 → FIRST_CHUNK_STEPS, from a trainer of its own: the chunk
// trainingRun streams first, bit for bit. Light (~0.5 ms at the default size), so the page's engine
// computes it in the task of the reader's change and its curves are drawn in that change's frame:
// from the worker, the chunk waited behind that frame (10–20 ms of paint on the whole page).
export function* trainingStart(engine, { config }) {
  const t = engine.createTrainer(config);
  try {
    return t.step(FIRST_CHUNK_STEPS);
  } finally { t.dispose(); }
}

// The page's report at small and large d_k: every variant trained `steps` steps at each d_k with
// each optimizer (its usual learning rate), the rest at the engine's defaults; the mean loss and
// accuracy over the last tenth of the steps, and the mean attention entropy over the first 10.
// Trained CONTRAST_CHUNK steps at a time, each a chunk of its own: a whole run at d_k = 256 is
// ~100–170 ms, and the worker takes turns between channels chunk by chunk, so the curves above
// (and any other figure's request) would wait that long behind it.
export const CONTRAST = { dks: [16, 256], optimizers: { sgd: 0.1, adam: 0.01 }, steps: 300 };
const CONTRAST_CHUNK = 25;
export function* trainingContrast(engine, { seed, seqLen }) {
  const rows = [];
  const runs = CONTRAST.dks.flatMap((dk) => Object.entries(CONTRAST.optimizers).map(([optimizer, lr]) => ({ dk, optimizer, lr })));
  const total = runs.length * CONTRAST.steps;
  for (const [i, cfg] of runs.entries()) {
    const t = engine.createTrainer({ ...cfg, seed, seqLen });
    try {
      while (t.steps < CONTRAST.steps) {
        t.step(Math.min(CONTRAST_CHUNK, CONTRAST.steps - t.steps));
        const done = i * CONTRAST.steps + t.steps;
        if (done < total) yield { progress: done / total };
      }
      const r = t.curves(0);
      const k = Math.round(CONTRAST.steps / 10);
      const mean = (xs, a, b) => { const s = xs.slice(a, b); return s.reduce((x, y) => x + y, 0) / s.length; };
      const variants = Object.fromEntries(Object.entries(r.variants).map(([name, v]) => [name, {
        loss: mean(v.loss, -k, undefined), accuracy: mean(v.accuracy, -k, undefined), entropyEarly: mean(v.entropy, 0, 10) }]));
      rows.push({ ...cfg, variants });
    } finally { t.dispose(); }
  }
  return { seed, seqLen, steps: CONTRAST.steps, rows };
}

export const experiments = { trainingRun, trainingContrast, trainingStart };
// the runs the page's engine never takes (web/local-engine.js): a run that took 2 ms for ten steps
// takes seconds for three hundred (and trainingRun's trainer lives in the worker between requests)
export const workerOnly = ['trainingRun', 'trainingContrast'];
