// (eq:full-attention) softmax(QKᵀ/√d_k)V on one random draw, unscaled beside scaled, with the
// causal mask as a toggle: the attention weights and the outputs as heatmaps, per-row peakedness.
import { nextValues } from '../controls.js';
import { morph } from '../morph.js';
import { keepHeatmap, niceCeil, outlineRow, prefersDark, showHeatmap } from '../plots/heatmap.js';
import { fmt, sub, texFixed } from '../format.js';
import { dataTable, el, fillTable, grid, keepTex, liveFormula, liveSummary, panel, setTex, shownTable } from '../readout.js';
import { texSigned } from '../tex.js';
import './full-attention.css';

export const id = 'full-attention';


export const params = {
  n: { kind: 'stops', values: [4, 5, 6, 7, 8, 9, 10, 11, 12], default: 8, label: 'positions n', spoken: 'positions', format: String },
  dk: { kind: 'stops', values: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], default: 64, label: 'dₖ', spoken: 'd sub k', format: String },
  dv: { kind: 'stops', values: [1, 2, 3, 4, 6, 8], default: 4, label: 'dᵥ', spoken: 'd sub v', format: String },
  causal: { kind: 'choice', options: { off: 'off', on: 'on: query i sees keys j ≤ i' }, default: 'off', label: 'causal mask' },
  row: { kind: 'int', min: 1, max: 12, default: 2, label: 'query shown' },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

const tex = (x, d = 2) => texFixed(x, d);
const texRow = (xs, d = 2) => Array.from(xs, (x) => tex(x, d)).join(',\\ ');
// scores change sign with the seed and the query: signed, so the formula keeps one shape (web/tex.js)
const texSignedRow = (xs, d) => Array.from(xs, (x) => texSigned(x, (v) => tex(v, d))).join(',\\ ');
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;

// The two heatmaps of one side, weights and outputs: their options (pure).
function mapsOf(r, label, n, dv, outDomain) {
  const cell = Math.min(36, Math.floor(320 / n));
  const height = cell * n + 56;
  return {
    weights: {
      values: r.weights, rows: n, cols: n, rowLabel: 'query i', colLabel: 'key j', label: 'weight',
      domain: [0, 1], width: cell * n + 60, height, ariaLabel: `${n}×${n} attention weights, ${label}`,
    },
    output: {
      values: r.output, rows: n, cols: dv, rowLabel: 'query i', colLabel: 'output dim', label: 'output',
      diverging: true, domain: outDomain, width: Math.max(cell * dv + 60, 110), height,
      ariaLabel: `${n}×${dv} output rows, ${label}`,
    },
  };
}

// Both sides' output maps share one colour scale, ±the largest |output| made nice.
function outDomainOf(r) {
  let outMax = 1e-6;
  for (const s of [r.unscaled, r.scaled]) for (const x of s.output) outMax = Math.max(outMax, Math.abs(x));
  return [-niceCeil(outMax), niceCeil(outMax)];
}

const sideLabels = (dk) => ({ unscaled: 'unscaled', scaled: `scaled by 1/\u2060√${dk}` });

const formulaTex = ({ n, dk, dv }, masked) => String.raw`O=\operatorname{softmax}\!\Big(\frac{QK^\top}{\sqrt{${dk}}}${masked ? '+M' : ''}\Big)V,\qquad
      Q,K\in\mathbb{R}^{${n}\times ${dk}},\ V\in\mathbb{R}^{${n}\times ${dv}},\ O\in\mathbb{R}^{${n}\times ${dv}}
      ${masked ? String.raw`,\quad M_{ij}=\begin{cases}0 & j\le i\\ -\infty & j>i\end{cases}` : ''}`;

