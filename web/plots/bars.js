// Grouped bars: one group per category (e.g. key position), one bar per series (e.g. unscaled,
// scaled). Pure: data in, SVG node out.
//   categories: ['k₁', 'k₂', …];  series: [{ name, values: [...] }] with values per category
import * as Plot from '@observablehq/plot';
import { SERIES_COLORS, plot } from './style.js';

export function barsPlot({ categories, series, yLabel = 'weight', yDomain = [0, 1], width = 640, height = 240, ariaLabel }) {
  const rows = series.flatMap((s) => s.values.map((v, i) => ({ category: categories[i], series: s.name, value: v })));
  const names = series.map((s) => s.name);
  return plot({
    width, height, marginLeft: 48,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    fx: { label: null, domain: categories, padding: 0.15 },
    x: { axis: null, domain: names },
    y: { label: yLabel, grid: true, domain: yDomain },
    color: { type: 'ordinal', domain: names, range: SERIES_COLORS.slice(0, names.length), legend: names.length > 1 },
    ariaLabel: ariaLabel ?? `${yLabel} for each of ${categories.length} positions: ${names.join(' and ')}`,
    marks: [Plot.barY(rows, { fx: 'category', x: 'series', y: 'value', fill: 'series' }), Plot.ruleY([0])],
  });
}
