// A histogram (as a density) with a reference density curve drawn over it.
// Pure: data in, SVG node out.
import * as Plot from '@observablehq/plot';
import { plot } from './style.js';

// { counts, lo, hi } from engine.describe; n = number of samples; pdf(x) the reference density.
export function histogramPlot({ counts, lo, hi, n, pdf, xLabel, curveLabel, width = 440, height = 240 }) {
  const w = (hi - lo) / counts.length;
  const bars = Array.from(counts, (c, b) => ({ x1: lo + b * w, x2: lo + (b + 1) * w, density: c / (n * w) }));
  const curve = Array.from({ length: 161 }, (_, i) => {
    const x = lo + ((hi - lo) * i) / 160;
    return { x, y: pdf(x) };
  });
  return plot({
    width, height,
    marginLeft: 48,
    marginBottom: 40,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { label: xLabel, domain: [lo, hi], labelAnchor: 'center', labelOffset: 34 },
    y: { label: 'density', grid: true },
    ariaLabel: `Histogram of ${n} samples of ${xLabel} with the ${curveLabel} density`,
    marks: [
      Plot.rectY(bars, { x1: 'x1', x2: 'x2', y: 'density', fill: 'var(--bar)', inset: 0.5 }),
      Plot.line(curve, { x: 'x', y: 'y', stroke: 'var(--curve)', strokeWidth: 2 }),
      Plot.ruleY([0]),
    ],
  });
}

export const normalPdf = (sd) => (x) => Math.exp(-0.5 * (x / sd) ** 2) / (sd * Math.sqrt(2 * Math.PI));
