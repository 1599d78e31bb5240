// (eq:setup) Queries, keys and the score matrix S = QKᵀ, on a tiny example the reader can read
// number by number.
import { sub } from '../format.js';
import { showHeatmap } from '../plots/heatmap.js';
import { drawIn, fitWidth } from '../plots/room.js';
import { dataTable, fillTable, grid, liveFormula, liveSummary, panel, setTex, show } from '../readout.js';
import './setup.css';

export const id = 'setup';

const NQ = 3, NK = 4;

export const params = {
  dk: { kind: 'stops', values: [2, 3, 4, 5, 6, 7, 8], default: 4, label: 'dₖ', spoken: 'd sub k', format: String },
  query: { kind: 'choice', options: { 1: 'q₁', 2: 'q₂', 3: 'q₃' }, default: '1', label: 'query' },
  key: { kind: 'choice', options: { 1: 'k₁', 2: 'k₂', 3: 'k₃', 4: 'k₄' }, default: '2', label: 'key' },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

// Two decimals with a real minus sign, for matrices whose columns should line up.
const fixed = (x) => (x < 0 && x.toFixed(2) !== '-0.00' ? '−' : '') + Math.abs(x).toFixed(2);
const texNum = (x) => (fixed(x).startsWith('−') ? `(${fixed(x).replace('−', '-')})` : fixed(x));

export function mount(figure, { run }) {
  const formula = liveFormula();
  const shapes = liveFormula();
  const inputs = panel('Queries Q and keys K (rows are vectors)');
  const qTable = inputs.table;
  const kTable = document.createElement('table');
  kTable.className = 'readout matrix';
  qTable.classList.add('matrix');
  inputs.plot.remove();
  inputs.el.append(kTable);
  const scores = panel('Scores S = QKᵀ, unscaled');
  const alt = document.createElement('div');
  scores.table.remove();
  scores.el.append(alt);
  const summary = liveSummary();
  figure.body.append(shapes, formula, grid(inputs.el, scores.el), summary);

  function matrix(table, values, rows, dk, name, selected) {
    const cols = Array.from({ length: dk }, (_, l) => String(l + 1));
    fillTable(table, [name === 'q' ? 'Q' : 'K', ...cols], Array.from({ length: rows }, (_, r) => ({
      name: `${name}${sub(r + 1)}`,
      cells: cols.map((_, l) => fixed(values[r * dk + l])),
    })));
    table.tBodies[0].rows[selected].classList.add('selected');
    table.createCaption().textContent = `${name === 'q' ? 'Q' : 'K'}: ${rows} × ${dk}`;
  }

  return {
    async update({ dk, query, key, seed }) {
      const r = await run('setupScores', { dk, seed, nq: NQ, nk: NK }, { onProgress: figure.progress });
      if (!r) return;
      const i = Number(query) - 1, j = Number(key) - 1;
      matrix(qTable, r.q, NQ, dk, 'q', i);
      matrix(kTable, r.k, NK, dk, 'k', j);

      const rowNames = Array.from({ length: NQ }, (_, a) => `q${sub(a + 1)}`);
      const colNames = Array.from({ length: NK }, (_, b) => `k${sub(b + 1)}`);
      const map = showHeatmap(scores.plot, {
        values: r.s, rows: NQ, cols: NK, rowNames, colNames, rowLabel: 'query', colLabel: 'key',
        // at the room's width, not scaled down whole: its scores stay 10px on a phone (they came
        // out at 7px at 390px); its height follows, so the cells stay square
        label: 'score qᵢ·kⱼ', diverging: true, cellText: true, width: drawIn(scores.plot, () => fitWidth(400)),
        ariaLabel: `Heatmap of the ${NQ}×${NK} unscaled score matrix S = QKᵀ at d_k = ${dk}, with each score written in its cell`,
      });
      // outline the cell of the pair the formula spells out (Plot draws the cells in row-major order)
      map.querySelectorAll('g[aria-label="cell"] rect').forEach((cell, k) => {
        if (k === i * NK + j) cell.setAttribute('class', 'selected-cell'); else cell.removeAttribute('class');
      });
      show(alt, dataTable('The scores as a table', ['query', ...colNames],
        rowNames.map((n, a) => [n, ...colNames.map((_, b) => fixed(r.s[a * NK + b]))])));

      // (each shape in braces: on a narrow screen the line breaks at the arrow, not inside S = QKᵀ ∈ …)
      setTex(shapes, String.raw`{Q\in\mathbb{R}^{${NQ}\times ${dk}}},\quad {K\in\mathbb{R}^{${NK}\times ${dk}}}` +
        String.raw`\quad\Longrightarrow\quad {S=QK^{\top}\in\mathbb{R}^{${NQ}\times ${NK}}}`);
      const terms = Array.from({ length: dk }, (_, l) => `{${texNum(r.q[i * dk + l])}\\cdot${texNum(r.k[j * dk + l])}}`);
      const value = r.s[i * NK + j];
      // four terms per line, so that d_k = 8 stays readable on a narrow screen; each product in
      // braces, so that a formula that flows (web/tex-flow.js) breaks its lines between products
      const lines = [];
      for (let l = 0; l < dk; l += 4) lines.push(`&${l ? String.raw`\quad +` : '='} ${terms.slice(l, l + 4).join(' + ')}`);
      setTex(formula, String.raw`\begin{aligned}S_{${i + 1}${j + 1}} &= q_{${i + 1}}\cdot k_{${j + 1}}` +
        String.raw` = \sum_{l=1}^{${dk}} q_{${i + 1},l}\,k_{${j + 1},l}\\ ${lines.join('\\\\ ')}\\ &= ${fixed(value).replace('−', '-')}\end{aligned}`, true);

      let lo = Infinity, hi = -Infinity;
      for (const v of r.s) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      summary.textContent =
        `With dₖ = ${dk} and seed ${seed}, the ${NQ * NK} unscaled scores run from ${fixed(lo)} to ${fixed(hi)}; ` +
        `the outlined one, S${sub(i + 1)}${sub(j + 1)} = q${sub(i + 1)}·k${sub(j + 1)}, is ${fixed(value)}.`;
      figure.done(r);
    },
  };
}
