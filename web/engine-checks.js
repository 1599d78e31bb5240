// Argument checks shared by web/engine.js and web/engine-trainer.js: each throws an Error whose
// message names the function and the argument (TypeError or RangeError where that fits), with a
// code the tests and the page can match.

export const DISTRIBUTIONS = { normal: 0, uniform: 1, rademacher: 2, 'student-t': 3 };
export const MAX_ELEMENTS = 2 ** 24;  // api.hpp kMaxElements

export function describeValue(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `Array(${v.length})`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.length})`;
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + '…' : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

export function engineError(E, code, message) {
  return Object.assign(new E(message), { code });
}

// Each engine's memory by every ArrayBuffer its wasm heap has had (growth replaces the buffer and
// detaches the old one): requireArray lets it check any array that views engine memory.
export const ENGINE_MEMORY = new WeakMap();

export function requireArray(fn, name, v, Type = Float32Array) {
  if (!(v instanceof Type)) throw new TypeError(`${fn}: ${name} must be a ${Type.name}, got ${describeValue(v)}`);
  ENGINE_MEMORY.get(v.buffer)?.check(fn, name, v);
  if (v.length > MAX_ELEMENTS)
    throw engineError(RangeError, 'SIZE_LIMIT', `${fn}: ${name} has ${v.length} elements, more than the limit of ${MAX_ELEMENTS}`);
  return v;
}

// Numbers are checked for type here; sizes also by sizeArg below; every other range by the engine.
export function requireNumber(fn, name, v) {
  if (typeof v !== 'number') throw new TypeError(`${fn}: ${name} must be a number, got ${describeValue(v)}`);
  return v;
}

export function requireBoolean(fn, name, v) {
  if (typeof v !== 'boolean') throw new TypeError(`${fn}: ${name} must be a boolean, got ${describeValue(v)}`);
  return v;
}

export function requireOptions(fn, o, what = 'an options object') {
  if (o === null || typeof o !== 'object' || Array.isArray(o) || ArrayBuffer.isView(o))
    throw new TypeError(`${fn}: expected ${what}, got ${describeValue(o)}`);
  return o;
}

// The `out` option: output arrays by name, each optional, each a Float32Array of the result's
// length. Returns [[name, array or undefined, length, expr], …] in the order of `spec`.
export function outArrays(fn, out, spec) {
  if (out === undefined) return spec.map(([name, n, expr]) => [name, undefined, n, expr]);
  const names = spec.map(([name]) => name);
  requireOptions(fn, out, `out to be an object of output arrays (${names.join(', ')})`);
  for (const key of Object.keys(out))
    if (!names.includes(key)) throw new TypeError(`${fn}: out.${key} is not an output of ${fn} (${names.join(', ')})`);
  return spec.map(([name, n, expr]) => {
    const arr = out[name];
    if (arr !== undefined) {
      requireArray(fn, `out.${name}`, arr);
      expectLength(fn, `out.${name}`, arr, n, expr);
    }
    return [name, arr, n, expr];
  });
}

// Sizes and lengths, checked here as api.cpp checks them (same order, codes and messages; only
// numbers that are not small integers print differently) before any array is copied into the
// wasm heap: the heap grows to hold the copies and never shrinks, so a request refused for its
// sizes must not get that far. The engine checks everything again and stays the authority.
export const MAX_DIM = 2 ** 16, MAX_BINS = 4096;  // api.hpp kMaxDim, kMaxBins

export function sizeArg(fn, name, v, max) {
  if (!Number.isInteger(v)) throw engineError(RangeError, 'BAD_SIZE', `${fn}: ${name} must be a positive integer, got ${v}`);
  if (v < 1) throw engineError(RangeError, 'BAD_SIZE', `${fn}: ${name} must be at least 1, got ${v}`);
  if (v > max) throw engineError(RangeError, 'SIZE_LIMIT', `${fn}: ${name} = ${v} exceeds the limit of ${max}`);
  return v;
}

// a·b, at most 2^24 each, so exact in a double (as api.cpp's product(), which divides instead).
export function product(fn, what, a, b) {
  if (a * b > MAX_ELEMENTS)
    throw engineError(RangeError, 'SIZE_LIMIT', `${fn}: ${what} = ${a * b} exceeds the limit of ${MAX_ELEMENTS} elements`);
  return a * b;
}

export function expectLength(fn, name, arr, n, expr) {
  if (arr.length !== n)
    throw engineError(Error, 'SHAPE_MISMATCH', `${fn}: ${name} has ${arr.length} elements, expected ${expr} = ${n}`);
}

// rows × cols, each at most `max`: the shape of the row-wise functions.
export function rowsCols(fn, rows, cols, max = MAX_ELEMENTS) {
  return product(fn, 'rows*cols', sizeArg(fn, 'rows', rows, max), sizeArg(fn, 'cols', cols, max));
}

export function distributionCode(fn, d) {
  if (!Object.hasOwn(DISTRIBUTIONS, d)) throw engineError(RangeError, 'BAD_VALUE', `${fn}: distribution must be 'normal', 'uniform', 'rademacher' or 'student-t', got ${describeValue(d)}`);
  return DISTRIBUTIONS[d];
}
