// The WebAssembly engine gives the native engine's results: the same requests go to
// build/native/attnlab_cli (tests/native_cli.cpp: one JSON request on stdin, one JSON result on
// stdout, through the same checked C++ API as the wasm bindings) and to web/engine.js.
// Floats cross as JSON: float32 inputs are exact as doubles, and the CLI prints its float32
// results with round-trip precision, so Math.fround(nativeValue) is the native float exactly.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/engine.js';

const CLI = fileURLToPath(new URL('../../build/native/attnlab_cli', import.meta.url));
const MISSING = `the native CLI ${CLI} does not exist: run \`bash tools/build.sh\` first`;
const engine = await createEngine();

// ---------------------------------------------------------------- helpers

// One request to the CLI. A typed array becomes a plain JSON array.
function native(request) {
  if (!existsSync(CLI)) throw new Error(MISSING);
  const body = JSON.stringify(request, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v));
  let stdout;
  try {
    stdout = execFileSync(CLI, { input: body, encoding: 'utf8', maxBuffer: 256 << 20 });
  } catch (err) {
    stdout = err.stdout;                                     // exit code 1: {"error": "..."}
  }
  return JSON.parse(stdout);
}

// mulberry32: deterministic test inputs.
function randomF32(n, seed, lo = -1, hi = 1) {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * u());
}

// Different summation orders (native SSE2 vs SIMD128 lowering of SSE4.1) and exp implementations
// leave a few float32 ulps: 1e-6 relative, with a 1e-7 absolute floor for entries near 0 (where
// a relative bound is meaningless, e.g. a gradient that cancels to ~1e-9).
function expectParity(wasm, nat, what) {
  expect(nat, `${what}: native result`).toBeDefined();
  expect(wasm.length, `${what}: length`).toBe(nat.length);
  for (let i = 0; i < nat.length; i++) {
    const a = wasm[i], b = Math.fround(nat[i]);
    if (!(Math.abs(a - b) <= 1e-6 * Math.abs(b) + 1e-7))
      expect.unreachable(`${what}[${i}]: wasm ${a}, native ${b}`);
  }
}

// Bit-for-bit equality of a wasm Float32Array and the native values.
function expectIdentical(wasm, nat, what) {
  expect(nat, `${what}: native result`).toBeDefined();
  expect(wasm.length, `${what}: length`).toBe(nat.length);
  for (let i = 0; i < nat.length; i++)
    if (!Object.is(Math.fround(nat[i]), wasm[i])) expect.unreachable(`${what}[${i}]: wasm ${wasm[i]}, native ${nat[i]}`);
}

function attentionRequest({ nq, nk, dk, dv, seed, ...rest }) {
  return { q: randomF32(nq * dk, seed), k: randomF32(nk * dk, seed + 1), v: randomF32(nk * dv, seed + 2),
    nq, nk, dk, dv, ...rest };
}

// ---------------------------------------------------------------- tests

