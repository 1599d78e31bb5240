// Property-based tests of the public JavaScript API (fast-check): thousands of random argument
// sets, valid and malformed (wrong types, wrong lengths, NaN, ±Infinity, ±FLT_MAX, subnormals,
// zero, negative, fractional and huge sizes). For every call:
//   - a small model of the API's contract (below) lists what is wrong with the arguments, if anything;
//   - if it throws, the error is an Error of the class and code the contract gives, its message
//     starts with "<function>: " and names one of the arguments the model found wrong;
//   - if it returns, the model found nothing wrong, and the result agrees with a double-precision
//     JS reference within a bound derived from the float32 rounding of that computation;
//   - a valid call afterwards still returns the right answer.
// The only errors the model cannot predict are float32 overflows of valid inputs (|values| near
// 3.4e38): where the reference says one may happen, a BAD_VALUE "…overflowed float32…" is allowed.
//
// Runs: ATTNLAB_PROPERTY_RUNS per function (default 400) from seed ATTNLAB_PROPERTY_SEED (default
// fixed, so CI sees the same cases; any integer explores others). A summary of the last run goes
// to build/properties.json (docs/RELIABILITY.md quotes it).
import { describe, it, expect, afterAll } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createEngine } from '../../web/engine.js';

const RUNS = Number(process.env.ATTNLAB_PROPERTY_RUNS ?? 400);
const SEED = Number(process.env.ATTNLAB_PROPERTY_SEED ?? 20240607);
const engine = await createEngine();

const FLT_MAX = (2 - 2 ** -23) * 2 ** 127;
const U = 2 ** -24;                          // unit roundoff of float32
const MAX_ELEMENTS = 2 ** 24, MAX_DIM = 2 ** 16, MAX_COUNT = 2 ** 24, MAX_BINS = 4096;
// Underflow: a float32 result below 2^-126 errs by up to 2^-150 absolutely, not relatively, so each
// rounded intermediate carries ETA on top of its relative error, and the bounds propagate it (a
// product that underflows to 0 and is then multiplied by 3e38 is off by ~1e-7, and that is right).
const ETA = 2 ** -149;
const TINY = 2 ** -140;                      // a last absolute floor for the comparisons
const gamma = (n) => (n * U) / (1 - n * U);  // Higham's γ_n: the error of an n-term float sum, relative to Σ|terms|

// ---------------------------------------------------------------- arbitraries

const WRONG_TYPE = fc.oneof(
  fc.constantFrom(undefined, null, true, 'abc', '3', Symbol('s'), 3n, [1, 2, 3], [[1]], {}, { length: 3 }),
  fc.constantFrom(new Float64Array(3), new Uint8Array(3), new Int32Array(3), new ArrayBuffer(12)),
  fc.string({ maxLength: 4 }));
const BAD_SIZE = fc.constantFrom(0, -0, -1, -7, 0.5, 2.5, NaN, Infinity, -Infinity, Number.MIN_VALUE,
  2 ** 16 + 1, 2 ** 24 + 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53, 1e300);
// A size argument: mostly a valid small one, sometimes the largest allowed, a bad one or not a number.
const sizeArb = (max, small) => fc.oneof(
  { weight: 24, arbitrary: fc.integer({ min: 1, max: small }) },
  { weight: 1, arbitrary: fc.constant(max) },
  { weight: 2, arbitrary: BAD_SIZE },
  { weight: 1, arbitrary: WRONG_TYPE });
const EXTREME = fc.constantFrom(NaN, Infinity, -Infinity, FLT_MAX, -FLT_MAX, 3e38, 1e20, -1e20, 1e-45, -0);
const moderate = (m) => fc.float({ min: -m, max: m, noNaN: true });
const isSize = (v, max) => Number.isInteger(v) && v >= 1 && v <= max;

// A Float32Array for an argument that should hold n values (n undefined: its sizes are bad).
function arrayArb(n, { m = 8, minusInf = false } = {}) {
  const anyLength = fc.integer({ min: 0, max: 12 }).chain((l) => fc.array(moderate(m), { minLength: l, maxLength: l }));
  if (n === undefined || n > 4096)                             // no huge arrays: they fail on their sizes anyway
    return fc.oneof({ weight: 6, arbitrary: anyLength.map((a) => Float32Array.from(a)) }, { weight: 1, arbitrary: WRONG_TYPE });
  const values = minusInf ? fc.oneof({ weight: 12, arbitrary: moderate(m) }, { weight: 1, arbitrary: fc.constant(-Infinity) }) : moderate(m);
  return fc.oneof(
    { weight: 16, arbitrary: fc.array(values, { minLength: n, maxLength: n }).map((a) => Float32Array.from(a)) },
    { weight: 2, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: values }, { weight: 1, arbitrary: EXTREME }), { minLength: n, maxLength: n }).map((a) => Float32Array.from(a)) },
    { weight: 1, arbitrary: anyLength.filter((a) => a.length !== n).map((a) => Float32Array.from(a)) },
    { weight: 1, arbitrary: WRONG_TYPE });
}
function maskArb(n) {
  const bytes = (l) => fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 255 }) }),
    { minLength: l, maxLength: l }).map((a) => Uint8Array.from(a));
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: n === undefined || n > 4096 ? fc.constant(new Uint8Array(3)) : bytes(n) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 12 }).chain(bytes) },
    { weight: 1, arbitrary: fc.constantFrom(new Float32Array(4), [1, 1], null, 'mask') });
}
const optional = (arb, weight = 3) => fc.oneof({ weight, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: arb });
const scaleArb = optional(fc.oneof(
  { weight: 8, arbitrary: fc.double({ min: -3, max: 3, noNaN: true }) },
  { weight: 2, arbitrary: fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e39, -1e39, 3e38, 1e30, 1e-30) },
  { weight: 1, arbitrary: WRONG_TYPE }));
const boolArb = optional(fc.oneof({ weight: 6, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom(0, 1, 'true', null) }));
const optionsOr = (arb) => fc.oneof({ weight: 20, arbitrary: arb }, { weight: 1, arbitrary: fc.constantFrom(undefined, null, 'o', [1], new Float32Array(2), 5) });

// ---------------------------------------------------------------- the contract, as a model

// A reason the call must fail: the error class, its code (none for TypeErrors) and a word the
// message must contain. The engine may report any one of them (it stops at the first it checks).
const typeErr = (name) => ({ type: TypeError, name });
const rangeErr = (code, name) => ({ type: RangeError, code, name });
const shapeErr = (name) => ({ type: Error, code: 'SHAPE_MISMATCH', name });

const dflt = (v, d) => (v === undefined ? d : v);   // destructuring defaults: undefined only, not null
const isOptions = (o) => o !== null && typeof o === 'object' && !Array.isArray(o) && !ArrayBuffer.isView(o);
const arrayReasons = (name, v, Type = Float32Array) => (v instanceof Type ? [] : [typeErr(name)]);
const numberReasons = (name, v) => (typeof v === 'number' ? [] : [typeErr(name)]);
const boolReasons = (name, v) => (v === undefined || typeof v === 'boolean' ? [] : [typeErr(name)]);
function sizeReasons(name, v, max) {
  if (typeof v !== 'number') return [typeErr(name)];
  if (!Number.isInteger(v) || v < 1) return [rangeErr('BAD_SIZE', name)];
  return v > max ? [rangeErr('SIZE_LIMIT', name)] : [];
}
// The reasons of a group of checks that the engine runs only after the previous group passed.
function stages(...groups) {
  for (const g of groups) {
    const r = typeof g === 'function' ? g() : g;
    if (r.length) return r;
  }
  return [];
}
const productReasons = (what, a, b) => (a * b > MAX_ELEMENTS ? [rangeErr('SIZE_LIMIT', what)] : []);
const lengthReasons = (name, v, n) => (v.length === n ? [] : [shapeErr(name)]);
// Values: every argument must be finite; logits and biases may also be -Infinity.
const valueReasons = (name, v, minusInf = false) =>
  (Array.from(v).every((x) => Number.isFinite(x) || (minusInf && x === -Infinity)) ? [] : [rangeErr('BAD_VALUE', `${name}[`)]);
