// A matrix as a heatmap (row i at the top), with a colour legend. Pure: data in, SVG node out.
//   values: row-major Float32Array or array of length rows·cols
//   diverging: true for signed data centred on 0 (a Jacobian), false for weights in [0, max]
import * as Plot from '@observablehq/plot';
import { plot } from './style.js';

// Piecewise-linear colour ramp through the given hex stops, t in [0, 1].
function ramp(stops) {
  const rgb = stops.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
  return (t) => {
    const x = Math.min(1, Math.max(0, t)) * (rgb.length - 1), i = Math.min(rgb.length - 2, Math.floor(x)), f = x - i;
    return `rgb(${rgb[i].map((c, k) => Math.round(c + f * (rgb[i + 1][k] - c))).join(',')})`;
  };
}
// In the dark theme zero is the panel's own dark grey, so near-zero cells recede as they do on white.
const DARK_DIVERGING = ramp(['#6cb4ee', '#3a6f9e', '#26282c', '#a8503c', '#f08a6c']);
const DARK_SEQUENTIAL = ramp(['#26282c', '#2c5479', '#4f91c7', '#9fd0f5']);
// The page's theme: data-theme on <html> (the embed page's theme=), else the reader's preference.
const prefersDark = () => {
  const set = globalThis.document?.documentElement.dataset.theme;
  if (set === 'dark' || set === 'light') return set === 'dark';
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
};

export function heatmapPlot({ values, rows, cols, rowLabel = 'row', colLabel = 'column', label = 'value',
  diverging = false, domain, rowNames, colNames, cellText = false, width = 320, height, ariaLabel, dark = prefersDark() }) {
  const cells = [];
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++)
      cells.push({ i: rowNames?.[i] ?? String(i + 1), j: colNames?.[j] ?? String(j + 1), v: values[i * cols + j] });
  const extent = Math.max(1e-12, ...cells.map((c) => Math.abs(c.v)));
  const color = diverging
    ? { type: 'diverging', ...(dark ? { interpolate: DARK_DIVERGING } : { scheme: 'BuRd' }), domain: domain ?? [-extent, extent] }
    : { type: 'linear', ...(dark ? { interpolate: DARK_SEQUENTIAL } : { scheme: 'blues' }), domain: domain ?? [0, extent] };
  const marks = [Plot.cell(cells, { x: 'j', y: 'i', fill: 'v', inset: 0.5 })];
  const cellLabel = (v) => (Math.abs(v) < 0.005 ? '0.00' : v.toFixed(2));  // never "-0.00"
  if (cellText) marks.push(Plot.text(cells, { x: 'j', y: 'i', text: (c) => cellLabel(c.v),
    // strong cells are dark on white and light on the dark theme: the label takes the other tone
    fill: (c) => ((Math.abs(c.v) > 0.6 * extent) !== dark ? 'white' : 'black'), fontSize: 10 }));
  const map = plot({
    width, height: height ?? Math.round(width * rows / cols) + 60, marginLeft: 40, marginBottom: 36,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { label: colLabel, domain: cells.slice(0, cols).map((c) => c.j) },
    y: { label: rowLabel, domain: [...new Set(cells.map((c) => c.i))] },
    color,
    ariaLabel: ariaLabel ?? `${rows}×${cols} heatmap of ${label}`,
    marks,
  });
  const figure = document.createElement('div');
  figure.className = 'heatmap';
  figure.append(colorLegend(color, label, Math.min(width, 260)), map);
  return figure;
}

// The colour scale as a strip of 64 cells on a labelled axis. (Plot's own ramp legend paints a
// canvas into a data: URL, which a strict CSP's img-src 'self' refuses.)
function colorLegend(color, label, width) {
  const [lo, hi] = [color.domain[0], color.domain.at(-1)];
  const slices = Array.from({ length: 64 }, (_, k) => ({ x1: lo + ((hi - lo) * k) / 64, x2: lo + ((hi - lo) * (k + 1)) / 64 }));
  return plot({
    width, height: 50, marginTop: 4, marginBottom: 32, marginLeft: 10, marginRight: 14,
    style: { background: 'transparent', color: 'currentColor', fontSize: '10px' },
    x: { domain: [lo, hi], label, labelAnchor: 'center', labelArrow: 'none', labelOffset: 28, ticks: 4, tickSize: 4 },
    y: { axis: null },
    color,
    ariaLabel: `colour legend: ${label} from ${lo.toPrecision(2)} to ${hi.toPrecision(2)}`,
    marks: [Plot.rect(slices, { x1: 'x1', x2: 'x2', y1: 0, y2: 1, fill: (d) => (d.x1 + d.x2) / 2 })],
  });
}
