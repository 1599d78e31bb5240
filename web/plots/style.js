// Shared plot styling: Okabe–Ito colours (colour-blind safe), and the one door to Observable Plot.
import * as Plot from '@observablehq/plot';
import { sup } from '../format.js';
import './plot.css';
import { subscriptSvg } from '../subscripts.js';
import { buildingAhead, fitWidth } from './room.js';
import { bakeTranslations } from './bake-translations.js';

export { fitWidth };

// The series' colours as the page's CSS variables (style.css: Okabe–Ito, the blue lighter in the
// dark theme); SVG presentation attributes and inline styles resolve var() like any CSS value.
export const SERIES_COLORS = [0, 1, 2, 3, 4, 5].map((i) => `var(--series-${i})`);

// Plot.plot with the page's finishing touches:
// - one fixed class name, whose rules live once in plot.css. Plot otherwise puts a <style> in
//   every SVG and legend it makes, and each new <style> makes the browser re-match every rule of
//   the whole document (~10 ms per redraw here); inline <style> is also what a strict CSP
//   (style-src 'self') forbids.
// - Observable Plot puts aria-label on bare <g> elements, which is invalid ARIA without a role.
// - a width no larger than the content of the figure it is drawn in (room.js: fitWidth), unless
//   fit is false.
// - the translations of its ticks and labels baked into their coordinates (bake-translations.js):
//   a transform each made every frame's layerization twice as slow.
// Each build leaves a performance mark (attnlab:plot, or attnlab:plot-ahead for one built before
// it was asked for), for DevTools, the tests and the interaction benchmark.
export function plot({ fit = true, ...options }) {
  performance.mark(buildingAhead() ? 'attnlab:plot-ahead' : 'attnlab:plot');
  const width = fit && options.width ? fitWidth(options.width) : options.width;
  const node = Plot.plot({ className: 'attnlab-plot', ...options, width });
  node.querySelectorAll('style').forEach((s) => s.remove());
  node.querySelectorAll('g[aria-label]').forEach((g) => g.setAttribute('role', 'group'));
  subscriptSvg(node);  // d_model as d with a lowered "model"
  bakeTranslations(node);
  return node;
}

// The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k that is >= x > 0: a scale's end that
// redraws with similar data share (one colour legend; axes whose marks move in place).
const NICE = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
export function niceCeil(x) {
  const p = 10 ** Math.floor(Math.log10(x));
  return NICE.find((m) => m * p >= x * (1 - 1e-12)) * p;
}

// The powers of `base` that enclose the positive values: a log axis's domain that redraws with
// similar data share. (Math.log10 and Math.log2 are exact at powers of their base, where
// ln v / ln 10 is not: ln 1000 / ln 10 = 2.9999999999999996.)
export function powerDomain(values, base) {
  const log = base === 10 ? Math.log10 : base === 2 ? Math.log2 : (v) => Math.log(v) / Math.log(base);
  const logs = values.filter((v) => v > 0).map(log);
  return [base ** Math.floor(Math.min(...logs)), base ** Math.ceil(Math.max(...logs))];
}

// 10^e exactly as written (10 ** -4 is 0.00009999999999999999 in JavaScript, '1e-4' is 1e-4)
export const pow10 = (e) => Number(`1e${e}`);

// The powers of ten inside [lo, hi], the ticks of a log axis: every one, or at most `most` of them,
// every k-th decade for the first k of 1, 2, 3, 5, 10, 20, 50, … that thins them enough (exponents
// that are multiples of k: 10⁻¹², 10⁻⁹ … 10³, never a mix). None for an empty or non-positive range.
export function decades(lo, hi, most = Infinity) {
  if (!(lo > 0 && hi >= lo && Number.isFinite(hi))) return [];
  const [from, to] = [Math.ceil(Math.log10(lo) - 1e-9), Math.floor(Math.log10(hi) + 1e-9)];
  const count = (k) => Math.floor(to / k) - Math.ceil(from / k) + 1;
  let k = 1;
  for (let m = 1; count(k) > Math.max(1, most); m *= 10) k = [1, 2, 3, 5].map((f) => f * m).find((c) => count(c) <= most) ?? 10 * m;
  const out = [];
  for (let e = Math.ceil(from / k) * k; e <= to; e += k) out.push(pow10(e));
  return out;
}

// A log axis's ticks for a plot `height` px tall: at most one label per 18 px of its frame (the
// plot's height less ~60 px of margins), so a run's axis over 40 decades stays legible.
export const fitDecades = (lo, hi, height) => decades(lo, hi, Math.max(3, Math.floor((height - 60) / 18)));

// A log axis's tick labels, one style per axis (not Plot's SI "100m"): written out when every tick
// is 1 to 1000, else each 10 with a superscript exponent: 10⁰ … 10⁴, not 1000 under 10⁴.
//   powersOfTen(ticks)(v)   the label of the tick v of an axis with these ticks
export function powersOfTen(ticks) {
  const exponent = (v) => Math.round(Math.log10(v));
  const written = ticks.every((v) => exponent(v) >= 0 && exponent(v) <= 3);
  return (v) => (written ? String(pow10(exponent(v))) : `10${sup(String(exponent(v)))}`);
}

// Every k-th name (and the first) when all of them would not fit beside their cells or bars: k
// from 1, 2, 5, 10, … so that k cells of a span of `length` px hold `need` px, a name and a gap.
function thinTicks(names, length, need) {
  const k = [1, 2, 5, 10, 20, 50].find((step) => (step * length) / names.length >= need) ?? 100;
  return k === 1 ? undefined : names.filter((_, idx) => idx === 0 || (idx + 1) % k === 0);
}
// under the columns a name is about 7.5 px a character wide at 12 px; beside the rows, 14 px high
const labelWidth = (texts) => 7.5 * Math.max(...texts.map((t) => t.length));
export const columnTicks = (names, plotWidth) => thinTicks(names, plotWidth, labelWidth(names) + 6);
export const rowTicks = (names, plotHeight) => thinTicks(names, plotHeight, 14);

// Explicit ticks on a continuous axis, evenly spaced along it (powers on a log axis), thinned as
// thinTicks thins names, but to every 2nd, 4th, … tick from the first, so that those kept stay
// evenly spaced: on a phone 8 powers of two from 32 to 4096 ran together along `frame` px.
export function fitTicks(ticks, frame, format = String) {
  const need = labelWidth(ticks.map(format)) + 8;
  let step = 1;
  while (step < ticks.length - 1 && frame * step / (ticks.length - 1) < need) step *= 2;
  return ticks.filter((_, i) => i % step === 0);
}
