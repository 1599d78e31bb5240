// The peers benchmark's ratios and table, from bench/peers-core.mjs's results; used by both
// bench/peers.mjs (Node) and bench/peers-browser.mjs (Chromium), so both print the same way.
// Ratios of throughputs (GFLOP/s) for attention, of times for softmax; the issue's targets beside.

// attnlab's forms of each call (bench/peers-core.mjs): the name in a ratio's label ('' for the
// plain call), and its implementation's name in the results
const ATTN_FORMS = ['', ' O only', ' inputs resident', ' no copies'];
const SOFT_FORMS = ['', ' into out', ' inputs resident', ' no copies'];
const impl = (form) => `attnlab SIMD128${form}`;
// the table's rows, in order
const ATTN = [...ATTN_FORMS.map(impl), 'attnlab scalar', 'plain JS', 'tfjs matMul(q, k, false, true)', 'tfjs matMul(q, transpose(k))', 'onnxruntime-web', 'peak'];
const SOFT = [...SOFT_FORMS.map(impl), 'attnlab scalar', 'plain JS', 'tfjs softmax', 'onnxruntime-web'];

/** { what: { name: value } } for every group with attnlab; null where a figure is missing. */
export function ratios(results) {
  const out = {};
  for (const what of [...new Set(results.map((r) => r.what))]) {
    const v = (name) => results.find((r) => r.what === what && r.impl === name)?.value ?? null;
    const q = (a, b) => (a === null || b === null ? null : a / b);
    const simd = v(impl(''));
    if (what.startsWith('attention')) {
      const tfBest = Math.max(v('tfjs matMul(q, k, false, true)'), v('tfjs matMul(q, transpose(k))'));
      const pct = (x) => q(x === null ? null : 100 * x, v('peak'));
      out[what] = Object.fromEntries([
        ...ATTN_FORMS.map((f) => [`attnlab${f} / faster tfjs form`, q(v(impl(f)), tfBest)]),
        ...ATTN_FORMS.map((f) => [`attnlab${f} / onnxruntime-web`, q(v(impl(f)), v('onnxruntime-web'))]),
        ...ATTN_FORMS.map((f) => [`attnlab${f} % of SIMD128 peak`, pct(v(impl(f)))]),
        ['SIMD / scalar', q(simd, v('attnlab scalar'))],
      ]);
    } else {  // softmax: times, smaller is faster
      out[what] = Object.fromEntries([
        ...SOFT_FORMS.map((f) => [`attnlab${f} time / tfjs time`, q(v(impl(f)), v('tfjs softmax'))]),
        ['attnlab time / onnxruntime-web time', q(simd, v('onnxruntime-web'))],
        ['scalar time / SIMD time', q(v('attnlab scalar'), simd)],
      ]);
    }
  }
  return out;
}

// The issue's targets, per ratio: the text printed beside it, and whether a value meets it.
const atLeast = (v) => ({ text: `≥ ${v}`, met: (x) => x >= v });
const atMost = (v) => ({ text: `≤ ${v}`, met: (x) => x <= v });
const TARGET = {
  'SIMD / scalar': atLeast(3),
  ...Object.fromEntries(ATTN_FORMS.flatMap((f) => [[`attnlab${f} / faster tfjs form`, atLeast(1.3)], [`attnlab${f} / onnxruntime-web`, atLeast(1.3)],
    [`attnlab${f} % of SIMD128 peak`, atLeast(80)]])),
  ...Object.fromEntries(SOFT_FORMS.map((f) => [`attnlab${f} time / tfjs time`, atMost(0.6)])),
};

/** The table as lines of text. */
export function table({ env, results }, where) {
  const lines = [], r = ratios(results);
  const fmt = (x, digits = 2) => (x === null || x === undefined ? 'n/a' : x.toFixed(digits));
  const row = (label, cells, target = '') => lines.push(`  ${label.padEnd(38)}${cells.map((c) => c.padStart(10)).join('')}${target ? `   target ${target}` : ''}`);
  const attn = [...new Set(results.map((x) => x.what))].filter((w) => w.startsWith('attention'));
  const value = (what, impl) => results.find((x) => x.what === what && x.impl === impl)?.value ?? null;
  lines.push(`peers benchmark in ${where}; one thread, fp32; attnlab ${env.arch}, tfjs-backend-wasm ${env.tfjs} (${env.tfjsThreads} thread), ` +
    `onnxruntime-web ${env.ort} (${env.ortThreads} thread); medians of ${env.rounds.small} rounds (${env.rounds.large} at the largest size), all alternated; ` +
    `attnlab no copies: ${env.noCopies ?? 'not offered by this engine'}`);
  lines.push('attention forward O = softmax(Q·Kᵀ/√d)·V, GFLOP/s (4·n²·d flops; higher is better)');
  row('n×d', attn.map((w) => w.replace('attention ', '')));
  for (const impl of ATTN)
    row(impl === 'peak' ? `wasm SIMD128 peak (${env.peakProbe})` : impl, attn.map((w) => fmt(value(w, impl))));
  for (const k of Object.keys(r[attn[0]]))
    row(k, attn.map((w) => fmt(r[w][k], k.includes('%') ? 0 : 2)), TARGET[k]?.text);
  const soft = [...new Set(results.map((x) => x.what))].filter((w) => w.startsWith('softmax'));
  for (const w of soft) {
    lines.push(`${w} (rows of ${w.split('×')[1]}), ms (lower is better); medians of ${env.rounds.softmax} rounds`);
    for (const impl of SOFT) row(impl, [fmt(value(w, impl))]);
    for (const [k, x] of Object.entries(r[w])) row(k, [fmt(x)], TARGET[k]?.text);
  }
  lines.push('(a shared 2-core host: absolute figures move ±30% between runs; the ratios come from one interleaved run)');
  return lines;
}