const OVERFLOW = rangeErr('BAD_VALUE', 'overflowed float32');
const NEAR_OVERFLOW = FLT_MAX / 4;  // an intermediate this large in the reference may overflow in float32

// ---------------------------------------------------------------- references with error bounds

// |a − r| <= tol element-wise; a must be finite (the engine never returns a non-finite value for
// finite inputs, except where a test says so).
function expectWithin(actual, ref, tol, what) {
  expect(actual.length, `${what}: length`).toBe(ref.length);
  for (let i = 0; i < ref.length; i++) {
    const a = actual[i];
    if (!Number.isFinite(a)) expect.unreachable(`${what}[${i}] = ${a} (reference ${ref[i]})`);
    if (!(Math.abs(a - ref[i]) <= tol[i] + TINY)) expect.unreachable(`${what}[${i}] = ${a}, reference ${ref[i]} ± ${tol[i]}`);
  }
}

// Row softmax in double, with the bound of the engine's float32 computation:
//   x_j − m rounds (relative u, i.e. absolute u|x_j − m|), exp errs by <= 4u (kernels_simd_softmax.cpp:
//   2.4e-7), the sum by γ_n relative to itself, the final scaling by 2u. First order:
//   |Δy_j| <= y_j·(e^{u|x_j − m| + 6u + ρ} − 1),  ρ = Σ_k y_k (u|x_k − m| + 4u) + γ_n  (the sum's error)
function softmaxRef(x, rows, cols, log = false) {
  const y = new Float64Array(rows * cols), tol = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const row = Array.from(x.subarray(i * cols, (i + 1) * cols));
    const m = Math.max(...row);
    const e = row.map((v) => Math.exp(v - m)), s = e.reduce((a, b) => a + b, 0);
    const dev = row.map((v) => (v === -Infinity ? 0 : U * Math.abs(v - m)));
    const rho = e.reduce((acc, ej, j) => acc + (ej / s) * (dev[j] + 4 * U), 0) + gamma(cols);
    for (let j = 0; j < cols; j++) {
      const t = i * cols + j;
      if (log) {
        // y = x − (m + log s): x, m + log s and y round (u each), log s errs by ρ
        y[t] = row[j] - m - Math.log(s);
        tol[t] = U * (Math.abs(row[j]) + Math.abs(m + Math.log(s)) + Math.abs(y[t])) + rho + 4 * U;
      } else {
        y[t] = e[j] / s;
        tol[t] = y[t] === 0 ? 0 : y[t] * Math.expm1(dev[j] + 6 * U + rho);
      }
    }
  }
  return { y, tol };
}

// Σ_p a_p·b_p in double and its float32 bound γ_n·Σ|a_p b_p| (any summation order, fma or not).
function dotRef(a, b) {
  let s = 0, abs = 0;
  for (let p = 0; p < a.length; p++) { s += a[p] * b[p]; abs += Math.abs(a[p] * b[p]); }
  return { s, abs, tol: gamma(a.length) * abs + 2 * a.length * ETA };
}
const rowOf = (x, i, cols) => x.subarray(i * cols, (i + 1) * cols);
const colOf = (x, j, rows, cols) => Float64Array.from({ length: rows }, (_, p) => x[p * cols + j]);

// Attention in double with bounds, forward and backward (see attentionBackward for the passes).
function attentionRef({ q, k, v, nq, nk, dk, dv, scale = 1 / Math.sqrt(dk), causal = false, mask, bias }, gradOutput) {
  const sc = Math.fround(scale);
  const P = new Float64Array(nq * nk), dP = new Float64Array(nq * nk), out = new Float64Array(nq * dv);
  const outTol = new Float64Array(nq * dv), pTol = new Float64Array(nq * nk);
  let big = 0;                                                   // the largest intermediate, for overflow
  for (let i = 0; i < nq; i++) {
    const allowed = (j) => (!causal || j <= i) && (!mask || mask[i * nk + j] !== 0) && (!bias || bias[i * nk + j] !== -Infinity);
    const s = [], err = [];
    for (let j = 0; j < nk; j++) {
      const d = dotRef(rowOf(q, i, dk), rowOf(k, j, dk));
      const b = bias ? bias[i * nk + j] : 0;
      const sij = sc * d.s + (allowed(j) ? b : 0);
      big = Math.max(big, d.abs, Math.abs(sc) * d.abs, Math.abs(sij));    // q·k is formed before the scaling
      // the dot's error times |scale|, then the rounding of scale·dot and of + bias
      err.push(Math.abs(sc) * d.tol + U * Math.abs(sc * d.s) + U * Math.abs(sij) + 2 * ETA);
      s.push(allowed(j) ? sij : -Infinity);
    }
    const m = Math.max(...s);
    if (m === -Infinity) continue;                               // fully masked: zero row
    const e = s.map((x) => Math.exp(x - m)), total = e.reduce((a, b) => a + b, 0);
    const delta = Math.max(...err.filter((_, j) => s[j] !== -Infinity));
    for (let j = 0; j < nk; j++) {
      const p = e[j] / total;
      P[i * nk + j] = p;
      if (s[j] === -Infinity) continue;                          // masked: exactly 0
      // each score off by <= δ moves a weight by at most p·(e^{2δ} − 1) (in the log domain where
      // p underflowed), plus softmax's own float32 error; and no weight leaves [0, 1]
      const grow = p > 0 ? p * Math.expm1(2 * delta) : Math.exp(s[j] - m - Math.log(total) + 2 * delta);
      pTol[i * nk + j] = Math.min(1, grow + p * (nk + 12) * U + 2 * ETA);
    }
    for (let c = 0; c < dv; c++) {
      let o = 0, tol = 0, abs = 0;
      for (let j = 0; j < nk; j++) { o += P[i * nk + j] * v[j * dv + c]; tol += pTol[i * nk + j] * Math.abs(v[j * dv + c]); abs += P[i * nk + j] * Math.abs(v[j * dv + c]); }
      out[i * dv + c] = o;
      outTol[i * dv + c] = tol + gamma(nk) * abs + 2 * nk * ETA;
      big = Math.max(big, abs);
    }
  }
  const fwd = { output: out, weights: P, outTol, pTol, big };
  if (!gradOutput) return fwd;

  // pass 3 was O = P V      → dV = Pᵀ dO,  dP = dO Vᵀ
  // pass 2 was P = softmax  → dS = P ⊙ (dP − rowsum(P ⊙ dP))
  // pass 1 was S = scale QKᵀ → dQ = scale dS K,  dK = scale dSᵀ Q
  // Each bound: the error carried in from the factors plus γ_n of the new sum.
  const dO = gradOutput;
  const gradV = new Float64Array(nk * dv), gvTol = new Float64Array(nk * dv);
  for (let j = 0; j < nk; j++)
    for (let c = 0; c < dv; c++) {
      let g = 0, t = 0, abs = 0;
      for (let i = 0; i < nq; i++) { g += P[i * nk + j] * dO[i * dv + c]; t += pTol[i * nk + j] * Math.abs(dO[i * dv + c]); abs += P[i * nk + j] * Math.abs(dO[i * dv + c]); }
      gradV[j * dv + c] = g; gvTol[j * dv + c] = t + gamma(nq) * abs + 2 * nq * ETA; big = Math.max(big, abs);
    }
  const dPTol = new Float64Array(nq * nk), dS = new Float64Array(nq * nk), dSTol = new Float64Array(nq * nk);
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < nk; j++) {
      const d = dotRef(rowOf(dO, i, dv), rowOf(v, j, dv));
      dP[i * nk + j] = d.s; dPTol[i * nk + j] = d.tol; big = Math.max(big, d.abs);
    }
    let c = 0, cTol = 0, cAbs = 0;
    for (let j = 0; j < nk; j++) {
      const t = i * nk + j;
      c += P[t] * dP[t]; cAbs += Math.abs(P[t] * dP[t]);
      cTol += pTol[t] * Math.abs(dP[t]) + P[t] * dPTol[t];
    }
    cTol += gamma(nk) * cAbs + 2 * nk * ETA;
    for (let j = 0; j < nk; j++) {
      const t = i * nk + j;
      dS[t] = P[t] * (dP[t] - c);
      dSTol[t] = pTol[t] * Math.abs(dP[t] - c) + P[t] * (dPTol[t] + cTol) + 3 * U * Math.abs(dS[t]) + P[t] * U * (Math.abs(dP[t]) + Math.abs(c)) + 2 * ETA;
      big = Math.max(big, Math.abs(dP[t] - c), Math.abs(sc * dS[t]));   // the engine scales dS before the products
    }
  }
  // dQ = scale·dS K (nq, dk) and dK = scale·dSᵀ Q (nk, dk)
  const grad = (rows, inner, dsAt, xAt, cols) => {
    const g = new Float64Array(rows * cols), t = new Float64Array(rows * cols);
    for (let r = 0; r < rows; r++)
      for (let p = 0; p < cols; p++) {
        let s = 0, err = 0, abs = 0, xs = 0;
        for (let j = 0; j < inner; j++) {
          const [ds, dsTol] = dsAt(r, j), x = xAt(j, p);
          s += ds * x; err += dsTol * Math.abs(x); abs += Math.abs(ds * x); xs += Math.abs(x);
        }
        g[r * cols + p] = sc * s;
        // the engine scales dS first (each entry may underflow by ETA, then meets |x|), then sums
        t[r * cols + p] = Math.abs(sc) * (err + gamma(inner + 1) * abs) + 2 * ETA * xs + 2 * inner * ETA;
        big = Math.max(big, Math.abs(sc) * abs);
      }
    return [g, t];
  };
  const [gradQ, gqTol] = grad(nq, nk, (i, j) => [dS[i * nk + j], dSTol[i * nk + j]], (j, p) => k[j * dk + p], dk);
  const [gradK, gkTol] = grad(nk, nq, (j, i) => [dS[i * nk + j], dSTol[i * nk + j]], (i, p) => q[i * dk + p], dk);
  return { ...fwd, gradQ, gqTol, gradK, gkTol, gradV, gvTol, big };
}