// The query shown: its index, how many keys it sees, and its formula (scores and both weight rows).
function rowOf(r, { n, dk, row }) {
  const i = Math.min(row, n), seen = r.causal ? i : n;
  const scaledW = r.scaled.weights.subarray((i - 1) * n, i * n);
  const rawW = r.unscaled.weights.subarray((i - 1) * n, i * n);
  const s = r.scores.subarray((i - 1) * n, (i - 1) * n + seen);
  return { i, seen, tex: String.raw`\begin{aligned}
      s_{${i}}&=(q_{${i}}\cdot k_j)_{j=1}^{${seen}}=(${texSignedRow(s, 1)})\\
      \operatorname{softmax}(s_{${i}}/\sqrt{${dk}})&=(${texRow(scaledW.subarray(0, seen))})\\
      \operatorname{softmax}(s_{${i}})&=(${texRow(rawW.subarray(0, seen))})
      \end{aligned}` };
}

// The neighbouring stops of n, the control a reader moves next and the one whose new layout (maps
// of another shape, a longer row formula) costs the most to draw: the requests to compute ahead.
const neighboursOf = (values) => nextValues(params.n, values.n).map((n) => ({ ...values, n }));
const requestOf = ({ n, dk, dv, causal, seed }) => ({ n, dk, dv, seed, causal: causal === 'on' });

