// (eq:shift-vs-scale) experiments: softmax ignores a shift of its logits (up to float rounding),
// the naive formula overflows where exp does, and dividing changes the weights because it changes
// the differences, whatever it does to the ratios. See chunks.js for the generator contract.

// float32 helpers. FLT_MAX = (2 − 2⁻²³)·2¹²⁷, the largest finite float32; e^x overflows for
// x > ln FLT_MAX.
const F32 = new Float32Array(1);
const I32 = new Int32Array(F32.buffer);
export const FLT_MAX = (2 - 2 ** -23) * 2 ** 127;
export const LN_FLT_MAX = Math.log(FLT_MAX);

const bitsOf = (x) => { F32[0] = x; return I32[0]; };
const fromBits = (i) => { I32[0] = i; return F32[0]; };
// The float32 bit patterns as integers in the order of the values (−0 and +0 both map to 0).
const ordered = (x) => { const i = bitsOf(x); return i >= 0 ? i : -0x80000000 - i; };

// Distance between two float32 values in units in the last place: how many float32 values lie
// between them, plus one (0 when equal). NaN if either is NaN.
export function ulpsBetween(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return Math.abs(ordered(a) - ordered(b));
}

// The largest positive float32 x for which ok(x) holds, by bisection on the bit patterns of
// [lo, hi] (ok(lo) true, ok(hi) false; positive floats are ordered like their bit patterns).
function largestFloatWhere(ok, lo, hi) {
  let a = bitsOf(lo), b = bitsOf(hi);
  while (b - a > 1) {
    const m = a + ((b - a) >> 1);
    if (ok(fromBits(m))) a = m; else b = m;
  }
  return fromBits(a);
}

const finiteRow = (p) => p.every(Number.isFinite);

// The seed text's rows and the weights it states for them (001: "a 3-unit spread … [0.09, 0.24,
// 0.67]", "[10.0, 10.2, 10.3] … [0.30, 0.33, 0.37]"). Quoted so the page can check them.
export const TEXT_CLAIMS = [
  { row: [100, 102, 103], says: [0.09, 0.24, 0.67], step: 1 },
  { row: [10, 10.2, 10.3], says: [0.30, 0.33, 0.37], step: 0.1 },
];

const N_LOGITS = 8;        // two SIMD batches of 4: every logit goes through the vector exp
const SWEEP_STEP = 0.25;   // the overflow sweep: largest logit c = 0, 0.25, …, 200
const SWEEP_MAX = 200;

