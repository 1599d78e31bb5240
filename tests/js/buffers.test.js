// Buffers at the JavaScript boundary (web/engine.js): output arrays the caller provides (`out`)
// and engine-owned workspace views, read and written in place. Each claim is checked against the
// copying path of the same engine, which the other test files check against the math.
import { describe, it, expect } from 'vitest';
import { createEngine } from '../../web/engine.js';

const engines = { SIMD: await createEngine({ simd: true }), scalar: await createEngine({ simd: false }) };

function randomF32(n, seed) {  // mulberry32 in [-2, 2)
  let a = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return 4 * (((t ^ (t >>> 14)) >>> 0) / 4294967296) - 2;
  });
}
const errorOf = (f) => { try { f(); } catch (e) { return e; } throw new Error('no error thrown'); };

const nq = 5, nk = 7, dk = 6, dv = 3;
const Q = randomF32(nq * dk, 1), K = randomF32(nk * dk, 2), V = randomF32(nk * dv, 3), G = randomF32(nq * dv, 4);
const X = randomF32(3 * 9, 5);

describe.each(Object.entries(engines))('%s build', (_, engine) => {
  const copied = engine.attention({ q: Q, k: K, v: V, nq, nk, dk, dv, causal: true });

  it('softmax fills a caller-provided out array, returns that array, and equals the copying path bit for bit', () => {
    for (const fn of ['softmax', 'softmaxNaive', 'logSoftmax']) {
      const out = new Float32Array(27).fill(NaN);
      expect(engine[fn](X, 3, 9, { out })).toBe(out);
      expect(out).toEqual(engine[fn](X, 3, 9));
    }
    const out = new Float32Array(27);
    const p = engine.softmax(X, 3, 9);
    expect(engine.softmaxBackward(p, X, 3, 9, { out })).toBe(out);
    expect(out).toEqual(engine.softmaxBackward(p, X, 3, 9));
  });

  it('matmul fills a caller-provided out array (or a workspace view, in place), returns it, and equals the copying path bit for bit', () => {
    const B = randomF32(9 * 4, 6);
    const fresh = engine.matmul(X, B, 3, 9, 4);
    const out = new Float32Array(12).fill(NaN);
    expect(engine.matmul(X, B, 3, 9, 4, { out })).toBe(out);
    expect(out).toEqual(fresh);
    const ws = engine.workspace({ a: 27, b: 36, c: 12 });
    ws.a.set(X); ws.b.set(B);
    const c = engine.matmul(ws.a, ws.b, 3, 9, 4, { out: ws.c });
    expect(c).toEqual(fresh);
    expect(c.byteOffset).toBe(ws.c.byteOffset);
    expect(engine.matmul(X, B, 3, 9, 4, {})).toEqual(fresh);
    expect(errorOf(() => engine.matmul(X, B, 3, 9, 4, { out: new Float32Array(11) })))
      .toMatchObject({ code: 'SHAPE_MISMATCH', message: 'matmul: out has 11 elements, expected m*n = 12' });
    expect(errorOf(() => engine.matmul(X, B, 3, 9, 4, { out: [1, 2] })).name).toBe('TypeError');
    expect(errorOf(() => engine.matmul(X, B, 3, 9, 4, 5)).name).toBe('TypeError');
    ws.dispose();
  });

  it('scores and rowDots fill a caller-provided out array (or a workspace view, in place), return it, and equal the copying path bit for bit', () => {
    const K = randomF32(4 * 9, 7);
    const calls = [
      ['scores', 12, 'nq*nk', (o) => engine.scores({ q: X, k: K, nq: 3, nk: 4, dk: 9, scale: 0.5, ...o })],
      ['rowDots', 3, 'rows', (o) => engine.rowDots(X, X.map((v) => -v), 3, 9, o)],
    ];
    for (const [fn, n, expr, call] of calls) {
      const fresh = call();
      const out = new Float32Array(n).fill(NaN);
      expect(call({ out })).toBe(out);
      expect(out).toEqual(fresh);
      const ws = engine.workspace({ out: n });
      const placed = call({ out: ws.out });
      expect(placed).toEqual(fresh);
      expect(placed.byteOffset).toBe(ws.out.byteOffset);
      expect(errorOf(() => call({ out: new Float32Array(n + 1) })))
        .toMatchObject({ code: 'SHAPE_MISMATCH', message: `${fn}: out has ${n + 1} elements, expected ${expr} = ${n}` });
      expect(errorOf(() => call({ out: [1, 2] })).name).toBe('TypeError');
      ws.dispose();
    }
  });

  it('sampleEntries fills a caller-provided out array (or a workspace view, in place), returns it, and equals the copying path bit for bit', () => {
    const o = { count: 37, seed: 3, stream: 2, distribution: 'uniform', std: 0.5 };
    const fresh = engine.sampleEntries(o);
    const out = new Float32Array(37).fill(NaN);
    expect(engine.sampleEntries({ ...o, out })).toBe(out);
    expect(out).toEqual(fresh);
    const ws = engine.workspace({ x: 37 });
    const x = engine.sampleEntries({ ...o, out: ws.x });
    expect(x).toEqual(fresh);
    expect(x.byteOffset).toBe(ws.x.byteOffset);
    expect(errorOf(() => engine.sampleEntries({ ...o, out: new Float32Array(36) })))
      .toMatchObject({ code: 'SHAPE_MISMATCH', message: 'sampleEntries: out has 36 elements, expected count = 37' });
    expect(errorOf(() => engine.sampleEntries({ ...o, out: [1, 2] })).name).toBe('TypeError');
    ws.dispose();
  });

  it('matmul into a workspace is written there: a 64 MiB product with every operand lent grows no engine memory', async () => {
    // 64 MiB, more than the heap keeps spare after growing for the workspace, so a result made in
    // the engine's own vector and then copied into the view would grow memoryBytes()
    const e = await createEngine({ simd: engine.simd });
    const n = 4096;
    const big = e.workspace({ a: n, b: n, c: n * n });
    big.a.fill(0.5); big.b.fill(2);
    e.matmul(X, X, 9, 3, 9);  // the first blocked product allocates its panel buffer: before the count
    const before = e.memoryBytes();
    const c = e.matmul(big.a, big.b, n, 1, n, { out: big.c });
    expect(e.memoryBytes()).toBe(before);
    expect(c.byteOffset).toBe(big.c.byteOffset);
    expect(c[0]).toBe(1);
    expect(c[n * n - 1]).toBe(1);
    big.dispose();
  });

  it('attention fills the out arrays it is given and returns fresh arrays for the others', () => {
    const output = new Float32Array(nq * dv);
    const r = engine.attention({ q: Q, k: K, v: V, nq, nk, dk, dv, causal: true, out: { output } });
    expect(r.output).toBe(output);
    expect(r.output).toEqual(copied.output);
    expect(r.weights).toEqual(copied.weights);
    const grads = { gradQ: new Float32Array(nq * dk), gradK: new Float32Array(nk * dk), gradV: new Float32Array(nk * dv) };
    const g = engine.attentionBackward({ q: Q, k: K, v: V, nq, nk, dk, dv, causal: true, gradOutput: G, out: grads });
    for (const name of Object.keys(grads)) expect(g[name]).toBe(grads[name]);
    expect(g).toEqual(engine.attentionBackward({ q: Q, k: K, v: V, nq, nk, dk, dv, causal: true, gradOutput: G }));
  });

  it('weights: false returns the same output alone, into out or fresh, and refuses out.weights by name', () => {
    const alone = engine.attention({ q: Q, k: K, v: V, nq, nk, dk, dv, causal: true, weights: false });
    expect(Object.keys(alone)).toEqual(['output']);
    expect(alone.output).toEqual(copied.output);
    const output = new Float32Array(nq * dv);
    expect(engine.attention({ q: Q, k: K, v: V, nq, nk, dk, dv, causal: true, weights: false, out: { output } }).output).toBe(output);
    expect(output).toEqual(copied.output);
    expect(errorOf(() => engine.attention({ q: Q, k: K, v: V, nq, nk, dk, dv, weights: false, out: { weights: new Float32Array(nq * nk) } })))
      .toMatchObject({ name: 'TypeError', message: 'attention: out.weights was given with weights: false, which returns no weights' });
    expect(errorOf(() => engine.attention({ q: Q, k: K, v: V, nq, nk, dk, dv, weights: 0 })).message).toMatch(/^attention: weights /);
    // weights: true is the default form
    expect(engine.attention({ q: Q, k: K, v: V, nq, nk, dk, dv, causal: true, weights: true })).toEqual(copied);
  });

  it('a workspace gives zeroed Float32Array views of engine memory, the same view on every read', () => {
    const ws = engine.workspace({ q: nq * dk, k: nk * dk });
    expect(ws.q).toBeInstanceOf(Float32Array);
    expect(ws.q).toHaveLength(nq * dk);
    expect(ws.q).toBe(ws.q);
    expect(ws.q.every((v) => v === 0)).toBe(true);
    expect(Object.keys(ws)).toEqual(['dispose', 'disposed', 'q', 'k']);
    ws.dispose();
    // every array starts on a 64-byte boundary (a cache line), whatever the sizes before it
    const odd = engine.workspace({ a: 1, b: 3, c: 17, d: 5 });
    for (const name of ['a', 'b', 'c', 'd']) expect(odd[name].byteOffset % 64).toBe(0);
    odd.dispose();
    expect(ws.disposed).toBe(true);
    expect(errorOf(() => ws.q)).toMatchObject({ code: 'DISPOSED', message: 'workspace.q: the workspace has been disposed' });
    ws.dispose();  // twice does nothing
  });

  it('attention reads workspace inputs and writes workspace outputs in place, equal to the copying path', () => {
    const ws = engine.workspace({ q: nq * dk, k: nk * dk, v: nk * dv, output: nq * dv, weights: nq * nk });
    ws.q.set(Q); ws.k.set(K); ws.v.set(V);
    const r = engine.attention({ q: ws.q, k: ws.k, v: ws.v, nq, nk, dk, dv, causal: true, out: { output: ws.output, weights: ws.weights } });
    expect(r.output).toEqual(copied.output);
    expect(r.weights).toEqual(copied.weights);
    // the results are views of the workspace itself: the engine wrote them there
    for (const name of ['output', 'weights']) {
      expect(r[name].buffer).toBe(ws[name].buffer);
      expect(r[name].byteOffset).toBe(ws[name].byteOffset);
      expect(ws[name]).toEqual(copied[name]);
    }
    ws.dispose();
  });

  it('a subarray of a workspace is read in place too, and plain and workspace arrays mix in one call', () => {
    const ws = engine.workspace({ qk: nq * dk + nk * dk });
    ws.qk.set(Q); ws.qk.set(K, nq * dk);
    const r = engine.attention({ q: ws.qk.subarray(0, nq * dk), k: ws.qk.subarray(nq * dk), v: V, nq, nk, dk, dv, causal: true });
    expect(r).toEqual(copied);
    ws.dispose();
  });

  it('an output that overlaps an input in the same workspace (softmax in place) is still correct', () => {
    const ws = engine.workspace({ x: X.length });
    ws.x.set(X);
    const p = engine.softmax(ws.x, 3, 9, { out: ws.x });
    expect(p).toEqual(engine.softmax(X, 3, 9));
    expect(ws.x).toEqual(p);
    ws.dispose();
  });

  it('softmax refuses a NaN logit by its index; a workspace out holds the rows before it, and x in place is left as it was', () => {
    const ws = engine.workspace({ x: X.length, y: X.length });
    ws.x.set(X);
    ws.x[9 + 4] = NaN;  // row 1, column 4
    const before = ws.x.slice();
    ws.y.fill(7);
    let e = errorOf(() => engine.softmax(ws.x, 3, 9, { out: ws.y }));
    expect(e.code).toBe('BAD_VALUE');
    expect(e.message).toMatch(/^softmax: x\[13\] \(row 1, column 4\) is NaN/);
    // the softmax checks its logits in its max pass, row by row: row 0 is done, rows 1 and 2 not
    expect(ws.y.subarray(0, 9)).toEqual(engine.softmax(X.subarray(0, 9), 1, 9));
    expect(ws.y.subarray(9).every((v) => v === 7)).toBe(true);
    // an out that is also the input is written from the engine's own slot, on success only
    e = errorOf(() => engine.softmax(ws.x, 3, 9, { out: ws.x }));
    expect(e.message).toMatch(/^softmax: x\[13\] \(row 1, column 4\) is NaN/);
    expect(ws.x).toEqual(before);
    ws.dispose();
  });

  it('every method reads workspace inputs: rowStats, matmul, describe agree with the copying path', () => {
    const ws = engine.workspace({ a: 27, b: 9 * 2 });
    ws.a.set(X); ws.b.set(X.subarray(0, 18));
    expect(engine.rowStats(ws.a, 3, 9)).toEqual(engine.rowStats(X, 3, 9));
    expect(engine.matmul(ws.a, ws.b, 3, 9, 2)).toEqual(engine.matmul(X, X.slice(0, 18), 3, 9, 2));
    expect(engine.describe(ws.a, { bins: 4, lo: -2, hi: 2 })).toEqual(engine.describe(X, { bins: 4, lo: -2, hi: 2 }));
    ws.dispose();
  });

  it('a view of a disposed workspace is refused by name (code DISPOSED), and the engine stays usable', () => {
    const ws = engine.workspace({ x: 27, out: 27 });
    const { x, out } = ws;
    ws.dispose();
    let e = errorOf(() => engine.softmax(x, 3, 9));
    expect(e.code).toBe('DISPOSED');
    expect(e.message).toMatch(/^softmax: x is a view of engine memory outside any live workspace/);
    e = errorOf(() => engine.softmax(X, 3, 9, { out }));
    expect(e.code).toBe('DISPOSED');
    expect(e.message).toMatch(/^softmax: out is a view of engine memory/);
    expect(engine.softmax(X, 3, 9)).toEqual(engine.softmax(X.slice(), 3, 9));
  });

  it('after an error inside the engine, workspace loans end: the next call with plain arrays is right', () => {
    const ws = engine.workspace({ q: nq * dk, output: nq * dv });
    ws.q.set(Q);
    ws.q[3] = NaN;
    const e = errorOf(() => engine.attention({ q: ws.q, k: K, v: V, nq, nk, dk, dv, causal: true, out: { output: ws.output } }));
    expect(e.code).toBe('BAD_VALUE');
    expect(e.message).toMatch(/^attention: q\[3\] \(row 0, column 3\) is NaN/);
    expect(engine.attention({ q: Q, k: K, v: V, nq, nk, dk, dv, causal: true })).toEqual(copied);
    ws.dispose();
  });
});

