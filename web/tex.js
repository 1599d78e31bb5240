// Live formulas: KaTeX typesets a formula once per shape, and a redraw that changes only its
// numbers rewrites those numbers' text in place (in the visible HTML and in the MathML that screen
// readers read), which costs ~0.1 ms instead of a parse, a layout of the TeX and a DOM patch.
//   shape(tex) = tex with every free-standing number replaced by '#' (and a sign in braces by {±})
//   same shape as the drawn formula → each number's text nodes get the new digits
//   a shape drawn lately (below)     → its nodes come back, and their numbers are rewritten
//   otherwise                        → KaTeX typesets it anew: new nodes for a new shape (the old
//                                      ones are kept, below), the drawn ones patched (morph.js)
//                                      for a shape whose numbers cannot be told apart
// The text nodes of each number are found once per shape by typesetting a probe: the same TeX
// with number i replaced by the marker 9000i…, whose text nodes then say which number they hold.
// A formula whose numbers KaTeX does not keep in text nodes of their own (adjacent digits merge,
// numbers inside \text{}) finds no slots and is simply typeset every time.
// A number whose sign changes from redraw to redraw is written with the sign in braces, {+}0.012
// or {-}0.012 (texSigned): KaTeX sets either sign alike, as an ordinary symbol in a text node of its
// own, so both have one shape and the sign is rewritten in place like the digits.
// A display formula in a narrow room flows instead (setTex below, web/tex-flow.js): its lines break
// where the room ends.
// A shape shown lately comes back without KaTeX: a formula keeps the typeset nodes of its last few
// shapes (RECENT), and one that returns to one of them (the mask off again, a number back from
// scientific to plain notation, d_k one stop down again) swaps those nodes in and rewrites their
// numbers, as for an unchanged shape.
import katex from 'katex';
import { whenIdle } from './idle.js';
import { morphChildren } from './morph.js';
import { roomOf } from './plots/room.js';
import { flowTex } from './tex-flow.js';
import { scrollsSideways } from './scroll-region.js';

// A number that is a value, not part of a name (x_1, #0072b2), a bare exponent or index (x^2, k_1:
// a single digit that KaTeX sets in a text node with no room for another) or a length (4pt, 0.5em).
const NUMBER = /(?<![#\w.^_])\d+(?:\.\d+)?(?![\w.])/g;
const MARKER = 90000;  // + i: markers have one length, so the probe has the drawn formula's shape
// a sign in braces right before a number: {+} or {-}
const SIGN = /\{([+-])\}(?=\d)/g;
const SIGN_OR_NUMBER = new RegExp(`${SIGN.source}|${NUMBER.source}`, 'g');
const signText = (s) => (s === '-' ? '\u2212' : '+');  // as KaTeX writes them, in HTML and MathML

// The static math under root: each .math element still holding TeX text (the build typesets the
// page's own, tools/prerender-math.js; a step's section in <attnlab-step> arrives as written).
// A display formula wider than a phone's screen scrolls sideways (style.css), a focusable region then.
export function typesetStatic(root) {
  for (const el of root.querySelectorAll('.math')) {
    const display = el.classList.contains('display');
    if (!el.querySelector('.katex')) {
      const tex = el.textContent;
      katex.render(tex, el, { displayMode: display, throwOnError: false });
      if (!display && tex.length <= 40) keepPunctuation(el);
    }
    if (display) scrollsSideways(el, () => 'formula');
  }
}

// Inline math and the punctuation right after it on one line, both in a span that does not wrap
// (tools/prerender-math.js does the same at build, for formulas of up to 40 characters of TeX).
function keepPunctuation(el) {
  const next = el.nextSibling, run = next?.nodeType === 3 && next.data.match(/^[.,;:!?)]+/);
  if (!run) return;
  const nobr = document.createElement('span');
  nobr.className = 'math-nobr';
  el.before(nobr);
  next.splitText(run[0].length);
  nobr.append(el, next);
}


// x with its sign in braces, for a number that may change sign between redraws (above): digits(|x|)
// after {+} or {-}, and {+} for a negative x whose digits are all 0 (no −0.0)
export function texSigned(x, digits = String) {
  const body = digits(Math.abs(x));
  return `{${x < 0 && /[1-9]/.test(body) ? '-' : '+'}}${body}`;
}

// el → { key, shape, slots: [text node, what it shows] | null, probed, recent }; what: number i
// (i >= 0), sign i (~i: −1 − i), or the TeX source (null); recent: Map shape → { nodes, slots,
// probed } of the shapes el showed before this one, the least recent first
const drawn = new WeakMap();
const RECENT = 6;

// (each typeset leaves a mark, for DevTools and the tests: attnlab:typeset, or for one made ahead
// of its use, keepTex, attnlab:typeset-ahead)
function typeset(tex, display, mark = 'attnlab:typeset') {
  performance.mark(mark);
  const div = document.createElement('div');
  katex.render(tex, div, { displayMode: display, throwOnError: false });
  return div;
}

function textNodes(root) {
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walk.nextNode()) nodes.push(walk.currentNode);
  return nodes;
}

