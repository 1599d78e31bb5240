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
const prefersDark = () => globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;

export function heatmapPlot({ values, rows, cols, rowLabel = 'row', colLabel = 'column', label = 'value',
  diverging = false, domain, rowNames, colNames, cellText = false, width = 320, height, ariaLabel, dark = prefersDark() }) {
  const cells = [];
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++)
      cells.push({ i: rowNames?.[i] ?? String(i + 1), j: colNames?.[j] ?? String(j + 1), v: values[i * cols + j] });
  const extent = Math.max(1e-12, ...cells.map((c) => Math.abs(c.v)));
  const color = diverging
    ? { type: 'diverging', ...(dark ? { interpolate: DARK_DIVERGING } : { scheme: 'BuRd' }), domain: domain ?? [-extent, extent], legend: true, label }
    : { type: 'linear', ...(dark ? { interpolate: DARK_SEQUENTIAL } : { scheme: 'blues' }), domain: domain ?? [0, extent], legend: true, label };
  const marks = [Plot.cell(cells, { x: 'j', y: 'i', fill: 'v', inset: 0.5 })];
  const cellLabel = (v) => (Math.abs(v) < 0.005 ? '0.00' : v.toFixed(2));  // never "-0.00"
  if (cellText) marks.push(Plot.text(cells, { x: 'j', y: 'i', text: (c) => cellLabel(c.v),
    // strong cells are dark on white and light on the dark theme: the label takes the other tone
    fill: (c) => ((Math.abs(c.v) > 0.6 * extent) !== dark ? 'white' : 'black'), fontSize: 10 }));
  return plot({
    width, height: height ?? Math.round(width * rows / cols) + 60, marginLeft: 40, marginBottom: 36,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { label: colLabel, domain: cells.slice(0, cols).map((c) => c.j) },
    y: { label: rowLabel, domain: [...new Set(cells.map((c) => c.i))] },
    color,
    ariaLabel: ariaLabel ?? `${rows}×${cols} heatmap of ${label}`,
    marks,
  });
}
