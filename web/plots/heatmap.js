// A matrix as a heatmap (row i at the top), with a colour legend. Pure: data in, SVG node out.
//   values: row-major Float32Array or array of length rows·cols
//   diverging: true for signed data centred on 0 (a Jacobian), false for weights in [0, max]
// Cells with a label (cellText) are Plot's own SVG cells under their text. Cells without one are
// painted on one <canvas> in the plot's frame (a <foreignObject>, so it scales with the plot),
// where they were rows·cols SVG rects: vanishing-gradients at n = 32 drew 2,048, and its page's
// style work for a change of n fell from ~7 to ~2.5 ms (docs/PERFORMANCE-LOG.md).
import * as Plot from '@observablehq/plot';
import { recentNodes, setIf, showPatched } from '../morph.js';
import { drawIn } from './room.js';
import { columnTicks, niceCeil, plot, rowTicks } from './style.js';

export { niceCeil };

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
// The theme where `node` is drawn: the theme attribute of an <attnlab-step> around it, else
// data-theme on <html> (the embed page's theme=), else the reader's preference.
export const prefersDark = (node) => {
  for (const set of [node?.getRootNode?.().host?.getAttribute('theme'), globalThis.document?.documentElement.dataset.theme])
    if (set === 'dark' || set === 'light') return set === 'dark';
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
};

// The options that fix a heatmap's layout: two heatmaps that agree on them differ only in their
// cells' colours and labels, their legend and their description.
const shapeOf = ({ rows, cols, rowLabel, colLabel, label, diverging, rowNames, colNames, cellText, width, height, dark }) =>
  JSON.stringify([rows, cols, rowLabel, colLabel, label, !!diverging, rowNames, colNames, !!cellText, width, height, dark]);

// The colour scale, and the end of its domain that a cell's label tone is judged against: the
// given domain's (a scale shared with another panel), else that of the values
function colorOf({ values, diverging, domain, dark }) {
  let extent;
  if (domain) extent = Math.max(...domain.map(Math.abs));
  else {
    let max = 1e-12;
    for (const v of values) max = Math.max(max, Math.abs(v));
    extent = niceCeil(max);
  }
  const color = diverging
    ? { type: 'diverging', ...(dark ? { interpolate: DARK_DIVERGING } : { scheme: 'BuRd' }), domain: domain ?? [-extent, extent] }
    : { type: 'linear', ...(dark ? { interpolate: DARK_SEQUENTIAL } : { scheme: 'blues' }), domain: domain ?? [0, extent] };
  return { color, extent };
}
const cellLabel = (v) => (Math.abs(v) < 0.005 ? '0.00' : v.toFixed(2).replace('-', '−'));  // never "−0.00"; a true minus, as the tables write it
// strong cells are dark on white and light on the dark theme: the label takes the other tone
const labelFill = (v, extent, dark) => ((Math.abs(v) > 0.6 * extent) !== dark ? 'white' : 'black');

const withDefaults = (options) => ({ rowLabel: 'row', colLabel: 'column', label: 'value', width: 320, dark: prefersDark(), ...options });

const SVG = 'http://www.w3.org/2000/svg';
const INSET = 0.5;  // a cell's inset on each side, in the plot's pixels (a 1-pixel gap between cells)

// paint: false for a heatmap built ahead (keepHeatmap), whose canvas is sized and painted when it
// is shown (updateHeatmap): at n = 64 a painted one holds ~9 MB of pixels
export function heatmapPlot(options, { paint = true } = {}) {
  const o = withDefaults(options);
  const { values, rows, cols, rowNames, colNames, cellText, width } = o;
  const rowNamesShown = Array.from({ length: rows }, (_, i) => rowNames?.[i] ?? String(i + 1));
  const colNamesShown = Array.from({ length: cols }, (_, j) => colNames?.[j] ?? String(j + 1));
  const { color, extent } = colorOf(o);
  // (without cells, the empty cell mark still gives x and y their band scales: the same axes; it
  // draws nothing)
  const cells = [];
  if (cellText)
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++) cells.push({ i: rowNamesShown[i], j: colNamesShown[j], v: values[i * cols + j] });
  const marks = [Plot.cell(cells, { x: 'j', y: 'i', fill: 'v', inset: INSET })];
  if (cellText) marks.push(Plot.text(cells, { x: 'j', y: 'i', text: (c) => cellLabel(c.v), fill: (c) => labelFill(c.v, extent, o.dark), fontSize: 10 }));
  const height = o.height ?? Math.round(width * rows / cols) + 60;
  const map = plot({
    fit: false,  // square cells: a heatmap too wide for its room scales down whole
    width, height, marginLeft: 40, marginBottom: 36,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { label: o.colLabel, domain: colNamesShown, ticks: columnTicks(colNamesShown, width - 60) },
    y: { label: o.rowLabel, domain: rowNamesShown, ticks: rowTicks(rowNamesShown, height - 56) },
    color,
    ariaLabel: o.ariaLabel ?? `${rows}×${cols} heatmap of ${o.label}`,
    marks,
  });
  if (!cellText) {
    const painter = addCanvas(map, rows, cols);
    if (paint) painter(values, colorScale(color));
  }
  const figure = document.createElement('div');
  figure.className = 'heatmap';
  figure.dataset.shape = shapeOf(o);
  figure.append(colorLegend(color, o.label, Math.min(width, 260)), map);
  return figure;
}

