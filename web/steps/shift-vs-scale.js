// (eq:shift-vs-scale) softmax(x − c) = softmax(x): subtracting the max is for the float range;
// dividing changes the differences, and the differences are all softmax sees.
import { showTheory } from '../plots/theory-lines.js';
import { showBars } from '../plots/bars.js';
import { fmt, fmtInt, fmtShort } from '../format.js';
import { dataTable, detailsFor, fillTable, grid, liveFormula, liveSummary, panel, setTex, show } from '../readout.js';
import './shift-vs-scale.css';

export const id = 'shift-vs-scale';

const OFFSETS = Array.from({ length: 201 }, (_, i) => i);
const DIVISORS = [1, 1.5, 2, 3, 4, 5, 8, 10, 16, 32, 100];

export const params = {
  offset: { kind: 'stops', values: OFFSETS, default: 95, label: 'largest logit c', spoken: 'largest logit', format: (v) => String(v) },
  divisor: { kind: 'stops', values: DIVISORS, default: 10, label: 'divisor s', spoken: 'divisor', format: (v) => String(v) },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

const STATUS = { ok: 'finite', zeros: 'all weights 0 (the sum overflowed)', nan: 'NaN (an exp overflowed)' };
const list = (a, d = 3) => a.map((v) => fmt(v, d)).join(', ');
const bracket = (a, d = 3) => `[${list(a, d)}]`;
const plainRow = (a) => `[${a.map(fmtShort).join(', ')}]`;
const ulpText = (u) => (Number.isNaN(u) ? '—' : fmtInt(u));


export function mount(figure, { run }) {
  const formula = liveFormula();
  const sweep = panel('The two denominators as the logits grow');
  const limits = panel('Where eˣ overflows in this engine');
  const logits = panel('The row at c, element by element');
  const bars = panel('Dividing changes the weights; shifting does not');
  const rows = panel('Ratios and gaps of each row');
  const claims = panel('The blog post’s numbers, recomputed');
  for (const p of [logits, rows, limits, claims]) p.plot.remove();
  bars.table.remove();
  detailsFor(rows.table, bars.plot);  // the bars' weights are the table's softmax column
  const sweepData = document.createElement('div');
  sweep.el.append(sweepData);
  const verdict = document.createElement('p');
  verdict.className = 'seed-check';
  claims.el.append(verdict);
  const summary = liveSummary();
  const split = (cls, ...els) => { const g = grid(...els); g.classList.add(...cls); return g; };
  figure.body.append(formula, split(['split'], sweep.el, limits.el), logits.el, split(['split', 'narrow'], bars.el, rows.el), claims.el, summary);

  return {
    async update({ offset, divisor, seed }) {
      const r = await run('shiftVsScale', { offset, divisor, seed }, { onProgress: figure.progress });
      if (!r) return;
      const { thresholds: t } = r;

      setTex(formula, String.raw`\operatorname{softmax}(x)_j=\frac{e^{x_j-${offset}}}{\sum_k e^{x_k-${offset}}}` +
        String.raw`\quad\text{with } c=\max_k x_k=${offset},\qquad \ln\mathrm{FLT\_MAX}=${fmt(t.lnFltMax, 7)}`, true);

      // --- the sweep: ln Σe^x (naive denominator) and ln Σe^(x − max x) (stable one) against c
      const segments = [];
      for (const s of r.sweep) {
        const last = segments.at(-1);
        if (last?.status === s.status) last.points.push(s);
        else { if (last) last.points.push(s); segments.push({ status: s.status, points: [s] }); }
      }
      // a status held at one step of the sweep only (the sum overflowing to +inf at c = 88.5, one
      // step before an exp does) is a dot: its line, to the next step, is half a pixel long
      const naive = segments.map((g) => ({ name: `naive, ln Σ exp(xⱼ): ${STATUS[g.status]}`, points: g.points.map((s) => ({ x: s.c, y: s.lse })),
        own: g.points.filter((s) => s.status === g.status).length }));
      const stable = 'stable, ln Σ exp(xⱼ − max x)';
      showTheory(sweep.plot, {
        order: [stable, ...naive.map((l) => l.name)],
        lines: [{ name: stable, points: r.sweep.map((s) => ({ x: s.c, y: s.lseShifted })) },
          ...naive.filter((l) => l.own > 1).map(({ name, points }) => ({ name, points }))],
        measured: naive.filter((l) => l.own === 1).map(({ name, points }) => ({ name, points: points.slice(0, 1) })),
        hrules: [{ y: t.lnFltMax, label: 'ln FLT_MAX' }],
        vrules: [{ x: offset, label: `c = ${offset}` }],
        // (the axis starts a little under 0: the stable line, between 0 and ln 8, lay on the x-axis)
        xLabel: 'largest logit c', yLabel: 'log of the denominator', xDomain: [0, 200], yDomain: [-12, 210],
        ariaLabel: 'The logarithm of the naive and the stable softmax denominators against the largest logit c, with the level ln FLT_MAX',
      });
      // three columns, a range in one cell (unbroken), the status free to wrap (shift-vs-scale.css):
      // the table fits its half-width panel at 1200 px
      const range = (a, b) => (a === b ? a : `${a}\u00a0–\u2060\u00a0${b}`);
      show(sweepData, dataTable('Data: where the naive softmax fails along c', ['largest logit c', 'naive softmax', 'ln Σ eˣ'],
        segments.map((g) => {
          const own = g.points.filter((s) => s.status === g.status);
          return [range(fmt(own[0].c, 4), fmt(own.at(-1).c, 4)), STATUS[g.status], range(fmt(own[0].lse, 5), fmt(own.at(-1).lse, 5))];
        })));

      // --- the row at c, element by element
      fillTable(logits.table, ['xⱼ', 'softmax(x)', 'softmax(x − max x)', 'ulps apart', 'naive', 'ulps from c = 0'],
        r.logits.map((l) => ({
          name: fmt(l.x, 6),
          cells: [fmt(l.p, 6), fmt(l.pShifted, 6), ulpText(l.ulps), fmt(l.naive, 4), ulpText(l.ulpsUnshifted)],
          outside: !Number.isFinite(l.naive),
        })));

      // --- the scale: four rows of three logits
      const label = { row: 'the row', divided: `÷ ${divisor}`, lowered: '− 97', maxSubtracted: '− max' };
      const legend = (row) => `${label[row.key]}: ${plainRow(row.values)}`;
      showBars(bars.plot, {
        categories: ['x₁', 'x₂', 'x₃'],
        series: r.scaleRows.map((row) => ({ name: legend(row), values: row.softmax })),
        yLabel: 'softmax weight', width: 360, height: 250,
        ariaLabel: 'Softmax weights of four rows: the row [100, 102, 103], the row divided by s, the row minus 97, and the row minus its maximum',
      });
      fillTable(rows.table, ['operation', 'logits', 'ratios x₂/\u2060x₁, x₃/\u2060x₁', 'gaps', 'softmax'],
        r.scaleRows.map((row) => ({
          name: label[row.key],
          cells: [plainRow(row.values), list(row.ratios, 4), row.gaps.map(fmtShort).join(', '), list(row.softmax, 3)],
        })));

      // --- thresholds, and the seed's numbers
      fillTable(limits.table, ['quantity', 'value'], [
        { name: 'ln FLT_MAX = Math.log of the largest float32', cells: [fmt(t.lnFltMax, 9)] },
        { name: 'largest lone logit whose naive softmax is finite', cells: [fmt(t.loneLargest, 9)] },
        { name: '… the next float32, already NaN', cells: [fmt(t.loneNext, 9)] },
        { name: 'largest logit inside a SIMD batch that is still finite', cells: [fmt(t.laneLargest, 9)] },
        { name: 'this row: the first c where the naive softmax fails', cells: [r.breakAt ? fmtShort(r.breakAt.c) : 'none up to 200'] },
      ]);
      fillTable(claims.table, ['the text’s row', 'it states', 'the engine computes', 'the stated numbers fit', 'whose softmax is'],
        r.claims.map((c) => ({
          name: plainRow(c.row),
          cells: [`[${c.says.map((v) => v.toFixed(2)).join(', ')}]`, bracket(c.engineRow, 3), plainRow(c.fits), bracket(c.engineFit, 3)],
          outside: !c.rowMatches,
        })));

      const [c1, c2] = r.claims;
      const says = (c) => `[${c.says.map((v) => v.toFixed(2)).join(', ')}]`;
      verdict.textContent =
        `The post gives ${says(c1)} for ${plainRow(c1.row)}; the engine computes ${bracket(c1.engineRow)}. ` +
        `The post’s numbers are, to their two digits, the softmax of ${plainRow(c1.fits)}, ${bracket(c1.engineFit)}: ` +
        `gaps of ${c1.fits[1] - c1.fits[0]} and ${c1.fits[2] - c1.fits[1]}, where its row has ${c1.row[1] - c1.row[0]} and ${c1.row[2] - c1.row[1]}. ` +
        `Its ${says(c2)} is likewise the softmax of ${plainRow(c2.fits)}, ${bracket(c2.engineFit)}, and not of ${plainRow(c2.row)}, ` +
        `${bracket(c2.engineRow)}. The conclusion survives: the divided row is flatter.`;

      const bad = r.logits.filter((l) => !Number.isFinite(l.naive)).length;
      const naiveText = bad ? `the naive one returns NaN in ${bad} of ${r.n} entries` :
        r.naiveSum === 0 ? 'the naive one returns all zeros, its sum having overflowed' : 'the naive one agrees';
      const laneNote = t.laneLargest < t.loneLargest
        ? ` (inside a SIMD batch this engine’s exp already overflows above ${fmt(t.laneLargest, 7)}).` : '.';
      summary.textContent =
        `With the largest logit at c = ${offset}, the stable softmax sums to ${fmt(r.stableSum, 7)} and ` +
        `matches softmax(x − max x) ${r.maxUlps === 0 ? 'bit for bit' : `to within ${fmtInt(r.maxUlps)} ulp`}; ${naiveText}. ` +
        (r.breakAt ? `Along the sweep the naive softmax first fails at c = ${fmtShort(r.breakAt.c)}, where ln Σ eˣ = ${fmt(r.breakAt.lse, 5)} ` +
          `has passed ln FLT_MAX = ${fmt(t.lnFltMax, 7)}${laneNote} ` : '') +
        (Number(divisor) === 1 ? `Dividing [100, 102, 103] by 1 leaves it, and its weights ${bracket(r.scaleRows[1].softmax)}, as they were; `
          : `Dividing [100, 102, 103] by ${divisor} keeps its ratios and changes its weights to ${bracket(r.scaleRows[1].softmax)}; `) +
        `subtracting 97 changes every ratio and leaves the weights ${bracket(r.scaleRows[2].softmax)}, ` +
        `${Math.max(...r.scaleRows[2].ulpsFromRow) === 0 ? 'bit for bit' : `within ${fmtInt(Math.max(...r.scaleRows[2].ulpsFromRow))} ulp`}.`;
      figure.done(r);
    },
  };
}
