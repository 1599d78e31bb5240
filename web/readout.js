// Small DOM builders shared by the step modules: panels, readout tables, data tables for screen
// readers, live formulas. Values are always inserted as text (or as TeX typeset by KaTeX, which
// escapes it), never as markup. In the steps' text a slash not followed by a digit (after which no
// line breaks anyway) is followed by a word joiner, "1/\u2060√dₖ", so that no line breaks after it
// (a plot's SVG text and aria-labels, which never wrap, go without).
import { morphChildren, recentNodes, show } from './morph.js';
import { scrollsSideways } from './scroll-region.js';
import { hasSubscript, setSubscripted } from './subscripts.js';
import { keepTex, setTex } from './tex.js';

export { keepTex, setTex, show };

// <tag class="className">text</tag>; the text goes in as text.
export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// An element holding a live formula.
export function liveFormula(className = 'live-formula', name = 'formula, with the figure’s numbers') {
  const div = document.createElement('div');
  div.className = className;
  return scrollsSideways(div, () => name);
}

// A titled panel with a plot slot and a readout table.
export function panel(title) {
  const el = document.createElement('div');
  el.className = 'panel';
  const h = document.createElement('h3');  // sections are h2: panels are the next level
  h.className = 'panel-title';
  setText(h, title);
  const plot = document.createElement('div');
  plot.className = 'plot';
  const table = document.createElement('table');
  table.className = 'readout';
  el.append(h, plot, table);
  scrollsSideways(el, () => h.textContent);
  return { el, title: h, plot, table };
}

// Fills `table` with a header row and one row per entry: { name, cells: [text…], outside? }.
// A redraw with the same shape only changes the cells' text, in place; another shape is built
// detached and patched in.
export function fillTable(table, columns, rows) {
  if (refill(table, columns, rows)) return;
  const fresh = table.cloneNode(false);
  buildTable(fresh, columns, rows);
  morphChildren(table, [...fresh.childNodes]);
}

// The header rows of `columns`: each column a name, or { group, name } for one of a run of
// neighbours under a shared heading (a series' mean and interval under the series' name). With
// groups there are two rows: a group's heading spans its columns, over their names, and a column
// outside any group spans both rows. Cells: { text, scope, span?, rows? }.
function headerRows(columns) {
  if (!columns.some((c) => typeof c === 'object')) return [columns.map((text) => ({ text, scope: 'col' }))];
  const top = [], bottom = [];
  for (const c of columns) {
    if (typeof c !== 'object') top.push({ text: c, scope: 'col', rows: 2 });
    else {
      const last = top.at(-1);
      if (last?.scope === 'colgroup' && last.text === c.group) last.span++;
      else top.push({ text: c.group, scope: 'colgroup', span: 1 });
      bottom.push({ text: c.name, scope: 'col' });
    }
  }
  return [top, bottom];
}

function buildTable(table, columns, rows) {
  const thead = table.createTHead();
  for (const cells of headerRows(columns)) {
    const tr = thead.insertRow();
    for (const { text, scope, span, rows: down } of cells) {
      const th = document.createElement('th');
      th.scope = scope;
      if (span > 1) th.colSpan = span;
      if (down > 1) th.rowSpan = down;
      setText(th, text);
      tr.append(th);
    }
  }
  const body = table.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    setText(th, r.name);
    tr.append(th);
    for (const text of r.cells) tr.insertCell().textContent = text;
    if (r.outside) tr.classList.add('outside');
  }
}