describe('memory growth', () => {
  it('detaches workspace views; reading them again gives the same contents, and a stale one is refused by name', async () => {
    const engine = await createEngine();
    const ws = engine.workspace({ x: 1024 });
    const before = ws.x;
    before.set(randomF32(1024, 9));
    const kept = before.slice();
    const big = engine.workspace({ y: 8 * 1024 * 1024 });  // 32 MiB: more than a fresh engine has
    expect(before.length).toBe(0);                           // detached by the growth
    expect(ws.x === before).toBe(false);
    expect(ws.x).toEqual(kept);
    const e = errorOf(() => engine.softmax(before, 1, 1024));
    expect(e.code).toBe('DETACHED');
    expect(e.message).toBe('softmax: x is a view of engine memory that was detached when the memory grew; read it again from its workspace');
    expect(engine.softmax(ws.x, 1, 1024)).toEqual(engine.softmax(kept, 1, 1024));
    big.dispose();
    ws.dispose();
  });

  it('a workspace output detached during the call (a copied input grew the memory) comes back as a live view', async () => {
    const engine = await createEngine();
    const ws = engine.workspace({ output: 4096 });
    const out = ws.output;
    // q is 16 MiB, copied in during the call; one key, so every weight is 1 and every output v = 2
    const r = engine.attention({ q: randomF32(4096 * 1024, 11), k: randomF32(1024, 12), v: new Float32Array([2]),
      nq: 4096, nk: 1, dk: 1024, dv: 1, out: { output: out } });
    expect(out.length).toBe(0);  // detached by the copy of q
    expect(r.output).toHaveLength(4096);
    expect(r.output.every((x) => x === 2)).toBe(true);
    expect(r.output.byteOffset).toBe(ws.output.byteOffset);
    expect(ws.output).toEqual(r.output);
    ws.dispose();
  });
});