// The cells' canvas, over the band scales' frame of `map`: one canvas pixel per device pixel of
// the plot drawn at its own size (up to 2 a plot pixel), each cell a rectangle inset as Plot's cells
// are, its edges on whole canvas pixels. Returns its paint(values, colour), kept for redraws.
// Each paint sizes the canvas for the present pixel ratio, and a new ratio (the reader zooms, the
// window moves to another screen) repaints the canvases in the page: one the browser scaled would
// blur its cells' edges.
const cellCanvases = new WeakMap();  // canvas → its paint
const drawnCanvases = new Set();     // WeakRefs of the canvases, for a new pixel ratio
function addCanvas(map, rows, cols) {
  const x = map.scale('x'), y = map.scale('y');
  const x0 = x.apply(x.domain[0]), y0 = y.apply(y.domain[0]);
  const w = x.apply(x.domain.at(-1)) + x.bandwidth - x0, h = y.apply(y.domain.at(-1)) + y.bandwidth - y0;
  const box = document.createElementNS(SVG, 'foreignObject');
  for (const [a, v] of Object.entries({ x: x0, y: y0, width: w, height: h })) box.setAttribute(a, String(v));
  box.setAttribute('aria-hidden', 'true');  // the plot's own label describes it
  const canvas = document.createElement('canvas');
  canvas.className = 'heatmap-cells';
  canvas.dataset.cells = `${rows}×${cols}`;
  box.append(canvas);
  map.append(box);  // where Plot's cells would be: after the axes
  let k = 0;  // canvas pixels a plot pixel
  const paint = (values, colour) => {
    paint.last = [values, colour];
    if (pixelRatio() !== k) {
      k = pixelRatio();
      canvas.width = Math.round(w * k);
      canvas.height = Math.round(h * k);
    }
    // where each column and row starts, in canvas pixels
    const across = x.domain.map((d) => (x.apply(d) - x0) * k), down = y.domain.map((d) => (y.apply(d) - y0) * k);
    const inset = INSET * k, bw = x.bandwidth * k, bh = y.bandwidth * k;
    const ctx = canvas.getContext('2d');
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < rows; i++) {
      const top = Math.round(down[i] + inset), bottom = Math.round(down[i] + bh - inset);
      for (let j = 0; j < cols; j++) {
        const left = Math.round(across[j] + inset), right = Math.round(across[j] + bw - inset);
        ctx.fillStyle = colour(values[i * cols + j]);
        ctx.fillRect(left, top, right - left, bottom - top);
      }
    }
  };
  cellCanvases.set(canvas, paint);
  if (drawnCanvases.size >= 64) forgetCollected();
  drawnCanvases.add(new WeakRef(canvas));
  watchPixelRatio();
  return paint;
}

const forgetCollected = () => { for (const ref of drawnCanvases) if (!ref.deref()) drawnCanvases.delete(ref); };
const pixelRatio = () => Math.min(2, globalThis.devicePixelRatio || 1);

// One media query for the page, of the present ratio, renewed at each change. A canvas out of the
// page (a layout kept for its return) is sized at its next paint; a collected one is forgotten.
let ratioWatched = false;
function watchPixelRatio() {
  if (ratioWatched || !globalThis.matchMedia) return;
  ratioWatched = true;
  const listen = () => matchMedia(`(resolution: ${globalThis.devicePixelRatio || 1}dppx)`).addEventListener('change', () => {
    forgetCollected();
    for (const ref of drawnCanvases) {
      const canvas = ref.deref(), paint = canvas && cellCanvases.get(canvas);
      if (canvas?.isConnected && paint.last) paint(...paint.last);
    }
    listen();
  }, { once: true });
  listen();
}

