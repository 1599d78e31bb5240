// (eq:temperature) experiments: softmax(s/τ) for one set of draws and a grid of temperatures.
// See chunks.js for the generator contract.
import { softmaxEntropyDouble } from './reference.js';
import { rowDraws } from './softmax-saturation.js';

// τ/√d_k from 1/4 to 4 in quarter octaves: the curves' grid. The slider takes every other value.
export const TAU_GRID = Array.from({ length: 17 }, (_, i) => 2 ** ((i - 8) / 4));
// The course section's exercise 4 (seed 002): τ = 0.5√d_k, √d_k, 2√d_k.
export const EXERCISE_TAUS = [0.5, 1, 2];

const CHUNK = 1 << 18;  // draws per chunk of rows
let cached = null;      // the last scores drawn: a new τ or query draws nothing

// Raw scores s = K q (rows, n) for rows 1 … rows (row r = RNG stream r − 1, as in softmaxSweep).
function* drawScores(engine, { dk, n, rows, seed }) {
  const key = [dk, n, rows, seed].join(',');
  if (cached?.engine === engine && cached.key === key) return cached.scores;
  const scores = new Float32Array(rows * n);
  const per = Math.max(1, Math.floor(CHUNK / rowDraws(n)));
  for (let first = 0; first < rows; first += per) {
    const count = Math.min(per, rows - first);
    scores.set(engine.sampleScores({ dk, n, rows: count, seed, first, scale: 1 }), first * n);
    if (first + count < rows) yield { progress: (first + count) / rows };
  }
  cached = { engine, key, scores };
  return scores;
}

function logits(s, tau, dk) {
  const c = 1 / (tau * Math.sqrt(dk)), out = new Float32Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s[i] * c;
  return out;
}

// The curves over the grid depend on the draws and the grid alone: a new query or a τ on the
// grid (every stop of the page's slider) reuses them, and the run is the shown row's softmaxes.
let cachedGrid = null;  // { scores (drawScores' kept array, so the same draws), grid, stats }

// Why rows' float32 entropy fails to rise over a step of the grid, counted by rows (a row counts
// once per kind of stall it has):
//   oneHot    exactly one-hot in float32 (entropy 0) at the step's lower τ; upTo: the highest τ/√d_k
//             such a stall reaches
//   rounding  in double the entropy does rise there: float32 rounding hid the rise; from: the
//             lowest τ/√d_k such a stall starts at, within: the largest ln n − H (float32) there
//   other     not even in double
export function stallCounter(s, { dk, n, rows }) {
  const kinds = new Uint8Array(rows);  // bits: 1 one-hot, 2 rounding, 4 other
  let upTo = 0, from = Infinity, within = 0;
  // a row that stalls at two steps in a row needs the entropy at their shared τ once
  const memo = new Map();
  // (the entropy of softmax(s_r/τ) in double: the reference that tells a stall of the float32
  // entropy that rounding makes from one in the numbers themselves)
  const hDouble = (r, t) => {
    const key = `${r} ${t}`;
    const c = 1 / (t * Math.sqrt(dk));
    if (!memo.has(key)) memo.set(key, softmaxEntropyDouble(Array.from(s.subarray(r * n, (r + 1) * n), (v) => v * c)));
    return memo.get(key);
  };
  return {
    add(r, [t0, h0], [t1, h1]) {
      if (h0 === 0) {
        kinds[r] |= 1;
        upTo = Math.max(upTo, t1);
      } else if (hDouble(r, t1) > hDouble(r, t0)) {
        kinds[r] |= 2;
        from = Math.min(from, t0);
        within = Math.max(within, Math.log(n) - Math.min(h0, h1));
      } else kinds[r] |= 4;
    },
    // the rows of each kind, from `kinds` alone: asking twice gives the same counts
    counts() {
      const rowsWith = (bit) => kinds.reduce((c, k) => c + ((k & bit) ? 1 : 0), 0);
      return {
        oneHot: { rows: rowsWith(1), upTo },
        rounding: { rows: rowsWith(2), from, within },
        other: { rows: rowsWith(4) },
      };
    },
  };
}

