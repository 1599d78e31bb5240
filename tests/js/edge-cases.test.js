// The 59 edge cases of tests/conformance/edge_cases.json through the public JavaScript API. The
// file is vendored from shared/conformance/edge-cases (its README says how to read it) so these
// tests never skip; when ../shared is beside the repo the copy is checked against it.
//
// Each case gets the file's `recommended` behaviour or attnlab's own documented decision, and
// docs/RELIABILITY.md has one table row per case saying which and why. Every id has exactly one
// test here: a case added to the file fails "every case has a test" until it gets one.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/engine.js';

const VENDORED = new URL('../conformance/edge_cases.json', import.meta.url);
const SHARED = new URL('../../../shared/conformance/edge-cases/edge_cases.json', import.meta.url);
const RELIABILITY = new URL('../../docs/RELIABILITY.md', import.meta.url);
const ENGINE_JS = fileURLToPath(new URL('../../web/engine.js', import.meta.url));

const FILE = JSON.parse(readFileSync(VENDORED, 'utf8'));
const CASES = new Map(FILE.cases.map((c) => [c.id, c]));
const engine = await createEngine();
const scalar = await createEngine({ simd: false });
const ENGINES = [engine, scalar];

// ---------------------------------------------------------------- helpers

// "NaN", "Infinity", "-Infinity" are strings in the file; nested matrices flatten row-major.
const decode = (x) => (Array.isArray(x) ? x.flatMap(decode) : ArrayBuffer.isView(x) ? Array.from(x) : Number(x));
const f32 = (x) => Float32Array.from(decode(x));
const u8 = (rows) => Uint8Array.from(rows.flat(), (b) => (b ? 1 : 0));

// The README's criterion for float32 results: |a − e| <= atol + rtol·|e|, NaN equal to NaN and
// infinities equal only to themselves. rtol 1e-5, atol 1e-6 (which also admits a build that
// flushes the subnormal expected values of softmax_89_vs_0 to zero).
function expectClose(actual, expected, what, { rtol = 1e-5, atol = 1e-6 } = {}) {
  const e = decode(expected);
  expect(actual.length, `${what}: length`).toBe(e.length);
  for (let i = 0; i < e.length; i++) {
    const a = actual[i], x = e[i];
    const ok = Number.isNaN(x) ? Number.isNaN(a) : !Number.isFinite(x) ? a === x : Math.abs(a - x) <= atol + rtol * Math.abs(x);
    if (!ok) expect.unreachable(`${what}[${i}] = ${a}, expected ${x}`);
  }
}

// The error a call throws: its class, its code and the words its message must contain. Every
// message starts with "<function>: " and names the argument at fault.
function expectError(call, { type = Error, code, fn, says = [] }) {
  let err;
  try { call(); } catch (e) { err = e; }
  expect(err, 'no error thrown').toBeInstanceOf(type);
  expect(err.message.startsWith(`${fn}: `), err.message).toBe(true);
  if (code !== undefined) expect(err.code, err.message).toBe(code);
  for (const s of [].concat(says)) expect(err.message).toContain(s);
  return err;
}

// A correct call after an error: the engine is still usable and still right.
function expectUsable(e) {
  expectClose(e.softmax(Float32Array.of(0, Math.log(3)), 1, 2), [0.25, 0.75], `${e.arch} softmax after the error`);
}

// The sdpa cases' single-head matrices as attention() options.
function sdpa(c, extra = {}) {
  const { Q, K, V, scale } = c.input;
  return {
    q: f32(Q), k: f32(K), v: f32(V), nq: Q.length, nk: K.length, dk: Q[0].length, dv: V[0].length,
    ...(scale === null || scale === undefined ? {} : { scale }), ...extra,
  };
}

// Softmax over the last axis of the case's shape: (rows, cols) = (product of the rest, last).
function shapeOf(c) {
  const shape = c.input.shape;
  const cols = shape[shape.length - 1];
  return { rows: shape.slice(0, -1).reduce((a, b) => a * b, 1), cols };
}

// ---------------------------------------------------------------- the cases

// id → the test of that case. Each title says what attnlab does.
const TESTS = {};
const softmaxValue = (id) => {
  TESTS[id] = [`${id}: softmax gives the recommended value (and softmaxNaive the naive one)`, () => {
    const c = CASES.get(id), { rows, cols } = shapeOf(c), x = f32(c.input.data);
    for (const e of ENGINES) {
      expectClose(e.softmax(x, rows, cols), c.recommended.data, `${e.arch} softmax`);
      expectClose(e.softmaxNaive(x, rows, cols), c.naive_no_max_subtraction, `${e.arch} softmaxNaive`);
    }
  }];
};
['softmax_logit_1000_vs_0', 'softmax_logit_minus1000_vs_0', 'softmax_89_vs_0_float32_overflow_edge',
  'softmax_onnx_large_number_row', 'softmax_all_equal', 'softmax_single_element', 'softmax_fltmax_vs_minus_fltmax',
  'softmax_fltmax_twice', 'softmax_tiny_subnormal_inputs', 'softmax_minus_inf_is_mask'].forEach(softmaxValue);

