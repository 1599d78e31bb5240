// The page's self-test passes on the real engine and fails on a wrong one.
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../web/engine.js';
import { experiments } from '../../web/experiments/self-test.js';

const run = (engine) => experiments.selfTest(engine).next().value;

describe('self-test', () => {
  it('passes on the SIMD and the scalar engine', async () => {
    for (const simd of [true, false]) {
      const r = run(await createEngine({ simd }));
      expect(r.ok).toBe(true);
      for (const c of r.checks) expect(c.error).toBeLessThan(r.tolerance);
    }
  });

  it('fails, naming the check, when a kernel is off by 1e-4', async () => {
    const real = await createEngine();
    const skew = (a) => a.map((v) => v * (1 + 1e-4));
    const broken = { ...real, softmax: (...a) => skew(real.softmax(...a)) };
    const r = run(broken);
    expect(r.ok).toBe(false);
    expect(r.checks.filter((c) => !(c.error <= r.tolerance)).map((c) => c.name)).toEqual(['softmax']);
    const brokenAttention = { ...real, attention: (o) => ({ ...real.attention(o), output: skew(real.attention(o).output) }) };
    expect(run(brokenAttention).ok).toBe(false);
  });
});