// Over every rows × n softmax(s/τ), τ = t·√d_k for t in `grid`: the mean max weight and mean
// entropy with 95% intervals, how many rows have an entropy that rises strictly with τ at every
// step of the grid (and a max weight that never rises), and why the others stall (stallCounter).
function gridStats(engine, s, { dk, n, rows }, grid) {
  const key = grid.join(',');
  if (cachedGrid?.scores === s && cachedGrid.grid === key) return cachedGrid.stats;
  let prev = null;
  const perRow = new Float32Array(2 * grid.length * rows);  // for each τ: the max weights, the entropies
  const strict = new Uint8Array(rows).fill(1), monotoneMax = new Uint8Array(rows).fill(1);
  const stalls = stallCounter(s, { dk, n, rows });
  // the scores in engine memory once, and each τ's row statistics computed there (scoreStats: the
  // scaled softmax and its statistics in one pass, no n-wide array coming back): 17 temperatures
  // made 34 fresh arrays of rows × n, and a page touched for the first time is dear in Chromium
  const ws = engine.workspace({ s: s.length });
  try {
    ws.s.set(s);
    for (const [j, t] of grid.entries()) {
      const st = engine.scoreStats(ws.s, rows, n, 1 / (t * Math.sqrt(dk)));
      perRow.set(st.maxWeight, 2 * j * rows);
      perRow.set(st.entropy, (2 * j + 1) * rows);
      if (prev) for (let r = 0; r < rows; r++) {
        if (!(st.entropy[r] > prev.entropy[r])) {
          strict[r] = 0;
          stalls.add(r, [grid[j - 1], prev.entropy[r]], [t, st.entropy[r]]);
        }
        if (st.maxWeight[r] > prev.maxWeight[r]) monotoneMax[r] = 0;
      }
      prev = st;
    }
  } finally {
    ws.dispose();
  }
  // the means and their intervals over the rows, for every τ, in one call
  const sum = engine.rowSummaries(perRow, 2 * grid.length, rows);
  const curveOf = (k) => {
    const pick = (a) => grid.map((_, i) => a[2 * i + k]);
    return { mean: pick(sum.mean), lo: pick(sum.meanLo), hi: pick(sum.meanHi) };
  };
  const maxWeight = curveOf(0), entropy = curveOf(1);
  const count = (a) => a.reduce((c, v) => c + v, 0);
  const stats = { maxWeight, entropy, strictRows: count(strict), monotoneMaxRows: count(monotoneMax), stalls: stalls.counts() };
  cachedGrid = { scores: s, grid: key, stats };
  return stats;
}

// (eq:temperature) For every τ = t·√d_k on the grid (with τ added where it is not on it): the
// statistics of gridStats; and the weights of one query at the exercise's three temperatures and
// at the current one.
export function* temperatureSweep(engine, { dk, n, rows, seed, query, tau }) {
  const s = yield* drawScores(engine, { dk, n, rows, seed });
  const grid = TAU_GRID.includes(tau) ? TAU_GRID : [...TAU_GRID, tau].sort((a, b) => a - b);
  const stats = gridStats(engine, s, { dk, n, rows }, grid);
  // copies of the kept curves: a caller may change what it is given
  const curve = ({ mean, lo, hi }) => ({ mean: [...mean], lo: [...lo], hi: [...hi] });
  const q = Math.min(Math.max(1, query), rows);  // the query shown is one of the rows
  const one = s.subarray((q - 1) * n, q * n);
  const rowAt = (t) => {
    const p = engine.softmax(logits(one, t, dk), 1, n);
    const st = engine.rowStats(p, 1, n);
    return { t, p, max: st.max[0], entropy: st.entropy[0] };
  };
  return {
    dk, n, rows, seed, query: q, tau, grid, maxWeight: curve(stats.maxWeight), entropy: curve(stats.entropy),
    strictRows: stats.strictRows, monotoneMaxRows: stats.monotoneMaxRows, stalls: structuredClone(stats.stalls),
    scores: Float32Array.from(one),
    exercise: EXERCISE_TAUS.map(rowAt),
    current: rowAt(tau),
    reference: rowAt(1),
  };
}

export const experiments = { temperatureSweep };
