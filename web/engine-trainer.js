// The training ablation's trainer, as engine.createTrainer returns it (web/engine.js owns the module
// and hands it in).
import { describeValue, engineError, requireNumber, requireOptions } from './engine-checks.js';

// A trainer holds four copies of one attention layer (cpp/train.hpp), trained in lockstep from the
// same initial weights on the same batches, differing only in the score scale. It lives in the
// engine until dispose(); the wasm side keeps it under a handle.

/** The variants, in the engine's order: scale 1/√dk, none, 1/dk, learned 1/τ. */
export const TRAIN_VARIANTS = Object.freeze(['invSqrtDk', 'none', 'invDk', 'learned']);
const TRAIN_OPTIMIZERS = { sgd: 0, adam: 1 };
const TRAIN_INITS = { 'xavier-uniform': 0, 'xavier-normal': 1, lecun: 2, custom: 3 };
const TRAIN_NUMBERS = ['dk', 'dv', 'dx', 'classes', 'seqLen', 'batch', 'lr', 'momentum', 'beta1', 'beta2', 'eps',
  'sigma', 'queryNoise', 'seed'];

/** createTrainer's defaults (api.hpp TrainArgs); `steps` is the page's default run length, not
 *  an option of the trainer. The Catch2 claims (tests/train.tests.cpp) use these, at dk 16 and 256. */
export const TRAIN_DEFAULTS = Object.freeze({
  dk: 64, dv: 16, dx: 16, classes: 8, seqLen: 8, batch: 16,
  optimizer: 'adam', lr: 1e-2, momentum: 0.9, beta1: 0.9, beta2: 0.999, eps: 1e-8,
  init: 'xavier-uniform', sigma: 0.02, queryNoise: 0, seed: 1, steps: 300,
});

export function makeTrainer(M, check, readF32, o = {}) {
  const fn = 'createTrainer';
  requireOptions(fn, o);
  const c = {};
  for (const [name, value] of Object.entries(TRAIN_DEFAULTS)) c[name] = o[name] ?? value;
  for (const name of TRAIN_NUMBERS) requireNumber(fn, name, c[name]);
  if (!Object.hasOwn(TRAIN_OPTIMIZERS, c.optimizer))
    throw engineError(RangeError, 'BAD_VALUE', `${fn}: optimizer must be 'sgd' or 'adam', got ${describeValue(c.optimizer)}`);
  if (!Object.hasOwn(TRAIN_INITS, c.init))
    throw engineError(RangeError, 'BAD_VALUE', `${fn}: init must be 'xavier-uniform', 'xavier-normal', 'lecun' or 'custom', got ${describeValue(c.init)}`);
  check(M.trainCreate(c.dk, c.dv, c.dx, c.classes, c.seqLen, c.batch, TRAIN_OPTIMIZERS[c.optimizer], c.lr,
    c.momentum, c.beta1, c.beta2, c.eps, TRAIN_INITS[c.init], c.sigma, c.queryNoise, c.seed));
  const handle = M.outputHandle();
  let steps = 0, disposed = false;

  const alive = (name) => {
    if (disposed) throw engineError(Error, 'DISPOSED', `trainer.${name}: the trainer has been disposed`);
  };
  // Every variant's curves from step `from` on; `steps` follows what the engine recorded.
  const read = (from) => {
    const variants = {};
    TRAIN_VARIANTS.forEach((name, i) => {
      check(M.trainCurves(handle, i, from));
      variants[name] = { loss: readF32(0), accuracy: readF32(1), entropy: readF32(2), gradNorm: readF32(3), scale: readF32(4) };
    });
    steps = from + variants.invSqrtDk.loss.length;
    return { step: steps, from, variants };
  };

  return Object.freeze({
    /** The options in force, defaults filled in. */
    config: Object.freeze(c),
    variants: TRAIN_VARIANTS,
    /** Steps run since creation or the last reset(). */
    get steps() { return steps; },
    get disposed() { return disposed; },
    /** Runs every variant n more steps; returns the n new points of each curve. */
    step(n = 1) {
      alive('step');
      requireNumber('trainer.step', 'n', n);
      const from = steps;
      check(M.trainStep(handle, n));  // the engine checks n before it runs a step
      return read(from);
    },
    /** Every curve from step `from` (default 0) to now. */
    curves(from = 0) {
      alive('curves');
      requireNumber('trainer.curves', 'from', from);
      return read(from);
    },
    /** Back to the initial weights and the start of the batch stream: step() replays the same curves. */
    reset() {
      alive('reset');
      check(M.trainReset(handle));
      steps = 0;
    },
    /** Frees the trainer in the engine; calling it again does nothing. */
    dispose() {
      if (disposed) return;
      disposed = true;
      check(M.trainDestroy(handle));
    },
  });
}