// The colour scale's function, one per scale: Plot.scale costs ~0.2 ms a call.
const colorScales = new Map();  // colorKey → value → colour, the last few
function colorScale(color) {
  const key = colorKey(color);
  if (!colorScales.has(key)) {
    if (colorScales.size >= 16) colorScales.delete(colorScales.keys().next().value);
    const scale = Plot.scale({ color });
    colorScales.set(key, (v) => scale.apply(v));
  }
  return colorScales.get(key);
}
const colorKey = (color) =>
  JSON.stringify([color.type, color.domain, color.scheme ?? (color.interpolate === DARK_DIVERGING ? 'dark-diverging' : 'dark-sequential')]);

// Redraws the heatmap `node` (one heatmapPlot drew, now in the page) for new options in place, when
// its layout is unchanged: each cell's colour through the colour scale, each label's text, the
// legend and the description; ~0.2 ms for 16×16 cells where a Plot build and a patch take ~10.
// Returns false, touching nothing, when the layout differs: the caller then builds anew.
export function updateHeatmap(node, options) {
  const o = withDefaults(options);
  if (!node?.classList?.contains('heatmap') || node.dataset.shape !== shapeOf(o)) return false;
  const { values, rows, cols } = o;
  const map = node.querySelector(':scope > svg:last-child');
  // cells with labels are Plot's rects under their texts; cells without, the canvas's paint
  const paint = o.cellText ? null : cellCanvases.get(map.querySelector('canvas.heatmap-cells'));
  const rects = o.cellText ? map.querySelectorAll('g[aria-label="cell"] rect') : [];
  const texts = o.cellText ? map.querySelectorAll('g[aria-label="text"] text') : [];
  if (o.cellText ? rects.length !== rows * cols || texts.length !== rows * cols : !paint) return false;
  const { color, extent } = colorOf(o);
  const scale = colorScale(color);
  paint?.(values, scale);
  for (let k = 0; k < rects.length; k++) {
    const fill = scale(values[k]), t = texts[k], text = cellLabel(values[k]), tone = labelFill(values[k], extent, o.dark);
    if (rects[k].getAttribute('fill') !== fill) rects[k].setAttribute('fill', fill);
    if (t.textContent !== text) t.textContent = text;
    if (t.getAttribute('fill') !== tone) t.setAttribute('fill', tone);
  }
  // the legend is replaced only when its colours or label change; a new end of the scale rewrites
  // its tick labels (a new legend, not a patched one: morphing 64 colour cells costs more than the
  // browser's work for new ones)
  const w = Math.min(o.width, 260);
  if (legendShown.get(node.firstChild) !== legendKey(color, o.label, w)) node.firstChild.replaceWith(colorLegend(color, o.label, w));
  else labelLegend(node.firstChild, color, o.label);
  map.setAttribute('aria-label', o.ariaLabel ?? `${rows}×${cols} heatmap of ${o.label}`);
  return true;
}

// show(container, heatmapPlot(options), ...after), in place when the heatmap there has the layout.
// A heatmap of another layout that the container showed lately (a reader moving n back) comes
// back recoloured (updateHeatmap): for 32×32 cells ~3 ms where a Plot build takes ~10.
// Returns the heatmap in the page.
const takeBack = recentNodes(6);  // container → heatmaps of other layouts it showed lately, or was given ahead

export function showHeatmap(container, options, ...after) {
  options = { dark: prefersDark(container), ...options };
  const old = container.childNodes.length === after.length + 1 ? container.firstChild : null;  // what a rebuild replaces
  return showPatched(container, (live) => updateHeatmap(live, options), () => {
    const back = takeBack(container, old?.dataset?.shape && { key: old.dataset.shape, node: old }, shapeOf(withDefaults(options)));
    return back && updateHeatmap(back.node, options) ? back.node : drawIn(container, () => heatmapPlot(options));
  }, ...after);
}

// A heatmap of a layout other than the one shown (a neighbouring n, computed ahead: web/ahead.js),
// built now and filed with the ones the container showed lately, so that showHeatmap takes it back,
// recoloured, when it is asked for, rather than build it then.
export function keepHeatmap(container, options) {
  const o = withDefaults({ dark: prefersDark(container), ...options }), shape = shapeOf(o);
  if (container.firstChild?.dataset?.shape === shape || takeBack.has(container, shape)) return;
  takeBack(container, { key: shape, node: drawIn(container, () => heatmapPlot(o, { paint: false }), { ahead: true }) }, null);
}