TESTS.softmax_all_minus_inf = ['softmax_all_minus_inf: softmax gives NaN (IEEE, as torch.softmax); attention gives a zero row and zero gradients', () => {
  const c = CASES.get('softmax_all_minus_inf'), x = f32(c.input.data);
  for (const e of ENGINES) expectClose(e.softmax(x, 1, 3), c.ieee_stable, `${e.arch} softmax`);
  // In attention the same row arises from a bias of −Infinity throughout, or a mask of zeros:
  // both are a fully masked row, with the ONNX/SDPA result c.guarded_all_masked_zero.
  const o = { q: Float32Array.of(1, 2, 3, 4), k: Float32Array.of(1, 0, 0, 1, 1, 1), v: Float32Array.of(1, 2, 3),
    nq: 2, nk: 3, dk: 2, dv: 1 };
  const bias = Float32Array.of(0, 0, 0, -Infinity, -Infinity, -Infinity);
  const mask = Uint8Array.of(1, 1, 1, 0, 0, 0);
  for (const e of ENGINES)
    for (const masking of [{ bias }, { mask }]) {
      const { output, weights } = e.attention({ ...o, ...masking });
      expectClose(weights.subarray(3), c.guarded_all_masked_zero, `${e.arch} weights row 1`);
      expect(output[1]).toBe(0);
      expectClose(weights.subarray(0, 3), e.attention(o).weights.subarray(0, 3), `${e.arch} row 0 unchanged`);
      const { gradQ } = e.attentionBackward({ ...o, ...masking, gradOutput: Float32Array.of(1, 1) });
      expect(Array.from(gradQ.subarray(2))).toEqual([0, 0]);
    }
}];

const softmaxRefused = (id, index, what) => {
  TESTS[id] = [`${id}: every softmax refuses it with a RangeError BAD_VALUE naming x[${index}] (${what})`, () => {
    const c = CASES.get(id), x = f32(c.input.data);
    for (const e of ENGINES)
      for (const fn of ['softmax', 'softmaxNaive', 'logSoftmax']) {
        expectError(() => e[fn](x, 1, x.length), { type: RangeError, code: 'BAD_VALUE', fn, says: [`x[${index}] is ${what}`] });
        expectUsable(e);
      }
  }];
};
softmaxRefused('softmax_plus_inf', 0, '+Infinity');
softmaxRefused('softmax_two_plus_inf', 0, '+Infinity');
softmaxRefused('softmax_nan_input', 0, 'NaN');
softmaxRefused('softmax_nan_and_minus_inf', 0, 'NaN');

TESTS.softmax_float64_1e308 = ['softmax_float64_1e308: ±1e308 are ±Infinity in a Float32Array, so refused (x[0] is +Infinity); ±FLT_MAX give [1, 0]', () => {
  const c = CASES.get('softmax_float64_1e308'), x = f32(c.input.data);
  expect(Array.from(x)).toEqual([Infinity, -Infinity]);   // the engine is float32 throughout
  expectError(() => engine.softmax(x, 1, 2), { type: RangeError, code: 'BAD_VALUE', fn: 'softmax', says: 'x[0] is +Infinity' });
  const fltMax = (2 - 2 ** -23) * 2 ** 127;
  expectClose(engine.softmax(Float32Array.of(fltMax, -fltMax), 1, 2), c.recommended.data, 'softmax at ±FLT_MAX');
}];

TESTS.softmax_empty_axis = ['softmax_empty_axis: cols = 0 is refused, RangeError BAD_SIZE (the case allows value or error)', () => {
  expectError(() => engine.softmax(new Float32Array(0), 1, 0), { type: RangeError, code: 'BAD_SIZE', fn: 'softmax', says: 'cols must be at least 1, got 0' });
  expectUsable(engine);
}];

TESTS.softmax_zero_rows = ['softmax_zero_rows: rows = 0 is refused, RangeError BAD_SIZE (attnlab: every size is at least 1)', () => {
  expectError(() => engine.softmax(new Float32Array(0), 0, 4), { type: RangeError, code: 'BAD_SIZE', fn: 'softmax', says: 'rows must be at least 1, got 0' });
  expectUsable(engine);
}];