export function mount(figure, { run, ahead }) {
  const formula = liveFormula();
  const rowLabel = el('p', 'attention-row-label');
  const rowFormula = liveFormula();
  const sides = {
    unscaled: panel('unscaled: softmax(QKᵀ) V'),
    scaled: panel('scaled: softmax(QKᵀ/\u2060√dₖ) V'),
  };
  for (const p of Object.values(sides)) {
    p.table.remove();  // one shared table below compares the two sides row by row
    p.maps = document.createElement('div');
    p.maps.className = 'attention-maps';
    p.plot.append(p.maps);
  }
  const stats = panel('Per-query peakedness: the largest weight and the entropy (in nats) of each row');
  stats.plot.remove();
  stats.table.classList.add('attention-stats');
  const firstRow = el('p', 'attention-first-row');
  const summary = liveSummary();
  figure.body.append(formula, rowLabel, rowFormula, grid(sides.unscaled.el, sides.scaled.el), stats.el, firstRow, summary);

  function draw(side, r, label, n, dv, outDomain) {
    if (side.maps.childElementCount !== 2) side.maps.replaceChildren(el('div', 'attention-map'), el('div', 'attention-map'));
    const [wrapW, wrapO] = side.maps.children;
    const maps = mapsOf(r, label, n, dv, outDomain);
    showHeatmap(wrapW, maps.weights);
    showHeatmap(wrapO, maps.output);
    const cols = ['query', ...Array.from({ length: n }, (_, j) => `weight k${sub(j + 1)}`), ...Array.from({ length: dv }, (_, c) => `out${sub(c + 1)}`)];
    const rows = Array.from({ length: n }, (_, i) => [
      `q${sub(i + 1)}`,
      ...Array.from(r.weights.subarray(i * n, (i + 1) * n), (x) => fmt(x, 3)),
      ...Array.from(r.output.subarray(i * dv, (i + 1) * dv), (x) => fmt(x, 3)),
    ]);
    const shown = shownTable(side.plot);
    const table = dataTable(`Weights and outputs (${label}) as a table`, cols, rows, shown);
    if (!shown) side.plot.append(table); else if (table !== shown) morph(shown, table);
  }

  // Everything but the query shown: the maps, the shapes, the per-query table and the sentences.
  function drawAll(r, values) {
    const { n, dk, dv, seed } = values, masked = r.causal;
    const outDomain = outDomainOf(r), labels = sideLabels(dk);
    for (const k of ['unscaled', 'scaled']) draw(sides[k], r[k], labels[k], n, dv, outDomain);
    setTex(formula, formulaTex(values, masked), true);

    fillTable(stats.table, ['query', 'keys seen', 'max weight, unscaled', 'max weight, scaled', 'entropy, unscaled', 'entropy, scaled', 'log(keys seen)'],
      Array.from({ length: n }, (_, q) => {
        const keys = masked ? q + 1 : n;
        return { name: `q${sub(q + 1)}`, cells: [String(keys), fmt(r.unscaled.max[q]), fmt(r.scaled.max[q]),
          fmt(r.unscaled.entropy[q]), fmt(r.scaled.entropy[q]), fmt(Math.log(keys))] };
      }));

    firstRow.textContent = masked
      ? `Causal mask on: query 1 sees only key 1, so its weight row is (1, 0, …, 0) on both sides and its output ` +
        `is v₁ itself (largest difference from v₁: ${fmt(r.unscaled.firstRowGap)} unscaled, ${fmt(r.scaled.firstRowGap)} scaled).`
      : `Causal mask off: every query sees all ${n} keys; output row 1 differs from v₁ by up to ` +
        `${fmt(r.unscaled.firstRowGap)} (unscaled) and ${fmt(r.scaled.firstRowGap)} (scaled).`;

    summary.textContent =
      `With n = ${n}, dₖ = ${dk} and seed ${seed}${masked ? ', causal' : ''}, the unscaled rows put on average ` +
      `${fmt(mean(r.unscaled.max))} of their weight on one key (mean entropy ${fmt(mean(r.unscaled.entropy))} nats); ` +
      `divided by √${dk} the mean largest weight is ${fmt(mean(r.scaled.max))} (mean entropy ${fmt(mean(r.scaled.entropy))}).`;
  }

  // The query shown: its scores and its two weight rows.
  function drawRow(r, values) {
    const { n, row } = values, masked = r.causal;
    const { i, seen, tex: rowTex } = rowOf(r, values);
    setTex(rowFormula, rowTex, true);
    rowLabel.textContent = `Query ${i}${row > n ? ` (the control asks for query ${row}, but there are only ${n})` : ''}: ` +
      `its scores against the ${masked ? `${seen} key${seen > 1 ? 's' : ''} it may see` : `${n} keys`}, and its weights with and without the scale ` +
      `(its row is outlined in the maps below).`;
    // its row in each map: the weights it gets and the output they make
    for (const side of Object.values(sides)) for (const map of side.maps.children) outlineRow(map, i - 1);
  }

  let drawn = null;  // what drawAll last drew: the experiment's parameters and the theme
  return {
    async update(values) {
      const { n, dk, dv, causal, seed } = values;
      const r = await run('attentionCompare', requestOf(values), { onProgress: figure.progress });
      if (!r) return;
      // a new query shown changes only its own lines: the rest is redrawn for a new experiment
      // or theme (the maps' colours follow it)
      const key = JSON.stringify([n, dk, dv, causal, seed, prefersDark(figure.body)]);
      if (key !== drawn) {
        drawAll(r, values);
        drawn = key;
      }
      drawRow(r, values);
      figure.done(r);
      // n's neighbouring stops, computed while the page is idle and drawn ahead: their maps built
      // and their formulas typeset, kept for when the reader moves n (a new n is new maps, a new
      // legend and a longer row formula: ~10 ms of drawing behind a round trip to the worker)
      ahead(neighboursOf(values).map((v) => ({ name: 'attentionCompare', params: requestOf(v), values: v })), ({ values: v }, next) => {
        const outDomain = outDomainOf(next), labels = sideLabels(v.dk);
        return [
          ...['unscaled', 'scaled'].flatMap((k) => {
            const [wrapW, wrapO] = sides[k].maps.children, maps = mapsOf(next[k], labels[k], v.n, v.dv, outDomain);
            return [() => keepHeatmap(wrapW, maps.weights), () => keepHeatmap(wrapO, maps.output)];
          }),
          () => keepTex(formula, formulaTex(v, next.causal), true),
          () => keepTex(rowFormula, rowOf(next, v).tex, true),
        ];
      });
    },
  };
}
