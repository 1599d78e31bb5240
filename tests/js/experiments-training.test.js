// The training step's experiments (web/experiments/training-ablation.js), run with the real engine
// as the worker runs them: streamed in chunks, paused (the run dropped) and resumed, they give the
// very curves of one uninterrupted run; and the small-versus-large d_k report says what it measures.
import { describe, expect, it } from 'vitest';
import { createEngine, TRAIN_VARIANTS } from '../../web/engine.js';
import { CONTRAST, trainingContrast, trainingRun, trainingStart } from '../../web/experiments/training-ablation.js';
import { drain } from './drain.js';

const engine = await createEngine();
const config = { dk: 64, seqLen: 8, optimizer: 'sgd', lr: 0.1, init: 'xavier-uniform', sigma: 0.1, seed: 3 };

// Every point a run streamed (its partial chunks, then its result), concatenated per variant.
function streamed(it, { stopAfter = Infinity } = {}) {
  const out = Object.fromEntries(TRAIN_VARIANTS.map((n) => [n, []]));
  let chunks = 0, last;
  const add = (c) => { for (const n of TRAIN_VARIANTS) out[n].push(...c.variants[n].loss); last = c.step; };
  for (;;) {
    const s = it.next();
    if (s.done) { add(s.value); return { out, last, finished: true }; }
    if (s.value.partial) add(s.value.partial);
    if (++chunks >= stopAfter) { it.return(); return { out, last, finished: false }; }
  }
}

describe('training-ablation: the worker streams the engine’s trainer', () => {
  it('streamed chunk by chunk, paused and resumed, the curves are those of one uninterrupted run', () => {
    const whole = engine.createTrainer(config).step(120).variants;
    const first = streamed(trainingRun(engine, { config, from: 0, to: 120 }), { stopAfter: 4 });  // pause
    expect(first.finished).toBe(false);
    expect(first.last).toBeGreaterThan(0);
    const rest = streamed(trainingRun(engine, { config, from: first.last, to: 120 }));             // play again
    for (const n of TRAIN_VARIANTS) {
      expect([...first.out[n], ...rest.out[n]]).toEqual([...whole[n].loss]);
    }
  });

  it('a run from an earlier step (after reset) replays the same points, and progress rises to the end', () => {
    const a = streamed(trainingRun(engine, { config, from: 0, to: 40 }));
    const { result, progress } = drain(trainingRun(engine, { config, from: 20, to: 40 }));  // the live trainer is at 40: it rewinds
    expect(result.step).toBe(40);
    expect([...result.variants.none.loss]).toEqual(a.out.none.slice(40 - result.variants.none.loss.length));
    expect(progress.every((p, i) => i === 0 || p >= progress[i - 1])).toBe(true);
    expect(result.config.dk).toBe(64);
  });

  it('streams a first chunk of 2 steps, then chunks of 10: the curves start a few ms after the request', () => {
    const sizes = [];
    const it = trainingRun(engine, { config: { ...config, seed: 9 }, from: 0, to: 35 });
    for (let s = it.next(); ; s = it.next()) {
      const c = s.done ? s.value : s.value.partial;
      sizes.push(c.variants.none.loss.length);
      if (s.done) break;
    }
    expect(sizes).toEqual([2, 10, 10, 10, 3]);
  });

  it('a run’s first chunk on its own (trainingStart, the page’s engine) is the run’s first chunk, bit for bit, on a fresh engine too', async () => {
    // the page draws whichever of the two comes first: they must not differ, for any variant or metric
    for (const c of [config, { ...config, optimizer: 'adam', lr: 0.01, seed: 12 }, { ...config, init: 'custom', sigma: 1, seqLen: 16 }]) {
      const streamedFirst = trainingRun(engine, { config: c, from: 0, to: 30 }, { channel: 'start-test' }).next().value.partial;
      for (const e of [engine, await createEngine()]) {
        const { result } = drain(trainingStart(e, { config: c }));
        expect(result.from).toBe(0);
        expect(result.step).toBe(2);
        for (const n of TRAIN_VARIANTS) for (const m of ['loss', 'accuracy', 'entropy', 'gradNorm', 'scale'])
          expect([...result.variants[n][m]]).toEqual([...streamedFirst.variants[n][m]]);
      }
    }
  });

  it('two figures training at once (two channels, their chunks interleaved) each get the curves of an uninterrupted run', () => {
    // (one trainer for the whole worker: the second figure's run disposed the first's mid-run)
    const configB = { ...config, dk: 32, seed: 4 };
    const runs = { a: trainingRun(engine, { config, from: 0, to: 60 }, { channel: 'a' }),
      b: trainingRun(engine, { config: configB, from: 0, to: 60 }, { channel: 'b' }) };
    const got = { a: [], b: [] }, open = new Set(['a', 'b']);
    while (open.size) for (const ch of [...open]) {  // one chunk each in turn, as the worker runs them
      const s = runs[ch].next();
      const chunk = s.done ? s.value : s.value.partial;
      if (chunk) got[ch].push(...chunk.variants.none.loss);
      if (s.done) open.delete(ch);
    }
    const whole = (c) => { const t = engine.createTrainer(c); const v = [...t.step(60).variants.none.loss]; t.dispose(); return v; };
    expect(got.a).toEqual(whole(config));
    expect(got.b).toEqual(whole(configB));
  });

  it('with more than eight figures training, the least recently used one continues after a replay, on the same curves', () => {
    // the worker keeps eight trainers (MAX_LIVE); the ninth figure's run disposes figure 0's
    const small = { ...config, dk: 8, seed: 11 };
    const first = streamed(trainingRun(engine, { config: small, from: 0, to: 100 }, { channel: 'fig0' }));
    for (let k = 1; k <= 8; k++) streamed(trainingRun(engine, { config: { ...small, seed: 20 + k }, from: 0, to: 4 }, { channel: `fig${k}` }));
    // (a replay yields { progress: 0 } with no points while it fast-forwards: count those)
    let replaying = 0;
    const resumed = trainingRun(engine, { config: small, from: 100, to: 120 }, { channel: 'fig0' });
    const watched = { next: () => { const s = resumed.next(); if (!s.done && !s.value.partial) replaying++; return s; }, return: () => resumed.return() };
    const rest = streamed(watched);
    expect(replaying).toBeGreaterThan(0);
    const whole = engine.createTrainer(small);
    const all = [...whole.step(120).variants.none.loss];
    whole.dispose();
    expect([...first.out.none, ...rest.out.none]).toEqual(all);
  });

  it('a run with nothing to train (from = to) streams nothing and returns the curves from that step on', () => {
    streamed(trainingRun(engine, { config, from: 0, to: 30 }));
    const { result, progress } = drain(trainingRun(engine, { config, from: 30, to: 30 }));
    expect(progress).toEqual([]);
    expect(result.step).toBe(30);
    expect(result.variants.none.loss.length).toBe(0);
    expect(result.config.seed).toBe(3);
  });
});