// ---------------------------------------------------------------- running a call

const SUMMARY = { seed: SEED, runsPerFunction: RUNS, functions: {} };
const tally = (fn, outcome) => {
  const f = (SUMMARY.functions[fn] ??= { calls: 0, returned: 0, threw: 0, overflowErrors: 0 });
  f.calls++; f[outcome]++;
};

// The canary: a correct call after every call, so an error can never leave the engine broken.
const CANARY = Float32Array.of(0, Math.log(3), -Infinity);
function canary() {
  const y = engine.softmax(CANARY, 1, 3);
  expect(Math.abs(y[0] - 0.25) + Math.abs(y[1] - 0.75) + Math.abs(y[2])).toBeLessThan(1e-6);
}

// Calls fn with args; checks the outcome against the model's reasons and, if it returned, checks
// the result. `mayOverflow`: the reference says float32 may overflow on the way.
function judge(fn, args, reasons, check, { mayOverflow = false } = {}) {
  let result, err;
  try { result = engine[fn](...args); } catch (e) { err = e; }
  if (err !== undefined) {
    if (!(err instanceof Error)) expect.unreachable(`${fn} threw a non-Error: ${String(err)}`);
    expect(err.message.startsWith(`${fn}: `), `message "${err.message}"`).toBe(true);
    const allowed = mayOverflow && reasons.length === 0 ? [OVERFLOW] : reasons;
    const match = allowed.find((r) => err.constructor === r.type && err.message.includes(r.name) && (r.code === undefined || err.code === r.code));
    if (!match)
      expect.unreachable(`${fn} threw ${err.constructor.name} ${err.code ?? ''} "${err.message}", expected one of ` +
        (allowed.length ? allowed.map((r) => `${r.type.name} ${r.code ?? ''} "${r.name}"`).join(', ') : 'no error'));
    tally(fn, 'threw');
    if (match === OVERFLOW) SUMMARY.functions[fn].overflowErrors++;
  } else {
    if (reasons.length)
      expect.unreachable(`${fn} returned, but should have thrown: ${reasons.map((r) => `${r.type.name} ${r.code ?? ''} "${r.name}"`).join(', ')}`);
    tally(fn, 'returned');
    check(result);
  }
  canary();
}

const property = (arb, body) => fc.assert(fc.property(arb, body), { numRuns: RUNS, seed: SEED, endOnFailure: false });

afterAll(() => {
  const fns = Object.values(SUMMARY.functions);
  SUMMARY.totals = {
    calls: fns.reduce((s, f) => s + f.calls, 0),
    returned: fns.reduce((s, f) => s + f.returned, 0),
    threw: fns.reduce((s, f) => s + f.threw, 0),
  };
  mkdirSync(new URL('../../build/', import.meta.url), { recursive: true });
  writeFileSync(new URL('../../build/properties.json', import.meta.url), JSON.stringify(SUMMARY, null, 2));
});

// ---------------------------------------------------------------- the properties

