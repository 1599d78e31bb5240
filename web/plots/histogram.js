// A histogram (as a density) with a reference density curve drawn over it.
// Pure: data in, SVG node out.
import * as Plot from '@observablehq/plot';
import { keepMoved, recentNodes, showMoved } from '../morph.js';
import { moveRects } from './rects.js';
import { plot } from './style.js';

// The bars, the curve's points, and the density axis's end, niced (it ends on a tick): 1.3 times
// the curve's peak, or the data's top if higher. So another draw of the same law, or another
// sample size, mostly keeps the axis and its bars move in place, where an axis that ended on the
// data's top moved with the top bar's noise (±15% for 512 samples in 41 bins, a few per cent
// for 50,000 samples, whose bars a larger sample keeps close under the curve).
function layout({ counts, lo, hi, n, pdf }) {
  const w = (hi - lo) / counts.length;
  const bars = Array.from(counts, (c, b) => ({ x1: lo + b * w, x2: lo + (b + 1) * w, density: c / (n * w) }));
  const curve = Array.from({ length: 161 }, (_, i) => {
    const x = lo + ((hi - lo) * i) / 160;
    return { x, y: pdf(x) };
  });
  const peak = Math.max(0, ...curve.map((p) => p.y).filter(Number.isFinite));
  const top = Math.max(1.3 * peak, ...bars.map((b) => b.density));
  return { bars, curve, top: Plot.scale({ y: { domain: [0, top], nice: true } }).domain[1] };
}
const label = ({ n, xLabel, curveLabel }) => `Histogram of ${n} samples of ${xLabel} with the ${curveLabel} density`;

const WIDTH = 440;

// { counts, lo, hi } from engine.describe; n = number of samples; pdf(x) the reference density.
export function histogramPlot(options) {
  const { lo, hi, xLabel, width = WIDTH, height = 240 } = options;
  const { bars, curve, top } = options.layout ?? layout(options);
  return plot({
    width, height,
    marginLeft: 48,
    marginBottom: 40,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { label: xLabel, domain: [lo, hi], labelAnchor: 'center', labelOffset: 34 },
    y: { label: 'density', grid: true, domain: [0, top] },
    ariaLabel: label(options),
    marks: [
      Plot.rectY(bars, { x1: 'x1', x2: 'x2', y: 'density', fill: 'var(--bar)', inset: 0.5 }),
      Plot.line(curve, { x: 'x', y: 'y', stroke: 'var(--curve)', strokeWidth: 2 }),
      Plot.ruleY([0]),
    ],
  });
}

// show(container, histogramPlot(options)), in place when the plot there has the same axes (the
// same range and bins, and the same niced density axis): each bar moved through the y scale. One of
// another range that the container showed lately (a d_k moved there and back) comes back, moved.
const drawn = new WeakMap();  // container → what showMoved drew (morph.js)
const takeBack = recentNodes(8);  // histograms of other ranges the container showed lately, or was given ahead

function moved(options) {
  const l = layout(options);
  const { lo, hi, xLabel, curveLabel, counts, width, height } = options;
  return {
    width: width ?? WIDTH,
    layout: JSON.stringify({ lo, hi, xLabel, curveLabel, width, height, bins: counts.length, top: l.top }),
    move: (node, y) => moveRects(node, y, 0, l.bars.map((b) => b.density), label(options)),
    build: () => histogramPlot({ ...options, layout: l }),
    scalesOf: (node) => node.scale('y'),
    takeBack,
  };
}

export const showHistogram = (container, options, ...after) => { showMoved(container, drawn, moved(options), ...after); };
// the histogram of options built ahead for container (another initialisation's), kept for when
// showHistogram asks for it (morph.js keepMoved)
export const keepHistogram = (container, options) => keepMoved(container, drawn, moved(options));

export const normalPdf = (sd) => (x) => Math.exp(-0.5 * (x / sd) ** 2) / (sd * Math.sqrt(2 * Math.PI));
