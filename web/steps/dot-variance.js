// (eq:dot-variance) Var(q·k) = d_k, and q·k/√d_k has variance 1, measured by sampling.
import { histogramPlot, normalPdf } from '../plots/histogram.js';
import { fmt, fmtInt, fmtInterval } from '../format.js';
import { fillTable, grid, liveSummary, panel } from '../readout.js';

export const id = 'dot-variance';

const DK_STOPS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096];

export const params = {
  dk: { kind: 'stops', values: DK_STOPS, default: 64, label: 'dₖ', spoken: 'd k', format: (v) => String(v) },
  count: { kind: 'stops', values: [500, 1000, 2000, 5000, 10000, 20000, 50000, 100000], default: 5000, label: 'pairs', format: fmtInt },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

export function mount(figure, { run }) {
  const raw = panel('q·k, unscaled');
  const scaled = panel('q·k / √dₖ');
  const summary = liveSummary();
  figure.body.append(grid(raw.el, scaled.el), summary);

  function draw(target, stats, sd, label, curveLabel, theoryVar) {
    target.plot.replaceChildren(histogramPlot({ ...stats, pdf: normalPdf(sd), xLabel: label, curveLabel }));
    const inMean = stats.meanCI[0] <= 0 && 0 <= stats.meanCI[1];
    const inVar = stats.varianceCI[0] <= theoryVar && theoryVar <= stats.varianceCI[1];
    fillTable(target.table, ['', 'measured', '95% interval', 'theory'], [
      { name: 'mean', cells: [fmt(stats.mean), fmtInterval(stats.meanCI), '0'], outside: !inMean },
      { name: 'variance', cells: [fmt(stats.variance, 4), fmtInterval(stats.varianceCI, 4), String(theoryVar)], outside: !inVar },
    ]);
    return inVar;
  }

  return {
    async update({ dk, count, seed }) {
      const r = await run('dotVariance', { dk, count, seed }, { onProgress: figure.progress });
      if (!r) return;  // superseded by a newer request
      const okRaw = draw(raw, r.raw, Math.sqrt(dk), 'q·k', `N(0, ${dk})`, dk);
      const okScaled = draw(scaled, r.scaled, 1, 'q·k/√dₖ', 'N(0, 1)', 1);
      summary.textContent =
        `With dₖ = ${dk} and ${fmtInt(count)} pairs (seed ${seed}), the sampled variance of q·k is ` +
        `${fmt(r.raw.variance, 4)} (theory ${dk}, ${okRaw ? 'inside' : 'outside'} the 95% interval); ` +
        `after dividing by √dₖ it is ${fmt(r.scaled.variance, 4)} (theory 1, ${okScaled ? 'inside' : 'outside'}).`;
      figure.done(r);
    },
  };
}
