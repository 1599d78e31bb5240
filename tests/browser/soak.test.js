// A shorter page soak than bench/page-soak.mjs (which runs 1,000 changes): random control changes
// across every step, with no console errors, uncaught errors or unhandled rejections, and a JS
// heap that does not keep growing (the last sample within 1.5× of the one after warm-up).
import { describe, expect, it } from 'vitest';
import { soak } from '../../bench/page-soak.mjs';
import { DIST } from './harness.js';

describe('page soak', () => {
  it('150 random control changes across every step: no errors, and the heap stays bounded', async () => {
    const r = await soak({ dist: DIST, changes: 150, seed: 7 });
    expect(r.errors).toEqual([]);
    const [warm, ...rest] = r.samples.slice(1);  // after 101 changes every figure has drawn at least once or so
    for (const s of rest) expect(s.heapBytes).toBeLessThan(1.5 * warm.heapBytes);
  }, 600000);
});
