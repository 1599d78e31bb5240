// (eq:vanishing-gradients) The softmax Jacobian J = diag(p) − ppᵀ shrinks with the weights it is
// made of: a peaked (unscaled) row passes almost no gradient to its scores, a one-hot row none.
import { keepSweepCurves, showSweepCurves } from '../plots/sweep-curves.js';
import { SERIES_COLORS, niceCeil } from '../plots/style.js';
import { keepHeatmap, showHeatmap } from '../plots/heatmap.js';
import { fmt, fmtInt, fmtInterval, fmtPow, fmtTiny, sub } from '../format.js';
import { dataTable, fillTable, grid, keepTex, liveFormula, liveSummary, panel, setTex, shownTable } from '../readout.js';
import { DK_TICKS, marker } from './dk-axis.js';
import { SERIES, SWEEP_PARAMS, list, nearbyRequests, nonMaxMass, outside, quote, runBoth, sourcesPanel, tex } from './softmax-shared.js';

export const id = 'vanishing-gradients';

export const params = SWEEP_PARAMS;

const MEDIAN = 'q·k (no scale), median';

// Both sweep plots share one log axis, 10⁻¹² … 1, whatever n, the sample or the seed: curves of
// several settings can be compared, and another seed moves the points in place. The unscaled
// median falls below the floor at large d_k for some seeds (and is 0 where most rows are exactly
// one-hot): such points leave the frame at its bottom (the plots clip to it), and an interval
// whose lower end is at or below the floor (a mean − 1.96 SE below 0, on a skewed sample) is
// drawn down to it. The tables hold every value.
const FLOOR = 1e-12;
const BELOW = FLOOR / 1000;  // where a 0 is drawn: out of the frame

// Mean with its 95% interval and, for the unscaled rows, the median, of one statistic against d_k.
function seriesOf(s, stat) {
  const pts = (k, which) => s.dks.map((x, i) => {
    const v = s.scales[k][stat];
    if (which === 'median') return { x, y: Math.max(v.median[i], BELOW) };
    return { x, y: Math.max(v.mean[i], BELOW), lo: Math.max(v.lo[i], FLOOR), hi: Math.max(v.hi[i], FLOOR) };
  });
  return [{ name: SERIES.none, points: pts('none') }, { name: SERIES.sqrt, points: pts('sqrt') }, { name: MEDIAN, points: pts('none', 'median') }];
}

// A norm's mean, median and 95% interval over rows, as the tables show them: fmtTiny, since a
// saturated row's norm is 10⁻²⁷ or less, which fmt writes as 0, a one-hot row's exact value; the
// interval (mean ± 1.96 standard errors, a normal approximation; softmaxSweep clips it at 0).
const normCells = (a, i) => [fmtTiny(a.mean[i]), fmtInterval([a.lo[i], a.hi[i]]), fmtTiny(a.median[i])];

// Why a float32 ‖J‖ differs from the one a reader works out by hand, when it does: the largest
// weight rounds to exactly 1, so its own entry p_m(1 − p_m) is 0, where exactly it is ≈ 1 − p_m.
function roundedToOne({ p, exactFrobenius }) {
  const m = p.indexOf(1);
  if (m < 0) return '';
  const pm = `p${sub(m + 1)}`;
  return ` in float32, where ${pm} rounds to exactly 1 and so J${sub(m + 1)}${sub(m + 1)} = ${pm}(1 − ${pm}) to 0; ` +
    `in exact arithmetic that entry is about the other weights’ sum, and ‖J‖ = ${fmt(exactFrobenius, 2)}`;
}

// How many of the sampled rows at the largest d_k came out exactly one-hot, as the end of a sentence.
const oneHotAt = (count, rows, dk) =>
  count === 0 ? `none of the ${fmtInt(rows)} queries at dₖ = ${dk} is, with these settings.`
    : `${fmtInt(count)} of the ${fmtInt(rows)} queries at dₖ = ${dk} ${count === 1 ? 'is, and sends' : 'are, and send'} back exactly nothing.`;

function sweepData(caption, s, stat, live) {
  const [none, sqrt] = [SERIES.none, SERIES.sqrt];
  const cols = ['dₖ', ...['mean', '95% interval', 'median', 'one-hot rows'].map((name) => ({ group: none, name })),
    ...['mean', '95% interval'].map((name) => ({ group: sqrt, name }))];
  const rows = s.dks.map((dk, i) => {
    const [mean, interval, median] = normCells(s.scales.none[stat], i), scaled = normCells(s.scales.sqrt[stat], i);
    return [String(dk), mean, interval, median, `${s.scales.none.oneHot[i]} of ${s.rows}`, scaled[0], scaled[1]];
  });
  return dataTable(caption, cols, rows, live);
}

