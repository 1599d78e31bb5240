// The training ablation's JavaScript API (engine.createTrainer, cpp/train.hpp behind it): argument
// checks that name the argument, determinism within a module, and the same curves bit for bit in
// the SIMD build, the scalar build and the native engine (build/native/attnlab_cli, op "train").
//
// Why bit for bit and not within some ulps: training feeds every rounding back into the weights,
// so a one-ulp difference at step 1 grows into visibly different curves. The engine avoids every
// operation whose float result depends on the build (train.hpp, "Determinism"), so the bound
// asserted here is 0 ulp.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine, TRAIN_DEFAULTS, TRAIN_VARIANTS } from '../../web/engine.js';

const CLI = fileURLToPath(new URL('../../build/native/attnlab_cli', import.meta.url));
const MISSING = `the native CLI ${CLI} does not exist: run \`bash tools/build.sh\` first`;
const simd = await createEngine({ simd: true });
const scalar = await createEngine({ simd: false });
const METRICS = ['loss', 'accuracy', 'entropy', 'gradNorm', 'scale'];
const SMALL = { dk: 12, batch: 4, seqLen: 5, seed: 3 };   // fast, and nothing a multiple of 4 but batch

function native(request) {
  if (!existsSync(CLI)) throw new Error(MISSING);
  let stdout;
  try {
    stdout = execFileSync(CLI, { input: JSON.stringify(request), encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (err) {
    stdout = err.stdout;
  }
  return JSON.parse(stdout);
}

// Runs `steps` steps and disposes the trainer; returns its curves.
function train(engine, options, steps) {
  const t = engine.createTrainer(options);
  try {
    t.step(steps);
    return t.curves().variants;
  } finally {
    t.dispose();
  }
}

// Every value of every curve identical (Object.is: also -0 and NaN); `other` may hold plain
// numbers from the CLI's JSON, which are float32 values printed with round-trip precision.
function expectIdentical(a, b, what) {
  for (const v of TRAIN_VARIANTS)
    for (const m of METRICS) {
      const x = a[v][m], y = b[v][m];
      expect(y?.length, `${what}: ${v}.${m} length`).toBe(x.length);
      for (let i = 0; i < x.length; i++)
        if (!Object.is(x[i], Math.fround(y[i]))) expect.unreachable(`${what}: ${v}.${m}[${i}]: ${x[i]} vs ${y[i]}`);
    }
}

// ---------------------------------------------------------------- arguments

// [options, error class, code (undefined: a JS type check), text after "createTrainer: "]
const BAD_OPTIONS = [
  [{ dk: 0 }, RangeError, 'BAD_SIZE', 'dk must be at least 1, got 0'],
  [{ dk: 1.5 }, RangeError, 'BAD_SIZE', 'dk must be a positive integer, got 1.5'],
  [{ dk: '64' }, TypeError, undefined, 'dk must be a number, got the string "64"'],
  [{ dk: 2 ** 16 + 1 }, RangeError, 'SIZE_LIMIT', 'dk = 65537 exceeds the limit of 65536'],
  [{ dv: -1 }, RangeError, 'BAD_SIZE', 'dv must be at least 1'],
  [{ dx: NaN }, RangeError, 'BAD_SIZE', 'dx must be a positive integer, got nan'],
  [{ classes: 1 }, RangeError, 'BAD_SIZE', 'classes must be at least 2, got 1'],
  [{ seqLen: 0 }, RangeError, 'BAD_SIZE', 'seqLen must be at least 1'],
  [{ batch: Infinity }, RangeError, 'BAD_SIZE', 'batch must be a positive integer'],
  [{ batch: 4096, seqLen: 4096 }, RangeError, 'SIZE_LIMIT', 'batch*seqLen*(dx+classes) = 402653184 exceeds the limit'],
  [{ dk: 60000, dx: 300 }, RangeError, 'SIZE_LIMIT', '(dx+classes)*dk = 18480000 exceeds the limit'],
  [{ dk: 30000 }, RangeError, 'SIZE_LIMIT', 'the model has 1440513 parameters (2*(dx+classes)*dk + (dx+classes)*dv + dv*classes + 1), more than the limit of 1048576'],
  [{ optimizer: 'rmsprop' }, RangeError, 'BAD_VALUE', `optimizer must be 'sgd' or 'adam', got the string "rmsprop"`],
  [{ init: 'he' }, RangeError, 'BAD_VALUE', `init must be 'xavier-uniform', 'xavier-normal', 'lecun' or 'custom'`],
  [{ lr: 0 }, RangeError, 'BAD_VALUE', 'lr must be > 0 and a normal float32 (1.2e-38 <= x <= 3.4e38), got 0'],
  // in float: 1e39 is +inf and 1e-46 is 0 (the trainer's losses were NaN from the second step)
  [{ lr: 1e39 }, RangeError, 'BAD_VALUE', 'lr must be > 0 and a normal float32 (1.2e-38 <= x <= 3.4e38), got 1e+39'],
  [{ momentum: 1 }, RangeError, 'BAD_VALUE', 'momentum must be in [0, 1), got 1'],
  [{ beta1: -0.1 }, RangeError, 'BAD_VALUE', 'beta1 must be in [0, 1)'],
  [{ beta2: 2 }, RangeError, 'BAD_VALUE', 'beta2 must be in [0, 1)'],
  [{ eps: 0 }, RangeError, 'BAD_VALUE', 'eps must be > 0 and a normal float32 (1.2e-38 <= x <= 3.4e38)'],
  [{ eps: 1e-46 }, RangeError, 'BAD_VALUE', 'eps must be > 0 and a normal float32 (1.2e-38 <= x <= 3.4e38), got 1e-46'],
  [{ sigma: -0.02 }, RangeError, 'BAD_VALUE', 'sigma must be > 0 and a normal float32 (1.2e-38 <= x <= 3.4e38)'],
  [{ sigma: 1e39 }, RangeError, 'BAD_VALUE', 'sigma must be > 0 and a normal float32 (1.2e-38 <= x <= 3.4e38)'],
  [{ queryNoise: Infinity }, RangeError, 'BAD_VALUE', 'queryNoise must be >= 0 and within float32 (<= 3.4e38), got inf'],
  [{ queryNoise: 1e39 }, RangeError, 'BAD_VALUE', 'queryNoise must be >= 0 and within float32 (<= 3.4e38), got 1e+39'],
  [{ seed: -1 }, RangeError, 'BAD_VALUE', 'seed must be an integer in [0, 2^53), got -1'],
  [{ seed: 2 ** 53 }, RangeError, 'BAD_VALUE', 'seed must be an integer in [0, 2^53)'],
  [{ seed: true }, TypeError, undefined, 'seed must be a number, got boolean true'],
];

describe('createTrainer arguments', () => {
  const reference = train(simd, SMALL, 10);

  it.each(BAD_OPTIONS.map((c) => [JSON.stringify(c[0]), ...c]))(
    'createTrainer(%s) throws an Error naming the argument, and the engine stays usable', (_, options, Type, code, text) => {
      let err;
      try { simd.createTrainer({ ...SMALL, ...options }); } catch (e) { err = e; }
      expect(err, 'no error thrown').toBeInstanceOf(Type);
      expect(err.message.startsWith(`createTrainer: ${text}`), err.message).toBe(true);
      expect(err.code).toBe(code);
      expectIdentical(train(simd, SMALL, 10), reference, 'after the error');
    });

  it('null and undefined options take the defaults', () => {
    const t = simd.createTrainer({ lr: null, dk: undefined });
    expect(t.config.lr).toBe(TRAIN_DEFAULTS.lr);
    expect(t.config.dk).toBe(TRAIN_DEFAULTS.dk);
    t.dispose();
    for (const o of [5, 'adam', [1], null]) expect(() => simd.createTrainer(o)).toThrow(/^createTrainer: expected an options object/);
  });

  it('step and curves check their arguments; the limits hold before any work', () => {
    const t = simd.createTrainer(SMALL);
    const cases = [
      [() => t.step(0), RangeError, 'BAD_SIZE', 'trainer.step: n must be at least 1, got 0'],
      [() => t.step(2.5), RangeError, 'BAD_SIZE', 'trainer.step: n must be a positive integer, got 2.5'],
      [() => t.step('3'), TypeError, undefined, 'trainer.step: n must be a number'],
      [() => t.step(2 ** 18 + 1), RangeError, 'SIZE_LIMIT', 'trainer.step: n = 262145 exceeds the limit of 262144'],
      [() => t.curves(-1), RangeError, 'BAD_VALUE', 'trainer.curves: from must be an integer in [0, 3], got -1'],
      [() => t.curves(4), RangeError, 'BAD_VALUE', 'trainer.curves: from must be an integer in [0, 3], got 4'],
      [() => t.curves(null), TypeError, undefined, 'trainer.curves: from must be a number'],
    ];
    t.step(3);
    for (const [call, Type, code, text] of cases) {
      let err;
      try { call(); } catch (e) { err = e; }
      expect(err, text).toBeInstanceOf(Type);
      expect(err.message.startsWith(text), err.message).toBe(true);
      expect(err.code).toBe(code);
      expect(t.steps, 'a refused step runs nothing').toBe(3);
    }
    expect(t.curves(1).variants.none.loss).toHaveLength(2);
    t.dispose();
  });

  it('a disposed trainer refuses every call with code DISPOSED; dispose() twice is harmless', () => {
    const t = simd.createTrainer(SMALL);
    t.dispose();
    t.dispose();
    expect(t.disposed).toBe(true);
    for (const [name, call] of [['step', () => t.step(1)], ['curves', () => t.curves()], ['reset', () => t.reset()]]) {
      let err;
      try { call(); } catch (e) { err = e; }
      expect(err.message).toBe(`trainer.${name}: the trainer has been disposed`);
      expect(err.code).toBe('DISPOSED');
    }
  });

  it('at most 64 trainers live at once; disposing frees their slots', () => {
    const live = Array.from({ length: 64 }, () => simd.createTrainer(SMALL));
    let err;
    try { simd.createTrainer(SMALL); } catch (e) { err = e; }
    expect(err.code).toBe('SIZE_LIMIT');
    expect(err.message).toBe('createTrainer: 64 trainers exist, the limit: dispose() those no longer needed');
    live.forEach((t) => t.dispose());
    expectIdentical(train(simd, SMALL, 10), reference, 'after freeing');
  });
});

// ---------------------------------------------------------------- curves

describe('trainer curves', () => {
  it('step(n) returns the n new points of every variant and metric; curves() returns them all', () => {
    const t = simd.createTrainer(SMALL);
    const first = t.step(4), second = t.step(3);
    expect([first.step, first.from, second.step, second.from, t.steps]).toEqual([4, 0, 7, 4, 7]);
    const all = t.curves();
    for (const v of TRAIN_VARIANTS)
      for (const m of METRICS) {
        expect(second.variants[v][m]).toBeInstanceOf(Float32Array);
        expect(Array.from(all.variants[v][m])).toEqual([...first.variants[v][m], ...second.variants[v][m]]);
      }
    // the scales in force: 1/√dk, 1, 1/dk, and the learned one starting at 1/√dk
    expect(all.variants.invSqrtDk.scale[0]).toBe(Math.fround(1 / Math.sqrt(12)));
    expect(all.variants.none.scale[6]).toBe(1);
    expect(all.variants.invDk.scale[6]).toBe(Math.fround(1 / 12));
    expect(all.variants.learned.scale[0]).toBeCloseTo(1 / Math.sqrt(12), 6);
    expect(all.variants.learned.scale[6]).not.toBe(all.variants.learned.scale[0]);
    // losses start near ln C = ln 8 (chance), entropies at most ln seqLen
    for (const v of TRAIN_VARIANTS) {
      expect(Math.abs(all.variants[v].loss[0] - Math.log(8))).toBeLessThan(1);
      for (const h of all.variants[v].entropy) expect(h).toBeLessThanOrEqual(Math.log(5) + 1e-6);
    }
    t.dispose();
  });

  it('the same seed gives identical curves: twice, in chunks, and after reset()', () => {
    const options = { ...SMALL, optimizer: 'sgd', lr: 0.1, init: 'lecun' };
    const once = train(simd, options, 30);
    expectIdentical(train(simd, options, 30), once, 'a second trainer');
    const t = simd.createTrainer(options);
    for (const n of [1, 7, 22]) t.step(n);
    expectIdentical(t.curves().variants, once, 'in chunks of 1, 7, 22');
    t.reset();
    expect(t.steps).toBe(0);
    expect(t.curves().variants.none.loss).toHaveLength(0);
    t.step(30);
    expectIdentical(t.curves().variants, once, 'after reset');
    t.dispose();
    const other = train(simd, { ...options, seed: 4 }, 30);
    expect(other.none.loss).not.toEqual(once.none.loss);
  });
});

// ---------------------------------------------------------------- builds

const CONFIGS = [
  ['the defaults', {}, 40],
  ['SGD, LeCun init, query noise, dk = 37, seqLen = 11', { optimizer: 'sgd', lr: 0.05, init: 'lecun', queryNoise: 0.3, dk: 37, seqLen: 11, batch: 5 }, 40],
  ['Adam, custom sigma, dk = 256, 3 classes, dv = 7', { init: 'custom', sigma: 0.3, dk: 256, classes: 3, dv: 7, dx: 9, seed: 2 ** 40 + 7 }, 20],
  ['Xavier normal, a large learning rate (saturation, zeros and underflow in the softmaxes)', { init: 'xavier-normal', lr: 0.3, dk: 64 }, 40],
];

describe('the same curves in every build', () => {
  it('the native CLI has been built (otherwise run `bash tools/build.sh`)', () => {
    expect(existsSync(CLI), MISSING).toBe(true);
  });

  it.each(CONFIGS)('wasm SIMD, wasm scalar and native give bit-identical curves: %s', (_, options, steps) => {
    const a = train(simd, options, steps);
    expectIdentical(a, train(scalar, options, steps), 'SIMD vs scalar');
    const n = native({ op: 'train', ...options, steps });
    expect(n.error).toBeUndefined();
    expectIdentical(a, n.variants, 'wasm vs native');
    // and the runs are not degenerate: the variants differ and the losses are finite
    expect(a.none.loss).not.toEqual(a.invSqrtDk.loss);
    for (const v of TRAIN_VARIANTS) expect(a[v].loss.every(Number.isFinite)).toBe(true);
  });

  it('a bad request gets the same error message natively and in wasm', () => {
    for (const options of [{ dk: 0 }, { optimizer: 'rmsprop' }, { lr: -1 }, { classes: 1 }]) {
      const { error } = native({ op: 'train', ...options, steps: 1 });
      expect(() => simd.createTrainer(options)).toThrow(error);
    }
  });
});
