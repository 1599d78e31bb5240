// (eq:dot-variance) Var(q·k) = d_k, and q·k/√d_k has variance 1, measured by sampling: histograms
// at the chosen d_k, and a sweep of the variance over d_k = 1 … 4096.
import { nextValues } from '../controls.js';
import { normalPdf, showHistogram } from '../plots/histogram.js';
import { showSweepCurves } from '../plots/sweep-curves.js';
import { niceCeil, powerDomain } from '../plots/style.js';
import { fmt, fmtInt, fmtInterval } from '../format.js';
import { dataTable, detailsFor, el, fillTable, grid, liveFormula, liveSummary, panel, setTex, show } from '../readout.js';
import { DK_TICKS, marker } from './dk-axis.js';
import './dot-variance.css';

export const id = 'dot-variance';

const DK_STOPS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096];

export const params = {
  dk: { kind: 'stops', values: DK_STOPS, default: 64, label: 'dₖ', spoken: 'd sub k', format: (v) => String(v) },
  count: { kind: 'stops', values: [500, 1000, 2000, 5000, 10000, 20000, 50000, 100000], default: 5000, label: 'pairs', format: fmtInt },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

const sqrtCI = ([lo, hi]) => [Math.sqrt(Math.max(0, lo)), Math.sqrt(hi)];
const inside = ([lo, hi], x) => lo <= x && x <= hi;
const exact = (x) => (Number.isInteger(x) ? String(x) : fmt(x, 4));  // a theory value: √64 is 8, not 8.000

// What the histograms and the sweep's point at their d_k have in common. Pair i comes from RNG
// stream i of the seed in both, so the shorter run is the longer one's first pairs; a d_k between
// the powers of two has no point.
function sharedPairs(points, dk, count) {
  const p = points.find((q) => q.dk === dk);
  const streams = 'Pair i comes from random stream i of the seed, as in the histograms';
  if (!p) return `${streams}; the sweep has no point at the histograms’ dₖ = ${dk}.`;
  return `${streams}, so at the histograms’ dₖ = ${dk} the point (${fmtInt(p.count)} pairs) and the histograms ` +
    `(${fmtInt(count)}) share their first ${fmtInt(Math.min(count, p.count))} pairs.`;
}

export function mount(figure, { run, ahead }) {
  const formula = liveFormula();
  const raw = panel('q·k, unscaled');
  const scaled = panel('q·k / √dₖ');
  const sweepTitle = el('h3', 'sweep-title', 'The variance against dₖ = 1, 2, 4, …, 4096');
  const sweepRaw = el('div', 'plot');
  const sweepScaled = el('div', 'plot');
  const sweepNote = el('p', 'sweep-note');
  const sweepAlt = document.createElement('div');
  detailsFor(sweepAlt, sweepRaw, sweepScaled);  // one table for both views of the sweep
  const summary = liveSummary();
  figure.body.append(formula, grid(raw.el, scaled.el), sweepTitle, grid(sweepRaw, sweepScaled), sweepNote, sweepAlt, summary);

  function draw(target, stats, sd, label, curveLabel, theoryVar) {
    showHistogram(target.plot, { ...stats, pdf: normalPdf(sd), xLabel: label, curveLabel });
    const inMean = inside(stats.meanCI, 0);
    const inVar = inside(stats.varianceCI, theoryVar);
    fillTable(target.table, ['statistic', 'measured', '95% interval', 'theory'], [
      { name: 'mean', cells: [fmt(stats.mean), fmtInterval(stats.meanCI), '0'], outside: !inMean },
      { name: 'std. deviation', cells: [fmt(Math.sqrt(stats.variance), 4), fmtInterval(sqrtCI(stats.varianceCI), 4), exact(sd)], outside: !inVar },
      { name: 'variance', cells: [fmt(stats.variance, 4), fmtInterval(stats.varianceCI, 4), String(theoryVar)], outside: !inVar },
    ]);
    return inVar;
  }

  // The sweep's axes hold every seed's points (checked over 200 seeds: the intervals of
  // Var(q·k) span 0.82 … 8257, those of Var(q·k)/d_k 0.29 … 2.15), so a new seed moves the points
  // in place through the same scales; the rare seed outside widens them. The marker is the
  // histograms' d_k, moved on its own.
  function drawSweep(sweep, dk, count) {
    const { points } = sweep;
    const rawPoints = points.map((p) => ({ x: p.dk, y: p.variance, lo: p.varianceCI[0], hi: p.varianceCI[1] }));
    const unitPoints = points.map((p) => ({ x: p.dk, y: p.variance / p.dk, lo: p.varianceCI[0] / p.dk, hi: p.varianceCI[1] / p.dk }));
    const here = marker(dk);
    showSweepCurves(sweepRaw, {
      // (a series name must not start with "Var(": Observable Plot would read it as a CSS var() colour)
      series: [{ name: 'measured variance of q·k', points: rawPoints }],
      refs: [{ name: 'y = dₖ', points: points.map((p) => ({ x: p.dk, y: p.dk })) }], marker: here, xTicks: DK_TICKS,
      xLabel: 'dₖ', yLabel: 'variance of q·k', yLog: true, yDomain: powerDomain([0.5, 16384, ...rawPoints.flatMap((p) => [p.lo, p.hi])], 2),
      width: 460, height: 280,
      ariaLabel: `Log–log plot of the measured variance of q·k against d_k from 1 to 4096, with 95% interval bars and the line y = d_k`,
    });
    showSweepCurves(sweepScaled, {
      series: [{ name: 'measured variance of q·k/\u2060√dₖ', points: unitPoints }],
      refs: [{ name: 'y = 1', y: 1, left: true, dx: 10, dy: -12 }], marker: here, xTicks: DK_TICKS,  // left: the wide bars of large dₖ cross the line on the right
      xLabel: 'dₖ', yLabel: 'variance of q·k/√dₖ', yDomain: [0, Math.max(2, niceCeil(Math.max(...unitPoints.map((p) => p.hi))))],
      width: 460, height: 280,
      ariaLabel: `The measured variance of q·k/√d_k against d_k from 1 to 4096 on a log axis, with 95% interval bars and the level y = 1`,
    });
    const misses = points.filter((p) => !inside(p.varianceCI, p.dk)).length;
    const at = (d) => points.find((p) => p.dk === d).count;
    sweepNote.textContent =
      `Pairs per point: n = min(4096, max(64, 2¹⁵/\u2060dₖ)), ${fmtInt(at(1))} at dₖ = 1, ${fmtInt(at(64))} at dₖ = 64, ` +
      `${fmtInt(at(4096))} at dₖ = 4096: ${fmtInt(sweep.normals)} normal draws in all, seed ${sweep.seed}. ` +
      `${sharedPairs(points, dk, count)} dₖ lies outside the 95% interval at ${misses} of ${points.length} points.`;
    if (sweep === drawnSweep) return;  // the table depends on the seed only
    drawnSweep = sweep;
    show(sweepAlt, dataTable('The sweep as a table', ['dₖ', 'pairs', 'Var(q·k)', '95% interval', 'Var(q·k)/\u2060dₖ'],
      points.map((p) => [p.dk, fmtInt(p.count), fmt(p.variance, 4), fmtInterval(p.varianceCI, 4), fmt(p.variance / p.dk, 4)])));
  }

  // The sweep depends on the seed only: computed once per seed, on its own worker channel so that
  // moving d_k (which reruns the histograms) does not cancel it.
  let sweepFor = null, drawnSweep = null;
  const progress = { main: 0, sweep: 1 };
  const report = () => figure.progress((progress.main + progress.sweep) / 2);

  return {
    async update({ dk, count, seed }) {
      if (sweepFor?.seed !== seed) {
        progress.sweep = 0;
        // stopped (null) or failed, the sweep is asked for again by the next update, rather than
        // kept as the seed's answer: every later update would have found it null and drawn nothing
        const entry = { seed, result: null };
        const forget = () => { if (sweepFor === entry) sweepFor = null; };
        entry.result = run('dotVarianceSweep', { seed }, {
          channel: `${id}:sweep`, worker: true, onProgress: (p) => { progress.sweep = p; report(); },
        }).then(
          (r) => { if (r === null) forget(); else progress.sweep = 1; return r; },
          (err) => { forget(); throw err; },
        );
        sweepFor = entry;
      }
      progress.main = 0;
      const [r, sweep] = await Promise.all([
        run('dotVariance', { dk, count, seed }, { onProgress: (p) => { progress.main = p; report(); } }),
        sweepFor.result,
      ]);
      if (!r || !sweep) return;  // superseded by a newer request
      const sd = Math.sqrt(dk);
      const okRaw = draw(raw, r.raw, sd, 'q·k', `N(0, ${dk})`, dk);
      const okScaled = draw(scaled, r.scaled, 1, 'q·k/√dₖ', 'N(0, 1)', 1);
      drawSweep(sweep, dk, count);  // a new d_k or count on the same sweep moves its marker and rewrites its note only
      // three items of theory → measured, each in two groups that do not break inside (a phone
      // broke "σ = √64 =" from its "8"): a line breaks before an arrow or between items
      // (the arrow as an ordinary symbol with its spaces written out: a relation first in its
      // group lost its space on the left)
      const item = (theory, measured) => String.raw`{${theory}}\allowbreak{\;\;\mathord{\to}\;\;${measured}}`;
      setTex(formula, item(String.raw`\operatorname{Var}(q\cdot k)=d_k=${dk}`, String.raw`\text{measured }${fmt(r.raw.variance, 4)},`) +
        String.raw`\qquad\allowbreak ` + item(String.raw`\sigma=\sqrt{${dk}}=${exact(sd)}`, `${fmt(Math.sqrt(r.raw.variance), 4)},`) +
        String.raw`\qquad\allowbreak ` + item(String.raw`\operatorname{Var}\!\big(q\cdot k/\sqrt{d_k}\big)=1`, fmt(r.scaled.variance, 4)));
      summary.textContent =
        `With dₖ = ${dk} and ${fmtInt(count)} pairs (seed ${seed}), the sampled variance of q·k is ` +
        `${fmt(r.raw.variance, 4)} (theory ${dk}, ${okRaw ? 'inside' : 'outside'} the 95% interval), a standard deviation of ` +
        `${fmt(Math.sqrt(r.raw.variance), 4)} against √${dk} = ${exact(sd)}; ` +
        `after dividing by √dₖ the variance is ${fmt(r.scaled.variance, 4)} (theory 1, ${okScaled ? 'inside' : 'outside'}).`;
      figure.done(r);
      // the seed one step either way, computed while the page is idle (its histograms and its
      // sweep: ~6 ms in the worker, whose answer would come after the input's frame); chosen, it
      // draws in place like any new seed
      ahead(nextValues(params.seed, seed).flatMap((s) => [
        { name: 'dotVariance', params: { dk, count, seed: s } },
        { name: 'dotVarianceSweep', params: { seed: s }, channel: `${id}:sweep` },
      ]));
    },
  };
}
