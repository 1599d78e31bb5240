// Training curves: one line per run against the training step, smoothed by a trailing mean (and
// thinned to ~200 points), with an optional dashed reference level. Pure: data in, SVG node out.
//   series: [{ name, values }]   values[i] is the metric at step i + 1 (one colour per series)
//   ref:    { name, y }          e.g. ln L, the entropy of uniform attention
import * as Plot from '@observablehq/plot';
import { SERIES_COLORS, decades, plot, powerOfTen } from './style.js';

// Trailing mean over `window` steps (fewer at the start), so a point never looks ahead.
export function smooth(values, window) {
  const out = new Float64Array(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += values[i];
    if (i >= window) sum -= values[i - window];
    out[i] = sum / Math.min(i + 1, window);
  }
  return out;
}

export function trainingCurvesPlot({ series, yLabel, yLog = false, yDomain, ref, steps, window = 10,
  width = 320, height = 220, ariaLabel }) {
  // at most ~200 points a line (a few per pixel column): long runs cost no more to draw
  const rows = [];
  for (const s of series) {
    const y = smooth(s.values, window);
    const every = Math.max(1, Math.ceil(y.length / 200));
    for (let i = y.length - 1; i >= 0; i -= every) if (!yLog || y[i] > 0) rows.push({ x: i + 1, y: y[i], series: s.name });
  }
  const names = series.map((s) => s.name);
  const ys = rows.map((r) => r.y);
  let y = { label: yLabel, grid: true, domain: yDomain };
  if (yLog && ys.length) {
    const lo = Math.min(...ys), hi = Math.max(...ys);
    const domain = [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))];
    y = { ...y, type: 'log', domain, ticks: decades(...domain), tickFormat: powerOfTen };
  }
  const marks = [Plot.line(rows, { x: 'x', y: 'y', stroke: 'series', strokeWidth: 1.75, z: 'series' })];
  if (ref) marks.unshift(
    Plot.ruleY([ref.y], { stroke: 'currentColor', strokeOpacity: 0.55, strokeDasharray: '4,3' }),
    Plot.text([ref], { frameAnchor: 'right', y: 'y', text: () => ref.name, dy: -7, dx: -4, fill: 'currentColor', fillOpacity: 0.8 }));
  return plot({
    width, height, marginLeft: 48, marginRight: 12, marginBottom: 34,
    style: { background: 'transparent', color: 'currentColor', fontSize: '11px' },
    x: { label: 'training step', domain: [0, steps], grid: true },
    y,
    color: { type: 'ordinal', domain: names, range: SERIES_COLORS.slice(0, names.length) },
    ariaLabel: ariaLabel ?? `${yLabel} against the training step for ${names.join(', ')}`,
    marks,
  });
}
