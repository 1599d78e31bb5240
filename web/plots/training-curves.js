// Training curves: one line per run against the training step, smoothed by a trailing mean (and
// thinned to ~200 points), with an optional dashed reference level. Pure: data in, SVG node out.
//   series: [{ name, values }]   values[i] is the metric at step i + 1 (one colour per series)
//   ref:    { name, y }          e.g. ln L, the entropy of uniform attention
//   yCover: [lo, hi]             decades a log axis always spans
//   yFloor: 1e-12                the lowest a log axis reaches: a point below it (or 0, a gradient
//                                that vanished exactly) is drawn under the frame, and the line dives
//                                out of the frame there (clipped) rather than stretching the axis
//   yKeep:  true                 a log axis keeps the decades drawn there while the points fit in
//                                them (a run streaming its chunks: its first ones then move in place)
import * as Plot from '@observablehq/plot';
import { chart, keepMoved, recentNodes, showMoved } from '../morph.js';
import { markGroup, moveMarks } from './move-marks.js';
import { SERIES_COLORS, fitDecades, plot, pow10, powersOfTen } from './style.js';

// where a point below a log axis's floor is drawn: under the frame, out of sight
const under = (floor) => floor / 1000;

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

// The points of one series as drawn: its trailing mean thinned to at most ~200 points a line (a
// few per pixel column: long runs cost no more to draw), the last step first (the order Plot's line
// is given them in); none that is not finite (a diverged run's NaN: the line joins its
// neighbours); on a log axis only the positive ones, or with a floor every one, those below it
// under the frame.
function pointsOf(values, window, yLog, yFloor) {
  const y = smooth(values, window), points = [];
  const every = Math.max(1, Math.ceil(y.length / 200));
  for (let i = y.length - 1; i >= 0; i -= every) {
    if (!Number.isFinite(y[i])) continue;
    if (yLog && yFloor) points.push({ x: i + 1, y: y[i] >= yFloor ? y[i] : under(yFloor) });
    else if (!yLog || y[i] > 0) points.push({ x: i + 1, y: y[i] });
  }
  return points;
}

// The y axis: the given one, or on a log axis the decades around every point and around yCover
// ([lo, hi], powers of ten): most runs then share one axis, so a new run's curves are moved onto it
// in place (showTrainingCurves), and runs are compared on the same decades.
// (kept: decades drawn before, used instead when every point and yCover fit in them; yFloor: the
// domain's lowest end, the points under the frame not counted: with all of them there, the axis
// is yCover's, or the floor's decade)
export function trainingYAxis(lines, { yLabel, yLog, yDomain, yCover, yFloor = 0, height = 220 }, kept = null) {
  const ys = lines.flat().map((p) => p.y).filter((y) => y >= yFloor);
  const [lo, hi] = yCover ?? [Infinity, 0];
  const [min, max] = [Math.min(lo, ...ys), Math.max(hi, ...ys)];
  if (!yLog || (!(min <= max) && !yFloor)) return { label: yLabel, grid: true, domain: yDomain };
  let domain;
  if (kept && kept[0] >= yFloor && kept[0] <= min && max <= kept[1]) domain = kept;
  else if (!(min <= max)) domain = [yFloor, 10 * yFloor];  // nothing above the floor, no yCover
  else {
    const bottom = Math.max(yFloor, Math.min(lo, pow10(Math.floor(Math.log10(min)))));
    domain = [bottom, Math.max(hi, pow10(Math.ceil(Math.log10(max))), 10 * bottom)];
  }
  const ticks = fitDecades(...domain, height);
  return { label: yLabel, grid: true, domain, type: 'log', ticks, tickFormat: powersOfTen(ticks) };
}

// (lines: each series' points, when the caller has them already: showTrainingCurves)
export function trainingCurvesPlot({ series, yLabel, yLog = false, yDomain, yCover, yFloor, ref, steps, window = 10,
  width = 320, height = 220, ariaLabel, lines = series.map((s) => pointsOf(s.values, window, yLog, yFloor)),
  y = trainingYAxis(lines, { yLabel, yLog, yDomain, yCover, yFloor, height }) }) {
  const rows = series.flatMap((s, k) => lines[k].map((p) => ({ ...p, series: s.name })));
  const names = series.map((s) => s.name);
  const clip = yLog && yFloor ? { clip: 'frame' } : {};
  const marks = [Plot.line(rows, { x: 'x', y: 'y', stroke: 'series', strokeWidth: 1.75, z: 'series', ...clip })];
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

// show(container, trainingCurvesPlot(options)), in place while the axes stay (the steps shown, a
// log axis's decades, the room): each line's path through the plot's scales (move-marks.js), ~0.2
// ms where a Plot build takes ~5. A run streaming its chunks redraws four such plots every 200 ms.
const drawn = new WeakMap();  // container → what showMoved drew (morph.js): its node, its scales
// axes the container showed lately (the steps control moved up and back, L's entropy axis), moved
// (8: the steps control's two next stops, drawn ahead, beside the axes shown lately)
const takeBack = recentNodes(8);

export const showTrainingCurves = (container, options) => showMoved(container, drawn, moved(container, options));
// the plot of options built ahead for container (the steps control's next stops), kept for when
// showTrainingCurves asks for it (morph.js keepMoved)
export const keepTrainingCurves = (container, options) => keepMoved(container, drawn, moved(container, options));

function moved(container, { yKeep = false, ...options }) {
  const o = { window: 10, width: 320, height: 220, yLog: false, ...options };
  const lines = o.series.map((s) => pointsOf(s.values, o.window, o.yLog, o.yFloor));
  const y = trainingYAxis(lines, o, yKeep ? drawn.get(container)?.scales.y.domain : null);
  const { series, ...rest } = o;
  return {
    width: o.width,
    layout: JSON.stringify({ ...rest, names: series.map((s) => s.name), y: y.domain }),
    move: (node, { x, y }) => {
      const paths = markGroup(chart(node)?.querySelector('g[aria-label="line"]'))?.children ?? [];
      if (paths.length !== lines.length) return false;
      const move = moveMarks(x, y);
      lines.forEach((points, k) => move.line(paths[k], points));
      return move.apply();
    },
    build: () => trainingCurvesPlot({ ...o, lines, y }),
    scalesOf: (node) => ({ x: node.scale('x'), y: node.scale('y') }),
    takeBack,
  };
}
