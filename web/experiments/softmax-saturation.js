// (eq:softmax-saturation) experiments, and the d_k sweep of softmax row statistics that the
// saturation, vanishing-gradients and scaling-choices steps share. See chunks.js for the
// generator contract.
import { rangeTail, scoreRangeTail } from './score-range.js';

// The sweep's head dimensions: powers of two, 1 … 4096 (the steps' d_k sliders take the same values).
export const SWEEP_DKS = Array.from({ length: 13 }, (_, i) => 2 ** i);

// The multipliers compared across the steps: none, 1/√d_k, 1/d_k.
export const SCALES = {
  none: () => 1,
  sqrt: (dk) => 1 / Math.sqrt(dk),
  dk: (dk) => 1 / dk,
};

const STATS = ['maxWeight', 'entropy', 'jacobianNorm', 'nonmaxGrad', 'scoreVariance'];

// Draws per engine call: a few milliseconds of work in wasm.
const CHUNK = 1 << 18;

// Draws of a row of sampleScores: its query's ‖q‖² (a chi-square variable, about two draws
// whatever d_k) and n normals. (Its d_k entries and the n·d_k of the keys are never drawn.)
export const rowDraws = (n) => n + 2;

// Memo of sampleSoftmaxRows calls, per engine. The worker keeps one engine for the page, so the
// three steps that sweep d_k with the same (n, seed) draw each chunk once. The results are the
// same with or without it: it only saves time.
const memo = new WeakMap();
function memoized(engine, kind, key, compute) {
  let m = memo.get(engine);
  if (!m) memo.set(engine, (m = new Map()));
  const k = `${kind}|${key}`;
  if (m.has(k)) return { value: m.get(k), fresh: false };
  const value = compute();
  if (m.size > 5000) m.clear();
  m.set(k, value);
  return { value, fresh: true };
}

// Per-row statistics of softmax(scale · K q) for rows 0 … rows−1 (row r = RNG stream r), for each
// of `scales`, in chunks; yields progress only after real work. Returns { perScale: per scale
// { maxWeight, entropy, … } Float32Arrays, all: the matrix they are rows of (scales × STATS rows of
// `rows` values) }. A row is drawn once for all the scales: the engine draws ‖q‖² and
// then the scores as ‖q‖·z (given q they are i.i.d. N(0, ‖q‖²), as q·k_j is for random
// keys; see cpp/sampling.hpp), and scoreStats scales them as sampleSoftmaxRows would, bit for bit.
export function* softmaxRowsChunked(engine, { dk, n, rows, seed, scales, onChunk }) {
  // one matrix, so that the sweep summarises it in one call
  const all = new Float32Array(scales.length * STATS.length * rows);
  const outs = scales.map((_, i) => Object.fromEntries(STATS.map((s, k) => {
    const at = (i * STATS.length + k) * rows;
    return [s, all.subarray(at, at + rows)];
  })));
  const per = Math.max(1, Math.floor(CHUNK / rowDraws(n)));
  for (let first = 0; first < rows; first += per) {
    const count = Math.min(per, rows - first);
    let scores = null, fresh = false;
    scales.forEach((scale, i) => {
      const m = memoized(engine, 'rows', [dk, n, count, seed, scale, first].join(','), () => {
        scores ??= engine.sampleScores({ dk, n, rows: count, seed, first, scale: 1 });
        return engine.scoreStats(scores, count, n, scale);
      });
      fresh ||= m.fresh;
      for (const s of STATS) outs[i][s].set(m.value[s], first);
    });
    const progress = onChunk?.(count * rowDraws(n));
    if (fresh && progress !== undefined) yield { progress };
  }
  return { perScale: outs, all };
}

