// Curves against a swept parameter (d_k, a temperature) on log axes with readable ticks, 95%
// interval bars, dashed reference levels or curves, and a labelled vertical marker for the value
// the controls have selected. Pure: data in, SVG node out.
//   series: [{ name, points: [{ x, y, lo?, hi? }] }]      one colour per series, in a legend
//   refs:   [{ name, y, left?, dx?, dy? } | { name, points: [{ x, y }] }]
//           dashed theory levels or curves; a level's name sits at its right end (the left with
//           left: true), dy px from its line (−7, just above, by default), dx px along it
//   marker: { x, label }                                   the current value of the swept parameter
//   colors: one colour per series (default: SERIES_COLORS in order)
//   clip:   true to clip the series to the frame: on a fixed log axis, values below its floor (a
//           zero among them) leave the frame at its bottom rather than draw over the axis
import * as Plot from '@observablehq/plot';
import { chart, keepMoved, recentNodes, showMoved } from '../morph.js';
import { coordinate, translationOf } from './bake-translations.js';
import { hasBar, markGroup, moveMarks } from './move-marks.js';
import { SERIES_COLORS, fitDecades, plot, powersOfTen } from './style.js';

// Labels drawn over the curves keep a rim of the figure's background, in either theme.
const HALO = { stroke: 'var(--panel)', strokeWidth: 4, paintOrder: 'stroke' };

const WIDTH = 520;

export function sweepCurvesPlot({ series, refs = [], marker, xLabel, yLabel, xLog = true, yLog = false, yDomain,
  xTicks, xTickFormat, yTicks, yTickFormat, colors, clip = false, width = WIDTH, height = 280, ariaLabel }) {
  const rows = series.flatMap((s) => s.points.map((p) => ({ ...p, series: s.name })));
  const names = series.map((s) => s.name);
  const marks = [];
  for (const r of refs) {
    if ('y' in r) marks.push(Plot.ruleY([r.y], { stroke: 'currentColor', strokeOpacity: 0.55, strokeDasharray: '4,3' }),
      Plot.text([r], { frameAnchor: r.left ? 'left' : 'right', y: 'y', text: () => r.name, dy: r.dy ?? -7, dx: r.dx ?? (r.left ? 4 : -4), fill: 'currentColor', ...HALO }));
    else {
      marks.push(Plot.line(r.points, { x: 'x', y: 'y', stroke: 'currentColor', strokeOpacity: 0.45, strokeDasharray: '4,3' }));
      if (r.name) marks.push(Plot.text(r.points.slice(-1), { x: 'x', y: 'y', text: () => r.name, dx: -4, dy: -8, textAnchor: 'end', fill: 'currentColor', ...HALO }));
    }
  }
  if (marker) marks.push(
    Plot.ruleX([marker.x], { stroke: 'currentColor', strokeOpacity: 0.7, strokeDasharray: '2,3' }),
    Plot.text([marker.x], { x: (d) => d, frameAnchor: 'top', text: () => marker.label, dy: -12, fill: 'currentColor', fontWeight: 600, ...HALO }),
  );
  const withBars = rows.filter(hasBar);
  const framed = clip ? { clip: 'frame' } : {};
  marks.push(
    Plot.ruleX(withBars, { x: 'x', y1: 'lo', y2: 'hi', stroke: 'series', strokeWidth: 1.5, ...framed }),
    Plot.line(rows, { x: 'x', y: 'y', stroke: 'series', strokeWidth: 2, ...framed }),
    Plot.dot(rows, { x: 'x', y: 'y', fill: 'series', r: 3, ...framed }),
  );
  // Plot hands a log axis's labels to d3, which blanks those it finds crowded; explicit tick
  // values get explicit axis marks, whose text channel labels every one of them.
  const yt = yTicks ?? (yLog && yDomain ? fitDecades(...yDomain, height) : undefined);
  const ytf = yTickFormat ?? (yTicks ? String : yt && powersOfTen(yt));
  if (xTicks) marks.unshift(Plot.gridX(xTicks), Plot.axisX(xTicks, { text: xTickFormat ?? String, label: xLabel }));
  if (yt) marks.unshift(Plot.gridY(yt), Plot.axisY(yt, { text: ytf, label: yLabel }));
  return plot({
    width, height, marginLeft: 56, marginRight: 18, marginTop: 26, marginBottom: 35,  // the x label clear of "4096" below it
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    // (clipped to the frame, the first and last points would lose their outer half: the x range is
    // inset by a dot and its interval bar's width)
    x: { type: xLog ? 'log' : 'linear', label: xLabel, grid: !xTicks, ...(clip ? { inset: 6 } : {}) },
    y: { type: yLog ? 'log' : 'linear', label: yLabel, grid: !yt, domain: yDomain },
    color: { domain: names, range: colors ?? SERIES_COLORS.slice(0, names.length), legend: names.length > 1 },
    ariaLabel: ariaLabel ?? `${yLabel} against ${xLabel}: ${names.join(', ')}`,
    marks,
  });
}

