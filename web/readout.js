// Small DOM builders shared by the step modules: panels, readout tables, data tables for screen
// readers, live formulas. Values are always inserted as text (or as TeX typeset by KaTeX, which
// escapes it), never as markup.
import { morphChildren, show } from './morph.js';
import { setTex } from './tex.js';

export { setTex, show };

// <tag class="className">text</tag>; the text goes in as text.
export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// An element holding a live formula.
export function liveFormula(className = 'live-formula') {
  const div = document.createElement('div');
  div.className = className;
  return div;
}

// A titled panel with a plot slot and a readout table.
export function panel(title) {
  const el = document.createElement('div');
  el.className = 'panel';
  const h = document.createElement('h3');  // sections are h2: panels are the next level
  h.className = 'panel-title';
  h.textContent = title;
  const plot = document.createElement('div');
  plot.className = 'plot';
  const table = document.createElement('table');
  table.className = 'readout';
  el.append(h, plot, table);
  return { el, title: h, plot, table };
}

// Fills `table` with a header row and one row per entry: { name, cells: [text…], outside? }.
// Built detached and patched in: a redraw with the same shape only changes the cells' text.
export function fillTable(table, columns, rows) {
  const fresh = table.cloneNode(false);
  buildTable(fresh, columns, rows);
  morphChildren(table, [...fresh.childNodes]);
}

function buildTable(table, columns, rows) {
  const head = table.createTHead().insertRow();
  for (const c of columns) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = c;
    head.append(th);
  }
  const body = table.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = r.name;
    tr.append(th);
    for (const text of r.cells) tr.insertCell().textContent = text;
    if (r.outside) tr.classList.add('outside');
  }
}

// A <details> with the data behind a plot as a table: the plot's text alternative.
export function dataTable(caption, columns, rows) {
  const details = document.createElement('details');
  details.className = 'data-table';
  const summary = document.createElement('summary');
  summary.textContent = caption;
  const table = document.createElement('table');
  table.className = 'readout';
  buildTable(table, columns, rows.map((r) => ({ name: String(r[0]), cells: r.slice(1).map(String) })));
  details.append(summary, table);
  return details;
}

// A polite live region for a one-sentence summary of what was just computed.
export function liveSummary() {
  const p = document.createElement('p');
  p.className = 'live-summary';
  p.setAttribute('aria-live', 'polite');
  return p;
}

// Panels whose content is wider than they are scroll horizontally; make those focusable regions
// (named by their title) so the keyboard can scroll them, and plain again when they fit.
export function keyboardScroll(...panels) {
  for (const p of panels) {
    if (p.el.scrollWidth > p.el.clientWidth + 1) {
      p.el.tabIndex = 0;
      p.el.setAttribute('role', 'region');
      p.el.setAttribute('aria-label', p.title.textContent);
    } else {
      for (const a of ['tabindex', 'role', 'aria-label']) p.el.removeAttribute(a);
    }
  }
}

export function grid(...children) {
  const div = document.createElement('div');
  div.className = 'panels';
  div.append(...children);
  return div;
}