// buildTable's result for these rows, written over a table buildTable made for rows of the same
// shape (as many rows, each as many cells, and the same header cells and spans): only the text
// that differs and the rows' class change, ~2.5 µs a cell where building a new table and patching
// it in (morph.js) costs ~4 times that. False, touching nothing, for another shape. (Walked by
// siblings: the rows and cells collections cost more than the cells' text.)
function refill(table, columns, rows) {
  if (table.localName !== 'table' || table.childElementCount !== 2) return false;
  const [thead, tbody] = table.children, heads = headerRows(columns);
  if (thead.localName !== 'thead' || tbody.localName !== 'tbody' || thead.childElementCount !== heads.length ||
    tbody.childElementCount !== rows.length) return false;
  let tr = thead.firstElementChild;
  for (const cells of heads) {
    if (tr.childElementCount !== cells.length) return false;
    let cell = tr.firstElementChild;
    for (const c of cells) {
      if (cell.colSpan !== (c.span ?? 1) || cell.rowSpan !== (c.rows ?? 1)) return false;
      cell = cell.nextElementSibling;
    }
    tr = tr.nextElementSibling;
  }
  tr = tbody.firstElementChild;
  for (const r of rows) {
    if (tr.childElementCount !== r.cells.length + 1) return false;
    tr = tr.nextElementSibling;
  }
  tr = thead.firstElementChild;
  for (const cells of heads) {
    let cell = tr.firstElementChild;
    for (const c of cells) { setText(cell, c.text); cell = cell.nextElementSibling; }
    tr = tr.nextElementSibling;
  }
  tr = tbody.firstElementChild;
  for (const r of rows) {
    let cell = tr.firstElementChild;
    setText(cell, r.name);
    for (const text of r.cells) { cell = cell.nextElementSibling; setText(cell, text); }
    if (r.outside) { if (tr.getAttribute('class') !== 'outside') tr.setAttribute('class', 'outside'); }
    else if (tr.hasAttribute('class')) tr.removeAttribute('class');  // as built: no empty class=""
    tr = tr.nextElementSibling;
  }
  return true;
}

// e's text becomes `text`: its one text node's data when it has one (no new node), else textContent
// (which leaves no text node for '', as buildTable's cells have none); d_model's kind of subscript
// as <sub> (subscripts.js).
function setText(e, text) {
  const t = e.firstChild;
  if (hasSubscript(text)) setSubscripted(e, text);
  else if (text && t?.nodeType === Node.TEXT_NODE && !t.nextSibling) { if (t.data !== text) t.data = text; }
  else if (e.textContent !== text || e.firstElementChild) { e.textContent = text; e.removeAttribute('data-text'); }
}

// A <details> with the data behind a plot as a table: the plot's text alternative.
// `live`: the data table drawn last time in this place, if any. It is rewritten in place and
// returned, so that the caller's show() finds it already there and patches nothing: the cells'
// text when the table keeps its shape (refill), else another table in it (one it showed lately,
// refilled, or a new one); the <details> stays, open if the reader opened it.
export function dataTable(caption, columns, rows, live) {
  const entries = rows.map((r) => ({ name: String(r[0]), cells: r.slice(1).map(String) }));
  if (!(live?.localName === 'details' && live.classList.contains('data-table') && live.childElementCount === 2 &&
    live.lastElementChild.localName === 'table')) {
    const details = document.createElement('details');
    details.className = 'data-table';
    const summary = document.createElement('summary');
    setText(summary, caption);
    details.append(summary, newTable(columns, entries));
    return scrollsSideways(details, () => summary.textContent);
  }
  const old = live.lastElementChild;
  if (!refill(old, columns, entries)) {
    const back = takeBackTable(live, { key: shapeOf(old), node: old }, `${entries.length}×${columns.length}`);
    old.replaceWith(back && refill(back.node, columns, entries) ? back.node : newTable(columns, entries));
  }
  setText(live.firstElementChild, caption);
  return live;
}

const takeBackTable = recentNodes();  // <details> → tables it showed lately, by shape
const shapeOf = (table) => `${table.lastElementChild?.childElementCount}×${[...(table.tHead?.rows[0]?.cells ?? [])].reduce((n, c) => n + c.colSpan, 0)}`;
function newTable(columns, rows) {
  const table = document.createElement('table');
  table.className = 'readout';
  buildTable(table, columns, rows);
  return table;
}

// The data table shown in `container` (the <details> a plot's show() put after it), if any: the
// `live` argument of dataTable.
export const shownTable = (container) => container.querySelector(':scope > details.data-table');

// The plots' boxes in `plots` find their numbers in `table` (a readout, or the box a data table is
// shown in) rather than beside them in their own panel: one table for several plots, or a readout
// in another panel. The table gets an id, and each box aria-details naming it.
let tables = 0;
export function detailsFor(table, ...plots) {
  table.id ||= `plot-numbers-${++tables}`;
  for (const box of plots) box.setAttribute('aria-details', table.id);
}

// A polite live region for a one-sentence summary of what was just computed.
export function liveSummary() {
  const p = document.createElement('p');
  p.className = 'live-summary';
  p.setAttribute('aria-live', 'polite');
  return p;
}

export function grid(...children) {
  const div = document.createElement('div');
  div.className = 'panels';
  div.append(...children);
  return div;
}
