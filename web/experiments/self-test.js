// The self-test the page runs once on load: the engine against plain JavaScript in double, on
// inputs small enough to read. A disagreement means a broken build or browser, and the page says so.
import { softmaxDouble } from './reference.js';

const f32 = (a) => new Float32Array(a);

const maxRelError = (got, want) =>
  Math.max(...Array.from(got, (g, i) => Math.abs(g - want[i]) / Math.max(Math.abs(want[i]), 1e-30)));

export const experiments = {
  *selfTest(engine) {
    const checks = [];
    // softmax of a row with a large offset (the max-subtraction path) and a spread
    const x = [100.5, 98, 101.25, 90, 100];
    checks.push({ name: 'softmax', error: maxRelError(engine.softmax(f32(x), 1, 5), softmaxDouble(x)) });
    // a dot product over 37 entries: SIMD body and scalar tail
    const a = Array.from({ length: 37 }, (_, i) => Math.fround(Math.sin(i + 1)));
    const b = Array.from({ length: 37 }, (_, i) => Math.fround(Math.cos(2 * i + 1)));
    const dot = a.reduce((s, v, i) => s + v * b[i], 0);
    const dq = engine.scores({ q: f32(a), k: f32(b), nq: 1, nk: 1, dk: 37, scale: 1 })[0];
    checks.push({ name: 'dot product', error: Math.abs(dq - dot) / Math.abs(dot) });
    // one attention row: q (1, 3) against 4 keys, values (4, 2)
    const q = [0.5, -1, 2], k = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], v = [[1, 2], [3, 4], [5, 6], [7, 8]];
    const w = softmaxDouble(k.map((kj) => kj.reduce((s, kv, c) => s + kv * q[c], 0) / Math.sqrt(3)));
    const out = [0, 1].map((c) => w.reduce((s, wj, j) => s + wj * v[j][c], 0));
    const got = engine.attention({ q: f32(q), k: f32(k.flat()), v: f32(v.flat()), nq: 1, nk: 4, dk: 3, dv: 2 });
    checks.push({ name: 'attention row', error: Math.max(maxRelError(got.weights, w), maxRelError(got.output, out)) });
    const tolerance = 1e-5;  // float32 results against double: a few ulps, far below this
    return { ok: checks.every((c) => c.error <= tolerance), tolerance, checks, simd: engine.simd, arch: engine.arch };
  },
};