const logSoftmaxValue = (id) => {
  TESTS[id] = [`${id}: logSoftmax gives the IEEE stable value`, () => {
    const c = CASES.get(id), x = f32(c.input.data);
    for (const e of ENGINES) expectClose(e.logSoftmax(x, 1, x.length), c.ieee_stable, `${e.arch} logSoftmax`);
  }];
};
// logsoftmax_onnx_large_number: the kernels compute (x − m) − log s, exact near the max; x − (m +
// log s) rounded m + log s to ulp(10003) = 2⁻¹⁰ and missed by 2.4e-4, beyond the default rtol 1e-5.
['logsoftmax_1000_vs_0', 'logsoftmax_minus_inf', 'logsoftmax_all_minus_inf', 'logsoftmax_onnx_large_number'].forEach(logSoftmaxValue);

const softmaxBackward = (id) => {
  TESTS[id] = [`${id}: softmaxBackward of the engine's softmax gives dx = y ⊙ (dy − Σ y·dy)`, () => {
    const c = CASES.get(id), x = f32(c.input.x), dy = f32(c.input.dy), n = x.length;
    for (const e of ENGINES) {
      const y = e.softmax(x, 1, n);
      expectClose(y, c.y, `${e.arch} y`);
      const dx = e.softmaxBackward(y, dy, 1, n);
      expectClose(dx, c.dx, `${e.arch} dx`);
      decode(c.dx).forEach((v, j) => { if (v === 0) expect(dx[j], `${e.arch} dx[${j}] exactly 0`).toBe(0); });
    }
  }];
};
['softmax_backward_basic', 'softmax_backward_saturated', 'softmax_backward_masked'].forEach(softmaxBackward);

TESTS.sdpa_basic_3x4_d4 = ['sdpa_basic_3x4_d4: attention with the default scale 1/√d gives Y and P', () => {
  const c = CASES.get('sdpa_basic_3x4_d4');
  for (const e of ENGINES) {
    const { output, weights } = e.attention(sdpa(c));
    expectClose(output, c.expected.Y, `${e.arch} Y`);
    expectClose(weights, c.expected.P, `${e.arch} P`);
  }
}];

TESTS.sdpa_fully_masked_row = ['sdpa_fully_masked_row: the guarded result (zero row 1), exactly zero gradients for row 1; the zero weights row is the report', () => {
  const c = CASES.get('sdpa_fully_masked_row');
  const o = sdpa(c, { mask: u8(c.input.mask_bool_true_means_attend) });
  for (const e of ENGINES) {
    const { output, weights } = e.attention(o);
    expectClose(output, c.guarded.Y, `${e.arch} Y`);
    expectClose(weights, c.guarded.P, `${e.arch} P`);
    // A row with an allowed key has a weight >= 1/nk, so an all-zero row means "fully masked".
    const rowsWithoutKey = [0, 1, 2].filter((i) => weights.subarray(4 * i, 4 * i + 4).every((w) => w === 0));
    expect(rowsWithoutKey).toEqual([1]);
    const { gradQ } = e.attentionBackward({ ...o, gradOutput: Float32Array.of(0.3, -0.7, 1, 2, -0.5, 0.25) });
    expect(Array.from(gradQ.subarray(4, 8))).toEqual([0, 0, 0, 0]);
  }
}];

TESTS.sdpa_nan_in_masked_key = ['sdpa_nan_in_masked_key: refused (the strict policy), RangeError BAD_VALUE naming k[12] (row 3, column 0)', () => {
  const c = CASES.get('sdpa_nan_in_masked_key');
  for (const e of ENGINES)
    for (const fn of ['attention', 'attentionBackward']) {
      const o = sdpa(c, { mask: u8(c.input.mask_bool_true_means_attend), gradOutput: new Float32Array(6) });
      expectError(() => e[fn](o), { type: RangeError, code: 'BAD_VALUE', fn, says: 'k[12] (row 3, column 0) is NaN' });
      expectUsable(e);
    }
}];

TESTS.sdpa_inf_value_at_masked_key = ['sdpa_inf_value_at_masked_key: refused, RangeError BAD_VALUE naming v[6] (row 3, column 0)', () => {
  const c = CASES.get('sdpa_inf_value_at_masked_key');
  for (const e of ENGINES) {
    const o = sdpa(c, { mask: u8(c.input.mask_bool_true_means_attend) });
    expectError(() => e.attention(o), { type: RangeError, code: 'BAD_VALUE', fn: 'attention', says: 'v[6] (row 3, column 0) is +Infinity' });
    expectUsable(e);
  }
}];