const requestsOf = ({ dk, n, rows, seed, query }) => ({
  sweep: { name: 'vanishingGradientsSweep', params: { n, rows, seed } },
  row: { name: 'vanishingGradientsRow', params: { dk, n, seed, query } },
});

// The Jacobians of the query's peaked and spread rows as heatmaps, on one colour scale
// (showHeatmap's options, by the label of their side).
function mapsOf(r) {
  const { n, dk } = r;
  const extent = niceCeil(Math.max(r.peaked.maxAbs, r.spread.maxAbs, 1e-12));  // one scale for both, kept across redraws
  const names = Array.from({ length: n }, (_, j) => String(j + 1));
  const cell = Math.max(12, Math.min(34, Math.floor(300 / n)));
  const map = (x, label) => ({
    values: x.J, rows: n, cols: n, rowLabel: 'i (weight pᵢ)', colLabel: 'j (score sⱼ)', label: 'Jᵢⱼ = ∂pᵢ/∂sⱼ',
    diverging: true, domain: [-extent, extent], rowNames: names, colNames: names, cellText: n <= 6,
    width: cell * n + 60, height: cell * n + 90,
    ariaLabel: `${n}×${n} softmax Jacobian of query ${r.query} at d_k = ${dk}, ${label}; colour scale shared with the other panel`,
  });
  return { 'no scale': map(r.peaked, 'no scale'), [`÷√${dk}`]: map(r.spread, `÷√${dk}`) };
}

// The definition on a line of its own: beside the numbers it ran 9px past a 1200px page at
// d_k = 128. \cdot and the number apart: a number right after a command's letters is not one
// web/tex.js can patch, so the formula would be typeset anew on every redraw.
function formulaOf(r) {
  const { n, dk } = r;
  const m = r.spread.argmax, o = (m + 1) % n, pm = r.spread.p[m], po = r.spread.p[o];
  return String.raw`\begin{aligned}
      &J_{ij}=\frac{\partial p_i}{\partial s_j}=p_i(\delta_{ij}-p_j)\\
      &\text{scaled row }(\div\sqrt{${dk}})\colon\quad J_{${m + 1},${m + 1}}=${tex(pm)}\,(1-${tex(pm)})=${tex(r.spread.J[m * n + m])},\quad
      J_{${m + 1},${o + 1}}=-${tex(pm)}\cdot ${tex(po)}=${tex(r.spread.J[m * n + o])}\\
      &\lVert J\rVert_F=${tex(r.peaked.frobenius)}\ \text{(no scale)},\quad ${tex(r.spread.frobenius)}\ (\div\sqrt{${dk}}),\quad
      \sqrt{n-1}/n=${tex(r.uniformNorm)}\ \text{(uniform)}
      \end{aligned}`;
}

// The two sweep plots, ‖J‖ and the non-max gradient against d_k (showSweepCurves' options).
function curvesOf(s, dk) {
  const uniform = Math.sqrt(s.n - 1) / s.n;
  return {
    norm: {
      series: seriesOf(s, 'jacobianNorm'), refs: [{ name: `uniform: √(n−1)/n = ${fmt(uniform)}`, y: uniform, dy: -18 }],  // above the scaled curve, which runs just above the level
      marker: marker(dk), xTicks: DK_TICKS, colors: SERIES_COLORS.slice(0, 3),
      xLabel: 'dₖ', yLabel: '‖J‖', yLog: true, yDomain: [FLOOR, 1], clip: true, height: 300,
    },
    grad: {
      series: seriesOf(s, 'nonmaxGrad'), marker: marker(dk), xTicks: DK_TICKS, colors: SERIES_COLORS.slice(0, 3),
      xLabel: 'dₖ', yLabel: 'mean ‖∂p/∂sⱼ‖ over non-max j', yLog: true, yDomain: [FLOOR, 1], clip: true, height: 300,
    },
  };
}

