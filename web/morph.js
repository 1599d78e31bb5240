import { drawIn, fitWidth } from './plots/room.js';

// Redraw by patching: make the live DOM `into` look like a freshly built `from`, touching only what
// differs. A figure redrawn with the same axes keeps every node and changes a few attributes, so
// the browser restyles and relays out only those, not ~1000 new nodes (plots, tables, KaTeX); the
// reader's state (an open <details>, focus, scroll) survives the redraw.
//   show(container, ...nodes): container's children become nodes, patched in place where the
//   shapes agree (same tag at the same position), replaced where they do not.

// User state that a rebuilt node does not know about and must not undo.
const KEEP = { DETAILS: ['open'] };

function patchAttributes(a, b) {
  // getAttributeNames + getAttribute: iterating `attributes` would create an Attr object for each
  const keep = KEEP[a.nodeName] ?? [];
  for (const name of a.getAttributeNames()) {
    if (!b.hasAttribute(name) && !keep.includes(name)) a.removeAttribute(name);
  }
  for (const name of b.getAttributeNames()) {
    const value = b.getAttribute(name);
    if (a.getAttribute(name) === value) continue;
    // CSSOM rather than a style attribute: a strict CSP (style-src 'self') allows only the former
    if (name === 'style') a.style.cssText = b.style.cssText;
    else if (name.includes(':')) a.setAttributeNS(b.getAttributeNode(name).namespaceURI, name, value);
    else a.setAttribute(name, value);
  }
}

// Patches node a to match b; returns the node now in the document.
export function morph(a, b) {
  if (a === b) return a;
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) { a.replaceWith(b); return b; }
  if (a.nodeType !== Node.ELEMENT_NODE) {
    if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue;
    return a;
  }
  if (a.isEqualNode(b)) return a;  // native deep comparison: unchanged subtrees cost nothing more
  patchAttributes(a, b);
  morphChildren(a, [...b.childNodes]);
  return a;
}

export function morphChildren(parent, nodes) {
  const old = parent.childNodes;
  nodes.forEach((n, i) => {
    if (i < old.length) morph(old[i], n);
    else parent.appendChild(n);
  });
  while (old.length > nodes.length) parent.lastChild.remove();
}

export const show = (container, ...nodes) =>
  morphChildren(container, nodes.map((n) => (typeof n === 'string' ? document.createTextNode(n) : n)));

// show(container, build(), ...after), unless patch(node) can redraw the node already there in place
// (patch returns false, touching nothing, when it cannot): then only `after` is patched. The plots'
// in-place redraws (heatmap cells, bars, a sweep's marker) go through here. Returns the live node.
// A node patch() refuses has another layout, so the built one replaces it whole: morphing one
// plot into another of a new layout rewrites most of its nodes anyway, at ~2 µs each.
export function showPatched(container, patch, build, ...after) {
  const live = container.childNodes.length === after.length + 1 ? container.firstChild : null;
  if (live && patch(live)) after.forEach((n, i) => morph(container.childNodes[i + 1], n));
  else if (live) {
    live.replaceWith(build());
    after.forEach((n, i) => morph(container.childNodes[i + 1], n));
  } else show(container, build(), ...after);
  return container.firstChild;
}

// A plot redrawn through its scales (plots/*.js). `drawn`, a WeakMap of the plot module, holds per
// container what is there: { key, layout, node, scales }.
//   key     all the options (null: not known, so always move): the node there already shows it
//   layout  all that fixes the axes and elements (null: the axes follow the data, so new data
//           is a new plot): a node of the same layout is moved, move(node, scales) redrawing its
//           marks, or returning false, touching nothing, when it cannot
//   width   the width the plot asks for, which its room may narrow (plots/room.js): part of both
// Else a node of this layout that the container showed lately comes back, moved (takeBack: the
// module's recentNodes(), if any), or build() makes one, whose scalesOf(node) the next move gets.
// Returns the node shown.
export function showMoved(container, drawn, { key = null, layout = null, width, move, build, scalesOf, takeBack = null }, ...after) {
  [key, layout] = atWidth(container, key, layout, width);
  const d = drawn.get(container);
  const keeps = (node, was) => (key !== null && was.key === key) || (layout !== null && was.layout === layout && move(node, was.scales));
  let now = d;
  const live = showPatched(container, (node) => node === d?.node && keeps(node, d), () => {
    // recentNodes files a node under its layout, or under its key when the axes follow the data
    const back = takeBack?.(container, d && { ...d, key: d.layout ?? d.key, full: d.key }, layout ?? key);
    if (back && keeps(back.node, { ...back, key: back.full })) now = back;
    else {
      const node = drawIn(container, build);
      now = { node, scales: scalesOf(node) };
    }
    return now.node;
  }, ...after);
  drawn.set(container, { node: now.node, scales: now.scales, key, layout });
  return live;
}

// A node of a layout other than the one shown (null, key, layout as above), built ahead and filed
// with the recent ones (takeBack), so that showMoved brings it back when it is asked for rather
// than build it then: another departure, computed ahead (web/ahead.js).
export function keepMoved(container, drawn, { key = null, layout = null, width, build, scalesOf, takeBack }) {
  [key, layout] = atWidth(container, key, layout, width);
  const d = drawn.get(container), filed = layout ?? key;
  if (filed === null || (d && (d.layout ?? d.key) === filed) || takeBack.has(container, filed)) return;
  const node = drawIn(container, build, { ahead: true });
  takeBack(container, { key: filed, full: key, layout, node, scales: scalesOf(node) }, null);
}

// a node drawn at another width (the figure's room changed: plots/room.js) is another layout
function atWidth(container, key, layout, width) {
  if (width === undefined) return [key, layout];
  const at = `@${drawIn(container, () => fitWidth(width))}`;
  return [key === null ? null : key + at, layout === null ? null : layout + at];
}

// Nodes that a container showed lately and dropped for others of another layout (a reader moving
// n there and back: plots, data tables): takeBack = recentNodes(), then takeBack(container, old,
// key) keeps `old` ({ key, node, … }: what is about to be replaced) and returns what it kept for
// `key`, if no page holds its node any more (else null). The last few per container.
// (takeBack.has(container, key): whether one is kept for key)
export function recentNodes(size = 4) {
  const kept = new WeakMap();  // container → Map key → { key, node, … }
  const takeBack = (container, old, key) => {
    const shown = kept.get(container) ?? new Map();
    kept.set(container, shown);
    if (old) {
      shown.delete(old.key);
      shown.set(old.key, old);
      if (shown.size > size) shown.delete(shown.keys().next().value);
    }
    const back = shown.get(key);
    if (!back || back.node.parentNode) return null;
    shown.delete(key);
    return back;
  };
  takeBack.has = (container, key) => Boolean(kept.get(container)?.has(key));
  return takeBack;
}

// For the in-place redraws of the plots: the <svg> of a plot node (Plot returns the svg itself, or
// a <figure> around it when it adds a legend), and an attribute set only when its text changes.
export const chart = (node) => (node.tagName.toLowerCase() === 'svg' ? node : node.querySelector(':scope > svg'));
export function setIf(e, name, v) {
  const text = String(v);
  if (e.getAttribute(name) !== text) e.setAttribute(name, text);
}