// [text node of `el`, what it shows (above)] for every text node that shows a number, a sign or the
// TeX, or null when the numbers cannot be told apart. A braced sign is the text node right before
// its number's, in the HTML as in the MathML (KaTeX would merge a marker in its place with the
// number's, so the probe writes every sign as {+}).
function findSlots(el, tex, display, mark) {
  const count = tex.match(NUMBER)?.length ?? 0;
  if (count === 0 || count > 9999) return null;
  let i = 0, j = 0;
  const signOf = [];  // number i → the index of its sign, or −1
  let pending = -1;
  const probeTex = tex.replace(SIGN_OR_NUMBER, (m) => {
    if (m[0] === '{') { pending = j++; return '{+}'; }
    signOf.push(pending);
    pending = -1;
    return String(MARKER + i++);
  });
  const live = textNodes(el), probe = textNodes(typeset(probeTex, display, mark));
  if (live.length !== probe.length) return null;
  const slots = [], seen = new Set();
  for (let t = 0; t < probe.length; t++) {
    const text = probe[t].data;
    if (text === probeTex) { slots.push([live[t], null]); continue; }  // the MathML annotation
    if (/^9\d{4}$/.test(text)) {
      const k = Number(text) - MARKER;
      if (signOf[k] >= 0) {
        if (probe[t - 1]?.data !== '+') return null;
        slots.push([live[t - 1], -1 - signOf[k]]);
      }
      slots.push([live[t], k]);
      seen.add(k);
      continue;
    }
    if (/9\d{4}/.test(text)) return null;  // a marker merged with other text
  }
  return seen.size === count ? slots : null;
}

// Below this room (px) a display formula flows (web/tex-flow.js): set in inline mode, it breaks its
// lines where the room ends instead of scrolling sideways (at 390 px, 16 of 18 did). The widest
// live formula's display form is ~960 px (exercise 5's at 1rem), so a 1024 px window's room (932)
// flows too; a line that fits is not broken, and the rows only lose their alignment.
const FLOW_ROOM = 960;

// Whether a formula of each shape flows grouped (lines break between its items only) in its
// current room: el → Map `room shape` → boolean. Grouped is tried first; a shape with an item
// wider than the room flows ungrouped (breaking inside items too), decided once per shape and room.
const flowsGrouped = new WeakMap();

// Typesets `tex` into `el` (a formula with live numbers: build it with String.raw). A display
// formula in a room narrower than FLOW_ROOM is set to flow (el's data-flow says how); a figure
// redrawn in a new room (plots/room.js: a window resized, a tablet turned) sets it again.
export function setTex(el, tex, display = false) {
  const room = display ? roomOf(el) : 0;
  if (!display || room >= FLOW_ROOM) { delete el.dataset.flow; return setTexAs(el, tex, display); }
  const decided = flowsGrouped.get(el) ?? new Map();
  flowsGrouped.set(el, decided);
  const key = flowKey(room, tex);
  if (!decided.has(key)) {
    setTexAs(el, flowTex(tex, true), false);
    decided.set(key, el.scrollWidth <= el.clientWidth + 1);
  }
  const grouped = decided.get(key);
  el.dataset.flow = grouped ? 'grouped' : 'ungrouped';
  return setTexAs(el, flowTex(tex, grouped), false);
}