// (eq:softmax-saturation, eq:vanishing-gradients, eq:scaling-choices) For every d_k in `dks` and
// every named scale, `rows` random queries against n random keys (the same draws for every scale:
// only the multiplier differs). Per statistic: mean, 95% interval and median over the rows; and
// how many rows came out exactly one-hot in float32 (every non-max weight rounded to 0, so the
// non-max gradient is exactly 0). The normal approximation's interval is clipped to the range the
// statistic can take: ≥ 0 for all (a mean of tiny norms has one below 0), a max weight ≤ 1 and an
// entropy ≤ ln n.
export function* softmaxSweep(engine, { n, rows, seed, scales = ['none', 'sqrt'], dks = SWEEP_DKS }) {
  const total = dks.length * rows * rowDraws(n);
  let done = 0;
  const onChunk = (work) => (done += work) / total;
  const result = { n, rows, seed, dks, scales: {} };
  for (const name of scales) {
    result.scales[name] = Object.fromEntries(STATS.map((s) => [s, { mean: [], lo: [], hi: [], median: [] }]));
    Object.assign(result.scales[name], { oneHot: [], scale: [] });
  }
  const top = { maxWeight: 1, entropy: Math.log(n) };
  for (const dk of dks) {
    const multipliers = scales.map((name) => SCALES[name](dk));
    const { perScale, all } = yield* softmaxRowsChunked(engine, { dk, n, rows, seed, scales: multipliers, onChunk });
    // every statistic of every scale over the rows: mean, 95% interval and median, in one call
    const sum = engine.rowSummaries(all, scales.length * STATS.length, rows);
    scales.forEach((name, i) => {
      const series = result.scales[name], r = perScale[i];
      STATS.forEach((s, k) => {
        const at = i * STATS.length + k;
        series[s].mean.push(sum.mean[at]);
        series[s].lo.push(Math.max(0, sum.meanLo[at]));
        series[s].hi.push(Math.min(top[s] ?? Infinity, sum.meanHi[at]));
        series[s].median.push(sum.median[at]);
      });
      series.oneHot.push(r.nonmaxGrad.reduce((c, g) => c + (g === 0), 0));
      series.scale.push(multipliers[i]);
    });
  }
  return result;
}

// One query against n keys: row `query` − 1 of the sweep's draws (the same RNG stream), so the
// query shown is one of the rows behind the curves. Returns scale · q·k_j for every key.
export function rowScores(engine, { dk, n, seed, query, scale = 1 }) {
  return engine.sampleScores({ dk, n, rows: 1, seed, first: query - 1, scale });
}

// ---------------------------------------------------------------- what the source texts state

// These are the texts' inputs and their stated outputs (data to check, not results). Every value
// the page shows next to them is computed below.
export const COURSE_EXAMPLE = {  // the course section (seed 002), d_k = 64, "divide by 8"
  scores: [9.2, -3.1, 8.8, -5.4, 1.2],
  divisor: 8,
  claimed: [0.599, 0.000, 0.401, 0.000, 0.000],
  claimedScaled: [0.31, 0.07, 0.30, 0.05, 0.12],
};
export const COURSE_PEAKED = {  // the course section: "[8.5, −2.1, 7.9, …] → [0.99, 0.00, 0.01, …]"
  scores: [8.5, -2.1, 7.9],
  claimed: [0.99, 0.00, 0.01],
};
export const FORUM_EXAMPLE = {  // the forum post (seed 000) at d_k = 64
  dk: 64,
  scores: [-20, 3, 25, -15],
  scaled: [-2.5, 0.4, 3.1, -1.9],
};

const f32 = (a) => Float32Array.from(a);
const sum = (a) => a.reduce((s, x) => s + x, 0);
const softmax1 = (engine, a) => Array.from(engine.softmax(f32(a), 1, a.length));
const maxAbsDiff = (a, b) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));