// The binding's loan protocol itself (cpp/bindings.cpp), below engine.js, which always lends
// inputs before outputs and frees a workspace only between calls: the rules must hold in any order.
describe('the module’s workspace loans', async () => {
  const { readFile } = await import('node:fs/promises');
  const factory = (await import('../../web/wasm/attnlab.mjs')).default;
  const M = await factory({ wasmBinary: await readFile(new URL('../../web/wasm/attnlab.wasm', import.meta.url)) });

  it('an input loan that overlaps an output loan made first is refused, as the reverse is', () => {
    const block = M.workspaceAlloc(8);
    expect(M.lendOutput(0, block, 4)).toBe(true);
    expect(M.lendInput(0, block + 8, 4)).toBe(false);   // floats 2…5 against the output's 0…3
    expect(M.lendInput(0, block + 16, 4)).toBe(true);   // floats 4…7: clear of it
    expect(M.lendOutput(1, block + 16, 4)).toBe(false); // and the reverse order, as before
    M.HEAPF32.set([1, 2, 3, 4], (block >>> 2) + 4);
    expect(M.softmax(1, 4, 0)).toBe('');                 // x from floats 4…7 into floats 0…3
    const e = [1, 2, 3, 4].map((v) => Math.exp(v - 4)), z = e.reduce((a, b) => a + b);
    [...M.HEAPF32.subarray(block >>> 2, (block >>> 2) + 4)].forEach((p, j) => expect(p).toBeCloseTo(e[j] / z, 6));
    M.workspaceFree(block);
  });

  it('freeing a block ends the loans into it: the next operation reads its own slot, not freed memory', () => {
    M.HEAPF32.set([0, 0, 0], M.inputF32(0, 3) >>> 2);
    const block = M.workspaceAlloc(3);
    M.HEAPF32.set([1, 2, 30], block >>> 2);
    expect(M.lendInput(0, block, 3)).toBe(true);
    M.workspaceFree(block);
    expect(M.softmax(1, 3, 0)).toBe('');
    const y = M.HEAPF32.subarray(M.outputF32(0) >>> 2, (M.outputF32(0) >>> 2) + 3);
    for (const p of y) expect(p).toBeCloseTo(1 / 3, 6);  // softmax([0, 0, 0]), not of [1, 2, 30]
  });
});
