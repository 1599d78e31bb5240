// Grouped bars: one group per category (e.g. key position), one bar per series (e.g. unscaled,
// scaled). Pure: data in, SVG node out.
//   categories: ['k₁', 'k₂', …];  series: [{ name, values: [...] }] with values per category
import * as Plot from '@observablehq/plot';
import { chart, recentNodes, setIf, showMoved } from '../morph.js';
import { SERIES_COLORS, columnTicks, fitWidth, plot } from './style.js';

const MARGIN_LEFT = 48;

const WIDTH = 640;

export function barsPlot({ categories, series, yLabel = 'weight', yDomain = [0, 1], width = WIDTH, height = 240, ariaLabel }) {
  const rows = series.flatMap((s) => s.values.map((v, i) => ({ category: categories[i], series: s.name, value: v })));
  const names = series.map((s) => s.name);
  const fitted = fitWidth(width);  // fitted here: the names under the bars depend on it
  return plot({
    fit: false, width: fitted, height, marginLeft: MARGIN_LEFT,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    fx: { label: null, domain: categories, padding: 0.15, ticks: columnTicks(categories, fitted - MARGIN_LEFT) },
    x: { axis: null, domain: names },
    y: { label: yLabel, grid: true, domain: yDomain },
    color: { type: 'ordinal', domain: names, range: SERIES_COLORS.slice(0, names.length), legend: names.length > 1 },
    ariaLabel: ariaLabel ?? `${yLabel} for each of ${categories.length} positions: ${names.join(' and ')}`,
    marks: [Plot.barY(rows, { fx: 'category', x: 'series', y: 'value', fill: 'series' }), Plot.ruleY([0])],
  });
}

// show(container, barsPlot(options), ...after), in place when the bars there have the same
// categories, series and axes: each bar's top and height through the plot's y scale (as Plot's
// barY computes them: y = min(Y(0), Y(v)), height = |Y(v) − Y(0)|), ~0.1 ms instead of a Plot build.
// Bars of another layout that the container showed lately (a reader moving n back) come back,
// their bars moved; only a layout not seen lately is a Plot build.
const drawn = new WeakMap();  // container → what showMoved drew (morph.js); scales: the plot's y scale
const takeBack = recentNodes();  // layouts the container showed lately

export function showBars(container, { ariaLabel, ...options }, ...after) {
  showMoved(container, drawn, {
    key: JSON.stringify({ ...options, ariaLabel }), width: options.width ?? WIDTH,
    layout: JSON.stringify({ ...options, series: options.series.map((x) => [x.name, x.values.length]) }),
    move: (node, y) => moveBars(chart(node), y, options, ariaLabel),
    build: () => barsPlot({ ...options, ariaLabel }),
    scalesOf: (node) => node.scale('y'),
    takeBack,
  }, ...after);
}

// Sets each bar's top and height for the new values; false, touching nothing, if the bars drawn
// are not one <g> per category with one bar per series.
function moveBars(svg, y, { categories, series }, ariaLabel) {
  const groups = [...(svg?.querySelector('g[aria-label="bar"]')?.children ?? [])];  // one <g> per category (facet)
  if (groups.length !== categories.length || groups.some((g) => g.childElementCount !== series.length)) return false;
  const y0 = y.apply(0);
  groups.forEach((g, c) => [...g.children].forEach((rect, k) => {
    const yv = y.apply(series[k].values[c]);
    setIf(rect, 'y', Math.min(y0, yv));
    setIf(rect, 'height', Math.max(0, Math.abs(yv - y0)));
  }));
  if (ariaLabel) svg.setAttribute('aria-label', ariaLabel);
  return true;
}

