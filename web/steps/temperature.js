// (eq:temperature) softmax(s/τ): √d_k is one temperature among many. Below it attention
// sharpens, above it softens, for every query, not only on average.
import { showBars } from '../plots/bars.js';
import { showSweepCurves } from '../plots/sweep-curves.js';
import { fmt, fmtInt, fmtInterval, sub } from '../format.js';
import { dataTable, fillTable, grid, liveFormula, liveSummary, panel, setTex } from '../readout.js';
import { DK_POW2, marker } from './dk-axis.js';
import { sourcesPanel, tex } from './softmax-shared.js';
import { EXERCISE_4_KEYS } from '../experiments/exercises.js';

export const id = 'temperature';

const TAU_STOPS = Array.from({ length: 9 }, (_, i) => 2 ** ((i - 4) / 2));  // 1/4 … 4, half octaves
const short = (t) => String(Number(t.toPrecision(3)));  // 0.5, 0.707, 1.41, 2
const tauText = (t) => (t === 1 ? '√dₖ' : `${short(t)}√dₖ`);

export const params = {
  tau: { kind: 'stops', values: TAU_STOPS, default: 1, label: 'τ / √dₖ', spoken: 'tau over root d sub k', format: short },
  dk: { kind: 'stops', values: DK_POW2, default: 64, label: 'dₖ', spoken: 'd sub k', format: String },
  n: { kind: 'stops', values: [2, 4, 8, 16, 32, 64], default: 16, label: 'keys n', spoken: 'keys', format: String },
  rows: { kind: 'stops', values: [64, 128, 256, 512, 1024], default: 256, label: 'queries', format: fmtInt },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
  query: { kind: 'int', min: 1, max: 1024, default: 1, label: 'query shown' },
};

// Why the other rows' float32 entropy fails to rise at some step of the grid, kind by kind with
// their counts (the experiment's stalls; a row with two kinds of stall counts under both).
function stallText({ oneHot, rounding, other }, others) {
  const count = (k, one, many) => `${fmtInt(k)} ${k === 1 ? one : many}`;
  const parts = [];
  if (oneHot.rows) parts.push(`${count(oneHot.rows, 'is', 'are')} exactly one-hot in float32 up to τ = ${tauText(oneHot.upTo)}, where the entropy stays at 0`);
  if (rounding.rows) {
    parts.push(`${count(rounding.rows, 'stalls', 'stall')} from τ = ${tauText(rounding.from)} up, with a float32 entropy within ` +
      `${fmt(rounding.within, 2)} of ln n: there a step of τ raises the entropy by less than float32 rounding, which keeps it ` +
      `or even lowers it (computed in double from the same scores, it rises)`);
  }
  if (other.rows) parts.push(`${count(other.rows, 'stalls', 'stall')} even in double precision`);
  return ` Of the other ${fmtInt(others)}, ${parts.join('; ')}.`;
}

