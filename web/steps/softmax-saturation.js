// (eq:softmax-saturation) Unscaled scores have spread √d_k, and softmax turns a wide spread into
// a near one-hot vector; divided by √d_k the weights keep the same distribution at every d_k.
import { keepBars, showBars } from '../plots/bars.js';
import { keepSweepCurves, showSweepCurves } from '../plots/sweep-curves.js';
import { fmt, fmtInt, fmtInterval, sub } from '../format.js';
import { dataTable, el, fillTable, grid, keepTex, liveFormula, liveSummary, panel, setTex } from '../readout.js';
import { DK_TICKS, marker } from './dk-axis.js';
import { SERIES, SWEEP_PARAMS, list, nearbyRequests, nonMaxMass, outside, quote, runBoth, sourcesPanel, sweepPoints, sweepTable, tex } from './softmax-shared.js';

export const id = 'softmax-saturation';

export const params = SWEEP_PARAMS;

const requestsOf = ({ dk, n, rows, seed, query }) => ({
  sweep: { name: 'softmaxSweep', params: { n, rows, seed, scales: ['none', 'sqrt'] } },
  row: { name: 'softmaxSaturationRow', params: { dk, n, seed, query } },
});

// The query's weights as bars, unscaled beside scaled (showBars' options).
function barsOf(r) {
  const { n, dk } = r;
  return {
    categories: Array.from({ length: n }, (_, j) => `k${sub(j + 1)}`), width: 900, height: 230,
    series: [{ name: SERIES.none, values: Array.from(r.p) }, { name: SERIES.sqrt, values: Array.from(r.pScaled) }],
    ariaLabel: `Softmax weights of query ${r.query} over ${n} keys at d_k = ${dk}, unscaled and scaled by 1/√${dk}`,
  };
}

const formulaOf = (r) => String.raw`p_j=\frac{e^{s_j}}{\sum_{l=1}^{${r.n}} e^{s_l}}:\qquad\begin{aligned}
      s_j&=q\cdot k_j &&\Rightarrow\ \max_j p_j=${tex(r.max)},\ \ H(p)=${tex(r.entropy)}\\
      s_j&=q\cdot k_j/\sqrt{${r.dk}} &&\Rightarrow\ \max_j p_j=${tex(r.maxScaled)},\ \ H(p)=${tex(r.entropyScaled)}
      \end{aligned}`;

// The two sweep plots, largest weight and entropy against d_k (showSweepCurves' options).
function curvesOf(s, dk) {
  const { n } = s, logn = Math.log(n);
  return {
    max: {
      series: [{ name: SERIES.none, points: sweepPoints(s, 'none', 'maxWeight') }, { name: SERIES.sqrt, points: sweepPoints(s, 'sqrt', 'maxWeight') }],
      refs: [{ name: `uniform: 1/n = ${fmt(1 / n)}`, y: 1 / n, dy: -14 }], marker: marker(dk), xTicks: DK_TICKS,  // clear above the level, as in scaling-choices
      xLabel: 'dₖ', yLabel: 'mean largest weight', yDomain: [0, 1],
    },
    entropy: {
      series: [{ name: SERIES.none, points: sweepPoints(s, 'none', 'entropy') }, { name: SERIES.sqrt, points: sweepPoints(s, 'sqrt', 'entropy') }],
      refs: [{ name: `uniform: log n = ${fmt(logn)}`, y: logn, dy: 10 }], marker: marker(dk), xTicks: DK_TICKS,
      xLabel: 'dₖ', yLabel: 'mean entropy (nats)', yDomain: [0, logn * 1.08],
    },
  };
}