TESTS.sdpa_head_dim_zero = ['sdpa_head_dim_zero: dk = 0 is refused, RangeError BAD_SIZE "dk must be at least 1"', () => {
  for (const fn of ['attention', 'attentionBackward', 'scores'])
    expectError(() => engine[fn]({ q: new Float32Array(0), k: new Float32Array(0), v: new Float32Array(6), nq: 2, nk: 3, dk: 0, dv: 2, gradOutput: new Float32Array(4) }),
      { type: RangeError, code: 'BAD_SIZE', fn, says: 'dk must be at least 1, got 0' });
  expectUsable(engine);
}];

TESTS.sdpa_score_overflow_float32 = ['sdpa_score_overflow_float32: refused, RangeError BAD_VALUE "the scores overflowed float32 in row 0"', () => {
  const c = CASES.get('sdpa_score_overflow_float32');
  for (const e of ENGINES)
    for (const fn of ['attention', 'attentionBackward']) {
      expectError(() => e[fn](sdpa(c, { gradOutput: new Float32Array(1) })),
        { type: RangeError, code: 'BAD_VALUE', fn, says: ['the scores overflowed float32 in row 0', 'scale*q.k'] });
      expectUsable(e);
    }
  // scaled down by 1e-10 the same inputs are fine: the float64 result
  const small = sdpa(c);
  small.q = small.q.map((x) => x * 1e-10); small.k = small.k.map((x) => x * 1e-10);
  const { output, weights } = engine.attention(small);
  expectClose(weights, c.float64_result.P, 'P');
  expectClose(output, c.float64_result.Y, 'Y');
}];

TESTS.sdpa_float_mask_contains_nan = ['sdpa_float_mask_contains_nan: refused, RangeError BAD_VALUE naming bias[1] (row 0, column 1)', () => {
  const c = CASES.get('sdpa_float_mask_contains_nan');
  for (const e of ENGINES) {
    expectError(() => e.attention(sdpa(c, { bias: f32(c.input.float_mask) })),
      { type: RangeError, code: 'BAD_VALUE', fn: 'attention', says: ['bias[1] (row 0, column 1) is NaN', 'finite or -Infinity'] });
    expectUsable(e);
  }
}];

// A finite "mask" is a bias: the row is not masked. In float32 the scores vanish beside it, so the
// weights are uniform and the output is the mean of V (the case's float32_result).
const finiteMask = (id) => {
  TESTS[id] = [`${id}: a finite bias does not mask; row 1 is uniform in float32 (the case's float32_result)`, () => {
    const c = CASES.get(id), basic = CASES.get('sdpa_basic_3x4_d4');
    const bias = new Float32Array(12).fill(0).fill(c.input.float_mask_row1_value, 4, 8);
    for (const e of ENGINES) {
      const { output, weights } = e.attention(sdpa(c, { bias }));
      expectClose(weights.subarray(4, 8), c.float32_result.P_row1, `${e.arch} P row 1`);
      expectClose(output.subarray(2, 4), c.float32_result.Y_row1, `${e.arch} Y row 1`);
      expectClose([...weights.subarray(0, 4), ...weights.subarray(8)], [basic.expected.P[0], basic.expected.P[2]], `${e.arch} P rows 0, 2`);
    }
  }];
};
finiteMask('sdpa_fully_masked_row_finite_minus_1e9');
finiteMask('sdpa_fully_masked_row_finite_minus_fltmax');

TESTS.sdpa_scale_zero_uniform = ['sdpa_scale_zero_uniform: scale 0 gives uniform weights and the mean of V', () => {
  const c = CASES.get('sdpa_scale_zero_uniform');
  for (const e of ENGINES) {
    const { output, weights } = e.attention(sdpa(c));
    expectClose(output, c.expected.Y, `${e.arch} Y`);
    expectClose(weights, c.expected.P, `${e.arch} P`);
  }
}];