describe(`properties of the JS API (${RUNS} random argument sets per function, seed ${SEED})`, () => {
  const rowsColsArb = (m, minusInf) => fc.record({ rows: sizeArb(MAX_ELEMENTS, 5), cols: sizeArb(MAX_ELEMENTS, 40) }).chain(({ rows, cols }) =>
    fc.record({ rows: fc.constant(rows), cols: fc.constant(cols),
      x: arrayArb(isSize(rows, MAX_ELEMENTS) && isSize(cols, MAX_ELEMENTS) ? rows * cols : undefined, { m, minusInf }) }));
  const rowsColsReasons = (names, arrays, rows, cols) => stages(
    () => [...arrays.flatMap(([n, v]) => arrayReasons(n, v)), ...numberReasons('rows', rows), ...numberReasons('cols', cols)],
    () => [...sizeReasons('rows', rows, MAX_ELEMENTS), ...sizeReasons('cols', cols, MAX_ELEMENTS)],
    () => productReasons('rows*cols', rows, cols),
    () => arrays.flatMap(([n, v]) => lengthReasons(n, v, rows * cols)));

  for (const fn of ['softmax', 'logSoftmax']) {
    it(`${fn}: every result is the row ${fn === 'softmax' ? 'softmax' : 'log-softmax'} within its float32 bound, every error names its argument`, () => {
      property(rowsColsArb(30, true), ({ rows, cols, x }) => {
        const reasons = stages(() => rowsColsReasons(['x'], [['x', x]], rows, cols), () => valueReasons('x', x, true));
        const ref = reasons.length ? undefined : softmaxRef(x, rows, cols, fn === 'logSoftmax');
        // log-softmax values are as far below 0 as the logits are apart: up to 2·3.4e38
        const mayOverflow = ref !== undefined && fn === 'logSoftmax' && ref.y.some((v) => Number.isFinite(v) && Math.abs(v) > NEAR_OVERFLOW);
        judge(fn, [x, rows, cols], reasons, (y) => {
          const { y: ref, tol } = softmaxRef(x, rows, cols, fn === 'logSoftmax');
          for (let i = 0; i < rows; i++) {
            const row = Array.from(rowOf(x, i, cols));
            if (row.every((v) => v === -Infinity)) {        // the documented NaN row
              expect(Array.from(rowOf(y, i, cols)).every(Number.isNaN), `row ${i} of all -Infinity is NaN`).toBe(true);
              continue;
            }
            for (let j = 0; j < cols; j++) {
              const t = i * cols + j;
              if (ref[t] === -Infinity) { expect(y[t]).toBe(-Infinity); continue; }
              if (!(Math.abs(y[t] - ref[t]) <= tol[t] + TINY)) expect.unreachable(`${fn}[${t}] = ${y[t]}, reference ${ref[t]} ± ${tol[t]}`);
            }
          }
        }, { mayOverflow });
      });
    });
  }

  it('softmaxNaive: refuses what softmax refuses, and where exp(x) and the row sum fit float32 it is the softmax', () => {
    property(rowsColsArb(120, true), ({ rows, cols, x }) => {
      const reasons = stages(() => rowsColsReasons(['x'], [['x', x]], rows, cols), () => valueReasons('x', x, true));
      judge('softmaxNaive', [x, rows, cols], reasons, (y) => {
        const { y: ref } = softmaxRef(x, rows, cols);
        expect(y.length).toBe(rows * cols);
        for (let i = 0; i < rows; i++) {
          const row = Array.from(rowOf(x, i, cols));
          const e = row.map((v) => Math.exp(v)), s = e.reduce((a, b) => a + b, 0);
          // the naive formula is expected to break where exp overflows (x > 88.72), where the sum
          // does, or where every exp underflows (x < -103.97): that is what it is there to show
          if (Math.max(...row) > 88.72 || s > FLT_MAX / 2 || s < 2 ** -120) continue;
          for (let j = 0; j < cols; j++) {
            const t = i * cols + j;
            // exp's 4u, the sum's γ_n, the division; subnormal exps err by 2^-150 absolute each
            const tol = ref[t] * (10 * U + gamma(cols)) + (cols * 2 ** -149) / s;
            if (!(Math.abs(y[t] - ref[t]) <= tol + TINY)) expect.unreachable(`softmaxNaive[${t}] = ${y[t]}, reference ${ref[t]} ± ${tol}`);
          }
        }
      });
    });
  });

  it('softmaxBackward: dx = p ⊙ (dp − Σ p·dp) within its bound', () => {
    const arb = fc.record({ rows: sizeArb(MAX_ELEMENTS, 4), cols: sizeArb(MAX_ELEMENTS, 20) }).chain(({ rows, cols }) => {
      const n = isSize(rows, MAX_ELEMENTS) && isSize(cols, MAX_ELEMENTS) ? rows * cols : undefined;
      return fc.record({ rows: fc.constant(rows), cols: fc.constant(cols), p: arrayArb(n, { m: 1 }), dp: arrayArb(n) });
    });
    property(arb, ({ rows, cols, p, dp }) => {
      const reasons = stages(() => rowsColsReasons(['p', 'gradP'], [['p', p], ['gradP', dp]], rows, cols),
        () => [...valueReasons('p', p), ...valueReasons('gradP', dp)]);
      let big = 0;
      const ref = [], tol = [];
      if (!reasons.length)
        for (let i = 0; i < rows; i++) {
          const pi = rowOf(p, i, cols), gi = rowOf(dp, i, cols), c = dotRef(pi, gi);
          for (let j = 0; j < cols; j++) {
            ref.push(pi[j] * (gi[j] - c.s));
            tol.push(Math.abs(pi[j]) * (c.tol + U * (Math.abs(gi[j]) + Math.abs(c.s))) + 2 * U * Math.abs(pi[j] * (gi[j] - c.s)) + 2 * ETA);
            big = Math.max(big, c.abs, Math.abs(gi[j]) + Math.abs(c.s), Math.abs(pi[j]) * (Math.abs(gi[j]) + Math.abs(c.s)));
          }
        }
      judge('softmaxBackward', [p, dp, rows, cols], reasons, (dx) => expectWithin(dx, ref, tol, 'dx'), { mayOverflow: big > NEAR_OVERFLOW });
    });
  });

  it('rowStats: the exact row max and −Σ_{p>0} p log p within its bound', () => {
    const arb = fc.record({ rows: sizeArb(MAX_ELEMENTS, 4), cols: sizeArb(MAX_ELEMENTS, 20) }).chain(({ rows, cols }) =>
      fc.record({ rows: fc.constant(rows), cols: fc.constant(cols), p: arrayArb(isSize(rows, MAX_ELEMENTS) && isSize(cols, MAX_ELEMENTS) ? rows * cols : undefined, { m: 1 }) }));
    property(arb, ({ rows, cols, p }) => {
      const reasons = stages(() => rowsColsReasons(['p'], [['p', p]], rows, cols), () => valueReasons('p', p));
      let big = 0;
      const entropy = [], tol = [];
      if (!reasons.length)
        for (let i = 0; i < rows; i++) {
          let h = 0, abs = 0;
          for (const x of rowOf(p, i, cols)) if (x > 0) { h -= x * Math.log(x); abs += Math.abs(x * Math.log(x)) + x; }
          entropy.push(h); tol.push(gamma(cols + 4) * abs + 2 * cols * ETA); big = Math.max(big, abs);
        }
      judge('rowStats', [p, rows, cols], reasons, ({ max, entropy: h }) => {
        for (let i = 0; i < rows; i++) expect(max[i] === Math.max(...rowOf(p, i, cols)), `max of row ${i}: ${max[i]}`).toBe(true);
        expectWithin(h, entropy, tol, 'entropy');
      }, { mayOverflow: big > NEAR_OVERFLOW });
    });
  });

  const attentionArb = (backward) => fc.record({
    nq: sizeArb(MAX_DIM, 7), nk: sizeArb(MAX_DIM, 7), dk: sizeArb(MAX_DIM, 9), dv: sizeArb(MAX_DIM, 6),
  }).chain((s) => {
    const ok = (a) => isSize(a, MAX_DIM);
    const len = (a, b) => (ok(a) && ok(b) ? a * b : undefined);
    return fc.record({
      q: arrayArb(len(s.nq, s.dk), { m: 2 }), k: arrayArb(len(s.nk, s.dk), { m: 2 }), v: arrayArb(len(s.nk, s.dv)),
      scale: scaleArb, causal: boolArb, mask: maskArb(len(s.nq, s.nk)),
      bias: optional(arrayArb(len(s.nq, s.nk), { m: 4, minusInf: true }), 4),
      gradOutput: backward ? arrayArb(len(s.nq, s.dv)) : fc.constant(undefined),
    }).map((o) => ({ ...s, ...o }));
  });
  const attentionReasons = (o, backward) => {
    if (!isOptions(o)) return [typeErr('options object')];
    const { q, k, v, nq, nk, dk, dv, scale, causal, mask, bias, gradOutput } = o;
    return stages(
      () => [...arrayReasons('q', q), ...arrayReasons('k', k), ...arrayReasons('v', v),
        ...['nq', 'nk', 'dk', 'dv'].flatMap((n) => numberReasons(n, o[n])),
        ...(scale === undefined ? [] : numberReasons('scale', scale)), ...boolReasons('causal', causal),
        ...(mask === undefined ? [] : arrayReasons('mask', mask, Uint8Array)),
        ...(bias === undefined ? [] : arrayReasons('bias', bias)),
        ...(backward ? arrayReasons('gradOutput', gradOutput) : [])],
      () => [...sizeReasons('nq', nq, MAX_DIM), ...sizeReasons('nk', nk, MAX_DIM), ...sizeReasons('dk', dk, MAX_DIM), ...sizeReasons('dv', dv, MAX_DIM)],
      // products and lengths, which the engine interleaves: either kind may be reported first
      () => [...productReasons('nq*nk', nq, nk), ...productReasons('nq*dk', nq, dk), ...productReasons('nk*dk', nk, dk),
        ...productReasons('nk*dv', nk, dv), ...productReasons('nq*dv', nq, dv),
        ...lengthReasons('q', q, nq * dk), ...lengthReasons('k', k, nk * dk), ...lengthReasons('v', v, nk * dv),
        ...(mask === undefined ? [] : lengthReasons('mask', mask, nq * nk)), ...(bias === undefined ? [] : lengthReasons('bias', bias, nq * nk)),
        ...(backward ? lengthReasons('gradOutput', gradOutput, nq * dv) : [])],
      () => (scale === undefined || Number.isFinite(Math.fround(scale)) ? [] : [rangeErr('BAD_VALUE', 'scale')]),
      () => [...valueReasons('q', q), ...valueReasons('k', k), ...valueReasons('v', v),
        ...(bias === undefined ? [] : valueReasons('bias', bias, true)), ...(backward ? valueReasons('gradOutput', gradOutput) : [])]);
  };
  // Every weights row sums to 1, or is all 0 when nothing is allowed; then the reference bounds.
  const checkForward = (o, ref) => ({ output, weights }) => {
    for (let i = 0; i < o.nq; i++) {
      const row = rowOf(weights, i, o.nk), total = row.reduce((a, b) => a + b, 0);
      expect(row.every((w) => w >= 0 && w <= 1), `weights row ${i} in [0, 1]`).toBe(true);
      if (total !== 0) expect(Math.abs(total - 1), `weights row ${i} sums to 1`).toBeLessThan(o.nk * 4 * U);
    }
    expectWithin(weights, ref.weights, ref.pTol, 'weights');
    expectWithin(output, ref.output, ref.outTol, 'output');
  };

  it('attention: weights rows sum to 1 (or are 0 when fully masked); output and weights within their bounds', () => {
    property(optionsOr(attentionArb(false)), (o) => {
      const reasons = attentionReasons(o, false);
      const ref = reasons.length ? undefined : attentionRef(o);
      judge('attention', [o], reasons, (r) => checkForward(o, ref)(r), { mayOverflow: ref !== undefined && ref.big > NEAR_OVERFLOW });
    });
  });

  it('attentionBackward: gradQ, gradK, gradV within the bounds of the analytic double backward', () => {
    property(optionsOr(attentionArb(true)), (o) => {
      const reasons = attentionReasons(o, true);
      const ref = reasons.length ? undefined : attentionRef(o, o.gradOutput);
      judge('attentionBackward', [o], reasons, ({ gradQ, gradK, gradV }) => {
        expectWithin(gradQ, ref.gradQ, ref.gqTol, 'gradQ');
        expectWithin(gradK, ref.gradK, ref.gkTol, 'gradK');
        expectWithin(gradV, ref.gradV, ref.gvTol, 'gradV');
      }, { mayOverflow: ref !== undefined && ref.big > NEAR_OVERFLOW });
    });
  });

  it('scores: scale·Q·Kᵀ within γ_dk·|scale|·Σ|q·k|', () => {
    const arb = fc.record({ nq: sizeArb(MAX_DIM, 6), nk: sizeArb(MAX_DIM, 6), dk: sizeArb(MAX_DIM, 9) }).chain((s) => {
      const len = (a, b) => (isSize(a, MAX_DIM) && isSize(b, MAX_DIM) ? a * b : undefined);
      return fc.record({ q: arrayArb(len(s.nq, s.dk)), k: arrayArb(len(s.nk, s.dk)), scale: scaleArb }).map((o) => ({ ...s, ...o }));
    });
    property(optionsOr(arb), (o) => {
      let reasons;
      if (!isOptions(o)) reasons = [typeErr('options object')];
      else {
        const { q, k, nq, nk, dk, scale } = o;
        const sc = () => dflt(scale, 1 / Math.sqrt(dk));   // (the engine computes it once dk is a number)
        reasons = stages(
          () => [...arrayReasons('q', q), ...arrayReasons('k', k), ...['nq', 'nk', 'dk'].flatMap((n) => numberReasons(n, o[n]))],
          () => numberReasons('scale', sc()),
          () => [...sizeReasons('nq', nq, MAX_DIM), ...sizeReasons('nk', nk, MAX_DIM), ...sizeReasons('dk', dk, MAX_DIM)],
          () => [...productReasons('nq*dk', nq, dk), ...productReasons('nk*dk', nk, dk), ...productReasons('nq*nk', nq, nk),
            ...lengthReasons('q', q, nq * dk), ...lengthReasons('k', k, nk * dk)],
          () => (Number.isFinite(Math.fround(sc())) ? [] : [rangeErr('BAD_VALUE', 'scale')]),
          () => [...valueReasons('q', q), ...valueReasons('k', k)]);
      }
      let big = 0;
      const ref = [], tol = [];
      if (!reasons.length) {
        const sc = Math.fround(dflt(o.scale, 1 / Math.sqrt(o.dk)));
        for (let i = 0; i < o.nq; i++)
          for (let j = 0; j < o.nk; j++) {
            const d = dotRef(rowOf(o.q, i, o.dk), rowOf(o.k, j, o.dk));
            ref.push(sc * d.s); tol.push(Math.abs(sc) * d.tol + U * Math.abs(sc * d.s) + ETA); big = Math.max(big, d.abs, Math.abs(sc) * d.abs);
          }
      }
      judge('scores', [o], reasons, (s) => expectWithin(s, ref, tol, 'scores'), { mayOverflow: big > NEAR_OVERFLOW });
    });
  });

  it('matmul: A·B within γ_k·|A|·|B|', () => {
    const arb = fc.record({ m: sizeArb(MAX_ELEMENTS, 6), k: sizeArb(MAX_ELEMENTS, 9), n: sizeArb(MAX_ELEMENTS, 9) }).chain((s) => {
      const len = (a, b) => (isSize(a, MAX_ELEMENTS) && isSize(b, MAX_ELEMENTS) ? a * b : undefined);
      return fc.record({ a: arrayArb(len(s.m, s.k)), b: arrayArb(len(s.k, s.n)) }).map((o) => ({ ...s, ...o }));
    });
    property(arb, ({ a, b, m, k, n }) => {
      const reasons = stages(
        () => [...arrayReasons('a', a), ...arrayReasons('b', b), ...numberReasons('m', m), ...numberReasons('k', k), ...numberReasons('n', n)],
        () => [...sizeReasons('m', m, MAX_ELEMENTS), ...sizeReasons('k', k, MAX_ELEMENTS), ...sizeReasons('n', n, MAX_ELEMENTS)],
        () => [...productReasons('m*k', m, k), ...productReasons('k*n', k, n), ...productReasons('m*n', m, n),
          ...lengthReasons('a', a, m * k), ...lengthReasons('b', b, k * n)],
        () => [...valueReasons('a', a), ...valueReasons('b', b)]);
      let big = 0;
      const ref = [], tol = [];
      if (!reasons.length)
        for (let i = 0; i < m; i++)
          for (let j = 0; j < n; j++) {
            const d = dotRef(rowOf(a, i, k), colOf(b, j, k, n));
            ref.push(d.s); tol.push(d.tol); big = Math.max(big, d.abs);
          }
      judge('matmul', [a, b, m, k, n], reasons, (c) => expectWithin(c, ref, tol, 'A·B'), { mayOverflow: big > NEAR_OVERFLOW });
    });
  });

  it('rowDots: a_i·b_i within γ_cols·Σ|a_i b_i|', () => {
    const arb = fc.record({ rows: sizeArb(MAX_ELEMENTS, 5), cols: sizeArb(MAX_ELEMENTS, 20) }).chain(({ rows, cols }) => {
      const n = isSize(rows, MAX_ELEMENTS) && isSize(cols, MAX_ELEMENTS) ? rows * cols : undefined;
      return fc.record({ rows: fc.constant(rows), cols: fc.constant(cols), a: arrayArb(n), b: arrayArb(n) });
    });
    property(arb, ({ a, b, rows, cols }) => {
      const reasons = stages(() => rowsColsReasons(['a', 'b'], [['a', a], ['b', b]], rows, cols), () => [...valueReasons('a', a), ...valueReasons('b', b)]);
      let big = 0;
      const ref = [], tol = [];
      if (!reasons.length)
        for (let i = 0; i < rows; i++) { const d = dotRef(rowOf(a, i, cols), rowOf(b, i, cols)); ref.push(d.s); tol.push(d.tol); big = Math.max(big, d.abs); }
      judge('rowDots', [a, b, rows, cols], reasons, (d) => expectWithin(d, ref, tol, 'rowDots'), { mayOverflow: big > NEAR_OVERFLOW });
    });
  });

  it('softmaxJacobian: J = diag(p) − p pᵀ within 3u', () => {
    const arb = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 12 }).chain((n) => arrayArb(n, { m: 1 })) },
      { weight: 1, arbitrary: fc.constantFrom(new Float32Array(0), new Float32Array(4097)) }, { weight: 1, arbitrary: WRONG_TYPE });
    property(arb, (p) => {
      const reasons = stages(() => arrayReasons('p', p), () => (p.length === 0 ? [rangeErr('BAD_SIZE', 'p must hold')] : []),
        () => productReasons('n*n', p.length, p.length), () => valueReasons('p', p));
      let big = 0;
      const ref = [], tol = [];
      if (!reasons.length)
        for (let i = 0; i < p.length; i++)
          for (let j = 0; j < p.length; j++) {
            const J = p[i] * ((i === j ? 1 : 0) - p[j]);
            ref.push(J); tol.push(3 * U * (Math.abs(p[i]) + Math.abs(p[i] * p[j])) + 2 * ETA); big = Math.max(big, Math.abs(p[i] * p[j]));
          }
      judge('softmaxJacobian', [p], reasons, (J) => expectWithin(J, ref, tol, 'J'), { mayOverflow: big > NEAR_OVERFLOW });
    });
  });

  it('describe: exact counts, and mean and variance of the floats to 1e-12 of their scale', () => {
    const arb = fc.record({
      x: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 64 }).chain((n) => arrayArb(n, { m: 100 })) },
        { weight: 1, arbitrary: fc.constant(new Float32Array(0)) }, { weight: 1, arbitrary: WRONG_TYPE }),
      o: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant({}) }, { weight: 12, arbitrary: optionsOr(fc.record({
        bins: sizeArb(MAX_BINS, 50),
        lo: fc.oneof({ weight: 8, arbitrary: fc.double({ min: -200, max: 50, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(NaN, -Infinity, Infinity, -1e308) }, { weight: 1, arbitrary: WRONG_TYPE }),
        hi: fc.oneof({ weight: 8, arbitrary: fc.double({ min: -50, max: 200, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(NaN, -Infinity, Infinity, 1e308) }, { weight: 1, arbitrary: WRONG_TYPE }),
      })) }),
    });
    property(arb, ({ x, o }) => {
      // no options, or none of bins, lo and hi: the moments alone, without a histogram
      const histogram = isOptions(o) && (o.bins !== undefined || o.lo !== undefined || o.hi !== undefined);
      const reasons = (o === undefined || (isOptions(o) && !histogram)) ? stages(
        () => arrayReasons('x', x),
        () => (x.length === 0 ? [rangeErr('BAD_SIZE', 'x must hold')] : []),
        () => valueReasons('x', x)) : isOptions(o) || !(x instanceof Float32Array) ? stages(
        () => [...arrayReasons('x', x), ...(isOptions(o) ? [...numberReasons('bins', o.bins), ...numberReasons('lo', o.lo), ...numberReasons('hi', o.hi)] : [typeErr('options object')])],
        () => sizeReasons('bins', o.bins, MAX_BINS),
        () => (x.length === 0 ? [rangeErr('BAD_SIZE', 'x must hold')] : []),
        () => (Number.isFinite(o.lo) && Number.isFinite(o.hi) && o.hi > o.lo ? [] : [rangeErr('BAD_VALUE', '[lo, hi]')]),
        // (v − lo)·bins/(hi − lo) needs both factors finite: not a range 1e-323 wide, nor 2e308
        () => (Number.isFinite(o.hi - o.lo) && Number.isFinite(o.bins / (o.hi - o.lo)) ? [] : [rangeErr('BAD_VALUE', '[lo, hi]')]),
        () => valueReasons('x', x)) : [typeErr('options object')];
      judge('describe', [x, o], reasons, (d) => {
        const n = x.length, xs = Array.from(x), mean = xs.reduce((a, b) => a + b, 0) / n;
        const variance = n > 1 ? xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) : 0;
        const scale = Math.max(...xs.map(Math.abs));
        expect(d.n).toBe(n);
        expect(Math.abs(d.mean - mean)).toBeLessThanOrEqual(1e-12 * scale);
        if (n > 1) expect(Math.abs(d.variance - variance)).toBeLessThanOrEqual(1e-12 * scale * scale);
        if (!histogram) { expect(d.counts).toBeUndefined(); return; }
        // the histogram, exactly as specified: bin ⌊(v − lo)·bins/(hi − lo)⌋, v = hi in the last
        const counts = new Array(o.bins).fill(0), per = o.bins / (o.hi - o.lo);
        for (const v of xs) if (v >= o.lo && v <= o.hi) counts[Math.min(o.bins - 1, Math.floor((v - o.lo) * per))]++;
        expect(Array.from(d.counts)).toEqual(counts);
      });
    });
  });

  it("rowSummaries: each row's mean to 1e-12 of its scale, its interval ± 1.96·s/√cols, its median exactly", () => {
    const arb = fc.record({ rows: sizeArb(MAX_ELEMENTS, 5), cols: sizeArb(MAX_ELEMENTS, 20) }).chain(({ rows, cols }) =>
      fc.record({ rows: fc.constant(rows), cols: fc.constant(cols), x: arrayArb(isSize(rows, MAX_ELEMENTS) && isSize(cols, MAX_ELEMENTS) ? rows * cols : undefined, { m: 100 }) }));
    property(arb, ({ rows, cols, x }) => {
      const reasons = stages(() => rowsColsReasons(['x'], [['x', x]], rows, cols), () => valueReasons('x', x));
      judge('rowSummaries', [x, rows, cols], reasons, (s) => {
        for (let i = 0; i < rows; i++) {
          const xs = Array.from(rowOf(x, i, cols)), mean = xs.reduce((a, b) => a + b, 0) / cols;
          const scale = Math.max(...xs.map(Math.abs));
          const sd = cols > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (cols - 1)) : 0;
          expect(Math.abs(s.mean[i] - mean), `mean of row ${i}`).toBeLessThanOrEqual(1e-12 * scale);
          if (cols === 1) {  // one value gives no interval
            expect([s.meanLo[i], s.meanHi[i]], `row ${i}: no interval from one value`).toEqual([NaN, NaN]);
          } else {
            expect(s.meanLo[i] <= s.mean[i] && s.mean[i] <= s.meanHi[i], `row ${i}: the mean inside its interval`).toBe(true);
            expect(Math.abs((s.meanHi[i] - s.meanLo[i]) / 2 - (1.959963984540054 * sd) / Math.sqrt(cols)), `interval of row ${i}`)
              .toBeLessThanOrEqual(1e-9 * scale);
          }
          const sorted = xs.sort((a, b) => a - b), m = cols >> 1;
          const median = cols % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
          expect(s.median[i] === median, `median of row ${i}: ${s.median[i]}, not ${median}`).toBe(true);  // (+0 = −0: either zero may be the middle)
        }
      });
    });
  });

  // Sampling has no JS reference for its random numbers: the properties are the contract's
  // shape (length, determinism, support of each law) on top of the argument checks.
  const seedArb = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: 2 ** 31 }) },
    { weight: 1, arbitrary: fc.constantFrom(2 ** 53 - 1, 2 ** 53, -1, 1.5, NaN, Infinity) }, { weight: 1, arbitrary: WRONG_TYPE });
  const lawArb = fc.record({
    distribution: optional(fc.oneof({ weight: 8, arbitrary: fc.constantFrom('normal', 'uniform', 'rademacher', 'student-t') },
      { weight: 1, arbitrary: fc.constantFrom('gaussian', '', 'toString', 0, null) })),
    mean: optional(fc.oneof({ weight: 8, arbitrary: fc.double({ min: -5, max: 5, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, 1e300, -1e40, 3e38) }, { weight: 1, arbitrary: WRONG_TYPE })),
    std: optional(fc.oneof({ weight: 8, arbitrary: fc.double({ min: 0, max: 4, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(-1, NaN, Infinity, 1e300, 1e20, 0) }, { weight: 1, arbitrary: WRONG_TYPE })),
    df: optional(fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 3, max: 100 }) }, { weight: 1, arbitrary: fc.constantFrom(2, 2.5, 101, NaN) }, { weight: 1, arbitrary: WRONG_TYPE })),
  });
  const lawReasons = (o) => {
    const { distribution = 'normal', mean = 0, std = 1, df = 5 } = o;
    return stages(
      () => [...numberReasons('seed', o.seed), ...numberReasons('mean', mean), ...numberReasons('std', std), ...numberReasons('df', df)],
      () => (['normal', 'uniform', 'rademacher', 'student-t'].includes(distribution) ? [] : [rangeErr('BAD_VALUE', 'distribution')]));
  };
  const lawValueReasons = (o) => {
    const { distribution = 'normal', mean = 0, std = 1, df = 5 } = o;
    return [
      ...(Number.isFinite(mean) ? [] : [rangeErr('BAD_VALUE', 'mean')]),
      ...(Number.isFinite(std) && std >= 0 ? [] : [rangeErr('BAD_VALUE', 'std')]),
      ...(Math.abs(mean) <= FLT_MAX ? [] : [rangeErr('BAD_VALUE', 'mean')]),
      ...(std <= FLT_MAX ? [] : [rangeErr('BAD_VALUE', 'std')]),
      ...(distribution !== 'student-t' || (Number.isInteger(df) && df >= 3 && df <= 100) ? [] : [rangeErr('BAD_VALUE', 'df')])];
  };
  const seedReasons = (name, v) => (Number.isInteger(v) && v >= 0 && v < 2 ** 53 ? [] : [rangeErr('BAD_VALUE', name)]);
  // entries reach |mean| + (a few thousand, for Student-t's tails)·std: beyond ~1e35 float32 may overflow
  const lawMayOverflow = ({ mean = 0, std = 1 }, dk = 1) => (Math.abs(mean) + 1e4 * std) ** 2 * dk > 1e35 || Math.abs(mean) + 1e4 * std > 1e35;

  it('sampleEntries: count entries, the same for the same seed, inside the law\'s support', () => {
    const arb = optionsOr(fc.record({ seed: seedArb, count: sizeArb(MAX_COUNT, 300), stream: optional(seedArb) }).chain((o) => lawArb.map((l) => ({ ...o, ...l }))));
    property(arb, (o) => {
      const reasons = !isOptions(o) ? [typeErr('options object')] : stages(
        () => lawReasons(o), () => numberReasons('count', o.count), () => numberReasons('stream', dflt(o.stream, 0)),
        () => lawValueReasons(o), () => sizeReasons('count', o.count, MAX_COUNT),
        () => [...seedReasons('seed', o.seed), ...seedReasons('stream', dflt(o.stream, 0))]);
      if (reasons.length === 0 && o.count > 2 ** 16) return;    // (a valid 2^24 entries: checked, not run)
      judge('sampleEntries', [o], reasons, (x) => {
        const { distribution = 'normal', mean = 0, std = 1 } = o;
        expect(x.length).toBe(o.count);
        expect(engine.sampleEntries(o)).toEqual(x);
        expect(x.every(Number.isFinite)).toBe(true);
        if (distribution === 'rademacher') expect(x.every((v) => v === Math.fround(mean + std) || v === Math.fround(mean - std))).toBe(true);
        if (distribution === 'uniform') {
          const h = Math.sqrt(3) * std;
          expect(x.every((v) => v >= Math.fround(mean - h) - 4 * U * Math.abs(mean - h) && v <= Math.fround(mean + h) + 4 * U * Math.abs(mean + h))).toBe(true);
        }
      }, { mayOverflow: reasons.length === 0 && lawMayOverflow(o) });
    });
  });

  it('sampleDotProducts: count finite dot products, the same for the same seed; integers for Rademacher ±1 entries', () => {
    const arb = optionsOr(fc.record({
      seed: seedArb, dk: sizeArb(MAX_DIM, 24), count: sizeArb(MAX_COUNT, 200), first: optional(seedArb),
      rho: optional(fc.oneof({ weight: 8, arbitrary: fc.double({ min: -1, max: 1, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(1.5, -2, NaN, Infinity) }, { weight: 1, arbitrary: WRONG_TYPE })),
      layernorm: boolArb,
    }).chain((o) => lawArb.map((l) => ({ ...o, ...l }))));
    property(arb, (o) => {
      const reasons = !isOptions(o) ? [typeErr('options object')] : stages(
        () => lawReasons(o),
        () => [...numberReasons('dk', o.dk), ...numberReasons('count', o.count), ...numberReasons('first', dflt(o.first, 0)), ...numberReasons('rho', dflt(o.rho, 0)), ...boolReasons('layernorm', o.layernorm)],
        () => lawValueReasons(o),
        () => [...sizeReasons('dk', o.dk, MAX_DIM), ...sizeReasons('count', o.count, MAX_COUNT)],
        () => [...seedReasons('seed', o.seed), ...seedReasons('first', dflt(o.first, 0))],
        () => (Math.abs(dflt(o.rho, 0)) <= 1 ? [] : [rangeErr('BAD_VALUE', 'rho')]),
        () => (o.layernorm && o.dk < 2 ? [rangeErr('BAD_VALUE', 'layernorm needs dk >= 2')] : []),
        () => (o.layernorm && dflt(o.std, 1) === 0 ? [rangeErr('BAD_VALUE', 'layernorm needs std > 0')] : []));
      // (A huge valid request is checked above but not run: it would draw up to 2^40 numbers.)
      if (reasons.length === 0 && o.dk * o.count > 2 ** 16) return;
      judge('sampleDotProducts', [o], reasons, (x) => {
        const { distribution = 'normal', mean = 0, std = 1, layernorm = false } = o;
        expect(x.length).toBe(o.count);
        expect(engine.sampleDotProducts(o)).toEqual(x);
        // Known (docs/RELIABILITY.md): LayerNorm of a constant vector is 0/0 = NaN, which
        // Rademacher entries give with probability 2^(1−dk) per vector.
        // (Or when std is so small beside the mean that all entries round to one float.)
        // And when the entries overflow float32 before LayerNorm rescales them.
        const nanAllowed = layernorm && (distribution === 'rademacher' || std < 1e-5 * Math.max(1, Math.abs(mean)) || lawMayOverflow(o));
        expect(x.every((v) => Number.isFinite(v) || (nanAllowed && Number.isNaN(v)))).toBe(true);
        if (layernorm) expect(x.every((v) => Number.isNaN(v) || Math.abs(v) <= o.dk * (1 + 1e-5))).toBe(true);
        if (distribution === 'rademacher' && !layernorm && dflt(o.rho, 0) === 0 && Number.isInteger(mean) && Number.isInteger(std) && Math.abs(mean) + std <= 8)
          expect(x.every(Number.isInteger)).toBe(true);
      }, { mayOverflow: reasons.length === 0 && !o.layernorm && lawMayOverflow(o, o.dk) });
    });
  });

  // sampleSoftmaxRows and sampleScores take the same options: one random query against n keys a row
  const rowsArb = () => optionsOr(fc.record({
    dk: sizeArb(MAX_DIM, 16), n: sizeArb(MAX_DIM, 16), rows: sizeArb(MAX_COUNT, 40), seed: seedArb, first: optional(seedArb),
    scale: optional(fc.oneof({ weight: 8, arbitrary: fc.double({ min: -4, max: 4, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, 1e39, 1e30, 0) }, { weight: 1, arbitrary: WRONG_TYPE })),
  }));
  const rowsReasons = (o) => (!isOptions(o) ? [typeErr('options object')] : stages(
    () => [...['dk', 'n', 'rows', 'seed'].flatMap((k) => numberReasons(k, o[k])), ...numberReasons('first', dflt(o.first, 0))],
    () => numberReasons('scale', dflt(o.scale, 1 / Math.sqrt(o.dk))),
    () => [...sizeReasons('dk', o.dk, MAX_DIM), ...sizeReasons('n', o.n, MAX_DIM), ...sizeReasons('rows', o.rows, MAX_COUNT)],
    () => productReasons('rows*n', o.rows, o.n),
    () => (Number.isFinite(Math.fround(dflt(o.scale, 1 / Math.sqrt(o.dk)))) ? [] : [rangeErr('BAD_VALUE', 'scale')]),
    () => [...seedReasons('seed', o.seed), ...seedReasons('first', dflt(o.first, 0))]));

  it('sampleSoftmaxRows: rows statistics in their ranges (max weight in [1/n, 1], entropy in [0, log n]), the same for the same seed', () => {
    const arb = rowsArb();
    property(arb, (o) => {
      const reasons = rowsReasons(o);
      if (reasons.length === 0 && o.n * o.dk * o.rows > 2 ** 16) return;   // (sampled only when small)
      const scale = reasons.length ? 0 : Math.abs(dflt(o.scale, 1));
      judge('sampleSoftmaxRows', [o], reasons, (r) => {
        expect(r).toEqual(engine.sampleSoftmaxRows(o));
        for (const key of ['maxWeight', 'entropy', 'jacobianNorm', 'nonmaxGrad', 'scoreVariance']) {
          expect(r[key].length).toBe(o.rows);
          expect(r[key].every((v) => Number.isFinite(v) && v >= 0), key).toBe(true);
        }
        expect(r.maxWeight.every((w) => w >= 1 / o.n - 1e-6 && w <= 1)).toBe(true);
        expect(r.entropy.every((h) => h <= Math.log(o.n) + 1e-5)).toBe(true);
      }, { mayOverflow: reasons.length === 0 && scale * scale * o.dk * 1e4 > 1e35 });
    });
  });

  it('sampleScores: rows × n finite scores, row r the same as row 0 of a call from first + r, the same for the same seed', () => {
    const arb = rowsArb();
    property(arb, (o) => {
      const reasons = rowsReasons(o);
      if (reasons.length === 0 && (o.dk + o.n) * o.rows > 2 ** 16) return;   // (sampled only when small)
      judge('sampleScores', [o], reasons, (s) => {
        expect(s).toEqual(engine.sampleScores(o));
        expect(s.length).toBe(o.rows * o.n);
        const last = o.rows - 1, first = dflt(o.first, 0);
        if (first + last <= Number.MAX_SAFE_INTEGER)
          expect(engine.sampleScores({ ...o, rows: 1, first: first + last })).toEqual(s.subarray(last * o.n));
      }, { mayOverflow: reasons.length === 0 && Math.abs(dflt(o.scale, 1)) * 1e4 * Math.sqrt(o.dk) > 3e38 });
    });
  });

  it('the properties cover every stateless function of the engine', () => {
    const covered = ['softmax', 'softmaxNaive', 'logSoftmax', 'softmaxBackward', 'rowStats', 'attention', 'attentionBackward',
      'scores', 'matmul', 'rowDots', 'softmaxJacobian', 'describe', 'rowSummaries', 'sampleEntries', 'sampleDotProducts', 'sampleSoftmaxRows', 'sampleScores'];
    for (const fn of covered) expect(typeof engine[fn], fn).toBe('function');
    for (const fn of covered) expect(SUMMARY.functions[fn]?.calls ?? 0, fn).toBeGreaterThan(RUNS * 0.8);
  });
});