export function mount(figure, { run, ahead }) {
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
    const { n } = r;
    const bars = barsOf(r), cats = bars.categories;
    showBars(one.plot, bars, dataTable(`Scores and weights of query ${r.query} as a table`, ['key', 'q·kⱼ', 'q·kⱼ/\u2060√dₖ', 'weight, no scale', 'weight, ÷√dₖ'],
      cats.map((c, j) => [c, fmt(r.scores[j]), fmt(r.scaledScores[j]), fmt(r.p[j]), fmt(r.pScaled[j])])));
    fillTable(one.table, [`query ${r.query}`, SERIES.none, SERIES.sqrt, 'uniform limit', 'one-hot limit'], [
      { name: 'largest weight', cells: [fmt(r.max), fmt(r.maxScaled), `1/\u2060n = ${fmt(1 / n)}`, '1'] },
      { name: 'entropy (nats)', cells: [fmt(r.entropy), fmt(r.entropyScaled), `log n = ${fmt(Math.log(n))}`, '0'] },
      { name: 'score range', cells: [fmt(Math.max(...r.scores) - Math.min(...r.scores)), fmt(Math.max(...r.scaledScores) - Math.min(...r.scaledScores)), '0', '∞'] },
    ]);
    setTex(formula, formulaOf(r), true);
  }

  function drawCurves(s, dk) {
    const i = s.dks.indexOf(dk);
    const curves = curvesOf(s, dk);
    showSweepCurves(curvesMax.plot, curves.max, sweepTable('Largest weight against dₖ as a table', s, ['none', 'sqrt'], 'maxWeight'));
    showSweepCurves(curvesH.plot, curves.entropy, sweepTable('Entropy against dₖ as a table', s, ['none', 'sqrt'], 'entropy'));
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
    fillTable(course, ['source 002, dₖ = 64', 'score', 'text says', 'engine', `score ÷ ${c.divisor}`, 'text says', 'engine'], [
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
      `The course text’s (source 002) unscaled weights are right to within ${fmt(c.error, 2)}. Its scaled weights are not: ` +
      `they sum to ${fmt(c.claimedScaledSum)}, not 1, and the engine computes ${list(c.pScaled, 3)} ` +
      `(largest error ${fmt(c.errorScaled, 2)}).`,
      `The course text also says scores ${quote(p.scores).replace(']', ', …]')} give weights near ${quote(p.claimed, 2).replace(']', ', …]')}; ` +
      `they cannot. Whatever “…” holds, the first and third weights stand in the ratio exp(${quote([p.scores[0]]).slice(1, -1)} − ${quote([p.scores[2]]).slice(1, -1)}) = ${fmt(p.ratio)} ` +
      `(the engine gives ${list(p.p)} for the three listed scores), and a ratio of ${fmt(p.claimedRatio, 2)} would need a gap of ${fmt(p.gapNeeded)}.`,
      `The forum post’s (source 000) unscaled row ${quote(f.scores)} is one-hot to within ${fmt(nonMaxMass(f.p), 2)} ` +
      `(the engine: ${list(f.p, 2)}); its scaled row ${quote(f.scaled)} (the same divided by ${fmt(f.root, 1)}, rounded) ` +
      `still puts ${fmt(f.maxScaled)} on one key, entropy ${fmt(f.entropyScaled)} of a possible log 4 = ${fmt(Math.log(4))}: ` +
      `softer, but hardly spread out.`,
      `Nor do scores “easily look like” that row: a spread of ${fmt(odds.spread, 2)} from the smallest to the largest of 4 scores at dₖ = ${odds.dk} ` +
      `turned up in ${fmtInt(odds.hits)} of ${fmtInt(odds.rows)} sampled rows ` +
      `(${fmt(100 * odds.fraction, 2)}%, 95% interval ${fmt(100 * odds.ci[0], 2)}–${fmt(100 * odds.ci[1], 2)}%), ` +
      `about one row in ${fmtInt(Math.round(1 / Math.max(odds.fraction, 1 / odds.rows)))}; the exact probability is one in ` +
      `${fmtInt(Math.round(1 / odds.theory))} (${fmt(100 * odds.theory, 2)}%: the rows share their query, which makes wide rows ${fmt(odds.theory / odds.independent, 2)} times as likely as independent scores of variance ${odds.dk} would).`,
    ];
    say(lines);
  }

  return {
    async update(values) {
      const { dk, n, rows, seed, query } = values;
      const [s, r] = await runBoth(run, figure, id, requestsOf(values));
      if (!s || !r) return;
      drawQuery(r);
      drawCurves(s, dk);
      drawSources(r.sources, r.spreadOdds);
      const i = s.dks.indexOf(dk);
      const m = (k, stat) => fmt(s.scales[k][stat].mean[i]);
      summary.textContent =
        `At dₖ = ${dk} with ${n} keys, over ${fmtInt(rows)} queries (seed ${seed}), the largest weight averages ` +
        `${m('none', 'maxWeight')} unscaled and ${m('sqrt', 'maxWeight')} scaled by 1/\u2060√${dk}, and the entropy ` +
        `${m('none', 'entropy')} and ${m('sqrt', 'entropy')} nats, against ${fmt(Math.log(n))} for uniform weights; ` +
        `query ${query} shown above${outside(query, rows)} puts ${fmt(r.max)} of its weight on one key unscaled and ${fmt(r.maxScaled)} scaled.`;
      figure.done();
      // the seed and n one step either way, computed while the page is idle; n's bars and curves
      // built ahead too, kept for when the reader moves n (a new seed draws in place)
      ahead(nearbyRequests(id, values, requestsOf), (request, result) => {
        if (request.channel) return [() => keepBars(one.plot, barsOf(result)), () => keepTex(formula, formulaOf(result), true)];
        const curves = curvesOf(result, request.values.dk);
        return [() => keepSweepCurves(curvesMax.plot, curves.max), () => keepSweepCurves(curvesH.plot, curves.entropy)];
      });
    },
  };
}
