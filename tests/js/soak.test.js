// API soak, short form: the soak of bench/soak.mjs (every function at the page's default sizes,
// interleaved, a refused request per function every tenth round) for ATTNLAB_SOAK_ROUNDS rounds
// (default 300, about 10 s of CPU here; `node bench/soak.mjs` runs the full 10,000). Wasm memory never
// shrinks, so memoryBytes() staying flat after the warm-up means no call leaked more than the
// heap's free room allows (the headroom probe says how much that is).
import { describe, it, expect } from 'vitest';
import { createEngine } from '../../web/engine.js';
import { DEFAULTS, headroom, soak } from '../../bench/soak.mjs';

const ROUNDS = Number(process.env.ATTNLAB_SOAK_ROUNDS ?? 300);

describe('API soak', () => {
  it(`${ROUNDS} rounds of all 16 functions at default sizes: memoryBytes() flat after the warm-up, results still right`, async () => {
    const engine = await createEngine();
    const r = await soak(engine, { rounds: ROUNDS });
    const names = Object.keys(r.stats);
    expect(names.length).toBe(16);
    for (const name of names) {
      expect(r.stats[name].calls, name).toBe(ROUNDS + r.warmup);
      expect(r.stats[name].errors, `${name}: refused requests`).toBeGreaterThan(0);
    }
    for (const bytes of r.memory) expect(bytes, 'memoryBytes() at a checkpoint').toBe(r.afterWarmup);
    expect(r.end).toBe(r.afterWarmup);

    // still right afterwards: softmax and attention against their closed forms
    const y = engine.softmax(Float32Array.of(0, Math.log(3)), 1, 2);
    expect(Math.abs(y[0] - 0.25) + Math.abs(y[1] - 0.75)).toBeLessThan(1e-6);
    const { output } = engine.attention({ q: Float32Array.of(0), k: Float32Array.of(1, 2), v: Float32Array.of(1, 3), nq: 1, nk: 2, dk: 1, dv: 1 });
    expect(Math.abs(output[0] - 2)).toBeLessThan(1e-6);  // q = 0: uniform weights, the mean of v

    // the sensitivity of the plateau, for the record
    const calls = Object.values(r.stats).reduce((n, s) => n + s.calls + s.errors, 0);
    const room = headroom(engine);
    expect(room).toBeGreaterThan(0);
    console.log(`soak: ${calls} calls (${ROUNDS} rounds + ${r.warmup} warm-up; defaults ${JSON.stringify(DEFAULTS)}), ` +
      `memoryBytes ${r.start} → ${r.afterWarmup} after warm-up → ${r.end}; headroom ${room} bytes = ${Math.ceil(room / calls)} bytes/call`);
  }, 120000);
});