const shapeOf = (tex) => tex.replace(SIGN, '{±}').replace(NUMBER, '#');
const flowKey = (room, tex) => `${room} ${shapeOf(tex)}`;  // flowsGrouped's: a shape in a room
const shapeKey = (tex, display) => `${display ? 'D' : 'T'}${shapeOf(tex)}`;

// Files a shape's nodes with el's recent ones (drawn's `recent`), the least recent beyond RECENT out.
function fileRecent(recent, shape, entry) {
  recent.delete(shape);
  recent.set(shape, entry);
  if (recent.size > RECENT) recent.delete(recent.keys().next().value);
}

// Typesets ahead a formula that el is expected to show next (another departure's, computed ahead:
// web/ahead.js): its nodes join el's recent shapes with their numbers located, so setTex brings
// them back without KaTeX. Nothing is done for a shape el has at hand, or for a flowing formula
// whose flow (grouped or not) was never measured in this room: that is decided when it is shown.
export function keepTex(el, tex, display = false) {
  let t = tex, d = display;
  if (display) {
    const room = roomOf(el);
    if (room < FLOW_ROOM) {
      const grouped = flowsGrouped.get(el)?.get(flowKey(room, tex));
      if (grouped === undefined) return;
      [t, d] = [flowTex(tex, grouped), false];
    }
  }
  const last = drawn.get(el), shape = shapeKey(t, d);
  if (!last || last.shape === shape || last.recent.has(shape)) return;
  const div = typeset(t, d, 'attnlab:typeset-ahead');
  fileRecent(last.recent, shape, { nodes: [...div.childNodes], slots: findSlots(div, t, d, 'attnlab:typeset-ahead'), probed: true });
}

function setTexAs(el, tex, display) {
  const key = `${display ? 'D' : 'T'}${tex}`;
  const last = drawn.get(el);
  if (last?.key === key) return el;
  const shape = shapeKey(tex, display);
  const recent = last?.recent ?? new Map();
  let now = last;  // what el shows: { shape, slots, probed }
  if (last && last.shape !== shape) {
    // the shown shape is filed away, and the new one comes back from the recent ones or is typeset
    const back = recent.get(shape);
    recent.delete(shape);
    fileRecent(recent, last.shape, { nodes: [...el.childNodes], slots: last.slots, probed: last.probed });
    if (!back) {
      el.replaceChildren(...typeset(tex, display).childNodes);
      drawn.set(el, { key, shape, slots: null, probed: false, recent });
      probeWhenIdle(el, key, tex, display);
      return el;
    }
    el.replaceChildren(...back.nodes);
    now = { shape, ...back };
  }
  if (now?.slots) {
    const numbers = tex.match(NUMBER), signs = [...tex.matchAll(SIGN)].map((m) => m[1]);
    for (const [node, i] of now.slots) {
      const text = i === null ? tex : i >= 0 ? numbers[i] : signText(signs[-1 - i]);
      if (node.data !== text) node.data = text;
    }
    drawn.set(el, { key, shape, slots: now.slots, probed: now.probed, recent });
    return el;
  }
  morphChildren(el, [...typeset(tex, display).childNodes]);
  // the slots of a new shape are looked for in idle time (below); a shape back before that ran
  // looks for them now, and once per shape (one whose numbers cannot be told apart pays once)
  const again = now?.shape === shape;
  const slots = again && !now.probed ? findSlots(el, tex, display) : null;
  drawn.set(el, { key, shape, slots, probed: again, recent });
  if (!again) probeWhenIdle(el, key, tex, display);
  return el;
}

// A shape typeset for the first time has its numbers located once the main thread is idle, off the
// reader's input: when its numbers change, or it comes back from the recent ones (the mask on and
// off again), they are rewritten without KaTeX. Before, the probe ran in the redraw that first
// needed it, which then typeset twice (full-attention's mask toggled back: 4 typesets, now none).
// Nothing is done if the formula has moved on by then.
function probeWhenIdle(el, key, tex, display) {
  whenIdle(() => {
    const d = drawn.get(el);
    if (d?.key !== key || d.probed) return;
    d.slots = findSlots(el, tex, display);
    d.probed = true;
  }, { timeout: 2000, fallback: 50 });
}
