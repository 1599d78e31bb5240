// (eq:softmax-saturation) Unscaled scores have spread √d_k, and softmax turns a wide spread into
// a near one-hot vector; divided by √d_k the weights keep the same distribution at every d_k.
import { showBars } from '../plots/bars.js';
import { showSweepCurves } from '../plots/sweep-curves.js';
import { fmt, fmtInt, fmtInterval } from '../format.js';
import { dataTable, el, fillTable, grid, liveFormula, liveSummary, panel, setTex, show } from '../readout.js';
import './softmax-saturation.css';

export const id = 'softmax-saturation';

// ---------------------------------------------------------------- shared by the softmax steps

export const DK_POW2 = Array.from({ length: 13 }, (_, i) => 2 ** i);
export const SWEEP_PARAMS = {
  dk: { kind: 'stops', values: DK_POW2, default: 64, label: 'dₖ', spoken: 'd k', format: String },
  n: { kind: 'stops', values: [2, 4, 8, 16, 32, 64], default: 16, label: 'keys n', spoken: 'keys', format: String },
  rows: { kind: 'stops', values: [32, 64, 128, 256, 512, 1024], default: 64, label: 'queries per dₖ', spoken: 'queries per d k', format: fmtInt },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
  query: { kind: 'int', min: 1, max: 1024, default: 1, label: 'query shown' },
};

// The series names, the same in every softmax step (and so the same colours).
export const SERIES = { none: 'q·k (no scale)', sqrt: 'q·k / √dₖ', dk: 'q·k / dₖ' };

export const sub = (i) => String(i).replace(/\d/g, (d) => '₀₁₂₃₄₅₆₇₈₉'[d]);
// A number for TeX: significant digits, a plain hyphen (KaTeX typesets a minus), ×10^k as TeX.
export const tex = (x, d = 3) => {
  if (x === 0 || Math.abs(x) < 1e-300) return '0';
  const a = Math.abs(x);
  if (a >= 1e4 || a < 1e-3) {
    const [m, e] = x.toExponential(d - 1).split('e');
    return String.raw`${m}\times 10^{${Number(e)}}`;
  }
  return x.toPrecision(d);
};
export const texList = (xs, d = 3) => Array.from(xs, (x) => tex(x, d)).join(',\\ ');
// fmt, but a tiny nonzero value keeps its exponent (fmt writes anything below 10⁻¹² as 0).
const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
export function fmtTiny(x, d = 3) {
  if (x === 0 || !(Math.abs(x) < 1e-12)) return fmt(x, d);
  const [m, e] = x.toExponential(d - 1).split('e');
  return `${m.replace('-', '−')}×10${[...String(Number(e))].map((c) => SUP[c]).join('')}`;
}
export const list = (xs, d = 3) => `[${Array.from(xs, (x) => fmtTiny(x, d)).join(', ')}]`;
// A number as a source text wrote it (its own decimals), with a real minus sign.
export const quote = (xs, decimals) =>
  `[${xs.map((x) => (decimals === undefined ? String(x) : x.toFixed(decimals)).replace('-', '−')).join(', ')}]`;

// Points of one statistic of one scale of a softmaxSweep result, with their 95% intervals.
export function sweepPoints(sweep, scale, stat, { intervals = true } = {}) {
  const s = sweep.scales[scale][stat];
  return sweep.dks.map((x, i) => (intervals ? { x, y: s.mean[i], lo: s.lo[i], hi: s.hi[i] } : { x, y: s.mean[i] }));
}

// The marker of the current d_k on a sweep plot, and the sweep's axis ticks.
export const marker = (x, label = `dₖ = ${x}`) => ({ x, label });
export const DK_TICKS = [1, 4, 16, 64, 256, 1024, 4096];