// Shapes: attnlab takes flat arrays and explicit sizes, so a mismatched shape arrives as an array
// whose length does not fit the sizes: Error SHAPE_MISMATCH naming it, before anything is copied.
const shapeMismatch = (id, { o, says }) => {
  TESTS[id] = [`${id}: Error SHAPE_MISMATCH "${says}"`, () => {
    for (const e of ENGINES) {
      expectError(() => e.attention(o), { type: Error, code: 'SHAPE_MISMATCH', fn: 'attention', says });
      expectUsable(e);
    }
  }];
};
const zeros = (n) => new Float32Array(n);
shapeMismatch('sdpa_qk_dim_mismatch', { o: { q: zeros(12), k: zeros(15), v: zeros(10), nq: 3, nk: 5, dk: 4, dv: 2 }, says: 'k has 15 elements, expected nk*dk = 20' });
shapeMismatch('sdpa_kv_len_mismatch', { o: { q: zeros(12), k: zeros(20), v: zeros(12), nq: 3, nk: 5, dk: 4, dv: 2 }, says: 'v has 12 elements, expected nk*dv = 10' });
shapeMismatch('sdpa_mask_not_broadcastable', { o: { q: zeros(12), k: zeros(20), v: zeros(10), nq: 3, nk: 5, dk: 4, dv: 2, mask: new Uint8Array(10) }, says: 'mask has 10 elements, expected nq*nk = 15' });
shapeMismatch('sdpa_data_length_vs_shape', { o: { q: zeros(11), k: zeros(20), v: zeros(10), nq: 3, nk: 5, dk: 4, dv: 2 }, says: 'q has 11 elements, expected nq*dk = 12' });
// attnlab's attention has one head: Q (1, 6, 3, 4) flattened does not fit nq·dk = 3·4.
shapeMismatch('sdpa_gqa_heads_not_divisible', { o: { q: zeros(72), k: zeros(80), v: zeros(80), nq: 3, nk: 5, dk: 4, dv: 4 }, says: 'q has 72 elements, expected nq*dk = 12' });

TESTS.sdpa_causal_alignment_sq_ne_skv = ['sdpa_causal_alignment_sq_ne_skv: causal is upper-left (query i attends keys j <= i), as PyTorch is_causal', () => {
  const c = CASES.get('sdpa_causal_alignment_sq_ne_skv');
  const o = { q: f32(Array(12).fill(0.5)), k: f32(Array.from({ length: 20 }, (_, i) => (i % 7) / 7)), v: f32(Array(10).fill(1)),
    nq: 3, nk: 5, dk: 4, dv: 2, causal: true };
  const allowed = c.upper_left_mask.flat();
  for (const e of ENGINES) {
    const { weights } = e.attention(o);
    allowed.forEach((a, t) => expect(weights[t] > 0, `${e.arch} weight ${t}`).toBe(a));
  }
  // lower-right alignment is an explicit mask, and gives the other pattern
  const { weights } = engine.attention({ ...o, causal: false, mask: u8(c.lower_right_mask) });
  c.lower_right_mask.flat().forEach((a, t) => expect(weights[t] > 0, `lower-right weight ${t}`).toBe(a));
}];

TESTS.sdpa_causal_negative_offset = ['sdpa_causal_negative_offset: lower-right as an explicit mask leaves rows 0 and 1 without a key: zero rows', () => {
  const c = CASES.get('sdpa_causal_negative_offset');
  const o = { q: f32(Array.from({ length: 32 }, (_, i) => Math.sin(i))), k: f32(Array.from({ length: 16 }, (_, i) => Math.cos(i))),
    v: f32(Array.from({ length: 6 }, (_, i) => i + 1)), nq: 4, nk: 2, dk: 8, dv: 3 };
  for (const e of ENGINES) {
    const { output, weights } = e.attention({ ...o, mask: u8(c.lower_right_mask) });
    expect(Array.from(output.subarray(0, 6))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Array.from(weights.subarray(0, 4))).toEqual([0, 0, 0, 0]);
    expectClose(weights.subarray(4), [1, 0, weights[6], 1 - weights[6]], `${e.arch} rows 2, 3`);
    // causal: true is upper-left: every row has key 0, so no row is empty
    const upper = e.attention({ ...o, causal: true }).weights;
    for (let i = 0; i < 4; i++) expect(upper[2 * i], `row ${i}`).toBeGreaterThan(0);
  }
}];

TESTS.sdpa_backward_with_fully_masked_row = ['sdpa_backward_with_fully_masked_row: attentionBackward gives dQ, dK, dV; dQ of the masked row is exactly 0', () => {
  const c = CASES.get('sdpa_backward_with_fully_masked_row');
  const o = sdpa(c, { mask: u8(c.input.mask_bool_true_means_attend) });
  for (const e of ENGINES) {
    const { output, weights } = e.attention(o);
    expectClose(output, c.expected.Y, `${e.arch} Y`);
    expectClose(weights, c.expected.P, `${e.arch} P`);
    const { gradQ, gradK, gradV } = e.attentionBackward({ ...o, gradOutput: f32(c.input.dY) });
    expectClose(gradQ, c.expected.dQ, `${e.arch} dQ`);
    expectClose(gradK, c.expected.dK, `${e.arch} dK`);
    expectClose(gradV, c.expected.dV, `${e.arch} dV`);
    expect(Array.from(gradQ.subarray(4, 8))).toEqual([0, 0, 0, 0]);
  }
}];

