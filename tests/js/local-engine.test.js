// The page's own engine (web/local-engine.js) for light requests: a warmed-up engine and every
// experiment but the training runs, whose trainer lives in the worker between requests (and
// whose length a short run's time says nothing about); a run's first chunk (trainingStart) it does take.
import { expect, it } from 'vitest';
import { createEngine } from '../../web/engine.js';
import { experiments as all } from '../../web/experiments/index.js';

globalThis.self ??= globalThis;
globalThis.requestIdleCallback ??= (f) => setTimeout(f, 0);
const { loadLocalEngine } = await import('../../web/local-engine.js');

const drain = (it) => { let s = it.next(); while (!s.done) s = it.next(); return s.value; };

it('serves every experiment but the training runs (their first chunk apart), and computes what the worker computes', async () => {
  const { engine, experiments } = await loadLocalEngine();
  expect(experiments.trainingRun).toBeUndefined();
  expect(experiments.trainingContrast).toBeUndefined();
  expect(experiments.trainingStart).toBeDefined();
  expect(Object.keys(experiments).sort()).toEqual(Object.keys(all).filter((n) => n === 'trainingStart' || !n.startsWith('training')).sort());
  const params = { dk: 4, seed: 7, nq: 3, nk: 4 };
  expect(drain(experiments.setupScores(engine, params))).toEqual(drain(all.setupScores(await createEngine(), params)));
}, 30000);