// show(container, sweepCurvesPlot(options), ...after), redrawing only what changed:
// - a redraw that moves only the marker (a new d_k or τ on the same sweep) moves it in place
//   through the plot's x scale, ~0.1 ms instead of a Plot build;
// - new values on the same axes (a new seed: the same points at new heights, a y domain given)
//   move the dots, interval bars and lines in place through the plot's scales (moveCurves);
// - curves drawn before in this container and since replaced (a reader moving n back) come back;
// - anything else is a Plot build.
const drawn = new WeakMap();  // container → what showMoved drew (morph.js); scales: { x, y }
const takeBack = recentNodes(6);  // curves the container showed lately, or was given ahead
const SVG = 'http://www.w3.org/2000/svg';

const moved = (options) => ({
  key: JSON.stringify(options), layout: layoutOf(options), width: options.width ?? WIDTH,
  move: (node, scales) => moveCurves(chart(node), scales, options.series),
  build: () => sweepCurvesPlot(options),
  scalesOf: (node) => ({ x: node.scale('x'), y: node.scale('y') }),
  takeBack,
});

export function showSweepCurves(container, { marker, ...options }, ...after) {
  const live = showMoved(container, drawn, moved(options), ...after);
  moveMarker(live, drawn.get(container).scales, marker, options.series);
}
// the curves of options built ahead for container (a neighbouring n's), kept for when
// showSweepCurves asks for them (morph.js keepMoved); the marker is placed then
export const keepSweepCurves = (container, { marker, ...options }) => keepMoved(container, drawn, moved(options));

// What fixes the plot's scales and its elements, all but the series' y values: null when the y
// domain follows the data (then new values mean new axes).
function layoutOf(options) {
  if (!options.yDomain) return null;
  return JSON.stringify({ ...options, series: options.series.map(({ name, points }) =>
    [name, points.map((p) => [p.x, hasBar(p)])]) });
}

// Plot's marks for the series, redrawn for new y values through the same scales (the layout is
// unchanged): the dots, the interval bars and each series' line (move-marks.js). False, touching
// nothing, if a value has no finite position or the marks are not as expected.
function moveCurves(svg, { x, y }, series) {
  const outer = svg?.querySelector(':scope > g[aria-label="dot"]');  // then the line's, then the bars'
  const outerLines = outer?.previousElementSibling, outerRules = outerLines?.previousElementSibling;
  const points = series.flatMap((s) => s.points);
  const bars = points.filter(hasBar);
  if (!outer || outerLines?.getAttribute('aria-label') !== 'line' || (bars.length && outerRules?.getAttribute('aria-label') !== 'rule')) return false;
  const [dots, lines, rules] = [outer, outerLines, outerRules].map(markGroup);
  if (lines?.childElementCount !== series.length) return false;
  const move = moveMarks(x, y);
  move.dots(dots, points);
  if (bars.length) move.rules(rules, bars);
  series.forEach((s, i) => move.line(lines.children[i], s.points));
  return move.apply();
}