TESTS.dot_product_statistics_normal = ['dot_product_statistics_normal: Z = q·k/√d passes the case\'s test rule at d = 1, 16, 64, 512 (fixed seed)', () => {
  const n = 20000;
  for (const d of [1, 16, 64, 512]) {
    const z = Array.from(engine.sampleDotProducts({ dk: d, count: n, seed: 7 }), (x) => x / Math.sqrt(d));
    const mean = z.reduce((s, x) => s + x, 0) / n;
    const variance = z.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
    // |mean|·√n < 5 and |var − 1|/√((2 + 6/d)/n) < 5: false-alarm rate ~1e-6 per check
    expect(Math.abs(mean) * Math.sqrt(n), `d = ${d} mean`).toBeLessThan(5);
    expect(Math.abs(variance - 1) / Math.sqrt((2 + 6 / d) / n), `d = ${d} variance`).toBeLessThan(5);
  }
}];

// Sizes beyond the limits: refused before anything is copied into the wasm heap (a fresh engine's
// memoryBytes() does not move, though the arrays would need far more than its heap).
TESTS.size_scores_matrix_too_large = ['size_scores_matrix_too_large: L = S = 100000, d = 64 is RangeError SIZE_LIMIT before any copy', async () => {
  const e = await createEngine();
  const before = e.memoryBytes();
  const big = new Float32Array(100000 * 64);                  // 25.6 MB each, in JavaScript memory
  for (const fn of ['attention', 'attentionBackward', 'scores'])
    expectError(() => e[fn]({ q: big, k: big, v: big, nq: 100000, nk: 100000, dk: 64, dv: 64, gradOutput: big }),
      { type: RangeError, code: 'SIZE_LIMIT', fn, says: 'nq = 100000 exceeds the limit of 65536' });
  expect(e.memoryBytes()).toBe(before);
  expectUsable(e);
}];

TESTS.size_t_overflow_wasm32 = ['size_t_overflow_wasm32: L = S = 65536, d = 1 (2^32 scores, 0 in a 32-bit size_t) is RangeError SIZE_LIMIT', async () => {
  const e = await createEngine();
  const before = e.memoryBytes();
  const x = new Float32Array(65536);
  for (const fn of ['attention', 'attentionBackward', 'scores'])
    expectError(() => e[fn]({ q: x, k: x, v: x, nq: 65536, nk: 65536, dk: 1, dv: 1, gradOutput: x }),
      { type: RangeError, code: 'SIZE_LIMIT', fn, says: 'nq*nk = 4294967296 exceeds the limit of 16777216 elements' });
  expectError(() => e.matmul(x, x, 65536, 1, 65536), { type: RangeError, code: 'SIZE_LIMIT', fn: 'matmul', says: 'm*n = 4294967296' });
  expectError(() => e.softmaxJacobian(x), { type: RangeError, code: 'SIZE_LIMIT', fn: 'softmaxJacobian', says: 'n*n = 4294967296' });
  expect(e.memoryBytes()).toBe(before);
  expectUsable(e);
}];

TESTS.js_string_number = ['js_string_number: softmax([\'1\', \'abc\']) is a TypeError naming x (arrays of anything but float32 are refused whole)', () => {
  expectError(() => engine.softmax(['1', 'abc'], 1, 2), { type: TypeError, fn: 'softmax', says: 'x must be a Float32Array, got Array(2)' });
  expectError(() => engine.softmax(Float32Array.of(1, 2), '1', 2), { type: TypeError, fn: 'softmax', says: 'rows must be a number, got the string "1"' });
  expectError(() => engine.attention({ q: Float32Array.of(1), k: Float32Array.of(1), v: Float32Array.of(1), nq: 1, nk: 1, dk: '1', dv: 1 }),
    { type: TypeError, fn: 'attention', says: 'dk must be a number' });
  expectUsable(engine);
}];

TESTS.js_missing_argument = ['js_missing_argument: attention without v is a TypeError naming v; a missing size names the size', () => {
  const q = Float32Array.of(1, 0), k = Float32Array.of(1, 0);
  expectError(() => engine.attention({ q, k }), { type: TypeError, fn: 'attention', says: 'v must be a Float32Array, got undefined' });
  expectError(() => engine.attention(), { type: TypeError, fn: 'attention', says: 'expected an options object, got undefined' });
  expectError(() => engine.softmax(q), { type: TypeError, fn: 'softmax', says: 'rows must be a number, got undefined' });
  expectError(() => engine.matmul(q, k, 1, 2), { type: TypeError, fn: 'matmul', says: 'n must be a number, got undefined' });
  expectUsable(engine);
}];