describe('training-ablation: small and large d_k, both optimizers', () => {
  const { result: r, progress } = drain(trainingContrast(engine, { seed: 1, seqLen: 8 }));

  it('trains in chunks of at most 25 steps, with progress rising to the end, and reports what one uninterrupted run gives', () => {
    // a chunk is what the worker runs before it takes the next request: 12 a run, 4 runs
    expect(progress.length).toBe(4 * Math.ceil(CONTRAST.steps / 25) - 1);
    expect(progress.every((p, i) => p > (progress[i - 1] ?? 0) && p < 1)).toBe(true);
    const row = r.rows.find((x) => x.dk === 256 && x.optimizer === 'adam');
    const trainer = engine.createTrainer({ dk: 256, optimizer: 'adam', lr: CONTRAST.optimizers.adam, seed: 1, seqLen: 8 });
    const whole = trainer.step(CONTRAST.steps).variants;
    trainer.dispose();
    const k = CONTRAST.steps / 10;
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(row.variants.none.loss).toBe(mean([...whole.none.loss].slice(-k)));
    expect(row.variants.invSqrtDk.entropyEarly).toBe(mean([...whole.invSqrtDk.entropy].slice(0, 10)));
  });

  it('runs every d_k with every optimizer and reports finite losses, accuracies in [0, 1] and entropies in [0, ln L]', () => {
    expect(r.rows.map((row) => [row.dk, row.optimizer])).toEqual(
      CONTRAST.dks.flatMap((dk) => Object.keys(CONTRAST.optimizers).map((o) => [dk, o])));
    for (const row of r.rows) for (const n of TRAIN_VARIANTS) {
      const v = row.variants[n];
      expect(Number.isFinite(v.loss) && v.loss > 0).toBe(true);
      expect(v.accuracy).toBeGreaterThanOrEqual(0);
      expect(v.accuracy).toBeLessThanOrEqual(1);
      expect(v.entropyEarly).toBeLessThanOrEqual(Math.log(8) + 1e-6);
    }
  });

  it('without the scale, attention starts saturated and training ends with more loss than with 1/√d_k (seed 1, every setting)', () => {
    for (const row of r.rows) {
      // early entropy well below the 1/√d_k run's, which is near ln 8 = 2.08
      expect(row.variants.none.entropyEarly).toBeLessThan(0.6 * row.variants.invSqrtDk.entropyEarly);
      expect(row.variants.none.loss).toBeGreaterThan(1.5 * row.variants.invSqrtDk.loss);
    }
    // the starkest case: SGD at d_k = 256, where the unscaled run barely learns
    const sgd256 = r.rows.find((row) => row.dk === 256 && row.optimizer === 'sgd').variants;
    expect(sgd256.none.loss).toBeGreaterThan(10 * sgd256.invSqrtDk.loss);
  });
});