describe('native parity', () => {
  it('the native CLI has been built (otherwise run `bash tools/build.sh`)', () => {
    expect(existsSync(CLI), MISSING).toBe(true);
    expect(native({ op: 'info' }).simd).toBe(true);
  });

  it.each([[1, 1], [3, 7], [4, 8], [5, 37], [2, 1000]])('softmax, logSoftmax and softmaxNaive, %i×%i, equal the native results', (rows, cols) => {
    const x = randomF32(rows * cols, rows * 100 + cols, -12, 12);
    for (const op of ['softmax', 'logSoftmax', 'softmaxNaive'])
      expectParity(engine[op](x, rows, cols), native({ op, x, rows, cols }).y, `${op} ${rows}×${cols}`);
  });

  it.each([
    { nq: 3, nk: 5, dk: 4, dv: 6 },
    { nq: 8, nk: 8, dk: 16, dv: 8, causal: true },
    { nq: 7, nk: 3, dk: 9, dv: 10, causal: true, scale: 0.3 },
    { nq: 33, nk: 65, dk: 64, dv: 17 },
    { nq: 3, nk: 4, dk: 5, dv: 3, mask: Uint8Array.from([1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1]) },
  ])('attention and attentionBackward equal the native results: %o', (shape) => {
    const o = attentionRequest({ ...shape, seed: shape.nq + shape.dk });
    const gradOutput = randomF32(shape.nq * shape.dv, 7);
    const fwd = engine.attention(o), nfwd = native({ op: 'attention', ...o });
    expectParity(fwd.output, nfwd.output, 'output');
    expectParity(fwd.weights, nfwd.weights, 'weights');
    const bwd = engine.attentionBackward({ ...o, gradOutput });
    const nbwd = native({ op: 'attentionBackward', ...o, gradOutput });
    for (const g of ['gradQ', 'gradK', 'gradV']) expectParity(bwd[g], nbwd[g], g);
  });

  // The RNG (xoshiro256**, SplitMix64 streams, polar normals with a portable log) uses only exact
  // integer and IEEE operations, so both targets must produce the same float32 bits.
  const seeds = [0, 1, 42, 123456789, 2 ** 53 - 1];
  const streams = [0, 1, 7, 2 ** 40];
  const dists = [
    { distribution: 'normal' }, { distribution: 'normal', mean: 0.5, std: 3 },
    { distribution: 'uniform' }, { distribution: 'uniform', mean: -2, std: 0.25 },
    { distribution: 'rademacher' }, { distribution: 'rademacher', mean: 1, std: 0.1 },
  ];

  it.each(dists)('sampleEntries is bit-identical to native for every seed and stream: %o', (dist) => {
    for (const seed of seeds)
      for (const stream of streams) {
        const request = { seed, stream, count: 1501, ...dist };  // odd count: a normal pair is split
        expectIdentical(engine.sampleEntries(request), native({ op: 'sampleEntries', ...request }).values,
          `seed ${seed} stream ${stream}`);
      }
  });

  it.each(dists)('sampleDotProducts at dk = 1 (one product, no summation order) is bit-identical to native: %o', (dist) => {
    for (const seed of seeds)
      for (const first of [0, 5, 2 ** 40]) {
        const request = { seed, first, dk: 1, count: 1200, ...dist };
        expectIdentical(engine.sampleDotProducts(request), native({ op: 'sampleDotProducts', ...request }).values,
          `seed ${seed} first ${first}`);
      }
  });

  it('the RNG comparison discriminates: different seeds or streams give different values', () => {
    const a = native({ op: 'sampleEntries', seed: 1, count: 50 }).values;
    expect(native({ op: 'sampleEntries', seed: 2, count: 50 }).values).not.toEqual(a);
    expect(native({ op: 'sampleEntries', seed: 1, stream: 1, count: 50 }).values).not.toEqual(a);
    expect(new Set(a).size).toBe(50);
  });

  const small = attentionRequest({ nq: 2, nk: 2, dk: 2, dv: 2, seed: 1 });
  it.each([
    ['softmax, x of the wrong length', { op: 'softmax', x: new Float32Array(5), rows: 2, cols: 3 },
      () => engine.softmax(new Float32Array(5), 2, 3)],
    ['attention, nq inconsistent with q', { op: 'attention', ...small, nq: 3 }, () => engine.attention({ ...small, nq: 3 })],
    ['sampleEntries, seed -1', { op: 'sampleEntries', seed: -1, count: 3 }, () => engine.sampleEntries({ seed: -1, count: 3 })],
    ['sampleDotProducts, dk 2^16+1', { op: 'sampleDotProducts', seed: 1, dk: 2 ** 16 + 1, count: 3 },
      () => engine.sampleDotProducts({ seed: 1, dk: 2 ** 16 + 1, count: 3 })],
  ])('a bad request gets the same error message natively and in wasm: %s', (_, request, call) => {
    const { error } = native(request);
    expect(error).toMatch(new RegExp(`^${request.op}: `));
    expect(call).toThrow(error);
  });
});
