// (eq:initialization) Var(q·k/√d_k) = σ_q²σ_k² with σ_q² = d_model·σ_W²: the 1/√d_k gives unit
// variance only if the initialisation makes σ_q² = σ_k² = 1.
import { initRequest } from '../experiments/initialization.js';
import { keepHistogram, normalPdf, showHistogram } from '../plots/histogram.js';
import { keepTheory, showTheory } from '../plots/theory-lines.js';
import { powerDomain } from '../plots/style.js';
import { fmt, fmtInt, fmtInterval } from '../format.js';
import { dataTable, detailsFor, fillTable, grid, keepTex, liveFormula, liveSummary, panel, setTex, show, shownTable } from '../readout.js';
import { setSubscripted } from '../subscripts.js';
import './initialization.css';

export const id = 'initialization';

export const INIT_LABELS = {
  'glorot-uniform': 'Glorot uniform, one head',
  'glorot-normal': 'Glorot normal, one head',
  'glorot-heads': 'Glorot uniform, all heads in one matrix',
  'glorot-packed': 'Glorot uniform, Q, K, V packed (PyTorch)',
  'lecun-normal': 'LeCun normal',
  'he-normal': 'He normal',
  custom: 'normal, custom σ',
};

export const params = {
  init: { kind: 'choice', options: INIT_LABELS, default: 'glorot-uniform', label: 'initialisation' },
  sigma: { kind: 'stops', values: [0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.5, 1], default: 0.02, label: 'custom σ', spoken: 'custom sigma', format: (v) => String(v) },
  dmodel: { kind: 'stops', values: [64, 128, 256, 384, 512, 768, 1024, 1536, 2048], default: 512, label: 'd_model', spoken: 'd sub model', format: (v) => String(v) },
  dk: { kind: 'stops', values: [8, 16, 32, 64, 128, 256], default: 64, label: 'dₖ', spoken: 'd sub k', format: (v) => String(v) },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

// σ_W² as TeX, for the live formula: the rule, then its value at the current sizes. Exponents
// go in braces (^{2}, typeset as ^2): web/tex.js takes the 2 of a bare ^2 for a live number, and
// its probe's five-digit marker in a one-token exponent never matches, so the formula would be
// typeset twice on every redraw instead of having its numbers patched.
function weightTex(init, d, dk, sigma) {
  const glorot = (fout, foutTex) => String.raw`\sigma_W^{2}=\frac{2}{\text{fan}_\text{in}+\text{fan}_\text{out}}=\allowbreak\frac{2}{${d}+${fout}}` +
    (foutTex ? String.raw`\ (\text{fan}_\text{out}=${foutTex})` : '');
  switch (init) {
    case 'glorot-uniform': case 'glorot-normal': return glorot(dk, 'd_k');
    case 'glorot-heads': return glorot(d, String.raw`d_\text{model}`);
    case 'glorot-packed': return glorot(3 * d, String.raw`3d_\text{model}`);
    case 'lecun-normal': return String.raw`\sigma_W^{2}=\frac{1}{d_\text{model}}=\frac{1}{${d}}`;
    case 'he-normal': return String.raw`\sigma_W^{2}=\frac{2}{d_\text{model}}=\frac{2}{${d}}`;
    default: return String.raw`\sigma_W^{2}=\sigma^{2}=${sigma}^{2}`;
  }
}

const D_AXIS = [32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096];

// What a result draws that another initialisation changes the layout of (pure): the rule's formula,
// the histogram (its range follows the variance) and the curves (their y axis widens for a point
// beyond 0.1 … 10).
function drawingOf({ init, sigma, dmodel, dk }, r) {
  const f = r.formula;
  // the formulas against d_model at this d_k, and the measurement: each named with its formula in
  // the legend, and by its rule alone over its column of the data table, in two lines at most
  // (with the formulas, a column's name took five lines in a half-width panel)
  const line = (name, column, g) => ({ name, column, points: D_AXIS.map((d) => ({ x: d, y: g(d) })) });
  const lines = [
    line('Glorot, one head: (2d/\u2060(d + dₖ))²', 'Glorot, one\u00a0head', (d) => (2 * d / (d + dk)) ** 2),
    line('LeCun, or Glorot over all heads: 1', 'LeCun', () => 1),
    line('He: 4', 'He', () => 4),
    line('Glorot, Q, K, V packed: 1/4', 'Glorot, packed', () => 1 / 4),
    line(`N(0, σ²), σ = ${sigma}: (d·σ²)²`, `N(0,\u00a0${sigma}²)`, (d) => (d * sigma * sigma) ** 2),
  ];
  const point = { x: dmodel, y: r.score.variance, lo: Math.max(r.score.varianceCI[0], 1e-9), hi: r.score.varianceCI[1] };
  // the rules span 1/4 … 4; the custom-σ curve is clipped to the frame. A point beyond
  // 0.1 … 10 widens the axis to the powers of ten around it, which other seeds then share.
  const yDomain = powerDomain([0.1, 10, point.lo / 1.5, point.hi * 1.5], 10);
  return {
    ruleTex: weightTex(init, dmodel, dk, sigma) + String.raw`=${fmt(f.weight, 3)}`,
    // the histogram of q·k/√d_k with the normal density the formula predicts
    histogram: { ...r.score, pdf: normalPdf(Math.sqrt(f.score)), xLabel: 'q·k/√dₖ', curveLabel: `N(0, ${fmt(f.score, 3)})` },
    lines,
    theory: {
      measured: [{ name: 'measured, this initialisation', points: [point] }], lines,
      vrules: [{ x: dmodel, label: `d_model = ${dmodel}` }],
      xLabel: 'd_model', yLabel: 'Var(q·k/√dₖ)', xLog: true, xBase: 2, yLog: true, xTicks: [32, 64, 128, 256, 512, 1024, 2048, 4096],
      xDomain: [D_AXIS[0], D_AXIS.at(-1)], yDomain, height: 300,
      ariaLabel: `Var(q·k/√dₖ) against d_model at dₖ = ${dk} for each initialisation, with the value measured with ${INIT_LABELS[init]}`,
    },
  };
}

// the run of values: its cost is the projections', which d_model and d_k decide (the rule and σ do not)
const requestOf = (values) => ({ name: 'initVariance', params: initRequest(values), sizes: { dmodel: values.dmodel, dk: values.dk } });

export function mount(figure, { run, ahead }) {
  const rule = liveFormula('live-formula weight-rule', 'the weights’ variance, by the chosen rule'), formula = liveFormula();
  const hist = panel('q·k/\u2060√dₖ for pairs of tokens');
  const curves = panel('What each initialisation gives, against d_model');
  const curvesData = document.createElement('div');
  curves.el.append(curvesData);
  curves.table.remove();
  const measured = panel('Measured variances and what predicts them');
  measured.plot.remove();
  hist.table.remove();
  detailsFor(measured.table, hist.plot);  // the histogram's variance, measured and predicted, is a row there
  const check = document.createElement('p');
  check.className = 'seed-check';
  const summary = liveSummary();
  figure.body.append(rule, formula, grid(hist.el, curves.el), measured.el, check, summary);

  return {
    async update(values) {
      const { init, sigma, dmodel, dk, seed } = values;
      const request = requestOf(values);
      const r = await run(request.name, request.params, { onProgress: figure.progress, sizes: request.sizes });
      if (!r) return;
      const f = r.formula;
      const drawing = drawingOf(values, r);

      // two formulas: the rule, whose shape each initialisation changes (typeset anew, ~200 nodes),
      // and what follows from it, whose shape stays and whose numbers are patched in place; as one
      // formula, every change of rule typeset and laid out its ~570 nodes again (5–7 ms of layout)
      setTex(rule, drawing.ruleTex, true);
      setTex(formula, String.raw`\sigma_q^{2}=\sigma_k^{2}=d_\text{model}\,\sigma_W^{2}=${fmt(f.q, 4)},\qquad ` +
        String.raw`\operatorname{Var}\Big(\frac{q\cdot k}{\sqrt{d_k}}\Big)=\allowbreak\frac{d_k\,\sigma_q^{2}\sigma_k^{2}}{d_k}=\sigma_q^{2}\sigma_k^{2}=${fmt(f.score, 4)}`, true);
      showHistogram(hist.plot, drawing.histogram);
      showTheory(curves.plot, drawing.theory);
      const { lines } = drawing;
      show(curvesData, dataTable('Data: the formulas against d_model', ['d_model', ...lines.map((l) => l.column)],
        D_AXIS.map((d, i) => [d, ...lines.map((l) => fmt(l.points[i].y, 4))]), shownTable(curvesData)));

      const rows = [
        { name: 'xⱼ, token entries', s: r.x, given: 1, givenText: '—', formula: 1 },
        { name: 'qᵢ\u00a0=\u00a0(W_Qᵀx)ᵢ', s: r.q, given: r.given.q, formula: f.q },
        { name: 'kᵢ\u00a0=\u00a0(W_Kᵀx′)ᵢ', s: r.k, given: r.given.k, formula: f.k },
        { name: 'q·k/\u2060√dₖ', s: r.score, given: r.given.score, formula: f.score },
      ];
      fillTable(measured.table, ['variance of', 'measured', '95% interval', 'given these weights', 'formula'],
        rows.map((row) => ({
          name: row.name,
          cells: [fmt(row.s.variance, 4), fmtInterval(row.s.varianceCI, 4), row.givenText ?? fmt(row.given, 4), fmt(row.formula, 4)],
          outside: row.given < row.s.varianceCI[0] || row.given > row.s.varianceCI[1],
        })));

      // the forum post's claim, checked at these sizes
      const glorotQ = 2 * dmodel / (dmodel + dk), packedQ = 2 * dmodel / (dmodel + 3 * dmodel);
      const measuredText = `measured here with ${INIT_LABELS[init]} on a ${dmodel} → ${dk} head: Var(qᵢ) = ${fmt(r.q.variance, 3)} ` +
        `and Var(q·k/\u2060√dₖ) = ${fmt(r.score.variance, 3)} ${fmtInterval(r.score.varianceCI, 3)}.`;
      setSubscripted(check,
        `Source 000 says the 1/\u2060√dₖ is right because Xavier (Glorot) initialisation keeps q and k near unit variance. ` +
        `On one head it does not: σ_q² = 2·d_model/\u2060(d_model + dₖ) = ${fmt(glorotQ, 4)} for these sizes, so Var(q·k/\u2060√dₖ) = ${fmt(glorotQ ** 2, 4)}; ` +
        `${measuredText} Unit variance needs σ_W² = 1/\u2060d_model: LeCun’s rule, which Glorot matches only when fan-out equals fan-in, ` +
        `as for all heads initialised as one ${dmodel} × ${dmodel} matrix. PyTorch’s packed Q, K, V projection has fan-out 3·d_model ` +
        `and gives σ_q² = ${fmt(packedQ, 3)}, so Var(q·k/\u2060√dₖ) = ${fmt(packedQ ** 2, 3)}. What the post gets right is the dependence itself: the variance after scaling is σ_q²σ_k².`);

      const inside = rows.every((row) => row.given >= row.s.varianceCI[0] && row.given <= row.s.varianceCI[1]);
      setSubscripted(summary,
        `With ${INIT_LABELS[init]} (σ_W² = ${fmt(f.weight, 3)}), ${fmtInt(r.tokens)} token pairs (seed ${seed}) give ` +
        `Var(qᵢ) = ${fmt(r.q.variance, 4)} against d_model·σ_W² = ${fmt(f.q, 4)}, and Var(q·k/\u2060√dₖ) = ${fmt(r.score.variance, 4)} ` +
        `against σ_q²σ_k² = ${fmt(f.score, 4)}${Math.abs(f.score - 1) > 0.05 ? ', not 1' : ''}; ` +
        `${inside ? 'every value given these weights lies inside its 95% interval' : 'a value given these weights falls outside its 95% interval (expected about one time in twenty per row)'}.`);
      figure.done(r);
      // the other initialisations at these sizes and seed, computed while the page is idle and
      // drawn ahead: their rules typeset, their histograms and curves built (a new rule is ~200
      // nodes of formula and two Plot builds), kept for when one is chosen
      ahead(Object.keys(INIT_LABELS).filter((k) => k !== init).map((k) => ({ ...requestOf({ ...values, init: k }), values: { ...values, init: k } })),
        ({ values: v }, next) => {
          const d = drawingOf(v, next);
          return [() => keepTex(rule, d.ruleTex, true), () => keepHistogram(hist.plot, d.histogram), () => keepTheory(curves.plot, d.theory)];
        });
    },
  };
}
