// A histogram (as a density) with several labelled reference curves, on a linear or a log
// density axis. Pure: data in, a node out (a legend, then the SVG).
//   { counts, lo, hi } from engine.describe; n = number of samples
//   curves: [{ name, pdf, dashed? }]  pdf(x) may return NaN (a gap, e.g. at a spike); solid curves
//           are drawn in the accent colour, dashed ones (references) in the text colour; a legend
//           above the plot names them
//   yLog: a log density axis, which shows the tails; it starts at half the density of a single
//         sample, where bars with no samples stand with no height
//   mass: a law with point masses and no density (±1 entries): each bar is the share of the
//         samples in its bin, on a probability axis (a density there would be ½ ÷ the bin width)
// The density axis ends on a nice number (niceCeil) above the data and the curves: another seed
// or sample size of the same law mostly keeps it, and its bars move in place.
import * as Plot from '@observablehq/plot';
import { recentNodes, showMoved } from '../morph.js';
import { moveRects } from './rects.js';
import { fitDecades, niceCeil, plot, powersOfTen } from './style.js';

const SVG = 'http://www.w3.org/2000/svg';

// One legend entry: a short line in the curve's stroke, then its name (as text).
function legendItem(name, stroke, dashed) {
  const item = document.createElement('span');
  item.className = 'density-legend-item';
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('width', '26');
  svg.setAttribute('height', '10');
  svg.setAttribute('aria-hidden', 'true');
  const line = document.createElementNS(SVG, 'line');
  for (const [k, v] of [['x1', 1], ['x2', 25], ['y1', 5], ['y2', 5], ['stroke', stroke], ['stroke-width', 2]]) line.setAttribute(k, v);
  if (dashed) line.setAttribute('stroke-dasharray', '5,4');
  svg.append(line);
  item.append(svg, document.createTextNode(name));
  return item;
}

// The bars, the curves' points and the density axis's end: what the plot is built from.
function layout({ counts, lo, hi, n, curves = [], yLog = false, mass = false }) {
  const w = (hi - lo) / counts.length;
  const per = mass ? 1 / n : 1 / (n * w);  // a sample's share of the bar's height
  const floor = 0.5 * per;
  // (on a log axis an empty bar stands on the floor with no height, as Plot draws it there: every
  // seed then has the same bars, whichever tail bins it happens to fill)
  const bars = Array.from(counts, (c, b) => ({ x1: lo + b * w, x2: lo + (b + 1) * w, density: yLog && c === 0 ? floor : c * per }));
  const steps = 320;
  let top = Math.max(...bars.map((b) => b.density));
  const lines = curves.map((c) => Array.from({ length: steps + 1 }, (_, i) => {
    const x = lo + ((hi - lo) * i) / steps;
    const y = c.pdf(x);
    if (Number.isFinite(y)) top = Math.max(top, y);
    return { x, y: yLog && !(y >= floor) ? NaN : y };
  }));
  return { floor, bars, lines, top: niceCeil(top * (yLog ? 1.5 : 1.05)) };
}

const WIDTH = 480;

export function densityHistogramPlot(options) {
  const { lo, hi, n, curves = [], xLabel, yLog = false, mass = false, width = WIDTH, height = 260, ariaLabel } = options;
  const yName = mass ? 'probability' : 'density';
  const { floor, bars, lines, top } = options.layout ?? layout(options);
  const marks = [
    Plot.rectY(bars, { x1: 'x1', x2: 'x2', y1: yLog ? floor : 0, y2: 'density', fill: 'var(--bar)', inset: 0.5 }),
  ];
  curves.forEach((c, k) => marks.push(Plot.line(lines[k], { x: 'x', y: 'y', stroke: strokeOf(c), strokeWidth: 2,
    strokeDasharray: c.dashed ? '5,4' : null, clip: true })));
  if (!yLog) marks.push(Plot.ruleY([0]));
  const svg = plot({
    width, height, marginLeft: 52, marginRight: 12, marginBottom: 40,  // the x label below the ticks: at the right end it met "5"
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { label: xLabel, domain: [lo, hi], labelAnchor: 'center', labelOffset: 34 },
    y: yLog ? { type: 'log', label: `${yName} (log scale)`, grid: true, domain: [floor, top],
      ticks: fitDecades(floor, top, height), tickFormat: powersOfTen(fitDecades(floor, top, height)) }
      : { label: yName, grid: true, domain: [0, top] },
    ariaLabel: ariaLabel ?? defaultLabel(options),
    marks,
  });
  const wrap = document.createElement('div');
  wrap.className = 'density-histogram';
  if (curves.length) {
    const legend = document.createElement('div');
    legend.className = 'density-legend';
    legend.style.cssText = 'display:flex;flex-wrap:wrap;gap:0.25rem 1.25rem;font:12px system-ui,sans-serif;margin:0 0 0.25rem 52px';
    curves.forEach((c) => legend.append(legendItem(c.name, strokeOf(c), c.dashed)));
    wrap.append(legend);
  }
  wrap.append(svg);
  return wrap;
}

// show(container, densityHistogramPlot(options), ...after), in place when the plot there has the
// same axes, curves and bars (another seed or sample size of the same distribution, mostly): each
// bar's top and height through the plot's y scale, as Plot's rectY computes them with inset 0.5
// (y = min(Y(y1), Y(d)) + ½, height = max(0, |Y(y1) − Y(d)| − ½ − ½)), instead of a Plot build.
// One of another layout that the container showed lately (a distribution chosen again) comes back.
const drawn = new WeakMap();  // container → what showMoved drew (morph.js)
const takeBack = recentNodes();  // histograms of other layouts the container showed lately

export function showDensityHistogram(container, options, ...after) {
  const l = layout(options);
  const { counts, lo, hi, n, xLabel, yLog = false, mass = false, width, height, ariaLabel, curves = [] } = options;
  const y1 = yLog ? l.floor : 0;
  // the same layout, the same plot but for the bars' heights (and the sample count in the label)
  showMoved(container, drawn, {
    width: width ?? WIDTH,
    layout: JSON.stringify({ lo, hi, xLabel, yLog, mass, width, height, bins: counts.length, top: l.top,
      curves: curves.map((c) => [c.name, !!c.dashed]), ...(yLog ? { n } : {}) }),
    move: (node, y) => moveBars(node, y, l.bars, y1, ariaLabel ?? defaultLabel(options)),
    build: () => densityHistogramPlot({ ...options, layout: l }),
    scalesOf: (node) => node.querySelector(':scope > svg')?.scale?.('y'),
    takeBack,
  }, ...after);
}

const defaultLabel = ({ n, xLabel, curves = [] }) => `Histogram of ${n} samples of ${xLabel}` +
  (curves.length ? ` with ${curves.map((c) => c.name).join(' and ')}` : '');

function moveBars(wrap, y, bars, y1, ariaLabel) {
  return moveRects(wrap.querySelector(':scope > svg'), y, y1, bars.map((b) => b.density), ariaLabel);
}

const strokeOf = (c) => (c.dashed ? 'currentColor' : 'var(--curve)');
