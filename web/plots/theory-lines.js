// Formula curves (coloured, each with its own dash pattern, named in a legend) with measured
// points and their 95% intervals on top, plus optional labelled reference rules.
// Pure: data in, SVG node out.
//   measured: [{ name, points: [{ x, y, lo?, hi? }] }]   dots with interval bars (first colours)
//   lines:    [{ name, points: [{ x, y }] }]              curves (the next colours)
//   hrules:   [{ y, label }]   vrules: [{ x, label }]     thin dashed rules in the text colour
//   order:    [name, …]                                  the legend's order and colours, if not that
import * as Plot from '@observablehq/plot';
import { chart, keepMoved, recentNodes, showMoved } from '../morph.js';
import { hasBar, markGroup, moveMarks } from './move-marks.js';
import { SERIES_COLORS, fitTicks, plot } from './style.js';
import { fitWidth } from './room.js';

// Log-axis tick labels as plain numbers (0.25, 4, 1024), never SI prefixes (250m, 1k). With base 2
// (xBase: 2) every power of two gets a label; base 10 labels only a few ticks per decade.
const tick = (v) => String(Number(v.toPrecision(6)));

// A dash pattern per line, so that the curves differ by more than colour.
const DASHES = ['none', '7,4', '2,3', '9,3,2,3', '4,2'];

const WIDTH = 440;

export function theoryPlot({ measured = [], lines = [], hrules = [], vrules = [], xLabel, yLabel,
  xLog = false, yLog = false, xBase, yBase, xDomain, yDomain, xTicks, yTicks, width = WIDTH, height = 280, ariaLabel, order }) {
  const names = order ?? [...measured.map((m) => m.name), ...lines.map((l) => l.name)];
  const marks = [];
  for (const r of hrules) {
    marks.push(Plot.ruleY([r.y], { stroke: 'currentColor', strokeOpacity: 0.6, strokeDasharray: '3,3' }));
    if (r.label) marks.push(Plot.text([r], { y: 'y', frameAnchor: 'left', text: () => r.label, dx: 4, dy: -7,
      textAnchor: 'start', fill: 'currentColor', fillOpacity: 0.85 }));
  }
  for (const r of vrules) {
    marks.push(Plot.ruleX([r.x], { stroke: 'currentColor', strokeOpacity: 0.6, strokeDasharray: '3,3' }));
    if (r.label) marks.push(Plot.text([r], { x: 'x', frameAnchor: 'top', text: () => r.label, dy: 6, dx: 4,
      textAnchor: 'start', fill: 'currentColor', fillOpacity: 0.85 }));
  }
  lines.forEach((l, i) => marks.push(Plot.line(l.points, { x: 'x', y: 'y', stroke: () => l.name, strokeWidth: 2,
    strokeDasharray: DASHES[i % DASHES.length], clip: true })));
  for (const m of measured) {
    const bars = m.points.filter(hasBar);
    marks.push(
      // (clipped: an interval that reaches far below its point, toward 0 on a log axis, leaves the frame)
      Plot.ruleX(bars, { x: 'x', y1: 'lo', y2: 'hi', stroke: () => m.name, strokeWidth: 2, clip: true }),
      Plot.dot(m.points, { x: 'x', y: 'y', fill: () => m.name, r: 3.5, stroke: 'var(--panel, white)', strokeWidth: 1 }),
    );
  }
  return plot({
    width, height, marginLeft: 56, marginRight: 20, marginTop: 20, marginBottom: 40,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { type: xLog ? 'log' : 'linear', base: xLog ? xBase : undefined, label: xLabel, labelAnchor: 'center', labelOffset: 34, grid: true, domain: xDomain,
      ticks: xTicks && fitTicks(xTicks, fitWidth(width) - 76, xLog ? tick : String), tickFormat: xLog ? tick : undefined },
    y: { type: yLog ? 'log' : 'linear', base: yLog ? yBase : undefined, label: yLabel, grid: true, domain: yDomain, ticks: yTicks, tickFormat: yLog ? tick : undefined },
    color: { domain: names, range: SERIES_COLORS.slice(0, names.length), legend: names.length > 1 },
    ariaLabel: ariaLabel ?? `${yLabel} against ${xLabel}: ${names.join(', ')}`,
    marks,
  });
}

// show(container, theoryPlot(options), ...after), redrawing in place what it can: with the same
// axes (a y domain given, and the same names, x values, rules and labels: a new seed or sample
// size, a formula's new values), the measured dots and interval bars and the curves move through
// the plot's scales (move-marks.js); one of another layout shown lately (a departure or an
// initialisation chosen again) comes back, moved; anything else is a Plot build.
const drawn = new WeakMap();  // container → what showMoved drew (morph.js); scales: { x, y }
// theory plots of other layouts the container showed lately, or was given ahead (keepTheory: three
// departures of breaking-assumptions beside the layouts shown lately)
const takeBack = recentNodes(8);

const moved = (options) => ({
  key: JSON.stringify(options), layout: layoutOf(options), width: options.width ?? WIDTH,
  move: (node, scales) => moveTheory(chart(node), scales, options),
  build: () => theoryPlot(options),
  scalesOf: (node) => ({ x: node.scale('x'), y: node.scale('y') }),
  takeBack,
});

export const showTheory = (container, options, ...after) => showMoved(container, drawn, moved(options), ...after);
// the plot of options built ahead for container, kept for when showTheory asks for it (morph.js)
export const keepTheory = (container, options) => keepMoved(container, drawn, moved(options));

// All that fixes the plot's axes and elements, the y values and the description apart; null when
// the y domain follows the data (or the description follows the names).
function layoutOf({ measured = [], lines = [], ariaLabel, ...rest }) {
  if (!rest.yDomain || ariaLabel === undefined) return null;
  return JSON.stringify({ ...rest, measured: measured.map((m) => [m.name, m.points.map((p) => [p.x, hasBar(p)])]),
    lines: lines.map((l) => [l.name, l.points.map((p) => p.x)]) });
}

// theoryPlot's marks in order: each rule and its label, one line mark per curve, then per measured
// series its interval bars (if any) and its dots.
function moveTheory(svg, { x, y }, { measured = [], lines = [], hrules = [], vrules = [], ariaLabel }) {
  const groups = (label) => svg ? [...svg.querySelectorAll(`:scope > g[aria-label="${label}"]`)] : [];
  const lineGs = groups('line'), dotGs = groups('dot'), ruleGs = groups('rule');
  const barred = measured.filter((m) => m.points.some(hasBar));
  if (lineGs.length !== lines.length || dotGs.length !== measured.length ||
    ruleGs.length !== hrules.length + vrules.length + barred.length) return false;
  const move = moveMarks(x, y);
  // a clipped line's path sits in a <g> of its own (the clip) inside the mark's
  lines.forEach((l, i) => {
    const paths = lineGs[i].getElementsByTagName('path');
    if (paths.length === 1) move.line(paths[0], l.points); else move.ok = false;
  });
  const barGs = ruleGs.slice(hrules.length + vrules.length).map(markGroup);  // the bars are clipped
  barred.forEach((m, i) => move.rules(barGs[i], m.points.filter(hasBar)));
  measured.forEach((m, i) => move.dots(dotGs[i], m.points));
  if (!move.apply()) return false;
  svg.setAttribute('aria-label', ariaLabel);
  return true;
}
