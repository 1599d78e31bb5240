// A matrix as a heatmap (row i at the top), with a colour legend. Pure: data in, SVG node out.
//   values: row-major Float32Array or array of length rows·cols
//   diverging: true for signed data centred on 0 (a Jacobian), false for weights in [0, max]
import * as Plot from '@observablehq/plot';
import { finishPlot } from './style.js';

export function heatmapPlot({ values, rows, cols, rowLabel = 'row', colLabel = 'column', label = 'value',
  diverging = false, domain, rowNames, colNames, cellText = false, width = 320, height, ariaLabel }) {
  const cells = [];
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++)
      cells.push({ i: rowNames?.[i] ?? String(i + 1), j: colNames?.[j] ?? String(j + 1), v: values[i * cols + j] });
  const extent = Math.max(1e-12, ...cells.map((c) => Math.abs(c.v)));
  const color = diverging
    ? { type: 'diverging', scheme: 'BuRd', domain: domain ?? [-extent, extent], legend: true, label }
    : { type: 'linear', scheme: 'blues', domain: domain ?? [0, extent], legend: true, label };
  const marks = [Plot.cell(cells, { x: 'j', y: 'i', fill: 'v', inset: 0.5 })];
  const cellLabel = (v) => (Math.abs(v) < 0.005 ? '0.00' : v.toFixed(2));  // never "-0.00"
  if (cellText) marks.push(Plot.text(cells, { x: 'j', y: 'i', text: (c) => cellLabel(c.v),
    fill: (c) => (Math.abs(c.v) > 0.6 * extent ? 'white' : 'black'), fontSize: 10 }));
  return finishPlot(Plot.plot({
    width, height: height ?? Math.round(width * rows / cols) + 60, marginLeft: 40, marginBottom: 36,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { label: colLabel, domain: cells.slice(0, cols).map((c) => c.j) },
    y: { label: rowLabel, domain: [...new Set(cells.map((c) => c.i))] },
    color,
    ariaLabel: ariaLabel ?? `${rows}×${cols} heatmap of ${label}`,
    marks,
  }));
}