// (eq:shift-vs-scale)
//   offset   c: the row is u + c, with u random logits (N(0, spread²)) shifted so max u = 0
//   divisor  s: the seed's row [100, 102, 103] divided by s
export function* shiftVsScale(engine, { offset, seed, divisor, spread = 3 }) {
  const n = N_LOGITS;
  // --- the shift: one row, its stable softmax, softmax(x − max x), the naive one
  const z = engine.sampleEntries({ count: n, seed, std: spread });
  const zmax = Math.max(...z);
  const u = Float32Array.from(z, (v) => v - zmax);             // max u = 0 exactly
  const x = Float32Array.from(u, (v) => v + offset);           // rounded to float32
  const xmax = Math.max(...x);
  const xShifted = Float32Array.from(x, (v) => v - xmax);
  const both = new Float32Array(3 * n);
  both.set(x, 0); both.set(xShifted, n); both.set(u, 2 * n);
  const stable = engine.softmax(both, 3, n);
  const naive = engine.softmaxNaive(x, 1, n);
  const logits = Array.from({ length: n }, (_, j) => ({
    x: x[j],
    p: stable[j],
    pShifted: stable[n + j],
    pUnshifted: stable[2 * n + j],
    naive: naive[j],
    ulps: ulpsBetween(stable[j], stable[n + j]),
    ulpsUnshifted: ulpsBetween(stable[j], stable[2 * n + j]),
  }));
  const sumOf = (a, from, len) => { let s = 0; for (let j = from; j < from + len; j++) s += a[j]; return s; };

  // --- the sweep over the largest logit c: where the naive softmax breaks
  const offsets = [];
  for (let c = 0; c <= SWEEP_MAX + 1e-9; c += SWEEP_STEP) offsets.push(c);
  const rows = offsets.length;
  const grid = new Float32Array(rows * n);
  offsets.forEach((c, r) => { for (let j = 0; j < n; j++) grid[r * n + j] = u[j] + c; });
  const gNaive = engine.softmaxNaive(grid, rows, n);
  const gStable = engine.softmax(grid, rows, n);
  const gLog = engine.logSoftmax(grid, rows, n);
  const gShifted = grid.map((v, i) => v - offsets[Math.floor(i / n)]);   // x − max x: max is c
  const gLogShifted = engine.logSoftmax(gShifted, rows, n);
  const sweep = offsets.map((c, r) => {
    const nv = gNaive.subarray(r * n, r * n + n);
    const status = !finiteRow(nv) ? 'nan' : sumOf(nv, 0, n) === 0 ? 'zeros' : 'ok';
    // ln Σ e^{x_j} = x_j − log softmax(x)_j: the log of the naive denominator, computed stably
    const lse = grid[r * n] - gLog[r * n];
    const lseShifted = gShifted[r * n] - gLogShifted[r * n];   // ln Σ e^{x_j − max x}
    return { c, lse, lseShifted, status, stableSum: sumOf(gStable, r * n, n) };
  });
  const firstBad = sweep.find((s) => s.status !== 'ok');
  const stableSums = sweep.map((s) => s.stableSum);

  // --- the thresholds, measured on the engine by bisection over float32 values
  const pad = new Float32Array(n).fill(-1000);   // e^−1000 = 0: the row's sum is e^x alone
  const simdLaneOk = (v) => { pad[0] = v; return finiteRow(engine.softmaxNaive(pad, 1, n)); };
  const loneOk = (v) => finiteRow(engine.softmaxNaive(new Float32Array([v]), 1, 1));
  const thresholds = {
    lnFltMax: LN_FLT_MAX,
    laneLargest: largestFloatWhere(simdLaneOk, 64, 128),   // a logit inside a SIMD batch
    loneLargest: largestFloatWhere(loneOk, 64, 128),       // a lone logit (the scalar tail)
  };
  thresholds.loneNext = fromBits(bitsOf(thresholds.loneLargest) + 1);

  // --- the scale: ratios vs differences, on the seed's row
  const A = [100, 102, 103];
  const amax = Math.max(...A);
  const scaleRows = [
    { key: 'row', values: A },
    { key: 'divided', values: A.map((v) => v / divisor) },
    { key: 'lowered', values: A.map((v) => v - 97) },
    { key: 'maxSubtracted', values: A.map((v) => v - amax) },
  ];
  const sp = engine.softmax(Float32Array.from(scaleRows.flatMap((r) => r.values)), scaleRows.length, 3);
  const spNaive = engine.softmaxNaive(Float32Array.from(A), 1, 3);
  for (const [i, r] of scaleRows.entries()) {
    r.values = Array.from(Float32Array.from(r.values));   // as the engine sees them
    r.softmax = Array.from(sp.subarray(3 * i, 3 * i + 3));
    r.ratios = [r.values[1] / r.values[0], r.values[2] / r.values[0]];
    r.gaps = [r.values[1] - r.values[0], r.values[2] - r.values[1]];
  }
  for (const r of scaleRows) r.ulpsFromRow = r.softmax.map((p, j) => ulpsBetween(p, scaleRows[0].softmax[j]));

  // --- the seed's numbers: the engine's softmax of its rows, and the rows its numbers fit
  // (the gaps ln(p_{j+1}/p_j) recovered from the stated weights, rounded to the row's step)
  const claims = TEXT_CLAIMS.map((t) => {
    const gaps = [Math.log(t.says[1] / t.says[0]), Math.log(t.says[2] / t.says[1])];
    const last = t.row[2];
    const x2 = last - Math.round(gaps[1] / t.step) * t.step;
    const x1 = x2 - Math.round(gaps[0] / t.step) * t.step;
    const fits = [x1, x2, last].map((v) => Number((Math.round(v / t.step) * t.step).toFixed(6)));
    const p = engine.softmax(Float32Array.from([...t.row, ...fits]), 2, 3);
    const engineRow = Array.from(p.subarray(0, 3)), engineFit = Array.from(p.subarray(3, 6));
    const round2 = (a) => a.map((v) => Math.round(v * 100) / 100);
    const same = (a, b) => a.every((v, j) => Math.abs(v - b[j]) < 1e-9);
    return {
      row: t.row, says: t.says, gaps, fits, engineRow, engineFit,
      rowMatches: same(round2(engineRow), t.says), fitMatches: same(round2(engineFit), t.says),
    };
  });

  return {
    offset, seed, divisor, n, simd: engine.simd,
    logits,
    stableSum: sumOf(stable, 0, n),
    naiveSum: sumOf(naive, 0, n),
    maxUlps: Math.max(...logits.map((l) => l.ulps)),
    maxUlpsUnshifted: Math.max(...logits.map((l) => l.ulpsUnshifted)),
    sweep,
    breakAt: firstBad ? { c: firstBad.c, status: firstBad.status, lse: firstBad.lse } : null,
    stableSumRange: [Math.min(...stableSums), Math.max(...stableSums)],
    thresholds,
    scaleRows,
    seedRowNaive: Array.from(spNaive),
    claims,
  };
}

export const experiments = { shiftVsScale };