// Wilson's 95% interval for a proportion k/N.
export function wilson(k, N, z = 1.96) {
  const p = k / N, z2 = z * z;
  const c = (p + z2 / (2 * N)) / (1 + z2 / N);
  const h = (z * Math.sqrt(p * (1 - p) / N + z2 / (4 * N * N))) / (1 + z2 / N);
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

// How often do 4 attention scores at d_k = 64 spread as widely as the forum's example? Each row is
// one query against 4 random keys, drawn as sampleScores draws them (‖q‖² ~ χ²₆₄, then the scores
// ‖q‖·z_j: given q they are independent N(0, ‖q‖²), as q·k_j is), at 6 draws a row where the
// query and the keys in full take 320. `theory` is the exact probability (score-range.js), and
// `independent` what it would be for n independent scores of variance d_k.
export function* softmaxSpreadOdds(engine, { seed, rows = 1 << 15, dk = FORUM_EXAMPLE.dk, scores = FORUM_EXAMPLE.scores }) {
  const n = scores.length;
  const spread = Math.max(...scores) - Math.min(...scores);
  const per = Math.floor(CHUNK / rowDraws(n));
  let hits = 0, widest = 0;
  for (let first = 0, c = 0; first < rows; first += per, c++) {
    const count = Math.min(per, rows - first);
    const { value, fresh } = memoized(engine, 'spread', [seed, first, count, dk, n, spread].join(','), () => {
      // streams 2³² + r: apart from the sweeps' rows 0 … rows − 1
      const s = engine.sampleScores({ dk, n, rows: count, seed, first: 2 ** 32 + first, scale: 1 });
      let h = 0, w = 0;
      for (let o = 0; o < s.length; o += n) {
        let lo = s[o], hi = s[o];
        for (let j = 1; j < n; j++) { lo = Math.min(lo, s[o + j]); hi = Math.max(hi, s[o + j]); }
        if (hi - lo >= spread) h++;
        w = Math.max(w, hi - lo);
      }
      return { h, w };
    });
    hits += value.h;
    widest = Math.max(widest, value.w);
    if (fresh && first + count < rows) yield { progress: (first + count) / rows };
  }
  return { dk, n, spread, rows, hits, fraction: hits / rows, ci: wilson(hits, rows), widest,
    theory: scoreRangeTail(n, spread, dk), independent: rangeTail(n, spread, Math.sqrt(dk)) };
}

// The texts' worked examples, recomputed by the engine.
export function sourceChecks(engine) {
  const c = COURSE_EXAMPLE;
  const scaledScores = c.scores.map((s) => s / c.divisor);
  const p = softmax1(engine, c.scores), pScaled = softmax1(engine, scaledScores);
  const peaked = softmax1(engine, COURSE_PEAKED.scores);
  const f = FORUM_EXAMPLE;
  const forumP = softmax1(engine, f.scores), forumScaledP = softmax1(engine, f.scaled);
  const root = Math.sqrt(f.dk);
  return {
    course: {
      ...c, scaledScores, p, pScaled,
      claimedSum: sum(c.claimed), claimedScaledSum: sum(c.claimedScaled), pSum: sum(p), pScaledSum: sum(pScaled),
      error: maxAbsDiff(c.claimed, p), errorScaled: maxAbsDiff(c.claimedScaled, pScaled),
    },
    peaked: {
      ...COURSE_PEAKED, p: peaked,
      ratio: peaked[0] / peaked[2],                                   // e^(8.5 − 7.9), whatever the "…" holds
      claimedRatio: COURSE_PEAKED.claimed[0] / COURSE_PEAKED.claimed[2],
      gapNeeded: Math.log(COURSE_PEAKED.claimed[0] / COURSE_PEAKED.claimed[2]),
      gap: COURSE_PEAKED.scores[0] - COURSE_PEAKED.scores[2],
    },
    forum: {
      ...f, p: forumP, pScaled: forumScaledP, root,
      rescaleError: maxAbsDiff(f.scores.map((s) => s / root), f.scaled),
      maxScaled: Math.max(...forumScaledP),
      entropyScaled: engine.rowStats(f32(forumScaledP), 1, forumScaledP.length).entropy[0],
    },
  };
}

// (eq:softmax-saturation) One query against n keys at the current d_k: the scores, the weights
// unscaled and scaled by 1/√d_k, their maximum and entropy; and the source texts' examples.
export function* softmaxSaturationRow(engine, { dk, n, seed, query }) {
  const s = rowScores(engine, { dk, n, seed, query, scale: 1 });
  const sScaled = rowScores(engine, { dk, n, seed, query, scale: 1 / Math.sqrt(dk) });
  const p = engine.softmax(s, 1, n), pScaled = engine.softmax(sScaled, 1, n);
  const st = engine.rowStats(p, 1, n), stScaled = engine.rowStats(pScaled, 1, n);
  const spreadOdds = yield* softmaxSpreadOdds(engine, { seed });
  return {
    dk, n, seed, query, scores: s, scaledScores: sScaled, p, pScaled,
    max: st.max[0], entropy: st.entropy[0], maxScaled: stScaled.max[0], entropyScaled: stScaled.entropy[0],
    sources: sourceChecks(engine), spreadOdds,
  };
}

export const experiments = { softmaxSweep, softmaxSaturationRow };
