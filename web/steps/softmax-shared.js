// What the softmax steps share (softmax-saturation, vanishing-gradients, scaling-choices,
// temperature): the controls of a d_k sweep, the series names, number formats for TeX and for
// quoted source texts, the sweep's points and tables, and the panel of checked source claims.
import { nextValues } from '../controls.js';
import { fmt, fmtInt, fmtInterval, fmtTiny } from '../format.js';
import { dataTable, el, panel } from '../readout.js';
import { DK_POW2 } from './dk-axis.js';
import './softmax-shared.css';

export const SWEEP_PARAMS = {
  dk: { kind: 'stops', values: DK_POW2, default: 64, label: 'dₖ', spoken: 'd sub k', format: String },
  n: { kind: 'stops', values: [2, 4, 8, 16, 32, 64], default: 16, label: 'keys n', spoken: 'keys', format: String },
  rows: { kind: 'stops', values: [32, 64, 128, 256, 512, 1024], default: 64, label: 'queries per dₖ', spoken: 'queries per d sub k', format: fmtInt },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
  query: { kind: 'int', min: 1, max: 1024, default: 1, label: 'query shown' },
};

// The series names, the same in every softmax step (and so the same colours).
export const SERIES = { none: 'q·k (no scale)', sqrt: 'q·k / √dₖ', dk: 'q·k / dₖ' };

// A number for TeX: significant digits, a plain hyphen (KaTeX typesets a minus), ×10^k as TeX.
export const tex = (x, d = 3) => {
  if (x === 0 || Math.abs(x) < 1e-300) return '0';
  const a = Math.abs(x);
  if (a >= 1e4 || a < 1e-3) {
    const [m, e] = x.toExponential(d - 1).split('e');
    return String.raw`${m}\times 10^{${Number(e)}}`;
  }
  return x.toPrecision(d);
};
export const list = (xs, d = 3) => `[${Array.from(xs, (x) => fmtTiny(x, d)).join(', ')}]`;
// A number as a source text wrote it (its own decimals), with a real minus sign.
export const quote = (xs, decimals) =>
  `[${xs.map((x) => (decimals === undefined ? String(x) : x.toFixed(decimals)).replace('-', '−')).join(', ')}]`;

// Points of one statistic of one scale of a softmaxSweep result, with their 95% intervals.
export function sweepPoints(sweep, scale, stat, { intervals = true } = {}) {
  const s = sweep.scales[scale][stat];
  return sweep.dks.map((x, i) => (intervals ? { x, y: s.mean[i], lo: s.lo[i], hi: s.hi[i] } : { x, y: s.mean[i] }));
}

// The data behind a sweep plot, as a table: one row per d_k, mean and 95% interval per series.
export function sweepTable(caption, sweep, scales, stat, digits = 3) {
  const cols = ['dₖ', ...scales.flatMap((k) => [{ group: SERIES[k], name: 'mean' }, { group: SERIES[k], name: '95% interval' }])];
  const rows = sweep.dks.map((dk, i) => [String(dk), ...scales.flatMap((k) => {
    const s = sweep.scales[k][stat];
    return [fmt(s.mean[i], digits), fmtInterval([s.lo[i], s.hi[i]], digits)];
  })]);
  return dataTable(caption, cols, rows);
}

// Runs the d_k sweep on the step's channel (the long one: the Stop button cancels it) and the
// quick per-query experiment on a second channel, so the query appears before the curves.
// requests: { sweep, row }, each { name, params } (a step's requestsOf(values)).
export async function runBoth(run, figure, stepId, { sweep, row }) {
  return Promise.all([
    run(sweep.name, sweep.params, { onProgress: figure.progress }),
    run(row.name, row.params, { channel: `${stepId}:query` }),
  ]);
}

// The requests a reader's next move is likely to make, for the figure's ahead (web/ahead.js): the
// seed and n one step either way, the seed first (the same work as the figure's own). A new seed
// is the two runs; a new n, also new bars or maps and curves with a new uniform level. Each
// request carries the values it is drawn with; prepare tells the query's by its channel.
export const nearbyRequests = (stepId, values, requestsOf) => ['seed', 'n'].flatMap((name) =>
  nextValues(SWEEP_PARAMS[name], values[name]).flatMap((x) => {
    const v = { ...values, [name]: x }, { sweep, row } = requestsOf(v);
    return [{ ...sweep, values: v }, { ...row, channel: `${stepId}:query`, values: v }];
  }));

// Σ_{j ≠ argmax} p_j: how far p is from one-hot.
export function nonMaxMass(p) {
  const m = p.indexOf(Math.max(...p));
  return p.reduce((a, x, j) => (j === m ? a : a + x), 0);
}

// Said of a query shown beyond the rows that the curves average.
export const outside = (query, rows) => (query > rows ? ` (drawn like them, but not one of the ${fmtInt(rows)} behind the curves)` : '');

// A panel of checked source claims: a title, the panel's table, and a list of verdicts (no plot);
// say(lines) replaces the verdicts with one paragraph per line.
export function sourcesPanel(title) {
  const p = panel(title);
  p.el.classList.add('softmax-sources');
  p.plot.remove();
  const verdicts = el('div', 'softmax-verdicts');
  p.el.append(verdicts);
  return { ...p, verdicts, say: (lines) => verdicts.replaceChildren(...lines.map((t) => el('p', undefined, t))) };
}
