// (eq:dot-variance) Var(q·k) = d_k, and q·k/√d_k has variance 1, measured by sampling.
import { histogramPlot, normalPdf } from '../plots/histogram.js';
import { fmt, fmtInt, fmtInterval } from '../format.js';

export const id = 'dot-variance';

const DK_STOPS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096];

export const params = {
  dk: { kind: 'stops', values: DK_STOPS, default: 64, label: 'dₖ', spoken: 'd k', format: (v) => String(v) },
  count: { kind: 'stops', values: [500, 1000, 2000, 5000, 10000, 20000, 50000, 100000], default: 5000, label: 'pairs', format: fmtInt },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

function panel(title) {
  const el = document.createElement('div');
  el.className = 'panel';
  const h = document.createElement('h4');
  h.textContent = title;
  const plot = document.createElement('div');
  plot.className = 'plot';
  const table = document.createElement('table');
  table.className = 'readout';
  el.append(h, plot, table);
  return { el, plot, table };
}

function readoutRows(table, rows) {
  const head = '<tr><th scope="col"></th><th scope="col">measured</th><th scope="col">95% interval</th><th scope="col">theory</th></tr>';
  table.innerHTML = head;  // static markup only; values go in as text below
  for (const r of rows) {
    const tr = table.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = r.name;
    tr.append(th);
    for (const text of [r.measured, r.interval, r.theory]) tr.insertCell().textContent = text;
    tr.classList.toggle('outside', !r.inside);
  }
}

export function mount(figure, { run }) {
  const raw = panel('q·k, unscaled');
  const scaled = panel('q·k / √dₖ');
  const panels = document.createElement('div');
  panels.className = 'panels';
  panels.append(raw.el, scaled.el);
  const summary = document.createElement('p');
  summary.className = 'live-summary';
  summary.setAttribute('aria-live', 'polite');
  figure.body.append(panels, summary);

  function draw(target, stats, sd, label, curveLabel, theoryVar) {
    target.plot.replaceChildren(histogramPlot({ ...stats, pdf: normalPdf(sd), xLabel: label, curveLabel }));
    const inMean = stats.meanCI[0] <= 0 && 0 <= stats.meanCI[1];
    const inVar = stats.varianceCI[0] <= theoryVar && theoryVar <= stats.varianceCI[1];
    readoutRows(target.table, [
      { name: 'mean', measured: fmt(stats.mean), interval: fmtInterval(stats.meanCI), theory: '0', inside: inMean },
      { name: 'variance', measured: fmt(stats.variance, 4), interval: fmtInterval(stats.varianceCI, 4), theory: Number.isInteger(theoryVar) ? String(theoryVar) : fmt(theoryVar, 4), inside: inVar },
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