export function mount(figure, { run }) {
  const formula = liveFormula();
  const bars = panel('Exercise 4: one query at τ = 0.5√dₖ, √dₖ and 2√dₖ');
  const maxPanel = panel('Expected largest weight against τ/\u2060√dₖ');
  const hPanel = panel('Expected entropy against τ/\u2060√dₖ');
  const checks = sourcesPanel('“τ < √dₖ: sharper; τ > √dₖ: softer”, measured');
  const { say } = checks;
  const summary = liveSummary();
  figure.body.append(formula, bars.el, grid(maxPanel.el, hPanel.el), checks.el, summary);

  return {
    async update({ tau, dk, n, rows, seed, query }) {
      const r = await run('temperatureSweep', { dk, n, rows, seed, query, tau }, { onProgress: figure.progress });
      if (!r) return;
      const q = r.query;
      const root = Math.sqrt(dk);
      const cats = Array.from({ length: n }, (_, j) => `k${sub(j + 1)}`);
      showBars(bars.plot, {
        categories: cats, width: 900, height: 230,
        series: r.exercise.map((e) => ({ name: `τ = ${tauText(e.t)}`, values: Array.from(e.p) })),
        ariaLabel: `Softmax weights of query ${q} over ${n} keys at d_k = ${dk} for three temperatures`,
      }, dataTable(`Weights of query ${q} as a table`, ['key', 'score s', ...r.exercise.map((e) => `τ = ${tauText(e.t)}`)],
        cats.map((c, j) => [c, fmt(r.scores[j]), ...r.exercise.map((e) => fmt(e.p[j]))])));
      fillTable(bars.table, [`query ${q}`, ...r.exercise.map((e) => `τ = ${tauText(e.t)} = ${fmt(e.t * root)}`)], [
        { name: 'largest weight', cells: r.exercise.map((e) => fmt(e.max)) },
        { name: 'entropy (nats)', cells: r.exercise.map((e) => fmt(e.entropy)) },
        { name: 'weights above 1/\u2060n', cells: r.exercise.map((e) => String(Array.from(e.p).filter((p) => p > 1 / n).length)) },
      ]);

      const logn = Math.log(n);
      const pts = (stat) => r.grid.map((x, i) => ({ x, y: r[stat].mean[i], lo: r[stat].lo[i], hi: r[stat].hi[i] }));
      const tauMark = marker(tau, `τ = ${tauText(tau)}`);
      const ticks = [0.25, 0.5, 1, 2, 4];
      const name = `mean of ${fmtInt(rows)} queries, dₖ = ${dk}`;
      const table = (stat, caption) => dataTable(caption, ['τ/\u2060√dₖ', 'τ', 'mean', '95% interval'],
        r.grid.map((t, i) => [fmt(t, 3), fmt(t * root), fmt(r[stat].mean[i]), fmtInterval([r[stat].lo[i], r[stat].hi[i]])]));
      showSweepCurves(maxPanel.plot, {
        series: [{ name, points: pts('maxWeight') }], refs: [{ name: `uniform: 1/n = ${fmt(1 / n)}`, y: 1 / n, left: true }],  // at the left: the curve meets it at high τ
        marker: tauMark, xTicks: ticks, xLabel: 'τ / √dₖ', yLabel: 'mean largest weight', yDomain: [0, 1],
      }, table('maxWeight', 'Largest weight against τ as a table'));
      showSweepCurves(hPanel.plot, {
        series: [{ name, points: pts('entropy') }], refs: [{ name: `uniform: log n = ${fmt(logn)}`, y: logn, left: true }],
        marker: tauMark, xTicks: ticks, xLabel: 'τ / √dₖ', yLabel: 'mean entropy (nats)', yDomain: [0, logn * 1.08],
      }, table('entropy', 'Entropy against τ as a table'));
      const i = r.grid.indexOf(tau), i1 = r.grid.indexOf(1);
      const at = (stat, k) => [fmt(r[stat].mean[k]), fmtInterval([r[stat].lo[k], r[stat].hi[k]])];
      const head = ['temperature', 'mean', '95% interval'];
      const rowsFor = (stat) => [
        { name: `τ = ${tauText(tau)}`, cells: at(stat, i) },
        ...(i === i1 ? [] : [{ name: 'τ = √dₖ', cells: at(stat, i1) }]),
      ];
      fillTable(maxPanel.table, head, rowsFor('maxWeight'));
      fillTable(hPanel.table, head, rowsFor('entropy'));

      setTex(formula, String.raw`\begin{gathered}p=\operatorname{softmax}(s/\tau),\qquad \frac{dH}{d\tau}=\frac{\operatorname{Var}_{p}(s)}{\tau^{3}}\ \ge 0\\
        \tau=${short(tau)}\cdot\sqrt{${dk}}=${tex(tau * root)}:\quad \overline{\max_j p_j}=${tex(r.maxWeight.mean[i])},\ \ \overline{H(p)}=${tex(r.entropy.mean[i])}
        ${i === i1 ? '' : String.raw`\qquad(\tau=\sqrt{d_k}:\ ${tex(r.maxWeight.mean[i1])},\ ${tex(r.entropy.mean[i1])})`}\end{gathered}`, true);

      // The claim, measured: below √d_k the mean largest weight is higher and the mean entropy lower
      // than at √d_k, above it the other way round (same draws at every τ: a paired comparison).
      const below = r.grid.map((t, k) => [t, k]).filter(([t]) => t < 1), above = r.grid.map((t, k) => [t, k]).filter(([t]) => t > 1);
      const sharper = below.every(([, k]) => r.maxWeight.mean[k] > r.maxWeight.mean[i1] && r.entropy.mean[k] < r.entropy.mean[i1]);
      const softer = above.every(([, k]) => r.maxWeight.mean[k] < r.maxWeight.mean[i1] && r.entropy.mean[k] > r.entropy.mean[i1]);
      const [e05, e1, e2] = r.exercise;
      const lines = [
        `Sharper below √dₖ: ${sharper ? 'yes' : 'no'}. At ${sharper ? 'each' : 'not every one'} of the ${below.length} temperatures below √dₖ on the grid, ` +
        `the mean largest weight is above its value at √dₖ and the mean entropy below it. Softer above √dₖ: ` +
        `${softer ? 'yes' : 'no'}, ${softer ? 'at all' : 'not at all'} ${above.length} temperatures above it, the other way round.`,
        `Not only on average: with the draws held fixed, the entropy rises strictly at every step from τ = ${tauText(r.grid[0])} to ` +
        `${tauText(r.grid[r.grid.length - 1])} for ${fmtInt(r.strictRows)} of the ${fmtInt(rows)} queries, and the largest weight ` +
        `never rises for ${fmtInt(r.monotoneMaxRows)} of them.` +
        (r.strictRows < rows ? stallText(r.stalls, rows - r.strictRows) : ''),
        `Exercise 4, answered for query ${q}${query > rows ? ` (the control asks for query ${query}, but ${fmtInt(rows)} were drawn)` : ''} ` +
        `against this figure’s ${n} keys (the exercises step asks it of its own query and ${EXERCISE_4_KEYS} keys): at τ = 0.5√dₖ its largest weight is ${fmt(e05.max)} (entropy ${fmt(e05.entropy)}), ` +
        `at √dₖ ${fmt(e1.max)} (${fmt(e1.entropy)}), at 2√dₖ ${fmt(e2.max)} (${fmt(e2.entropy)}). Halving τ doubles every score gap, so ` +
        `the weight ratios are squared and the pattern concentrates on the leading keys; doubling τ takes their square roots and ` +
        `the pattern flattens towards 1/\u2060n.`,
      ];
      say(lines);

      // at τ = √d_k itself there is nothing to compare with
      const against = i === i1 ? '' : `, against ${fmt(r.maxWeight.mean[i1])} and ${fmt(r.entropy.mean[i1])} at τ = √dₖ`;
      summary.textContent =
        `At τ = ${tauText(tau)} = ${fmt(tau * root)} (dₖ = ${dk}, ${n} keys, ${fmtInt(rows)} queries, seed ${seed}), the largest weight averages ` +
        `${fmt(r.maxWeight.mean[i])} and the entropy ${fmt(r.entropy.mean[i])} nats${against}: ` +
        `${tau < 1 ? 'sharper' : tau > 1 ? 'softer' : 'the standard scale'}.`;
      figure.done();
    },
  };
}