// The data behind a sweep plot, as a table: one row per d_k, mean and 95% interval per series.
export function sweepTable(caption, sweep, scales, stat, digits = 3) {
  const cols = ['dₖ', ...scales.flatMap((k) => [`${SERIES[k]}: mean`, '95% interval'])];
  const rows = sweep.dks.map((dk, i) => [String(dk), ...scales.flatMap((k) => {
    const s = sweep.scales[k][stat];
    return [fmt(s.mean[i], digits), fmtInterval([s.lo[i], s.hi[i]], digits)];
  })]);
  return dataTable(caption, cols, rows);
}

// Runs the d_k sweep on the step's channel (the long one: the Stop button cancels it) and the
// quick per-query experiment on a second channel, so the query appears before the curves.
export async function runBoth(run, figure, stepId, sweep, row) {
  return Promise.all([
    run(sweep.name, sweep.params, { onProgress: figure.progress }),
    run(row.name, row.params, { channel: `${stepId}:query` }),
  ]);
}

// Σ_{j ≠ argmax} p_j: how far p is from one-hot.
export function nonMaxMass(p) {
  const m = p.indexOf(Math.max(...p));
  return p.reduce((a, x, j) => (j === m ? a : a + x), 0);
}

// Said of a query shown beyond the rows that the curves average.
export const outside = (query, rows) => (query > rows ? ` (drawn like them, but not one of the ${fmtInt(rows)} behind the curves)` : '');


// ---------------------------------------------------------------- this step

export const params = SWEEP_PARAMS;

// A panel of checked source claims: a title, the panel's table, and a list of verdicts (no plot);
// say(lines) replaces the verdicts with one paragraph per line.
export function sourcesPanel(title) {
  const p = panel(title);
  p.el.classList.add('softmax-sources');
  p.plot.remove();
  const verdicts = el('div', 'softmax-verdicts');
  p.el.append(verdicts);
  return { ...p, verdicts, say: (lines) => verdicts.replaceChildren(...lines.map((t) => el('p', undefined, t))) };
}

