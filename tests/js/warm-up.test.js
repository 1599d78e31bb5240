// The worker's warm-up calls (web/warm-up.js) run on the engine without an error. The worker
// ignores their errors (a warm-up is never worth one), so a call broken by an API change would
// otherwise just stop warming up, silently.
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../web/engine.js';
import { WARM_UP } from '../../web/warm-up.js';

const engine = await createEngine();

describe('the worker warm-up', () => {
  it('every warm-up call runs without an error, within the memory the engine starts with, and the engine still answers afterwards', () => {
    expect(WARM_UP.length).toBeGreaterThan(5);
    // the warm-up writes the engine's free memory once (so that the first runs do not pay for
    // fresh pages) but must not grow it: that would only make the page hold more
    const start = engine.memoryBytes();
    const asked = [];   // the workspaces the warm-up asks for, in floats
    const watched = Object.defineProperty(Object.create(engine), 'workspace',   // (the engine itself is frozen)
      { value: (sizes) => (asked.push(...Object.values(sizes)), engine.workspace(sizes)) });
    WARM_UP.forEach((call, i) => expect(() => call(watched), `call ${i}: ${call}`).not.toThrow());
    expect(Math.max(...asked) * 4).toBeGreaterThanOrEqual(8 << 20);   // 8 MiB written (web/warm-up.js)
    expect(engine.memoryBytes()).toBe(start);
    const p = engine.softmax(new Float32Array([0, Math.log(3)]), 1, 2);
    expect(p[0]).toBeCloseTo(0.25, 6);
    expect(p[1]).toBeCloseTo(0.75, 6);
  });
});
