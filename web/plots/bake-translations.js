// Plot places every tick, tick label and axis label with a transform="translate(x, y)" of its own.
// Each such transform is a node of the browser's property trees and starts a paint chunk of its
// own, and the ~150 of a figure of four plots made each frame's layerization 3.6 ms (1.7 ms with
// them baked in, docs/PERFORMANCE-LOG.md). A pure translation of a leaf is baked into
// its coordinates instead: a <text>'s x and y (a y in em, Plot's way of centring a label, becomes
// its dy), a <path>'s points (absolute M, L, H, V and Z only), a <line>'s ends, a <rect>'s corner, a
// <circle>'s centre. Groups, and anything else (a rotation, a relative path), keep theirs.
const TRANSLATE = /^translate\(\s*([^\s,()]+)(?:[\s,]+([^\s,()]+))?\s*\)$/;
const PLAIN = /^-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;
const EM = /^-?(?:\d+\.?\d*|\.\d+)em$/;
const POINTS = { line: [['x1', 'y1'], ['x2', 'y2']], rect: [['x', 'y']], circle: [['cx', 'cy']] };
const LEAVES = new Set(['text', 'path', ...Object.keys(POINTS)]);  // what bake() reads

const text = (v) => String(Math.round(v * 1000) / 1000);  // to a thousandth of a pixel
const plain = (v) => v === null || PLAIN.test(v);
const value = (v) => (v === null ? 0 : Number(v));

// For code that reads where Plot put a mark (plots/sweep-curves.js): a node's translation [dx, dy]
// ([0, 0] for none, or another transform), and a coordinate attribute's value in pixels (0 for
// none, or an em offset).
export const translationOf = (node) => {
  const m = node.getAttribute('transform')?.match(TRANSLATE);
  return m ? [Number(m[1]), m[2] === undefined ? 0 : Number(m[2])] : [0, 0];
};
export const coordinate = (v) => (v !== null && PLAIN.test(v) ? Number(v) : 0);

// the path's d moved by (dx, dy), or null for a path this does not read
function movedPath(d, dx, dy) {
  const tokens = d.match(/[A-Za-z]|-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi) ?? [];
  let out = '', command = null, i = 0;
  while (i < tokens.length) {
    if (/^[A-Za-z]$/.test(tokens[i])) {
      command = tokens[i++];
      if (!'MLHVZ'.includes(command)) return null;
      out += command;
      if (command === 'Z') continue;
    }
    if (command === null || command === 'Z') return null;
    if (command === 'H' || command === 'V') {
      out += text(Number(tokens[i++]) + (command === 'H' ? dx : dy));
    } else {
      if (i + 1 >= tokens.length || /[A-Za-z]/.test(tokens[i + 1])) return null;
      out += `${text(Number(tokens[i++]) + dx)},${text(Number(tokens[i++]) + dy)}`;
    }
    if (i < tokens.length && !/^[A-Za-z]$/.test(tokens[i])) out += ' ';
  }
  return out;
}

// whether e (with no transform) now shows what it showed translated by (dx, dy)
function bake(e, dx, dy) {
  const tag = e.tagName.toLowerCase();
  if (tag === 'text') {
    const x = e.getAttribute('x'), y = e.getAttribute('y');
    const yEm = y !== null && EM.test(y);
    if (!plain(x) || !(plain(y) || (yEm && !e.hasAttribute('dy')))) return false;
    e.setAttribute('x', text(value(x) + dx));
    if (yEm) { e.setAttribute('dy', y); e.setAttribute('y', text(dy)); } else e.setAttribute('y', text(value(y) + dy));
    return true;
  }
  if (tag === 'path') {
    const d = movedPath(e.getAttribute('d') ?? '', dx, dy);
    if (d === null) return false;
    e.setAttribute('d', d);
    return true;
  }
  const points = POINTS[tag];
  if (!points || !points.every(([ax, ay]) => plain(e.getAttribute(ax)) && plain(e.getAttribute(ay)))) return false;
  for (const [ax, ay] of points) {
    e.setAttribute(ax, text(value(e.getAttribute(ax)) + dx));
    e.setAttribute(ay, text(value(e.getAttribute(ay)) + dy));
  }
  return true;
}

// Bakes the translations of node's SVG leaves in (above); returns how many.
export function bakeTranslations(node) {
  let baked = 0;
  for (const e of node.querySelectorAll('svg [transform]')) {
    const transform = e.getAttribute('transform'), m = transform.match(TRANSLATE);
    if (!m || !LEAVES.has(e.tagName.toLowerCase())) continue;
    const dx = Number(m[1]), dy = m[2] === undefined ? 0 : Number(m[2]);
    if (!Number.isFinite(dx) || !Number.isFinite(dy)) continue;
    e.removeAttribute('transform');
    if (bake(e, dx, dy)) baked++;
    else e.setAttribute('transform', transform);
  }
  return baked;
}