export function mount(figure, { run, ahead }) {
  const formula = liveFormula();
  const peaked = panel('Peaked row: J for softmax(q·k)');
  const spread = panel('Spread row: J for softmax(q·k / √dₖ)');
  const normPanel = panel('Frobenius norm ‖J‖ against dₖ');
  const gradPanel = panel('Gradient reaching a non-max score against dₖ');
  const checks = sourcesPanel('Source 002’s “healthy gradients”, and a one-hot row');
  const { say } = checks;
  const summary = liveSummary();
  figure.body.append(formula, grid(peaked.el, spread.el), grid(normPanel.el, gradPanel.el), checks.el, summary);

  function drawRow(r) {
    const { n } = r;
    const names = Array.from({ length: n }, (_, j) => String(j + 1));
    const maps = mapsOf(r);
    for (const [side, x, label] of [[peaked, r.peaked, 'no scale'], [spread, r.spread, `÷√${r.dk}`]]) {
      showHeatmap(side.plot, maps[label], dataTable(`J (${label}) as a table`, ['i\u00a0\\\u00a0j', ...names], names.map((nm, i) =>
        [nm, ...Array.from(x.J.subarray(i * n, (i + 1) * n), (v) => fmtTiny(v))]), shownTable(side.plot)));  // a −7.7×10⁻¹³ is not the one-hot row's exact 0
      fillTable(side.table, ['quantity', `query ${r.query}`, 'uniform weights'], [
        { name: 'largest weight', cells: [fmt(Math.max(...x.p)), fmt(1 / n)] },
        // (fmtTiny: a peaked row's ‖J‖ can be 5.5×10⁻⁴³, which fmt writes as 0, the one-hot value)
        { name: '‖J‖', cells: [fmtTiny(x.frobenius), `√(n−1)/\u2060n = ${fmt(r.uniformNorm)}`] },
        { name: 'largest |Jᵢⱼ|', cells: [fmtTiny(x.maxAbs), fmt((1 - 1 / n) / n)] },
        { name: 'mean ‖∂p/\u2060∂sⱼ‖, j ≠ max', cells: [fmtTiny(x.nonmaxGrad), fmt(Math.sqrt((n - 1) / n) / n)] },
      ]);
    }
    setTex(formula, formulaOf(r), true);
  }

  function drawCurves(s, dk) {
    const curves = curvesOf(s, dk);
    showSweepCurves(normPanel.plot, curves.norm, sweepData('‖J‖ against dₖ as a table', s, 'jacobianNorm', shownTable(normPanel.plot)));
    showSweepCurves(gradPanel.plot, curves.grad, sweepData('Non-max gradient against dₖ as a table', s, 'nonmaxGrad', shownTable(gradPanel.plot)));
    const i = s.dks.indexOf(dk);
    const rowsAt = (stat) => [
      { name: SERIES.none, cells: normCells(s.scales.none[stat], i) },
      { name: SERIES.sqrt, cells: normCells(s.scales.sqrt[stat], i) },
    ];
    const head = [`at dₖ = ${dk}`, `mean of ${fmtInt(s.rows)}`, '95% interval', 'median'];
    fillTable(normPanel.table, head, rowsAt('jacobianNorm'));
    fillTable(gradPanel.table, head, rowsAt('nonmaxGrad'));
  }

  function drawChecks(r, s) {
    const c = r.course, h = r.oneHot;
    const n = c.p.length;
    const cols = Array.from({ length: n }, (_, j) => `j = ${j + 1}`);
    // (a row sums to 0 exactly; in float32 to within a few units of its entries' rounding, ~1e-8)
    fillTable(checks.table, [`J for p = ${quote(c.p, 1)}`, ...cols, 'text says', 'row sum (0 but for float32 rounding)'],
      Array.from({ length: n }, (_, i) => ({
        name: `i = ${i + 1}`,
        cells: [...Array.from(c.J.subarray(i * n, (i + 1) * n), (v) => fmt(v, 3)), c.claimed[i].toFixed(2), fmt(c.rowSums[i])],
      })));
    const last = s.dks.length - 1;
    const lines = [
      `The course text’s (source 002) “gradients ≈ ${quote(c.claimed, 2)}” for weights ${quote(c.p, 1)} are right as the diagonal of J, ` +
      `pᵢ(1 − pᵢ), which the engine computes as ${list(c.diagonal, 3)} (within ${fmt(c.error, 2)}). ` +
      `As a gradient they mislead: each is how one weight responds to its own score. The gradient of p₁ with respect to the four ` +
      `scores, ∂p₁/\u2060∂sⱼ, is row 1 of J (its column 1 too: J is symmetric), ${list(c.gradP1, 2)} from the engine’s backward pass, and its entries sum to ${fmt(c.gradP1.reduce((a, v) => a + v, 0))}; ` +
      `what training sends to the scores is J times ∂L/\u2060∂p. The example itself is healthy, as claimed: its ‖J‖ is ${fmt(c.frobenius, 4)}, ` +
      `about as large as for uniform weights over 4 keys, √3/4 = ${fmt(Math.sqrt(3) / 4, 4)}.`,
      `A one-hot p = (1, 0, …, 0) over ${h.n} keys has J = 0 exactly: the engine’s largest |Jᵢⱼ| is ${fmtTiny(h.maxAbsJ)}, and its backward pass ` +
      `returns a gradient whose largest entry is ${fmtTiny(h.maxAbsGrad)} for an upstream gradient of norm ${fmt(h.upstreamNorm)}. ` +
      `The forum post’s (source 000) unscaled row ${quote(h.forum.scores)} is one-hot but for ${fmt(nonMaxMass(h.forum.p), 2)}, ` +
      `and its ‖J‖ is ${fmt(h.forum.frobenius, 2)}${roundedToOne(h.forum)}.`,
      `In float32, a weight at or below ${fmtPow(2, -150)} ≈ ${fmtPow('e', Math.log(2 ** -150))} (half the smallest number above 0, ${fmtPow(2, -149)}) rounds to 0, so a saturated row can be exactly one-hot: without the scale, ` +
      oneHotAt(s.scales.none.oneHot[last], s.rows, s.dks[last]),
    ];
    say(lines);
  }

  let drawn = null;  // the sweep and d_k the curves show
  return {
    async update(values) {
      const { dk, n, rows, seed, query } = values;
      const [s, r] = await runBoth(run, figure, id, requestsOf(values));
      if (!s || !r) return;
      drawRow(r);
      // the curves and the checks depend on the sweep (n, rows, seed) and d_k only: a new query
      // leaves them as they are (and a new room, figure.layout, draws them anew)
      const sweepKey = JSON.stringify([n, rows, seed, dk, figure.layout]);
      if (sweepKey !== drawn) {
        drawCurves(s, dk);
        drawChecks(r, s);
        drawn = sweepKey;
      }
      const i = s.dks.indexOf(dk);
      const J = (k, w = 'mean') => fmtTiny(s.scales[k].jacobianNorm[w][i]);
      summary.textContent =
        `At dₖ = ${dk} with ${n} keys and ${fmtInt(rows)} queries (seed ${seed}), the Frobenius norm ‖J‖ averages ${J('none')} without the scale ` +
        `(median ${J('none', 'median')}) and ${J('sqrt')} with it; from dₖ = ${s.slopeFrom} on, the unscaled mean falls as ` +
        `dₖ to the power ${fmt(s.jacobianSlope, 2)}. Query ${query} shown above${outside(query, rows)}: ‖J‖ = ${fmtTiny(r.peaked.frobenius)} unscaled, ` +
        `${fmtTiny(r.spread.frobenius)} scaled.` +
        (r.peaked.frobenius > r.spread.frobenius
          ? ` This row passes more unscaled: ‖J‖ is largest, ${fmt(r.splitNorm)}, when two weights split the row evenly, and smaller when all ${n} ` +
            `are equal (√(n−1)/\u2060n = ${fmt(r.uniformNorm)}), so a sharper row can pass more until one weight takes over. ` +
            'The curves of ‖J‖ against dₖ compare means over many rows.'
          : '');
      figure.done();
      // the seed and n one step either way, computed while the page is idle; n's maps and curves
      // built and its formula typeset ahead too, kept for when the reader moves n (a new seed draws
      // in place)
      ahead(nearbyRequests(id, values, requestsOf), (request, result) => {
        if (request.channel) {
          const maps = mapsOf(result);
          return [() => keepHeatmap(peaked.plot, maps['no scale']), () => keepHeatmap(spread.plot, maps[`÷√${result.dk}`]),
            () => keepTex(formula, formulaOf(result), true)];
        }
        const curves = curvesOf(result, request.values.dk);
        return [() => keepSweepCurves(normPanel.plot, curves.norm), () => keepSweepCurves(gradPanel.plot, curves.grad)];
      });
    },
  };
}
