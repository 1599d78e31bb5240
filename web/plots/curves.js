// Curves against x, each point with an optional 95% interval bar, plus optional reference lines.
// Pure: data in, SVG node out.
//   series: [{ name, points: [{ x, y, lo?, hi? }] }]   (one colour per series, in a legend)
//   refs:   [{ name, points: [{ x, y }] } | { name, y }] dashed reference curves or levels
import * as Plot from '@observablehq/plot';
import { fmtInt } from '../format.js';
import { hasBar } from './move-marks.js';
import { SERIES_COLORS, plot } from './style.js';

// Ticks for a log axis: the powers of 10 in [lo, hi], with 2× and 5× when that spans at most two
// decades; labelled in plain numbers (Plot's defaults thin them unevenly and use SI suffixes).
function logAxis(values) {
  const pos = values.filter((v) => v > 0);
  const lo = Math.min(...pos), hi = Math.max(...pos);
  const e0 = Math.floor(Math.log10(lo)), e1 = Math.ceil(Math.log10(hi));
  const steps = e1 - e0 <= 2 ? [1, 2, 5] : [1];
  const ticks = [];
  for (let e = e0; e <= e1; e++) for (const m of steps) { const t = m * 10 ** e; if (t >= lo / 1.0001 && t <= hi * 1.0001) ticks.push(t); }
  const label = (t) => (t >= 1 ? fmtInt(t) : String(+t.toPrecision(1)));
  return { ticks, tickFormat: label };
}

export function curvesPlot({ series, refs = [], xLabel, yLabel, xLog = false, yLog = false, yDomain,
  width = 640, height = 300, ariaLabel }) {
  const rows = series.flatMap((s) => s.points.map((p) => ({ ...p, series: s.name })));
  const names = series.map((s) => s.name);
  const marks = [];
  for (const r of refs) {
    if ('y' in r) marks.push(Plot.ruleY([r.y], { stroke: 'currentColor', strokeOpacity: 0.55, strokeDasharray: '4,3' }),
      Plot.text([r], { frameAnchor: 'right', y: 'y', text: () => r.name, dy: -7, dx: -4, fill: 'currentColor', fillOpacity: 0.8 }));
    else marks.push(Plot.line(r.points, { x: 'x', y: 'y', stroke: 'currentColor', strokeOpacity: 0.55, strokeDasharray: '4,3' }),
      Plot.text(r.points.slice(-1), { x: 'x', y: 'y', text: () => r.name, dx: -4, dy: -8, textAnchor: 'end', fill: 'currentColor', fillOpacity: 0.8 }));
  }
  const withBars = rows.filter(hasBar);
  marks.push(
    Plot.ruleX(withBars, { x: 'x', y1: 'lo', y2: 'hi', stroke: 'series', strokeWidth: 1.5 }),
    Plot.line(rows, { x: 'x', y: 'y', stroke: 'series', strokeWidth: 2 }),
    Plot.dot(rows, { x: 'x', y: 'y', fill: 'series', r: 3 }),
  );
  return plot({
    width, height, marginLeft: 56, marginRight: 16,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { type: xLog ? 'log' : 'linear', label: xLabel, grid: true, ...(xLog ? logAxis(rows.map((r) => r.x)) : {}) },
    y: { type: yLog ? 'log' : 'linear', label: yLabel, grid: true, domain: yDomain,
      ...(yLog ? logAxis([...rows.flatMap((r) => [r.y, r.lo ?? r.y, r.hi ?? r.y]), ...(yDomain ?? [])]) : {}) },
    color: { type: 'ordinal', domain: names, range: SERIES_COLORS.slice(0, names.length), legend: names.length > 1 },
    ariaLabel: ariaLabel ?? `${yLabel} against ${xLabel}: ${names.join(', ')}`,
    marks,
  });
}