export function mount(figure, { run }) {
  const formula = liveFormula();
  const one = panel('One query against n keys: the weights');
  const curvesMax = panel('Expected largest weight against dₖ');
  const curvesH = panel('Expected entropy against dₖ');
  const sources = sourcesPanel('Checking the source texts’ examples');
  const { verdicts, say } = sources;
  const course = document.createElement('table');
  course.className = 'readout';
  sources.table.replaceWith(course);
  const key = el('p', 'softmax-key');
  key.textContent = 'Shaded: a value the text gives that differs from the engine’s by more than the text’s own rounding.';
  verdicts.before(key);
  const summary = liveSummary();
  figure.body.append(formula, one.el, grid(curvesMax.el, curvesH.el), sources.el, summary);

  function drawQuery(r) {
    const { n, dk } = r;
    const cats = Array.from({ length: n }, (_, j) => `k${sub(j + 1)}`);
    showBars(one.plot, {
      categories: cats, width: 900, height: 230,
      series: [{ name: SERIES.none, values: Array.from(r.p) }, { name: SERIES.sqrt, values: Array.from(r.pScaled) }],
      ariaLabel: `Softmax weights of query ${r.query} over ${n} keys at d_k = ${dk}, unscaled and scaled by 1/√${dk}`,
    }, dataTable(`Scores and weights of query ${r.query} as a table`, ['key', 'q·kⱼ', 'q·kⱼ/√dₖ', 'weight, no scale', 'weight, ÷√dₖ'],
      cats.map((c, j) => [c, fmt(r.scores[j]), fmt(r.scaledScores[j]), fmt(r.p[j]), fmt(r.pScaled[j])])));
    fillTable(one.table, [`query ${r.query}`, SERIES.none, SERIES.sqrt, 'uniform limit', 'one-hot limit'], [
      { name: 'largest weight', cells: [fmt(r.max), fmt(r.maxScaled), `1/n = ${fmt(1 / n)}`, '1'] },
      { name: 'entropy (nats)', cells: [fmt(r.entropy), fmt(r.entropyScaled), `log n = ${fmt(Math.log(n))}`, '0'] },
      { name: 'score range', cells: [fmt(Math.max(...r.scores) - Math.min(...r.scores)), fmt(Math.max(...r.scaledScores) - Math.min(...r.scaledScores)), '0', '∞'] },
    ]);
    setTex(formula, String.raw`p_j=\frac{e^{s_j}}{\sum_{l=1}^{${n}} e^{s_l}}:\qquad\begin{aligned}
      s_j&=q\cdot k_j &&\Rightarrow\ \max_j p_j=${tex(r.max)},\ \ H(p)=${tex(r.entropy)}\\
      s_j&=q\cdot k_j/\sqrt{${dk}} &&\Rightarrow\ \max_j p_j=${tex(r.maxScaled)},\ \ H(p)=${tex(r.entropyScaled)}
      \end{aligned}`, true);
  }

  function drawCurves(s, dk) {
    const { n } = s;
    const i = s.dks.indexOf(dk);
    const logn = Math.log(n);
    showSweepCurves(curvesMax.plot, {
      series: [{ name: SERIES.none, points: sweepPoints(s, 'none', 'maxWeight') }, { name: SERIES.sqrt, points: sweepPoints(s, 'sqrt', 'maxWeight') }],
      refs: [{ name: `uniform: 1/n = ${fmt(1 / n)}`, y: 1 / n }], marker: marker(dk), xTicks: DK_TICKS,
      xLabel: 'dₖ', yLabel: 'mean largest weight', yDomain: [0, 1],
    }, sweepTable('Largest weight against dₖ as a table', s, ['none', 'sqrt'], 'maxWeight'));
    showSweepCurves(curvesH.plot, {
      series: [{ name: SERIES.none, points: sweepPoints(s, 'none', 'entropy') }, { name: SERIES.sqrt, points: sweepPoints(s, 'sqrt', 'entropy') }],
      refs: [{ name: `uniform: log n = ${fmt(logn)}`, y: logn }], marker: marker(dk), xTicks: DK_TICKS,
      xLabel: 'dₖ', yLabel: 'mean entropy (nats)', yDomain: [0, logn * 1.08],
    }, sweepTable('Entropy against dₖ as a table', s, ['none', 'sqrt'], 'entropy'));
    const rowsAt = (stat) => ['none', 'sqrt'].map((k) => {
      const x = s.scales[k][stat];
      return { name: SERIES[k], cells: [fmt(x.mean[i]), fmtInterval([x.lo[i], x.hi[i]])] };
    });
    const head = [`at dₖ = ${dk}`, `mean of ${fmtInt(s.rows)}`, '95% interval'];
    fillTable(curvesMax.table, head, rowsAt('maxWeight'));
    fillTable(curvesH.table, head, rowsAt('entropy'));
  }

  function drawSources(src, odds) {
    const c = src.course;
    const sc = (x) => fmt(x, 3);
    fillTable(course, ['course text, dₖ = 64', 'score', 'text says', 'engine', `score ÷ ${c.divisor}`, 'text says', 'engine'], [
      ...c.scores.map((x, j) => ({
        name: `position ${j + 1}`,
        cells: [fmt(x), c.claimed[j].toFixed(3), sc(c.p[j]), fmt(c.scaledScores[j]), c.claimedScaled[j].toFixed(2), sc(c.pScaled[j])],
      })),
      { name: 'sum', cells: ['', fmt(c.claimedSum), fmt(c.pSum, 4), '', fmt(c.claimedScaledSum), fmt(c.pScaledSum, 4)] },
    ]);
    // Mark the text's values that differ from the engine's by more than the text's own rounding.
    const off = (claimed, actual, decimals, terms = 1) => Math.abs(claimed - actual) > terms * 0.5 * 10 ** -decimals;
    const body = course.tBodies[0].rows;
    c.scores.forEach((_, j) => {
      if (off(c.claimed[j], c.p[j], 3)) body[j].cells[2].classList.add('softmax-off');
      if (off(c.claimedScaled[j], c.pScaled[j], 2)) body[j].cells[5].classList.add('softmax-off');
    });
    const last = body[c.scores.length].cells;
    if (off(c.claimedSum, 1, 3, c.scores.length)) last[2].classList.add('softmax-off');
    if (off(c.claimedScaledSum, 1, 2, c.scores.length)) last[5].classList.add('softmax-off');
    const p = src.peaked, f = src.forum;
    const lines = [
      `The course text’s unscaled weights are right to within ${fmt(c.error, 2)}. Its scaled weights are not: ` +
      `they sum to ${fmt(c.claimedScaledSum)}, not 1, and the engine computes ${list(c.pScaled, 3)} ` +
      `(largest error ${fmt(c.errorScaled, 2)}).`,
      `The course text also says scores ${quote(p.scores).replace(']', ', …]')} give weights near ${quote(p.claimed, 2).replace(']', ', …]')}; ` +
      `they cannot. Whatever “…” holds, the first and third weights stand in the ratio e^(${quote([p.scores[0]]).slice(1, -1)} − ${quote([p.scores[2]]).slice(1, -1)}) = ${fmt(p.ratio)} ` +
      `(the engine gives ${list(p.p)} for the three listed scores), and a ratio of ${fmt(p.claimedRatio, 2)} would need a gap of ${fmt(p.gapNeeded)}.`,
      `The forum post’s unscaled row ${quote(f.scores)} is one-hot to within ${fmt(nonMaxMass(f.p), 2)} ` +
      `(the engine: ${list(f.p, 2)}); its scaled row ${quote(f.scaled)} (the same divided by ${fmt(f.root, 1)}, rounded) ` +
      `still puts ${fmt(f.maxScaled)} on one key, entropy ${fmt(f.entropyScaled)} of a possible log 4 = ${fmt(Math.log(4))}: ` +
      `softer, but hardly spread out.`,
      `Nor do scores “easily look like” that row: a spread of ${fmt(odds.spread, 2)} from the smallest to the largest of 4 scores at dₖ = ${odds.dk} ` +
      `turned up in ${fmtInt(odds.hits)} of ${fmtInt(odds.rows)} sampled rows ` +
      `(${fmt(100 * odds.fraction, 2)}%, 95% interval ${fmt(100 * odds.ci[0], 2)}–${fmt(100 * odds.ci[1], 2)}%), ` +
      `about one row in ${fmtInt(Math.round(1 / Math.max(odds.fraction, 1 / odds.rows)))}.`,
    ];
    say(lines);
  }

  return {
    async update({ dk, n, rows, seed, query }) {
      const [s, r] = await runBoth(run, figure, id,
        { name: 'softmaxSweep', params: { n, rows, seed, scales: ['none', 'sqrt'] } },
        { name: 'softmaxSaturationRow', params: { dk, n, seed, query } });
      if (!s || !r) return;
      drawQuery(r);
      drawCurves(s, dk);
      drawSources(r.sources, r.spreadOdds);
      const i = s.dks.indexOf(dk);
      const m = (k, stat) => fmt(s.scales[k][stat].mean[i]);
      summary.textContent =
        `At dₖ = ${dk} with ${n} keys, over ${fmtInt(rows)} queries (seed ${seed}), the largest weight averages ` +
        `${m('none', 'maxWeight')} unscaled and ${m('sqrt', 'maxWeight')} scaled by 1/√${dk}, and the entropy ` +
        `${m('none', 'entropy')} and ${m('sqrt', 'entropy')} nats, against ${fmt(Math.log(n))} for uniform weights; ` +
        `query ${query} shown above${outside(query, rows)} puts ${fmt(r.max)} of its weight on one key unscaled and ${fmt(r.maxScaled)} scaled.`;
      figure.done();
    },
  };
}
