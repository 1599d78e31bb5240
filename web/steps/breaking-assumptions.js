// (eq:breaking-assumptions) Var(q·k) against d_k when a premise fails: a mean, a correlation,
// heavy tails, LayerNorm. Each with the formula that holds instead.
import { DEPARTURES, breakingRequest } from '../experiments/breaking-assumptions.js';
import { keepTheory, showTheory } from '../plots/theory-lines.js';
import { niceCeil, powerDomain } from '../plots/style.js';
import { fmt, fmtInt, fmtInterval } from '../format.js';
import { dataTable, detailsFor, fillTable, grid, keepTex, liveFormula, liveSummary, panel, setTex, show } from '../readout.js';
import './breaking-assumptions.css';

export const id = 'breaking-assumptions';

const DEPARTURE_LABELS = {
  mean: 'non-zero mean μ',
  rho: 'correlation ρ between qᵢ and kᵢ',
  'student-t': 'heavy tails (Student-t, ν degrees of freedom)',
  layernorm: 'LayerNorm on q and k (QK-norm)',
};

export const params = {
  departure: { kind: 'choice', options: DEPARTURE_LABELS, default: 'mean', label: 'premise broken' },
  mu: { kind: 'stops', values: [0, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2], default: 0.5, label: 'mean μ', spoken: 'mean mu', format: (v) => String(v) },
  rho: { kind: 'stops', values: [-0.9, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 0.9], default: 0.5, label: 'correlation ρ', spoken: 'correlation rho', format: (v) => String(v).replace('-', '−') },
  df: { kind: 'stops', values: [3, 4, 5, 6, 8, 10, 20], default: 5, label: 'Student-t ν', spoken: 'Student t nu', format: (v) => String(v) },
  count: { kind: 'stops', values: [200, 500, 1000, 2000, 5000, 10000, 20000], default: 500, label: 'pairs per dₖ', format: fmtInt },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

const num = (v) => String(v).replace('-', '−');

// A departure set to strength 0 (μ = 0, ρ = 0): the premise holds after all.
const unbroken = (what, premise, symbol) =>
  `${what} breaks nothing: ${premise} holds, each product qᵢkᵢ has mean 0 and variance 1, so Var(q·k) = dₖ and 1/\u2060√dₖ ` +
  `normalises, as the derivation says. Choose a non-zero ${symbol} to see the premise fail.`;

// Per departure: the formulas as TeX and as text, and the sentence on what it breaks.
function describeDeparture(departure, { mu, rho, df }) {
  switch (departure) {
    case 'mean': return {
      tex: String.raw`\mathbb{E}[q\cdot k]=d_k\mu^2,\quad \operatorname{Var}(q\cdot k)=d_k(1+2\mu^2)=d_k\,(1+2\cdot${num(mu)}^2)=${fmt(1 + 2 * mu * mu, 4)}\,d_k`,
      formula: 'dₖ(1 + 2μ²)', ratio: 'Var(q·k/\u2060√dₖ) = 1 + 2μ²', ratioOf: () => 1 + 2 * mu * mu,
      premise: mu === 0 ? unbroken('A mean μ = 0', '“mean 0”', 'μ')
        : `A mean μ = ${num(mu)} breaks “mean 0”: each product qᵢkᵢ has mean μ² and variance 1 + 2μ², so 1/\u2060√dₖ leaves a variance of ` +
          `1 + 2μ² = ${fmt(1 + 2 * mu * mu, 4)} and a mean √dₖ·μ² that grows with dₖ. The scale does not normalise.`,
    };
    case 'rho': return {
      tex: String.raw`\mathbb{E}[q\cdot k]=d_k\rho,\quad \operatorname{Var}(q\cdot k)=d_k(1+\rho^2)=d_k\,(1+(${num(rho)})^2)=${fmt(1 + rho * rho, 4)}\,d_k`,
      formula: 'dₖ(1 + ρ²)', ratio: 'Var(q·k/\u2060√dₖ) = 1 + ρ²', ratioOf: () => 1 + rho * rho,
      premise: rho === 0 ? unbroken('A correlation ρ = 0', '“q independent of k”', 'ρ')
        : `A correlation ρ = ${num(rho)} breaks “q independent of k”: each qᵢkᵢ has mean ρ and variance 1 + ρ², so 1/\u2060√dₖ leaves a variance of ` +
          `1 + ρ² = ${fmt(1 + rho * rho, 4)} and a mean √dₖ·ρ that grows with dₖ. The scale does not normalise.`,
    };
    case 'student-t': return {
      tex: String.raw`\operatorname{Var}(q\cdot k)=d_k,\quad \kappa(q\cdot k)=3+\frac{m_4^2-3}{d_k},\ m_4=\mathbb{E}[q_i^4]=\frac{3(\nu-2)}{\nu-4}` +
        (df > 4 ? String.raw`=${fmt(3 * (df - 2) / (df - 4), 4)}` : String.raw`=\infty\ (\nu=${df}\le 4)`),
      formula: 'dₖ (unchanged)', ratio: null, ratioOf: () => 1,
      premise: `Heavy tails (ν = ${df}) keep every premise the derivation used, mean 0, variance 1 and independence, so Var(q·k) = dₖ ` +
        `and 1/\u2060√dₖ still normalises. What they break is the fast convergence of the sample variance: its error depends on the fourth moment, ` +
        (df > 4 ? `which is ${fmt(3 * (df - 2) / (df - 4), 3)} per entry instead of 3, so the intervals are wider than with normal entries.`
          : `which is infinite for ν ≤ 4: the sample variance still converges, but more slowly than 1/\u2060√N, and its 95% intervals ` +
            `(which assume a finite fourth moment) no longer cover dₖ 95% of the time.`),
    };
    default: return {
      tex: String.raw`\mathbb{E}[q_iq_j]=-\frac{1}{d_k-1}\ (i\ne j),\qquad \operatorname{Var}(q\cdot k)=d_k+\frac{d_k}{d_k-1}=\frac{d_k^2}{d_k-1}`,
      formula: 'dₖ²/\u2060(dₖ − 1)', ratio: 'Var(q·k/\u2060√dₖ) = dₖ/\u2060(dₖ − 1)', ratioOf: (dk) => dk / (dk - 1),
      premise: 'LayerNorm breaks independence within each vector: its entries sum to 0 and their squares to dₖ, so two entries are ' +
        'negatively correlated, E[qᵢqⱼ] = −1/\u2060(dₖ − 1). Then Var(q·k) = dₖ²/\u2060(dₖ − 1) and 1/\u2060√dₖ leaves dₖ/\u2060(dₖ − 1): close to 1, ' +
        'but visibly above it at small dₖ.',
    };
  }
}

// Heavy tails with a finite fourth moment (ν > 4): the formula gives the intervals' widths.
const hasTWidths = (pts) => Number.isFinite(pts[0].tHalfWidth);

// The four departures side by side, from the formulas at the current strengths: what each breaks
// and what the 1/√d_k scaling leaves. The words wrap; a formula is one unit, its spaces no-break
// ones (a line broke inside “1 + 2μ² = 1.500”).
const whole = (formula) => formula.replaceAll(' ', '\u00a0');
function overviewRows({ mu, rho, df }) {
  const m4 = df > 4 ? fmt(3 * (df - 2) / (df - 4), 3) : '∞';
  return [
    { key: 'mean', name: `mean ${whole(`μ = ${num(mu)}`)}`, cells: [mu === 0 ? `none (${whole('μ = 0')})` : 'mean 0', whole(`1 + 2μ² = ${fmt(1 + 2 * mu * mu, 4)}`), whole(`√dₖ·μ² = ${fmt(mu * mu, 3)}·√dₖ`), mu === 0 ? `yes (${whole('μ = 0')})` : 'no'] },
    { key: 'rho', name: `correlation ${whole(`ρ = ${num(rho)}`)}`, cells: [rho === 0 ? `none (${whole('ρ = 0')})` : 'q independent of k', whole(`1 + ρ² = ${fmt(1 + rho * rho, 4)}`), whole(`√dₖ·ρ = ${fmt(rho, 3)}·√dₖ`), rho === 0 ? `yes (${whole('ρ = 0')})` : 'no'] },
    { key: 'student-t', name: `Student-t, ${whole(`ν = ${df}`)}`, cells: [`none it uses (${whole(`m₄ = ${m4}`)}, not 3)`, '1', '0', 'yes, but samples show it slowly'] },
    { key: 'layernorm', name: 'LayerNorm on q, k', cells: ['independent entries', whole('dₖ/\u2060(dₖ − 1)'), '0', `nearly: exactly only as ${whole('dₖ → ∞')}`] },
  ];
}


// What the figure draws for one departure's sweep: its formula, and the two plots' options.
function drawingOf(values, r) {
  const { departure } = values;
  const d = describeDeparture(departure, values);
  const pts = r.points;
  const dks = pts.map((p) => p.dk);

  // left: Var(q·k) with intervals, the d_k line and the corrected formula
  const premiseLine = { name: 'dₖ, the derivation’s premise', points: pts.map((p) => ({ x: p.dk, y: p.dk })) };
  const corrected = { name: d.formula, points: pts.map((p) => ({ x: p.dk, y: p.formulaVariance })) };
  const measured = (f) => ({ name: 'measured, 95% interval', points: pts.map((p) => ({ x: p.dk, ...f(p) })) });
  // the y axes end on powers of 2 (left) or a nice number (right) beyond the data, so that a new
  // seed or sample size mostly keeps them, and the plots' marks move in place. The left one
  // leaves room for intervals from a third to 1.25 times the lines: the line d_k ends on a
  // power, 512, which the interval there straddles at about half the seeds
  const leftMeasured = measured((p) => ({ y: p.variance, lo: Math.max(p.varianceCI[0], 1e-3), hi: p.varianceCI[1] }));
  const leftLines = departure === 'student-t' ? [premiseLine] : [premiseLine, corrected];
  const left = {
    measured: [leftMeasured], lines: leftLines,
    xLabel: 'dₖ', yLabel: 'Var(q·k)', xLog: true, xBase: 2, yLog: true, yBase: 2, xTicks: dks, height: 300,
    // (an interval's lower end counts down to two octaves under its point: one that reaches
    // toward 0, as heavy tails' do, leaves the frame rather than stretch the axis to 2⁻¹⁰)
    yDomain: powerDomain([...leftMeasured.points.flatMap((p) => [Math.max(p.lo, p.y / 4), p.hi]), ...leftLines.flatMap((l) => l.points.flatMap((p) => [p.y / 3, p.y * 1.25]))], 2),
    ariaLabel: `Measured Var(q·k) against dₖ with the line dₖ and the formula ${d.formula}`,
  };

  // right: what 1/√d_k leaves, or (heavy tails) how wide the intervals are
  if (departure === 'student-t') {
    const lines = [{ name: 'normal entries: 1.96·√((2 + 6/\u2060dₖ)/\u2060n)', points: pts.map((p) => ({ x: p.dk, y: p.normalHalfWidth })) }];
    if (hasTWidths(pts)) lines.push({ name: `Student-t ν = ${values.df}: 1.96·√((2 + (m₄² − 3)/\u2060dₖ)/\u2060n)`, points: pts.map((p) => ({ x: p.dk, y: p.tHalfWidth })) });
    const widths = pts.map((p) => p.halfWidth);
    // the y axis ends on the powers of ten around the values: another seed's values (the
    // widths at small d_k scatter by half their size) then share it, and their marks move in place
    const ys = [...widths, ...lines.flatMap((l) => l.points.map((p) => p.y))];
    return { d, left, rightTitle: 'Half-width of the 95% interval, relative to dₖ', right: {
      measured: [{ name: 'measured half-width', points: pts.map((p, i) => ({ x: p.dk, y: widths[i] })) }], lines,
      xLabel: 'dₖ', yLabel: 'half-width / dₖ', xLog: true, xBase: 2, yLog: true, xTicks: dks, height: 300,
      yDomain: powerDomain(ys, 10),
      ariaLabel: 'Measured relative half-width of the variance interval against dₖ, with the widths expected for normal and Student-t entries',
    } };
  }
  const ys = pts.flatMap((p) => [p.varianceCI[0] / p.dk, p.varianceCI[1] / p.dk, d.ratioOf(p.dk), 1]);
  return { d, left, rightTitle: 'What 1/\u2060√dₖ leaves: Var(q·k/\u2060√dₖ)', right: {
    measured: [measured((p) => ({ y: p.variance / p.dk, lo: p.varianceCI[0] / p.dk, hi: p.varianceCI[1] / p.dk }))],
    lines: [{ name: '1, the premise', points: pts.map((p) => ({ x: p.dk, y: 1 })) },
      { name: d.ratio, points: pts.map((p) => ({ x: p.dk, y: d.ratioOf(p.dk) })) }],
    xLabel: 'dₖ', yLabel: 'Var(q·k)/dₖ', xLog: true, xBase: 2, xTicks: dks, height: 300,
    yDomain: [Math.min(0, ...ys), niceCeil(Math.max(...ys) * 1.05)],
    ariaLabel: `Measured Var(q·k)/dₖ against dₖ with the level 1 and the formula ${d.ratio}`,
  } };
}

// The data table's columns: the mean and the variance of q·k, measured and by the formulas (the
// derivation's premise, Var = dₖ, beside them); for heavy tails also the right plot's half-widths.
function dataColumns(departure, pts) {
  const mean = 'mean of q·k', variance = 'Var(q·k)', width = 'half-width of the interval / dₖ';
  return ['dₖ', { group: mean, name: 'measured' }, { group: mean, name: 'formula' },
    ...['measured', '95% interval', 'formula', 'premise, dₖ'].map((name) => ({ group: variance, name })),
    ...(departure !== 'student-t' ? [] : ['measured', 'normal entries', ...(hasTWidths(pts) ? ['Student-t'] : [])]
      .map((name) => ({ group: width, name })))];
}
const widthCells = (p) => [p.halfWidth, p.normalHalfWidth, ...(Number.isFinite(p.tHalfWidth) ? [p.tHalfWidth] : [])].map((x) => fmt(x, 3));

export function mount(figure, { run, ahead }) {
  const formula = liveFormula();
  const left = panel('Var(q·k) against dₖ (log–log)');
  const right = panel('');
  for (const p of [left, right]) p.table.remove();
  const data = document.createElement('div');
  detailsFor(data, left.plot, right.plot);  // one table for both plots
  const premise = document.createElement('p');
  premise.className = 'premise';
  const overview = panel('The four departures at these settings (formulas)');
  overview.plot.remove();
  overview.table.classList.add('words');
  const summary = liveSummary();
  figure.body.append(formula, grid(left.el, right.el), premise, data, overview.el, summary);

  return {
    async update(values) {
      const { departure, count, seed } = values;
      const r = await run('breakingSweep', breakingRequest(values), { onProgress: figure.progress });
      if (!r) return;
      const { d, left: leftPlot, rightTitle, right: rightPlot } = drawingOf(values, r);
      const pts = r.points;
      setTex(formula, d.tex, true);
      showTheory(left.plot, leftPlot);
      right.title.textContent = rightTitle;
      showTheory(right.plot, rightPlot);
      premise.textContent = d.premise;
      const rows = overviewRows(values);
      fillTable(overview.table, ['departure', 'premise it breaks', 'Var(q·k/\u2060√dₖ)', 'mean of q·k/\u2060√dₖ', 'does 1/\u2060√dₖ normalise?'],
        rows.map((r) => ({ ...r, name: r.key === departure ? `${r.name} (plotted)` : r.name })));
      overview.table.tBodies[0].rows[rows.findIndex((r) => r.key === departure)].classList.add('chosen');

      const inside = (p) => p.varianceCI[0] <= p.formulaVariance && p.formulaVariance <= p.varianceCI[1];
      show(data, dataTable('Data: every dₖ, measured and predicted', dataColumns(departure, pts),
        pts.map((p) => [p.dk, fmt(p.mean, 3), fmt(p.formulaMean, 4), fmt(p.variance, 4), fmtInterval(p.varianceCI, 4),
          fmt(p.formulaVariance, 4), p.dk, ...(departure === 'student-t' ? widthCells(p) : [])])));

      const covered = pts.filter(inside).length;
      const last = pts.at(-1);
      const offLine = pts.filter((p) => p.dk < p.varianceCI[0] || p.dk > p.varianceCI[1]).length;
      const what = {
        mean: `a mean μ = ${num(values.mu)}`, rho: `a correlation ρ = ${num(values.rho)}`,
        'student-t': `Student-t entries with ν = ${values.df}`, layernorm: 'q and k LayerNorm’d',
      }[departure];
      const mean = (f) => pts.reduce((s, p) => s + f(p), 0) / pts.length;
      const widthRatio = mean((p) => p.halfWidth / p.normalHalfWidth);
      // the formula's width needs m₄ (ν > 4); the sample's own fourth moment, from which the intervals
      // are built, is itself erratic and mostly too small while the eighth moment is infinite (ν ≤ 8)
      const formulaRatio = hasTWidths(pts) ? mean((p) => p.tHalfWidth / p.normalHalfWidth) : null;
      const verdict = departure === 'student-t'
        ? `the line dₖ lies inside the 95% interval at ${covered} of ${pts.length} values of dₖ, and the intervals are on average ` +
          `${fmt(widthRatio, 3)} times as wide as normal entries would give` +
          (formulaRatio === null ? '. '
            : `, where the formula for Student-t entries gives ${fmt(formulaRatio, 3)}` +
              (values.df <= 8 ? ` (with ν ≤ 8 the eighth moment is infinite, so the sample’s fourth moment, which sets each interval, is erratic and mostly too small). ` : '. '))
        : `the formula ${d.formula} lies inside the 95% interval at ${covered} of ${pts.length} values of dₖ, and the line dₖ ` +
          `${offLine ? `falls outside it at ${offLine}` : 'inside it at all of them'}. `;
      summary.textContent =
        `With ${what} and ${fmtInt(count)} pairs per dₖ (seed ${seed}), ${verdict}` +
        `At dₖ = ${last.dk} the engine measures Var(q·k) = ${fmt(last.variance, 4)} ${fmtInterval(last.varianceCI, 4)} ` +
        `against ${fmt(last.formulaVariance, 4)}, and a mean of ${fmt(last.mean, 4)} against ${fmt(last.formulaMean, 4)}.`;
      figure.done(r);
      // the other departures at these sizes and seed, computed while the page is idle, and drawn
      // ahead: their formulas typeset and their plots built, kept for when one is chosen. A
      // departure is a new figure (a formula, two Plot builds: ~13 ms of drawing behind ~6 ms of
      // sampling); chosen, it then comes back like one shown before.
      ahead(Object.keys(DEPARTURES).map((dep) => ({ name: 'breakingSweep', params: breakingRequest({ ...values, departure: dep }) })), ({ params }, result) => {
        const next = drawingOf({ ...values, ...params }, result);
        return [() => keepTex(formula, next.d.tex, true), () => keepTheory(left.plot, next.left), () => keepTheory(right.plot, next.right)];
      });
    },
  };
}
