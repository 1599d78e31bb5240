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
//
// Copies at the boundary can be avoided: the softmax family and attention(Backward) fill
// caller-provided output arrays (`out`), and engine.workspace() hands out Float32Array views of
// the engine's own memory, which every method reads in place as inputs and the softmax and
// attention methods write in place as outputs.

import {
  ENGINE_MEMORY, MAX_BINS, MAX_DIM, MAX_ELEMENTS, distributionCode, engineError, expectLength, outArrays, product,
  requireArray, requireBoolean, requireNumber, requireOptions, rowsCols, sizeArg,
} from './engine-checks.js';
import { TRAIN_DEFAULTS, TRAIN_VARIANTS, makeTrainer } from './engine-trainer.js';

export { TRAIN_DEFAULTS, TRAIN_VARIANTS };

const SOFTMAX_KIND = { softmax: 0, softmaxNaive: 1, logSoftmax: 2 };

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

export async function createEngine({ simd = 'auto', wasmBinary } = {}) {
  const useSimd = simd === 'auto' ? simdSupported() : !!simd;
  const M = await loadModule(useSimd, wasmBinary);

  // Heap views are re-read on every access: memory growth replaces the buffer. Lengths were
  // checked against MAX_ELEMENTS by requireArray, so a 0 address means memory ran out.
  const place = (ptr) => {
    if (!ptr) throw engineError(RangeError, 'OUT_OF_MEMORY', 'attnlab: the engine ran out of memory for the inputs');
    return ptr;
  };
  const readView = (slot) => {
    const ptr = M.outputF32(slot) >>> 2;
    return M.HEAPF32.subarray(ptr, ptr + M.outputLength(slot));
  };
  const readF32 = (slot) => readView(slot).slice();
  // Outputs 0, 1, … by name, as views of one new array: one allocation where a method returns
  // several (a fresh array costs ~5–30 µs a page in Chromium on this project's machines, whatever
  // its size below that). Structured clone keeps them one buffer too.
  const readF32s = (...names) => {
    const views = names.map((_, slot) => readView(slot));
    const all = new Float32Array(views.reduce((n, v) => n + v.length, 0));
    const out = {};
    let at = 0;
    views.forEach((v, slot) => {
      all.set(v, at);
      out[names[slot]] = all.subarray(at, (at += v.length));
    });
    return out;
  };
  const check = (status) => {
    if (!status) return;
    const tab = status.indexOf('\t');
    const code = status.slice(0, tab), message = status.slice(tab + 1);
    const E = code === 'BAD_SIZE' || code === 'SIZE_LIMIT' || code === 'BAD_VALUE' ? RangeError : Error;
    throw engineError(E, code, message);
  };

  // ---- engine memory: workspaces, and the loans that let a call use them in place
  const blocks = new Map();  // address → length in floats, of every live workspace block
  const remember = () => {   // the heap's buffer, known to requireArray as this engine's memory
    const buffer = M.HEAPU8.buffer;
    if (!ENGINE_MEMORY.has(buffer)) ENGINE_MEMORY.set(buffer, memory);
    return buffer;
  };
  // Is v a view of the current heap lying inside one live workspace block?
  const inWorkspace = (v) => {
    if (v.buffer !== M.HEAPU8.buffer) return false;
    const start = v.byteOffset, end = start + v.byteLength;
    for (const [at, n] of blocks) if (start >= at && end <= at + 4 * n) return true;
    return false;
  };
  const memory = {
    check(fn, name, v) {
      if (v.buffer !== M.HEAPU8.buffer)
        throw engineError(Error, 'DETACHED', `${fn}: ${name} is a view of engine memory that was detached when the memory grew; read it again from its workspace`);
      if (!inWorkspace(v))
        throw engineError(Error, 'DISPOSED', `${fn}: ${name} is a view of engine memory outside any live workspace (its workspace was disposed, or the view was not made by engine.workspace)`);
    },
  };
  remember();
  const lent = (ok) => {
    if (!ok) throw engineError(Error, 'INTERNAL', 'attnlab: the engine refused a workspace loan');
  };

  // Inputs, [[slot, array], …]: a workspace view is lent to its slot, so the engine reads it in
  // place (its address taken before any copy can grow the memory and detach it); any other array
  // is copied into the slot. The address first: reserving a slot may grow the memory, which
  // replaces the heap's buffer (M.HEAPF32.set(arr, M.inputF32(…)) would read the old view).
  const writeInputs = (pairs) => {
    const loans = pairs.map(([, arr]) => (inWorkspace(arr) ? [arr.byteOffset, arr.length] : null));
    pairs.forEach(([slot, arr], i) => {
      if (loans[i]) return lent(M.lendInput(slot, ...loans[i]));
      const ptr = place(M.inputF32(slot, arr.length));
      M.HEAPF32.set(arr, ptr >>> 2);
    });
  };
  // Outputs. Before writeInputs, each out array's place: a workspace view by its address (taken
  // before a copy can grow the memory and detach it), any other array as itself. After it,
  // lendOutput(slot, plan) → a function reading the result after the call: a workspace view that
  // overlaps no input loan is lent, so the engine writes it in place, and the result is a fresh
  // view of that memory (valid after growth); any other array is filled by one copy; none gives a
  // fresh array.
  const planOutput = (arr) => (arr !== undefined && inWorkspace(arr) ? { at: arr.byteOffset, n: arr.length } : { arr });
  const lendOutput = (slot, { arr, at, n }) => {
    if (at === undefined) return arr === undefined ? () => readF32(slot) : () => { arr.set(readView(slot)); return arr; };
    const inPlace = M.lendOutput(slot, at, n);  // false: it overlaps an input lent to this call
    return () => {
      const view = new Float32Array(remember(), at, n);
      if (!inPlace) view.set(readView(slot));
      return view;
    };
  };

  // A method's options { out }: a Float32Array of n (= expr) floats to fill, or none.
  function outOption(fn, o, n, expr = 'rows*cols') {
    if (o === undefined) return undefined;
    requireOptions(fn, o);
    if (o.out !== undefined) {
      requireArray(fn, 'out', o.out);
      expectLength(fn, 'out', o.out, n, expr);
    }
    return o.out;
  }

  // (rows, cols) row-major inputs of fn, [name, array] each, checked: every array's type first,
  // then the sizes, then every length (the order the error tests pin); returns rows*cols.
  function matrixArgs(fn, arrays, rows, cols) {
    for (const [name, x] of arrays) requireArray(fn, name, x);
    requireNumber(fn, 'rows', rows);
    requireNumber(fn, 'cols', cols);
    const n = rowsCols(fn, rows, cols);
    for (const [name, x] of arrays) expectLength(fn, name, x, n, 'rows*cols');
    return n;
  }
  const matrixArg = (fn, name, x, rows, cols) => matrixArgs(fn, [[name, x]], rows, cols);

  function softmaxLike(fn) {
    return (x, rows, cols, o) => {
      const n = matrixArg(fn, 'x', x, rows, cols);
      const plan = planOutput(outOption(fn, o, n));
      writeInputs([[0, x]]);
      const read = lendOutput(0, plan);
      check(M.softmax(rows, cols, SOFTMAX_KIND[fn]));
      return read();
    };
  }

  // Checks and writes the inputs, lends the outputs, runs the call; returns the outputs by name.
  function attentionCall(fn, o, backward) {
    requireOptions(fn, o);
    const { q, k, v, nq, nk, dk, dv, scale, causal = false, mask, bias, gradOutput, out } = o;
    const weights = backward ? false : o.weights ?? true;  // false: O only, the n² weights stay inside
    requireArray(fn, 'q', q);
    requireArray(fn, 'k', k);
    requireArray(fn, 'v', v);
    for (const [name, value] of [['nq', nq], ['nk', nk], ['dk', dk], ['dv', dv]]) requireNumber(fn, name, value);
    if (scale !== undefined) requireNumber(fn, 'scale', scale);
    requireBoolean(fn, 'causal', causal);
    if (!backward) requireBoolean(fn, 'weights', weights);
    if (mask !== undefined) requireArray(fn, 'mask', mask, Uint8Array);
    if (bias !== undefined) requireArray(fn, 'bias', bias);
    if (backward) requireArray(fn, 'gradOutput', gradOutput);
    for (const [name, value] of [['nq', nq], ['nk', nk], ['dk', dk], ['dv', dv]]) sizeArg(fn, name, value, MAX_DIM);
    const nqk = product(fn, 'nq*nk', nq, nk);
    expectLength(fn, 'q', q, product(fn, 'nq*dk', nq, dk), 'nq*dk');
    expectLength(fn, 'k', k, product(fn, 'nk*dk', nk, dk), 'nk*dk');
    expectLength(fn, 'v', v, product(fn, 'nk*dv', nk, dv), 'nk*dv');
    const nqdv = product(fn, 'nq*dv', nq, dv);
    if (mask !== undefined) expectLength(fn, 'mask', mask, nqk, 'nq*nk');
    if (bias !== undefined) expectLength(fn, 'bias', bias, nqk, 'nq*nk');
    if (backward) expectLength(fn, 'gradOutput', gradOutput, nqdv, 'nq*dv');
    const outs = outArrays(fn, out, backward
      ? [['gradQ', nq * dk, 'nq*dk'], ['gradK', nk * dk, 'nk*dk'], ['gradV', nk * dv, 'nk*dv']]
      : [['output', nqdv, 'nq*dv'], ['weights', nqk, 'nq*nk']]);
    if (!weights && out?.weights !== undefined)
      throw new TypeError(`${fn}: out.weights was given with weights: false, which returns no weights`);
    const plans = outs.map(([, arr]) => planOutput(arr));
    // the mask is copied in first (a view of engine memory would be detached by a growth below)
    if (mask !== undefined) {
      const m = mask.buffer === M.HEAPU8.buffer ? mask.slice() : mask;
      M.HEAPU8.set(m, place(M.inputMask(m.length)));
    }
    writeInputs([[0, q], [1, k], [2, v], ...(backward ? [[3, gradOutput]] : []), ...(bias !== undefined ? [[4, bias]] : [])]);
    const readers = plans.map((plan, slot) => lendOutput(slot, plan));
    const args = [nq, nk, dk, dv, scale ?? 0, scale !== undefined, causal, mask !== undefined, bias !== undefined];
    check(backward ? M.attentionBackward(...args) : M.attention(...args));
    const wanted = outs.map(([name], i) => [name, readers[i]]).filter(([name]) => weights || name !== 'weights');
    return Object.fromEntries(wanted.map(([name, read]) => [name, read()]));
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

    softmaxBackward(p, gradP, rows, cols, o) {
      const fn = 'softmaxBackward';
      const n = matrixArgs(fn, [['p', p], ['gradP', gradP]], rows, cols);
      const plan = planOutput(outOption(fn, o, n));
      writeInputs([[0, p], [1, gradP]]);
      const read = lendOutput(0, plan);
      check(M.softmaxBackward(rows, cols));
      return read();
    },

    attention: (o) => attentionCall('attention', o, false),
    attentionBackward: (o) => attentionCall('attentionBackward', o, true),

    rowStats(p, rows, cols) {
      matrixArg('rowStats', 'p', p, rows, cols);
      writeInputs([[0, p]]);
      check(M.rowStats(rows, cols));
      return readF32s('max', 'entropy');
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
      // (count is checked here only to check out's length: without out, the engine checks it
      // after the law's parameters, the order the error tests hold it to)
      const plan = planOutput(o.out === undefined ? undefined : outOption(fn, o, sizeArg(fn, 'count', count, MAX_ELEMENTS), 'count'));
      const read = lendOutput(0, plan);
      check(M.sampleEntries(count, seed, stream, dist, mean, std, df));
      return read();
    },

    sampleSoftmaxRows(o) {
      const fn = 'sampleSoftmaxRows';
      requireOptions(fn, o);
      const { dk, n, rows, seed, first = 0 } = o;
      for (const [name, value] of [['dk', dk], ['n', n], ['rows', rows], ['seed', seed], ['first', first]]) requireNumber(fn, name, value);
      const scale = o.scale === undefined ? 1 / Math.sqrt(dk) : o.scale;  // null is not a number, as in attention
      requireNumber(fn, 'scale', scale);
      check(M.sampleSoftmaxRows(dk, n, rows, scale, seed, first));
      return readF32s('maxWeight', 'entropy', 'jacobianNorm', 'nonmaxGrad', 'scoreVariance');
    },

    scoreStats(scores, rows, n, scale = 1) {
      const fn = 'scoreStats';
      requireArray(fn, 'scores', scores);
      requireNumber(fn, 'rows', rows);
      requireNumber(fn, 'n', n);
      requireNumber(fn, 'scale', scale);
      expectLength(fn, 'scores', scores, product(fn, 'rows*n', sizeArg(fn, 'rows', rows, MAX_ELEMENTS), sizeArg(fn, 'n', n, MAX_DIM)), 'rows*n');
      writeInputs([[0, scores]]);
      check(M.scoreStats(rows, n, scale));
      return readF32s('maxWeight', 'entropy', 'jacobianNorm', 'nonmaxGrad', 'scoreVariance');
    },

    sampleScores(o) {
      const fn = 'sampleScores';
      requireOptions(fn, o);
      const { dk, n, rows, seed, first = 0 } = o;
      for (const [name, value] of [['dk', dk], ['n', n], ['rows', rows], ['seed', seed], ['first', first]]) requireNumber(fn, name, value);
      const scale = o.scale === undefined ? 1 / Math.sqrt(dk) : o.scale;
      requireNumber(fn, 'scale', scale);
      check(M.sampleScores(dk, n, rows, scale, seed, first));
      return readF32(0);
    },

    scores(o) {
      const fn = 'scores';
      requireOptions(fn, o);
      const { q, k, nq, nk, dk } = o;
      requireArray(fn, 'q', q);
      requireArray(fn, 'k', k);
      for (const [name, value] of [['nq', nq], ['nk', nk], ['dk', dk]]) requireNumber(fn, name, value);
      const scale = o.scale === undefined ? 1 / Math.sqrt(dk) : o.scale;  // null is not a number, as in attention
      requireNumber(fn, 'scale', scale);
      for (const [name, value] of [['nq', nq], ['nk', nk], ['dk', dk]]) sizeArg(fn, name, value, MAX_DIM);
      expectLength(fn, 'q', q, product(fn, 'nq*dk', nq, dk), 'nq*dk');
      expectLength(fn, 'k', k, product(fn, 'nk*dk', nk, dk), 'nk*dk');
      const plan = planOutput(outOption(fn, o, product(fn, 'nq*nk', nq, nk), 'nq*nk'));
      writeInputs([[0, q], [1, k]]);
      const read = lendOutput(0, plan);
      check(M.scores(nq, nk, dk, scale));
      return read();
    },

    matmul(a, b, m, k, n, o) {
      const fn = 'matmul';
      requireArray(fn, 'a', a);
      requireArray(fn, 'b', b);
      for (const [name, value] of [['m', m], ['k', k], ['n', n]]) requireNumber(fn, name, value);
      for (const [name, value] of [['m', m], ['k', k], ['n', n]]) sizeArg(fn, name, value, MAX_ELEMENTS);
      expectLength(fn, 'a', a, product(fn, 'm*k', m, k), 'm*k');
      expectLength(fn, 'b', b, product(fn, 'k*n', k, n), 'k*n');
      const plan = planOutput(outOption(fn, o, product(fn, 'm*n', m, n), 'm*n'));
      writeInputs([[0, a], [1, b]]);
      const read = lendOutput(0, plan);
      check(M.matmul(m, k, n));
      return read();
    },

    rowDots(a, b, rows, cols, o) {
      const fn = 'rowDots';
      matrixArgs(fn, [['a', a], ['b', b]], rows, cols);
      const plan = planOutput(outOption(fn, o, rows, 'rows'));
      writeInputs([[0, a], [1, b]]);
      const read = lendOutput(0, plan);
      check(M.rowDots(rows, cols));
      return read();
    },

    softmaxJacobian(p) {
      const fn = 'softmaxJacobian';
      requireArray(fn, 'p', p);
      if (p.length === 0) throw engineError(RangeError, 'BAD_SIZE', `${fn}: p must hold at least one value`);
      product(fn, 'n*n', p.length, p.length);
      writeInputs([[0, p]]);
      check(M.softmaxJacobian());
      return readF32(0);
    },

    describe(x, o) {
      const fn = 'describe';
      requireArray(fn, 'x', x);
      if (o !== undefined) requireOptions(fn, o);
      const { bins, lo, hi } = o ?? {};
      // a histogram needs all three; with none, the moments alone (the binding's bins = 0)
      const histogram = bins !== undefined || lo !== undefined || hi !== undefined;
      if (histogram) {
        requireNumber(fn, 'bins', bins);
        requireNumber(fn, 'lo', lo);
        requireNumber(fn, 'hi', hi);
        sizeArg(fn, 'bins', bins, MAX_BINS);
      }
      if (x.length === 0) throw engineError(RangeError, 'BAD_SIZE', `${fn}: x must hold at least one value`);
      writeInputs([[0, x]]);
      check(histogram ? M.describe(bins, lo, hi) : M.describe(0, 0, 0));
      const c = M.outputCounts() >>> 2, s = M.outputSummary() >>> 3;
      const [n, mean, variance, meanLo, meanHi, varianceLo, varianceHi, varianceSE,
        fourth, fourthLo, fourthHi, kurtosis, kurtosisLo, kurtosisHi, kurtosisSE] = M.HEAPF64.slice(s, s + 15);
      return {
        n, mean, variance, varianceSE,
        meanCI: [meanLo, meanHi],
        varianceCI: [varianceLo, varianceHi],
        fourth, fourthCI: [fourthLo, fourthHi],
        kurtosis, kurtosisCI: [kurtosisLo, kurtosisHi], kurtosisSE,
        ...(histogram ? { counts: M.HEAPU32.slice(c, c + M.outputCountsLength()), lo, hi } : {}),
      };
    },

    rowSummaries(x, rows, cols) {
      matrixArg('rowSummaries', 'x', x, rows, cols);
      writeInputs([[0, x]]);
      check(M.rowSummaries(rows, cols));
      // four columns of `rows` values, copied out at once and viewed one by one
      const at = M.outputF64() >>> 3, all = M.HEAPF64.slice(at, at + 4 * rows);
      const column = (c) => all.subarray(c * rows, (c + 1) * rows);
      return { mean: column(0), meanLo: column(1), meanHi: column(2), median: column(3) };
    },

    /** A trainer of the four scalings side by side (see TRAIN_DEFAULTS for the options). */
    createTrainer: (o) => makeTrainer(M, check, readF32, o),
    trainDefaults: TRAIN_DEFAULTS,

    /** Bytes of wasm linear memory in use (grows, never shrinks). */
    memoryBytes: () => M.HEAPU8.length,

    /** Named Float32Arrays of engine memory, zeroed, that calls read and write in place (engine.d.ts). */
    workspace(sizes) {
      const fn = 'workspace';
      requireOptions(fn, sizes, 'an object of sizes ({ name: length, … })');
      const entries = Object.entries(sizes);
      if (entries.length === 0) throw engineError(RangeError, 'BAD_SIZE', `${fn}: name at least one array`);
      for (const [name, n] of entries) {
        if (name === 'dispose' || name === 'disposed')
          throw engineError(RangeError, 'BAD_VALUE', `${fn}: ${name} cannot name an array (it is a member of the workspace)`);
        requireNumber(fn, name, n);
        sizeArg(fn, name, n, MAX_ELEMENTS);
      }
      const at = {};
      for (const [name, n] of entries) {
        at[name] = M.workspaceAlloc(n);
        if (!at[name]) {
          for (const a of Object.values(at)) if (a) { M.workspaceFree(a); blocks.delete(a); }
          throw engineError(RangeError, 'OUT_OF_MEMORY', `${fn}: the engine ran out of memory for ${name}`);
        }
        blocks.set(at[name], n);
      }
      let disposed = false;
      const views = {};
      const ws = {
        /** Frees the memory; a view of it passed to the engine afterwards throws (code DISPOSED). */
        dispose() {
          if (disposed) return;
          disposed = true;
          for (const a of Object.values(at)) { blocks.delete(a); M.workspaceFree(a); }
        },
        get disposed() { return disposed; },
      };
      // One view per name, made again only after the memory grew (which detaches the old one).
      for (const [name, n] of entries)
        Object.defineProperty(ws, name, {
          enumerable: true,
          get() {
            if (disposed) throw engineError(Error, 'DISPOSED', `workspace.${name}: the workspace has been disposed`);
            const buffer = remember();
            if (views[name]?.buffer !== buffer) views[name] = new Float32Array(buffer, at[name], n);
            return views[name];
          },
        });
      return Object.freeze(ws);
    },
  };
  return Object.freeze(engine);
}