// docs/PERFORMANCE.md's tables, from the --json output of both runs: the rows of table() with
// the targets' ratios in bold where met.
const LABEL = {
  [impl('')]: 'attnlab SIMD128', [impl(' O only')]: 'attnlab SIMD128, O only', [impl(' into out')]: 'attnlab SIMD128, into a caller’s array',
  [impl(' inputs resident')]: 'attnlab SIMD128, inputs resident', [impl(' no copies')]: 'attnlab SIMD128, no copies',
  'tfjs matMul(q, k, false, true)': 'TensorFlow.js `matMul(q, k, false, true)`', 'tfjs matMul(q, transpose(k))': 'TensorFlow.js `matMul(q, transpose(k))`',
  'tfjs softmax': 'TensorFlow.js `tf.softmax`', peak: 'SIMD128 peak probe',
};
// a ratio's label in the doc: the form, or the plain call with its target; its cell, bold where met
const formLabel = (f, what, key) => (f ? `${f.trim()} ${what}` : `attnlab ${what} (target ${TARGET[key].text})`);
const ratioCell = (x, key, digits) => (x === null ? 'n/a' : TARGET[key].met(x) ? `**${x.toFixed(digits)}**` : x.toFixed(digits));

/** Markdown lines of the attention and softmax tables; runs: [[name, { results }], …], in columns. */
export function markdown(runs) {
  const lines = [];
  const value = (results, what, name) => results.find((x) => x.what === what && x.impl === name)?.value ?? null;
  const cell = (x, digits) => (x === null ? 'n/a' : x.toFixed(digits));
  const attn = runs.flatMap(([name, { results }]) => [...new Set(results.map((x) => x.what))]
    .filter((w) => w.startsWith('attention')).map((w, i) => [i ? '' : `${name} `, results, w]));
  lines.push(`| attention forward | ${attn.map(([n, , w]) => n + w.replace('attention ', '')).join(' | ')} |`, `|---|${attn.map(() => '---|').join('')}`);
  for (const name of ATTN)
    lines.push(`| ${name === impl('') ? `${LABEL[name]} (GFLOP/s)` : LABEL[name] ?? name} | ${attn.map(([, res, w]) => cell(value(res, w, name), 1)).join(' | ')} |`);
  const attnRatios = [
    ...ATTN_FORMS.map((f) => [formLabel(f, '/ faster TensorFlow.js form', `attnlab${f} / faster tfjs form`), `attnlab${f} / faster tfjs form`, 2]),
    ...ATTN_FORMS.map((f) => [formLabel(f, '/ onnxruntime-web', `attnlab${f} / onnxruntime-web`), `attnlab${f} / onnxruntime-web`, 2]),
    ...ATTN_FORMS.map((f) => [formLabel(f, '% of the peak', `attnlab${f} % of SIMD128 peak`), `attnlab${f} % of SIMD128 peak`, 1]),
    [`SIMD / scalar (target ${TARGET['SIMD / scalar'].text})`, 'SIMD / scalar', 1]];
  for (const [label, key, digits] of attnRatios)
    lines.push(`| ${label} | ${attn.map(([, res, w]) => ratioCell(ratios(res)[w][key], key, digits)).join(' | ')} |`);
  const sw = runs[0][1].results.find((x) => x.what.startsWith('softmax')).what;
  lines.push('', `| ${sw} (ms) | ${runs.map(([n]) => n).join(' | ')} |`, `|---|${runs.map(() => '---|').join('')}`);
  for (const name of SOFT) lines.push(`| ${LABEL[name] ?? name} | ${runs.map(([, { results }]) => cell(value(results, sw, name), 2)).join(' | ')} |`);
  for (const f of SOFT_FORMS) {
    const key = `attnlab${f} time / tfjs time`;
    const label = f ? `${f === ' into out' ? 'into a caller’s array' : f.trim()} / TensorFlow.js` : `attnlab / TensorFlow.js (target ${TARGET[key].text})`;
    lines.push(`| ${label} | ${runs.map(([, { results }]) => { const x = ratios(results)[sw][key]; return ratioCell(x, key, x !== null && x < 0.1 ? 3 : 2); }).join(' | ')} |`);
  }
  return lines;
}