// The marker: a dotted rule across the frame and its label above it, in the chart's own <svg>.
function moveMarker(node, { x, y }, marker, series = []) {
  const svg = chart(node);
  let g = svg.querySelector(':scope > g.sweep-marker');
  if (!marker) { g?.remove(); return; }
  if (!g) {
    g = document.createElementNS(SVG, 'g');
    g.setAttribute('class', 'sweep-marker');
    g.setAttribute('role', 'group');
    g.append(document.createElementNS(SVG, 'line'), document.createElementNS(SVG, 'text'));
    svg.append(g);
  }
  const [line, label] = g.children;
  const px = String(Math.round(x.apply(marker.x) * 10) / 10), [y0, y1] = y.range;
  for (const [a, v] of [['x1', px], ['x2', px], ['y1', y0], ['y2', y1]]) line.setAttribute(a, v);
  // Centred above the frame, in the row of the y axis's label (at the chart's left edge), shifted
  // left near the right edge to stay in the chart. Where that would run into the y axis's label or
  // into a reference level's name (a narrow chart), it goes inside the frame beside its line: at
  // the top, right then left of it, then at the bottom; the first place clear of every label and
  // every dot wins. Widths from a canvas, places from the marks' attributes and the scales (no
  // layout): 12px, as plot.css sets.
  const yLabel = svg.querySelector(':scope > g[aria-label="y-axis label"]')?.textContent ?? '';
  const w = textWidth(marker.label, 600), half = w / 2, at = Number(px);
  const top = Math.min(y0, y1), bottom = Math.max(y0, y1), width = Number(svg.getAttribute('width'));  // NaN: no width
  const above = Math.min(at, Math.round((width - half - 2) * 10) / 10 || at);
  const dots = series.flatMap((p) => p.points).map((p) => ({ x: x.apply(p.x), y: y.apply(p.y) }))
    .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).map((p) => ({ left: p.x - 4, right: p.x + 4, y: p.y, h: 4 }));
  const taken = [{ left: 0, right: textWidth(yLabel, 400) + 10, y: top - 12, h: 7 }, ...nameBoxes(svg), ...dots];
  // each place: the label's anchor x, its centre line y, its class (text-anchor) and its left edge
  const right = (y) => ({ x: at + 5, y, cls: 'inside', left: at + 5 }), left = (y) => ({ x: at - 5, y, cls: 'inside-left', left: at - 5 - w });
  const places = [{ x: above, y: top - 12, cls: null, left: above - half }, right(top + 10), left(top + 10), right(bottom - 10), left(bottom - 10)];
  const clear = (p) => p.left >= 0 && !(p.left + w > width) &&
    taken.every((b) => Math.abs(b.y - p.y) >= 7 + b.h || b.right <= p.left || b.left >= p.left + w);
  const { x: lx, y: ly, cls } = places.find(clear) ?? places[1];
  label.setAttribute('x', String(Math.round(lx * 10) / 10));
  label.setAttribute('y', String(ly));
  if (cls) label.setAttribute('class', cls);
  else label.removeAttribute('class');  // (classList would leave class="", which a fresh draw has not)
  if (label.textContent !== marker.label) label.textContent = marker.label;
  g.setAttribute('aria-label', `marker: ${marker.label}`);
}

// The reference levels' names (Plot's text marks: a group translated by dx, dy, each text at its
// x, y, baked in from its own translation by style.js, and centred on it by dy = 0.32em), as boxes
// { left, right, y: the centre line, h: half the height }.
const position = (t) => { const [tx, ty] = translationOf(t); return [tx + coordinate(t.getAttribute('x')), ty + coordinate(t.getAttribute('y'))]; };
function nameBoxes(svg) {
  const boxes = [];
  for (const g of svg.querySelectorAll(':scope > g[aria-label="text"]')) {
    const [gx, gy] = translationOf(g), anchor = g.getAttribute('text-anchor') ?? 'start';
    for (const t of g.children) {
      const [tx, ty] = position(t), tw = textWidth(t.textContent, 400), x = gx + tx;
      const left = anchor === 'end' ? x - tw : anchor === 'middle' ? x - tw / 2 : x;
      boxes.push({ left, right: left + tw, y: gy + ty, h: 7 });
    }
  }
  return boxes;
}

let measure = null;
function textWidth(text, weight) {
  measure ??= document.createElement('canvas').getContext('2d');
  measure.font = `${weight} 12px system-ui, sans-serif`;
  return measure.measureText(text).width;
}
