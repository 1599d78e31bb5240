// Subscripts Unicode has no letters for (d_model, σ_W², W_Q): the page's strings write them with
// an underscore, as TeX does, and they are shown lowered, in HTML as <sub> and in a plot's SVG text
// as a lowered <tspan>. A run is the letters after an underscore that follows a one-letter symbol:
// "σ_q²σ_k²" is σ, q lowered, ², σ, k lowered, ²; a name such as FLT_MAX is left as it is.
const RUN = /(?<![\p{L}\d])(\p{L})_([A-Za-z]+)/gu;

// [text, lowered, text, lowered, …, text]
export function subscriptRuns(text) {
  const out = [];
  let at = 0;
  for (const m of text.matchAll(RUN)) {
    out.push(text.slice(at, m.index) + m[1], m[2]);
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return out;
}

// e's content becomes `text`, its runs as <sub>; e.dataset.text keeps `text` so that setting the
// same string again touches nothing (e.textContent has lost the underscores).
export function setSubscripted(e, text) {
  if (e.dataset.text === text) return;
  e.replaceChildren(...subscriptRuns(text).map((p, i) => {
    if (i % 2 === 0) return p;
    const sub = document.createElement('sub');
    sub.textContent = p;
    return sub;
  }));
  e.dataset.text = text;
}

export const hasSubscript = (text) => text.includes('_') && subscriptRuns(text).length > 1;

// The <text> elements of a plot's SVG whose text has runs: each such text node becomes tspans, a
// run lowered and smaller and the text after it raised back (baseline-shift would be simpler, but
// Chromium ignores it on a tspan). dy in em is the tspan's own size: 0.3 × 0.8 = 0.24 of the text's.
const SVG = 'http://www.w3.org/2000/svg';
const tspan = (text, attrs) => {
  const t = document.createElementNS(SVG, 'tspan');
  for (const [k, v] of Object.entries(attrs)) t.setAttribute(k, v);
  t.textContent = text;
  return t;
};
export function subscriptSvg(svg) {
  if (!hasSubscript(svg.textContent)) return;
  for (const t of svg.querySelectorAll('text')) {
    for (const node of [...t.childNodes]) {
      const runs = node.nodeType === Node.TEXT_NODE && node.data.includes('_') ? subscriptRuns(node.data) : [];
      if (runs.length < 2) continue;
      node.replaceWith(...runs.flatMap((p, i) => {
        if (i % 2) return [tspan(p, { dy: '0.3em', 'font-size': '0.8em' })];
        if (!p) return [];
        return i ? [tspan(p, { dy: '-0.24em' })] : [p];
      }));
    }
  }
}
