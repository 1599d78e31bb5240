// Grouped bars: one group per category (e.g. key position), one bar per series (e.g. unscaled,
// scaled). Pure: data in, SVG node out.
//   categories: ['k₁', 'k₂', …];  series: [{ name, values: [...] }] with values per category
import * as Plot from '@observablehq/plot';
import { chart, keepMoved, recentNodes, setIf, showMoved } from '../morph.js';
import { SERIES_COLORS, columnTicks, fitWidth, plot } from './style.js';

const MARGIN_LEFT = 48;

const WIDTH = 640;

// Category c spans [c, c + 1] of a linear x scale; its group of bars the middle 0.85 of it, each
// bar 0.9 of its share. One mark of S·C rects, not Plot's facets: a facet per category repeated
// the grid and the baseline in each, 246 elements at 16 keys where this draws 75 (a new n is a
// new layout, and a new layout's elements are what its redraw styles and lays out).
const GROUP = 0.85, BAR = 0.9;
const barX = (c, k, S) => {
  const share = GROUP / S, x1 = c + (1 - GROUP) / 2 + k * share + share * (1 - BAR) / 2;
  return [x1, x1 + share * BAR];
};

export function barsPlot({ categories, series, yLabel = 'weight', yDomain = [0, 1], width = WIDTH, height = 240, ariaLabel }) {
  const S = series.length;
  const rows = series.flatMap((s, k) => s.values.map((v, c) => {
    const [x1, x2] = barX(c, k, S);
    return { x1, x2, series: s.name, value: v };
  }));
  const names = series.map((s) => s.name);
  const fitted = fitWidth(width);  // fitted here: the names under the bars depend on it
  const shown = new Set(columnTicks(categories, fitted - MARGIN_LEFT) ?? categories);  // thinned on a phone
  const ticks = categories.flatMap((name, c) => (shown.has(name) ? [c + 0.5] : []));
  return plot({
    fit: false, width: fitted, height, marginLeft: MARGIN_LEFT,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { domain: [0, categories.length], axis: null },
    y: { label: yLabel, grid: true, domain: yDomain },
    color: { type: 'ordinal', domain: names, range: SERIES_COLORS.slice(0, names.length), legend: names.length > 1 },
    ariaLabel: ariaLabel ?? `${yLabel} for each of ${categories.length} positions: ${names.join(' and ')}`,
    marks: [
      Plot.axisX(ticks, { tickSize: 0, tickFormat: (v) => categories[Math.floor(v)], label: null }),
      Plot.rectY(rows, { x1: 'x1', x2: 'x2', y: 'value', fill: 'series' }), Plot.ruleY([0]),
    ],
  });
}

// show(container, barsPlot(options), ...after), in place when the bars there have the same
// categories, series and axes: each bar's top and height through the plot's y scale (as Plot's
// rectY computes them: y = min(Y(0), Y(v)), height = |Y(v) − Y(0)|), ~0.1 ms instead of a Plot build.
// Bars of another layout that the container showed lately (a reader moving n back) come back,
// their bars moved; only a layout not seen lately is a Plot build.
const drawn = new WeakMap();  // container → what showMoved drew (morph.js); scales: the plot's y scale
const takeBack = recentNodes(6);  // layouts the container showed lately, or was given ahead

const moved = ({ ariaLabel, ...options }) => ({
  key: JSON.stringify({ ...options, ariaLabel }), width: options.width ?? WIDTH,
  layout: JSON.stringify({ ...options, series: options.series.map((x) => [x.name, x.values.length]) }),
  move: (node, y) => moveBars(chart(node), y, options, ariaLabel),
  build: () => barsPlot({ ...options, ariaLabel }),
  scalesOf: (node) => node.scale('y'),
  takeBack,
});

export const showBars = (container, options, ...after) => { showMoved(container, drawn, moved(options), ...after); };
// the bars of options built ahead for container (a neighbouring n's), kept for when showBars asks
// for them (morph.js keepMoved)
export const keepBars = (container, options) => keepMoved(container, drawn, moved(options));

// Sets each bar's top and height for the new values; false, touching nothing, if the bars drawn
// are not one rect per category and series (series by series, as barsPlot's rows).
function moveBars(svg, y, { categories, series }, ariaLabel) {
  const rects = svg?.querySelector('g[aria-label="rect"]')?.children ?? [];
  if (rects.length !== categories.length * series.length) return false;
  const y0 = y.apply(0);
  series.forEach((s, k) => s.values.forEach((v, c) => {
    const rect = rects[k * categories.length + c], yv = y.apply(v);
    setIf(rect, 'y', Math.min(y0, yv));
    setIf(rect, 'height', Math.max(0, Math.abs(yv - y0)));
  }));
  if (ariaLabel) svg.setAttribute('aria-label', ariaLabel);
  return true;
}