TESTS.js_fractional_or_negative_size = ['js_fractional_or_negative_size: 2.5, -1 and the wrapped 2^32 - 1 are RangeErrors naming the size', () => {
  const x = new Float32Array(6);
  expectError(() => engine.softmax(x, 2.5, 3), { type: RangeError, code: 'BAD_SIZE', fn: 'softmax', says: 'rows must be a positive integer, got 2.5' });
  expectError(() => engine.softmax(x, 2, -1), { type: RangeError, code: 'BAD_SIZE', fn: 'softmax', says: 'cols must be at least 1, got -1' });
  expectError(() => engine.softmax(x, 2 ** 32 - 1, 3), { type: RangeError, code: 'SIZE_LIMIT', fn: 'softmax', says: 'rows = 4294967295 exceeds the limit of 16777216' });
  expectError(() => engine.sampleEntries({ seed: 1, count: -1 }), { type: RangeError, code: 'BAD_SIZE', fn: 'sampleEntries', says: 'count must be at least 1' });
  expectError(() => engine.sampleDotProducts({ seed: 1, dk: 2.5, count: 3 }), { type: RangeError, code: 'BAD_SIZE', fn: 'sampleDotProducts', says: 'dk must be a positive integer' });
  expectUsable(engine);
}];

TESTS.js_wrong_array_type = ['js_wrong_array_type: Float64Array, Array, nested arrays and null are TypeErrors; a Float32Array view at an offset is accepted', () => {
  for (const [x, got] of [[new Float64Array(2), 'Float64Array(2)'], [[1, 2], 'Array(2)'], [[[1, 2]], 'Array(1)'], [null, 'null'],
    [new Uint8Array(2), 'Uint8Array(2)'], [new ArrayBuffer(8), 'an object']])
    expectError(() => engine.softmax(x, 1, 2), { type: TypeError, fn: 'softmax', says: `x must be a Float32Array, got ${got}` });
  expectError(() => engine.attention({ q: Float32Array.of(1), k: Float32Array.of(1), v: Float32Array.of(1), nq: 1, nk: 1, dk: 1, dv: 1, mask: [1] }),
    { type: TypeError, fn: 'attention', says: 'mask must be a Uint8Array, got Array(1)' });
  const buffer = Float32Array.of(99, 99, 0, Math.log(3), 99);
  expectClose(engine.softmax(buffer.subarray(2, 4), 1, 2), [0.25, 0.75], 'softmax of a subarray');
}];

TESTS.js_detached_heap_view = ['js_detached_heap_view: results are copies the caller owns, intact after the heap grows', async () => {
  const e = await createEngine();
  const y = e.softmax(Float32Array.of(0, Math.log(3)), 1, 2);
  const before = e.memoryBytes();
  e.sampleEntries({ seed: 1, count: 2 ** 23 });               // 32 MiB of output: the heap grows
  expect(e.memoryBytes()).toBeGreaterThan(before);
  expect(y.buffer.byteLength).toBe(y.byteLength);              // its own buffer, not a heap view
  expectClose(y, [0.25, 0.75], 'the earlier result');
  expectUsable(e);
}];

TESTS.js_use_after_delete = ['js_use_after_delete: nothing to delete: the engine holds no Embind objects, only functions and copied results', () => {
  expect(Object.isFrozen(engine)).toBe(true);
  const methods = Object.keys(engine).filter((k) => typeof engine[k] === 'function');
  expect(methods).not.toContain('delete');
  const r = engine.attention({ q: Float32Array.of(1), k: Float32Array.of(1), v: Float32Array.of(2), nq: 1, nk: 1, dk: 1, dv: 1 });
  expect(Object.keys(r).sort()).toEqual(['output', 'weights']);
  expect(r.output).toBeInstanceOf(Float32Array);
  expect(typeof r.delete).toBe('undefined');
}];

TESTS.js_long_session = ['js_long_session: 2000 calls at varying sizes after a warm-up at the largest leave memoryBytes() unchanged (tests/js/soak.test.js: more)', async () => {
  const e = await createEngine();
  const call = (n) => {
    const x = new Float32Array(n * n).map((_, i) => Math.sin(i));
    e.softmax(x, n, n);
    e.attentionBackward({ q: x, k: x, v: x, nq: n, nk: n, dk: n, dv: n, gradOutput: x, causal: true });
    try { e.attention({ q: x, k: x, v: x, nq: n, nk: n, dk: n + 1, dv: n }); } catch { /* an error path too */ }
  };
  call(64);                                                     // the largest first: the heap's high-water mark
  const before = e.memoryBytes();
  for (let i = 0; i < 2000; i++) call(1 + (i * 37) % 64);
  expect(e.memoryBytes()).toBe(before);
}];

