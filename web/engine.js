// attnlab's public JavaScript API: the only module that loads the WebAssembly engine.
//
//   import { createEngine } from 'attnlab';
//   const engine = await createEngine();           // SIMD build where the runtime supports it
//   engine.softmax(new Float32Array([1, 2, 3]), 1, 3);
//
// Arrays cross as Float32Array (a mask as Uint8Array) and come back as fresh Float32Arrays that
// the caller owns. Every argument is checked; a bad one throws an Error (TypeError or RangeError
// where that fits) whose message names the function and the argument, and the engine stays
// usable afterwards. See web/engine.d.ts for the full types.

const DISTRIBUTIONS = { normal: 0, uniform: 1, rademacher: 2, 'student-t': 3 };
const SOFTMAX_KIND = { softmax: 0, softmaxNaive: 1, logSoftmax: 2 };
const MAX_ELEMENTS = 2 ** 24;  // api.hpp kMaxElements

// A tiny module using one v128 instruction: validates only where wasm SIMD128 is supported.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1,
  0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

export function simdSupported() {
  try { return WebAssembly.validate(SIMD_PROBE); } catch { return false; }
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

async function loadModule(simd, wasmBinary) {
  const factory = simd
    ? (await import('./wasm/attnlab.mjs')).default
    : (await import('./wasm/attnlab-scalar.mjs')).default;
  if (!wasmBinary && isNode) {
    // Emscripten 3.1.6's web loader cannot fetch file: URLs; Node reads the bytes itself.
    const fs = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fs);
    wasmBinary = await readFile(new URL(simd ? './wasm/attnlab.wasm' : './wasm/attnlab-scalar.wasm', import.meta.url));
  }
  return factory(wasmBinary ? { wasmBinary } : {});
}