// Outlines row `row` (0-based; null: none) of the heatmap drawn in `container`: one rectangle
// around its cells, the row a step's text spells out (full-attention's query shown). Kept apart
// from the options, so that a new row moves the outline and redraws nothing else.
export function outlineRow(container, row) {
  const map = container.querySelector(':scope > .heatmap > svg:last-child');
  if (!map) return;
  let box = map.querySelector(':scope > rect.outline-row');
  const x = map.scale?.('x'), y = map.scale?.('y'), name = row === null ? undefined : y?.domain[row];
  if (name === undefined) { box?.remove(); return; }
  if (!box) {
    box = document.createElementNS(SVG, 'rect');
    box.setAttribute('class', 'outline-row');
    box.setAttribute('fill', 'none');
    map.append(box);
  }
  const left = x.apply(x.domain[0]);
  setIf(box, 'x', left);
  setIf(box, 'y', y.apply(name));
  setIf(box, 'width', x.apply(x.domain.at(-1)) + x.bandwidth - left);
  setIf(box, 'height', y.bandwidth);
}

// The colour scale as a strip of 64 cells on a labelled axis. (Plot's own ramp legend paints a
// canvas into a data: URL, which a strict CSP's img-src 'self' refuses.) A scale on [0, e] or
// [−e, e] has the colours of the unit scale, [0, 1] or [−1, 1], at x/e: its legend is the unit
// legend, built once per colours, label and width, with ticks at fixed fractions of e whose text
// says f·e. So a redraw whose scale ends elsewhere (a new seed) rewrites five labels.
//   unit domain [0, 1]: ticks 0, ½, 1;  [−1, 1]: −1, −½, 0, ½, 1;  any other domain (or an end
//   that is not a nice number): its own legend
const legends = new Map();  // key → SVG, the last few
const legendShown = new WeakMap();  // legend in a page → its key: a redraw with that key keeps it
const FRACTIONS = { '0,1': [0, 0.5, 1], '-1,1': [-1, -0.5, 0, 0.5, 1] };
// { color: the unit scale, end: e, ticks: the fractions } for a scale on [0, e] or [−e, e] with
// e a nice number (its halves read well: 0.125, 0.75, 1.25); { color, end: 1 } for any other,
// whose legend has Plot's own ticks
function unitOf(color) {
  const [lo, hi] = [color.domain[0], color.domain.at(-1)];
  if (!(hi > 0 && (lo === 0 || lo === -hi)) || Math.abs(niceCeil(hi) - hi) > 1e-12 * hi) return { color, end: 1 };
  const domain = [lo / hi, 1];
  return { color: { ...color, domain }, end: hi, ticks: FRACTIONS[domain] };
}
const legendKey = (color, label, width) => `${colorKey(unitOf(color).color)}${JSON.stringify([label, width])}`;
function colorLegend(color, label, width) {
  const key = legendKey(color, label, width);
  if (!legends.has(key)) {
    if (legends.size >= 16) legends.delete(legends.keys().next().value);
    const unit = unitOf(color);
    legends.set(key, buildLegend(unit.color, unit.ticks, label, width));
  }
  const legend = legends.get(key).cloneNode(true);
  legendShown.set(legend, key);
  labelLegend(legend, color, label);
  return legend;
}

// Writes the scale's own numbers into a unit legend: each tick's f·e, and the description.
const tickText = (v) => String(+v.toPrecision(3)).replace('-', '−');
function labelLegend(legend, color, label) {
  const { end, ticks } = unitOf(color);
  if (ticks) {
    legend.querySelectorAll('g[aria-label="x-axis tick label"] text').forEach((t, k) => {
      const text = tickText(ticks[k] * end);
      if (t.textContent !== text) t.textContent = text;
    });
  }
  const [lo, hi] = [color.domain[0], color.domain.at(-1)];
  legend.setAttribute('aria-label', `colour legend: ${label} from ${lo.toPrecision(2)} to ${hi.toPrecision(2)}`);
}

function buildLegend(color, ticks, label, width) {
  const [lo, hi] = [color.domain[0], color.domain.at(-1)];
  const slices = Array.from({ length: 64 }, (_, k) => ({ x1: lo + ((hi - lo) * k) / 64, x2: lo + ((hi - lo) * (k + 1)) / 64 }));
  return plot({
    width, height: 50, marginTop: 4, marginBottom: 32, marginLeft: 18, marginRight: 18,  // room for half of "−0.25" at each end
    style: { background: 'transparent', color: 'currentColor', fontSize: '10px' },
    x: { domain: [lo, hi], label, labelAnchor: 'center', labelArrow: 'none', labelOffset: 28, ticks: ticks ?? 4, tickSize: 4 },
    y: { axis: null },
    color,
    marks: [Plot.rect(slices, { x1: 'x1', x2: 'x2', y1: 0, y2: 1, fill: (d) => (d.x1 + d.x2) / 2 })],
  });
}