TESTS.cpp_exception_crossing_boundary = ['cpp_exception_crossing_boundary: each C++ error reaches JavaScript as an Error with a code and message, leaking nothing', async () => {
  const e = await createEngine();
  const q = new Float32Array(4096), bad = { q, k: q, v: q, nq: 64, nk: 64, dk: 64, dv: 64, scale: Infinity };
  expectError(() => e.attention(bad), { type: RangeError, code: 'BAD_VALUE', fn: 'attention', says: 'scale must be finite' });
  const before = e.memoryBytes();
  for (let i = 0; i < 1000; i++) {
    try { e.attention(bad); } catch (err) { expect(err).toBeInstanceOf(Error); }
    try { e.describe(q, { bins: 3, lo: 1, hi: 1 }); } catch (err) { expect(err.code).toBe('BAD_VALUE'); }
  }
  expect(e.memoryBytes()).toBe(before);
  expectUsable(e);
}];

TESTS.web_oversized_message = ['web_oversized_message: the engine refuses an array over 2^24 elements before converting it (the page\'s message handling: not yet done)', async () => {
  const e = await createEngine();
  const before = e.memoryBytes();
  expectError(() => e.softmax(new Float32Array(2 ** 24 + 1), 1, 2 ** 24 + 1),
    { type: RangeError, code: 'SIZE_LIMIT', fn: 'softmax', says: 'x has 16777217 elements, more than the limit of 16777216' });
  expect(e.memoryBytes()).toBe(before);
}];

TESTS.web_csp_without_unsafe_eval_embind = ['web_csp_without_unsafe_eval_embind: the module loads and runs with code generation from strings disallowed', () => {
  // Node's --disallow-code-generation-from-strings blocks eval and new Function, as a CSP without
  // 'unsafe-eval' does (the module is linked with -sDYNAMIC_EXECUTION=0).
  const script = `const { createEngine } = await import(${JSON.stringify(ENGINE_JS)});
    let blocked = false; try { new Function('return 1'); } catch { blocked = true; }
    const e = await createEngine();
    process.stdout.write(JSON.stringify({ blocked, y: Array.from(e.softmax(Float32Array.of(0, Math.log(3)), 1, 2)) }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], { encoding: 'utf8' }));
  expect(out.blocked).toBe(true);
  expectClose(out.y, [0.25, 0.75], 'softmax');
}];

// The page's cases: their row in docs/RELIABILITY.md names the browser test that covers them, or
// says they are not yet done; a named test file must exist.
for (const id of ['web_foreign_origin_message', 'web_sandbox_no_same_origin', 'web_csp_without_wasm_unsafe_eval'])
  TESTS[id] = [`${id}: the page's concern: its row names a browser test or says "not yet done"`, () => {
    const doc = readFileSync(RELIABILITY, 'utf8');
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${id}\``));
    expect(row, `a table row for ${id}`).toBeDefined();
    expect(row).toMatch(/not yet done|tests\/browser\//i);
    for (const [file] of row.matchAll(/tests\/browser\/[\w.-]+\.test\.js/g))
      expect(existsSync(new URL(`../../${file}`, import.meta.url)), file).toBe(true);
  }];

// ---------------------------------------------------------------- run them

describe('edge cases (tests/conformance/edge_cases.json)', () => {
  it('the vendored file has 59 cases and equals shared/conformance/edge-cases when that is beside the repo', () => {
    expect(FILE.format).toBe('attention-edge-cases/1');
    expect(FILE.cases.length).toBe(59);
    expect(CASES.size).toBe(59);
    if (existsSync(SHARED)) expect(readFileSync(VENDORED, 'utf8')).toBe(readFileSync(SHARED, 'utf8'));
  });

  it('every case has a test here and a row in docs/RELIABILITY.md', () => {
    expect(Object.keys(TESTS).sort()).toEqual([...CASES.keys()].sort());
    const doc = readFileSync(RELIABILITY, 'utf8');
    for (const id of CASES.keys()) expect(doc, id).toContain(`| \`${id}\``);
  });

  for (const id of CASES.keys()) {
    const [title, test] = TESTS[id] ?? [`${id}: (no test)`, () => expect.unreachable(`no test for ${id}`)];
    it(title, test);
  }
});