function describeValue(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `Array(${v.length})`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.length})`;
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + '…' : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

function engineError(E, code, message) {
  return Object.assign(new E(message), { code });
}

function requireArray(fn, name, v, Type = Float32Array) {
  if (!(v instanceof Type)) throw new TypeError(`${fn}: ${name} must be a ${Type.name}, got ${describeValue(v)}`);
  if (v.length > MAX_ELEMENTS)
    throw engineError(RangeError, 'SIZE_LIMIT', `${fn}: ${name} has ${v.length} elements, more than the limit of ${MAX_ELEMENTS}`);
  return v;
}

// Numbers are checked for type here; range and integrality are checked by the engine in C++.
function requireNumber(fn, name, v) {
  if (typeof v !== 'number') throw new TypeError(`${fn}: ${name} must be a number, got ${describeValue(v)}`);
  return v;
}

function requireBoolean(fn, name, v) {
  if (typeof v !== 'boolean') throw new TypeError(`${fn}: ${name} must be a boolean, got ${describeValue(v)}`);
  return v;
}

function requireOptions(fn, o) {
  if (o === null || typeof o !== 'object' || Array.isArray(o) || ArrayBuffer.isView(o))
    throw new TypeError(`${fn}: expected an options object, got ${describeValue(o)}`);
  return o;
}

function distributionCode(fn, d) {
  if (!Object.hasOwn(DISTRIBUTIONS, d)) throw engineError(RangeError, 'BAD_VALUE', `${fn}: distribution must be 'normal', 'uniform', 'rademacher' or 'student-t', got ${describeValue(d)}`);
  return DISTRIBUTIONS[d];
}

export async function createEngine({ simd = 'auto', wasmBinary } = {}) {
  const useSimd = simd === 'auto' ? simdSupported() : !!simd;
  const M = await loadModule(useSimd, wasmBinary);

  // Heap views are re-read on every access: memory growth replaces the buffer. Lengths were
  // checked against MAX_ELEMENTS by requireArray, so a 0 address means memory ran out.
  const place = (ptr) => {
    if (!ptr) throw engineError(RangeError, 'OUT_OF_MEMORY', 'attnlab: the engine ran out of memory for the inputs');
    return ptr;
  };
  const writeF32 = (slot, arr) => {
    M.HEAPF32.set(arr, place(M.inputF32(slot, arr.length)) >>> 2);
  };
  const readF32 = (slot) => {
    const ptr = M.outputF32(slot) >>> 2;
    return M.HEAPF32.slice(ptr, ptr + M.outputLength(slot));
  };
  const check = (status) => {
    if (!status) return;
    const tab = status.indexOf('\t');
    const code = status.slice(0, tab), message = status.slice(tab + 1);
    const E = code === 'BAD_SIZE' || code === 'SIZE_LIMIT' || code === 'BAD_VALUE' ? RangeError : Error;
    throw engineError(E, code, message);
  };

  function softmaxLike(fn) {
    return (x, rows, cols) => {
      requireArray(fn, 'x', x);
      requireNumber(fn, 'rows', rows);
      requireNumber(fn, 'cols', cols);
      writeF32(0, x);
      check(M.softmax(rows, cols, SOFTMAX_KIND[fn]));
      return readF32(0);
    };
  }

  function attentionCall(fn, o, backward) {
    requireOptions(fn, o);
    const { q, k, v, nq, nk, dk, dv, scale, causal = false, mask, bias, gradOutput } = o;
    requireArray(fn, 'q', q);
    requireArray(fn, 'k', k);
    requireArray(fn, 'v', v);
    for (const [name, value] of [['nq', nq], ['nk', nk], ['dk', dk], ['dv', dv]]) requireNumber(fn, name, value);
    if (scale !== undefined) requireNumber(fn, 'scale', scale);
    requireBoolean(fn, 'causal', causal);
    if (mask !== undefined) requireArray(fn, 'mask', mask, Uint8Array);
    if (bias !== undefined) requireArray(fn, 'bias', bias);
    if (backward) requireArray(fn, 'gradOutput', gradOutput);
    writeF32(0, q);
    writeF32(1, k);
    writeF32(2, v);
    if (backward) writeF32(3, gradOutput);
    if (bias !== undefined) writeF32(4, bias);
    if (mask !== undefined) M.HEAPU8.set(mask, place(M.inputMask(mask.length)));
    const args = [nq, nk, dk, dv, scale ?? 0, scale !== undefined, causal, mask !== undefined, bias !== undefined];
    check(backward ? M.attentionBackward(...args) : M.attention(...args));
  }

  function sampleOptions(fn, o) {
    requireOptions(fn, o);
    const { seed, distribution = 'normal', mean = 0, std = 1, df = 5 } = o;
    requireNumber(fn, 'seed', seed);
    requireNumber(fn, 'mean', mean);
    requireNumber(fn, 'std', std);
    requireNumber(fn, 'df', df);
    return [seed, distributionCode(fn, distribution), mean, std, df];
  }

  const engine = {
    /** True when the SIMD128 build is loaded. */
    simd: useSimd,
    /** The xsimd architecture the kernels were compiled for ('sse4.1' lowered to SIMD128), or 'scalar'. */
    arch: M.arch(),

    softmax: softmaxLike('softmax'),
    softmaxNaive: softmaxLike('softmaxNaive'),
    logSoftmax: softmaxLike('logSoftmax'),

    softmaxBackward(p, gradP, rows, cols) {
      const fn = 'softmaxBackward';
      requireArray(fn, 'p', p);
      requireArray(fn, 'gradP', gradP);
      requireNumber(fn, 'rows', rows);
      requireNumber(fn, 'cols', cols);
      writeF32(0, p);
      writeF32(1, gradP);
      check(M.softmaxBackward(rows, cols));
      return readF32(0);
    },

    attention(o) {
      attentionCall('attention', o, false);
      return { output: readF32(0), weights: readF32(1) };
    },

    attentionBackward(o) {
      attentionCall('attentionBackward', o, true);
      return { gradQ: readF32(0), gradK: readF32(1), gradV: readF32(2) };
    },

    rowStats(p, rows, cols) {
      const fn = 'rowStats';
      requireArray(fn, 'p', p);
      requireNumber(fn, 'rows', rows);
      requireNumber(fn, 'cols', cols);
      writeF32(0, p);
      check(M.rowStats(rows, cols));
      return { max: readF32(0), entropy: readF32(1) };
    },

    sampleDotProducts(o) {
      const fn = 'sampleDotProducts';
      const [seed, dist, mean, std, df] = sampleOptions(fn, o);
      const { dk, count, first = 0, rho = 0, layernorm = false } = o;
      requireNumber(fn, 'dk', dk);
      requireNumber(fn, 'count', count);
      requireNumber(fn, 'first', first);
      requireNumber(fn, 'rho', rho);
      requireBoolean(fn, 'layernorm', layernorm);
      check(M.sampleDotProducts(dk, count, seed, dist, mean, std, df, first, rho, layernorm));
      return readF32(0);
    },

    sampleEntries(o) {
      const fn = 'sampleEntries';
      const [seed, dist, mean, std, df] = sampleOptions(fn, o);
      const { count, stream = 0 } = o;
      requireNumber(fn, 'count', count);
      requireNumber(fn, 'stream', stream);
      check(M.sampleEntries(count, seed, stream, dist, mean, std, df));
      return readF32(0);
    },

    sampleSoftmaxRows(o) {
      const fn = 'sampleSoftmaxRows';
      requireOptions(fn, o);
      const { dk, n, rows, seed, first = 0 } = o;
      for (const [name, value] of [['dk', dk], ['n', n], ['rows', rows], ['seed', seed], ['first', first]]) requireNumber(fn, name, value);
      const scale = o.scale ?? 1 / Math.sqrt(dk);
      requireNumber(fn, 'scale', scale);
      check(M.sampleSoftmaxRows(dk, n, rows, scale, seed, first));
      return { maxWeight: readF32(0), entropy: readF32(1), jacobianNorm: readF32(2), nonmaxGrad: readF32(3), scoreVariance: readF32(4) };
    },

    scores(o) {
      const fn = 'scores';
      requireOptions(fn, o);
      const { q, k, nq, nk, dk } = o;
      requireArray(fn, 'q', q);
      requireArray(fn, 'k', k);
      for (const [name, value] of [['nq', nq], ['nk', nk], ['dk', dk]]) requireNumber(fn, name, value);
      const scale = o.scale ?? 1 / Math.sqrt(dk);
      requireNumber(fn, 'scale', scale);
      writeF32(0, q);
      writeF32(1, k);
      check(M.scores(nq, nk, dk, scale));
      return readF32(0);
    },

    matmul(a, b, m, k, n) {
      const fn = 'matmul';
      requireArray(fn, 'a', a);
      requireArray(fn, 'b', b);
      for (const [name, value] of [['m', m], ['k', k], ['n', n]]) requireNumber(fn, name, value);
      writeF32(0, a);
      writeF32(1, b);
      check(M.matmul(m, k, n));
      return readF32(0);
    },

    rowDots(a, b, rows, cols) {
      const fn = 'rowDots';
      requireArray(fn, 'a', a);
      requireArray(fn, 'b', b);
      requireNumber(fn, 'rows', rows);
      requireNumber(fn, 'cols', cols);
      writeF32(0, a);
      writeF32(1, b);
      check(M.rowDots(rows, cols));
      return readF32(0);
    },

    softmaxJacobian(p) {
      requireArray('softmaxJacobian', 'p', p);
      writeF32(0, p);
      check(M.softmaxJacobian());
      return readF32(0);
    },

    describe(x, o) {
      const fn = 'describe';
      requireArray(fn, 'x', x);
      requireOptions(fn, o);
      const { bins, lo, hi } = o;
      requireNumber(fn, 'bins', bins);
      requireNumber(fn, 'lo', lo);
      requireNumber(fn, 'hi', hi);
      writeF32(0, x);
      check(M.describe(bins, lo, hi));
      const c = M.outputCounts() >>> 2, s = M.outputSummary() >>> 3;
      const [n, mean, variance, meanLo, meanHi, varianceLo, varianceHi, varianceSE] = M.HEAPF64.slice(s, s + 8);
      return {
        n, mean, variance, varianceSE,
        meanCI: [meanLo, meanHi],
        varianceCI: [varianceLo, varianceHi],
        counts: M.HEAPU32.slice(c, c + M.outputCountsLength()),
        lo, hi,
      };
    },

    /** Bytes of wasm linear memory in use (grows, never shrinks). */
    memoryBytes: () => M.HEAPU8.length,
  };
  return Object.freeze(engine);
}
