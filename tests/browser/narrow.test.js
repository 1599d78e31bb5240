// On a phone (390 × 844 CSS px) every step's plots are drawn at the width they get, so their text
// keeps its size (plots/style.js fitWidth); the names under bars do not run into each other, and
// nothing but a formula or a table (each in a box of its own that scrolls) is wider than the screen.
// The room is the figure's own (plots/room.js): an <attnlab-step> in a narrow column of a wide page
// fits its plots to itself, and a window that changes size (a tablet turned) draws them again.
// A live formula flows in a narrow room (web/tex-flow.js): its lines break instead of scrolling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyFigureReady, startHarness } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

describe('on a narrow screen', () => {
  it('every plot is drawn at its displayed size, bar names apart, and the page no wider than the screen', async () => {
    const { page, errors, close } = await h.open('', PHONE);
    await everyFigureReady(page);
    const found = await page.evaluate(() => {
      // plots other than heatmaps (which scale down whole, to keep their cells square) and legends
      const plots = [...document.querySelectorAll('main svg.attnlab-plot')].filter((s) => !s.closest('.heatmap'));
      const scales = plots.map((s) => ({ where: s.getAttribute('aria-label'), scale: s.getBoundingClientRect().width / Number(s.getAttribute('width')) }));
      // heatmaps with their numbers written in their cells are drawn at their room's width too:
      // setup's scores came out at 7px, its heatmap scaled down whole
      const texted = [...document.querySelectorAll('main .heatmap svg.attnlab-plot')].filter((s) => s.querySelector('g[aria-label="text"] text'))
        .map((s) => ({ where: s.getAttribute('aria-label').slice(0, 40), scale: s.getBoundingClientRect().width / Number(s.getAttribute('width')) }));
      // bars' facet names: neighbours' boxes apart
      const touching = [];
      for (const s of plots) {
        const names = [...s.querySelectorAll('g[aria-label="fx-axis tick label"] text')].map((t) => t.getBoundingClientRect());
        names.slice(1).forEach((b, i) => { if (b.left < names[i].right) touching.push(`${s.getAttribute('aria-label')}: name ${i + 1}`); });
      }
      // a sweep's marker label (dₖ = 64, τ = √dₖ) clear of every other text in its plot (it ran into
      // the reference levels' names in temperature, vanishing-gradients and scaling-choices)
      const overlaps = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
      const marked = [];
      for (const label of document.querySelectorAll('main g.sweep-marker text')) {
        const svg = label.ownerSVGElement, box = label.getBoundingClientRect();
        for (const t of svg.querySelectorAll('text')) if (t !== label && t.textContent && overlaps(box, t.getBoundingClientRect()))
          marked.push(`${label.closest('section').id}: “${label.textContent}” on “${t.textContent}”`);
      }
      // the claims table as cards: every claim's value and verdict on the screen, not scrolled off
      // to the right (only the source and the claim showed)
      const claimsCut = [...document.querySelectorAll('#claims .claims-value, #claims .claims-verdict')]
        .filter((e) => { const b = e.getBoundingClientRect(); return !(b.width > 0 && b.right <= innerWidth); }).length;
      // what sticks out past the screen, outside a box that scrolls sideways
      const scrolls = (e) => { for (let a = e.parentElement; a; a = a.parentElement) if (/auto|scroll/.test(getComputedStyle(a).overflowX)) return true; return false; };
      // (an SVG's marks are judged by their SVG's box: a clipped curve's own box runs past its frame)
      const wide = [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && !scrolls(e))
        .filter((e) => !e.closest('.katex-mathml') && !e.parentElement.closest('svg'))  // MathML for screen readers, laid out but clipped to 1 px
        .filter((e) => !e.parentElement.closest('table')).slice(0, 12).map((e) => `${e.closest('section')?.id}: ${e.tagName} ${e.className?.baseVal ?? e.className} ${e.textContent.slice(0, 30)}`);
      return { count: plots.length, scales, texted, touching, marked, claimsCut, wide, docWidth: document.documentElement.scrollWidth };
    });
    expect(found.count).toBeGreaterThan(15);
    expect(found.scales.filter((p) => !(p.scale > 0.98)).map((p) => `${p.where}: ${p.scale.toFixed(3)}`)).toEqual([]);
    expect(found.texted.length).toBeGreaterThan(0);
    expect(found.texted.filter((p) => !(p.scale > 0.98)).map((p) => `${p.where}: ${p.scale.toFixed(3)}`)).toEqual([]);
    expect(found.touching).toEqual([]);
    expect(found.marked).toEqual([]);
    expect(found.claimsCut).toBe(0);
    expect(found.wide).toEqual([]);
    expect(found.docWidth).toBeLessThanOrEqual(390);
    expect(errors).toEqual([]);
    await close();
  });

  it('every live formula flows within the screen: lines broken between its items, none scrolled sideways or clipped', async () => {
    // (display mode never breaks a line: 16 of the 18 scrolled sideways, 1.7–2.6 screens wide)
    const { page, errors, close } = await h.open('', PHONE);
    const ids = await page.$$eval('main section[id]', (ss) => ss.filter((s) => s.querySelector('figure.live')).map((s) => s.id));
    const found = [];
    for (const id of ids) {
      await page.locator(`#${id} figure.live`).scrollIntoViewIfNeeded();
      await page.waitForFunction((s) => document.querySelector(`#${s} figure.live`)?.dataset.state === 'ready', id, { timeout: 60000 });
      found.push(...await page.$$eval(`#${id} .live-formula`, (fs) => fs.filter((f) => f.offsetParent).map((f) => ({
        where: `${f.closest('section').id}: ${f.querySelector('annotation')?.textContent.slice(0, 40)}`,
        flow: f.dataset.flow ?? (f.querySelector('.katex-display') ? 'display' : 'inline'),
        wide: f.scrollWidth - f.clientWidth, tall: f.scrollHeight - f.clientHeight,
        lines: f.querySelectorAll('.katex-html > .newline').length, errors: f.querySelectorAll('.katex-error').length }))));
    }
    expect(found.length).toBeGreaterThanOrEqual(15);
    expect(found.filter((f) => f.wide > 1 || f.tall > 1 || f.errors).map((f) => `${f.where} ${f.wide}×${f.tall}`)).toEqual([]);
    // every display formula flows, and most keep each item whole (grouped)
    expect(found.filter((f) => f.flow === 'display').map((f) => f.where)).toEqual([]);
    expect(found.filter((f) => f.flow === 'grouped').length).toBeGreaterThanOrEqual(found.length / 2);
    expect(found.filter((f) => f.lines > 0).length).toBeGreaterThanOrEqual(8);  // rows of aligned and gathered blocks
    expect(errors).toEqual([]);
    await close();
  });

  it('on a phone every select shows its chosen option whole', async () => {
    // (initialization's "Glorot uniform, one head" read "Glorot uniform, on" beside its label)
    const { page, errors, close } = await h.open('', PHONE);
    await page.addStyleTag({ content: 'main > section { content-visibility: visible !important; }' });
    const cut = await page.$$eval('main select', (ss) => {
      const ctx = document.createElement('canvas').getContext('2d');
      return ss.filter((s) => s.offsetParent).map((s) => {
        ctx.font = getComputedStyle(s).font;
        // the text, and the select's padding and arrow (20 px: a select as wide as its text, setup's q₁, is 20 px wider)
        return { where: `${s.closest('section').id} ${s.dataset.param}`, text: ctx.measureText(s.selectedOptions[0].text).width + 20, room: s.clientWidth };
      });
    });
    expect(cut.length).toBeGreaterThanOrEqual(6);
    expect(cut.filter((c) => c.text > c.room + 0.5).map((c) => `${c.where}: ${Math.round(c.text)} in ${c.room}`)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it('on a desktop screen (1200 px) no display formula of the prose is wider than its column', async () => {
    // (setup's S = QKᵀ line ran 7 px over, its full stop cut off under a sideways scroll)
    const { page, errors, close } = await h.open('', { viewport: { width: 1200, height: 900 } });
    await page.addStyleTag({ content: 'main > section { content-visibility: visible !important; }' });  // every section laid out
    const wide = await page.$$eval('main .math.display', (ds) => ds.filter((d) => d.scrollWidth > d.clientWidth + 1)
      .map((d) => `${d.closest('section').id}: ${d.scrollWidth} in ${d.clientWidth}: ${d.textContent.slice(0, 40)}`));
    expect(await page.$$eval('main .math.display', (ds) => ds.length)).toBeGreaterThanOrEqual(15);
    expect(wide).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it('on a desktop screen (1200 px) every data table keeps each cell to one line, a series’ name heading its columns', async () => {
    // (the sweeps' intervals broke after their comma, “[0.278,” over “0.297]”, and their headers ran
    // to four lines: “q·k (no scale): mean” in a half-width panel)
    const { page, errors, close } = await h.open('', { viewport: { width: 1200, height: 900 } });
    await everyFigureReady(page);
    const found = await page.evaluate(() => {
      document.querySelectorAll('main details.data-table').forEach((d) => { d.open = true; });
      // cells of numbers (words, as shift-vs-scale's “all weights 0 (the sum overflowed)”, may wrap)
      const cells = [...document.querySelectorAll('main details.data-table td')].filter((c) => !/[A-Za-z]{3}/.test(c.textContent));
      const broken = cells.filter((c) => c.textContent && (() => {
        const r = document.createRange();
        r.selectNodeContents(c);
        return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size > 1;
      })()).slice(0, 5).map((c) => `${c.closest('section').id}: ${c.textContent}`);
      // vanishing-gradients' ‖J‖ sweep: its two series head their columns, over the columns' names
      const t = [...document.querySelectorAll('#vanishing-gradients details.data-table')].find((d) => d.querySelector('summary').textContent.startsWith('‖J‖')).querySelector('table');
      const heads = [...t.tHead.rows].map((r) => [...r.cells].map((c) => `${c.textContent}${c.colSpan > 1 ? `/${c.colSpan}` : ''}${c.rowSpan > 1 ? `|${c.rowSpan}` : ''}`));
      return { count: cells.length, broken, heads, bodyCells: t.tBodies[0].rows[0].cells.length };
    });
    expect(found.count).toBeGreaterThan(1000);
    expect(found.broken).toEqual([]);
    expect(found.heads).toEqual([['dₖ|2', 'q·k (no scale)/4', 'q·k / √dₖ/2'],
      ['mean', '95% interval', 'median', 'one-hot rows', 'mean', '95% interval']]);
    expect(found.bodyCells).toBe(7);
    expect(errors).toEqual([]);
    await close();
  });

  it('no line starts with the full stop or comma after a formula, on the page (typeset at build) or in <attnlab-step> (in the browser)', async () => {
    // (product-variance's “q_l k_l. Before adding them…” put its full stop first on a line)
    const orphans = (page, host) => page.evaluate((host) => {
      const root = host ? document.querySelector(host).shadowRoot : document;
      const out = [];
      for (const m of root.querySelectorAll('section p .math:not(.display)')) {
        const t = m.nextSibling, at = t?.nodeType === 3 ? t.data.search(/[.,;:!?)]/) : -1;
        if (at !== 0) continue;
        const r = document.createRange();
        r.setStart(t, 0);
        r.setEnd(t, 1);
        if (r.getBoundingClientRect().top > m.getBoundingClientRect().bottom - 2) out.push(`${m.closest('section').id}: ${t.data.slice(0, 24)}`);
      }
      return { out, checked: root.querySelectorAll('section p .math:not(.display)').length };
    }, host);
    const { page, errors, close } = await h.open('', PHONE);
    await page.evaluate(() => document.fonts.ready);
    const onPage = await orphans(page);
    expect(onPage.checked).toBeGreaterThan(200);
    expect(onPage.out).toEqual([]);
    await page.goto(`${h.base}examples/course.html`);
    await page.evaluate(async () => {
      const e = Object.assign(document.createElement('attnlab-step'), {});
      e.id = 'pv';
      e.setAttribute('step', 'product-variance');
      document.body.prepend(e);
      while (!e.shadowRoot?.querySelector('.katex')) await new Promise((r) => setTimeout(r, 20));
      await document.fonts.ready;
    });
    const inElement = await orphans(page, '#pv');
    expect(inElement.checked).toBeGreaterThan(10);
    expect(inElement.out).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it('no line breaks after a slash in the text: a word joiner follows every slash not followed by a digit', async () => {
    // (“… so Var(q·k/” ended a line, “√dₖ) = 3.160” began the next; readout.js)
    const { page, errors, close } = await h.open('', PHONE);
    await everyFigureReady(page);
    const found = await page.evaluate(() => {
      const bare = [];
      let count = 0;
      const walk = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
      for (let t; (t = walk.nextNode());) {
        if (t.parentElement.closest('svg, .katex, script, style')) continue;  // SVG text never wraps; KaTeX keeps its own
        for (const m of t.data.matchAll(/\/(?=[^\s\d])/g)) {
          count++;
          if (t.data[m.index + 1] !== '\u2060') bare.push(`${t.parentElement.closest('section')?.id}: ${t.data.slice(Math.max(0, m.index - 12), m.index + 6)}`);
        }
      }
      return { count, bare };
    });
    expect(found.count).toBeGreaterThan(50);
    expect(found.bare).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  }, 120000);

  // plots (heatmaps apart: they scale down whole) as [{ where, width drawn, scale shown/drawn }]
  const plotScales = (page, root) => page.evaluate((root) => {
    const roots = root ? [...document.querySelectorAll(root)].map((e) => e.shadowRoot ?? e) : [document];
    return roots.flatMap((r) => [...r.querySelectorAll('svg.attnlab-plot')]).filter((s) => !s.closest('.heatmap'))
      .map((s) => ({ where: s.getAttribute('aria-label'), width: Number(s.getAttribute('width')),
        scale: +(s.getBoundingClientRect().width / Number(s.getAttribute('width'))).toFixed(3) }));
  }, root);
  const unscaled = (plots) => plots.filter((p) => !(p.scale > 0.98)).map((p) => `${p.where}: ${p.scale}`);

  it('an <attnlab-step> in a narrow column of a wide page draws its plots at its own width', async () => {
    const { page, errors, close } = await h.open('examples/course.html');
    await page.evaluate(async () => {
      for (const e of document.querySelectorAll('attnlab-step')) { e.scrollIntoView(); await new Promise((r) => setTimeout(r, 200)); }
    });
    await page.waitForFunction(() => [...document.querySelectorAll('attnlab-step')].every((e) =>
      e.shadowRoot?.querySelector('figure.live')?.dataset.state === 'ready'), null, { timeout: 60000 });
    const column = await page.evaluate(() => document.querySelector('attnlab-step').getBoundingClientRect().width);
    expect(column).toBeLessThan(900);  // narrower than the widest plot asks for (the weights' bars, 900)
    const plots = await plotScales(page, 'attnlab-step');
    expect(plots.length).toBeGreaterThanOrEqual(4);
    expect(unscaled(plots)).toEqual([]);
    expect(Math.max(...plots.map((p) => p.width))).toBeLessThan(column);
    expect(errors).toEqual([]);
    await close();
  });

  // (both steps skip redrawing curves whose data did not change, keyed on figure.layout as well,
  // which a new room increments: web/figure.js)
  for (const [id, widest] of [['scaling-choices', 900], ['vanishing-gradients', 520]]) {
    it(`${id}: a window made narrower and wider again redraws the plots at their new widths, without the engine`, async () => {
      const { page, errors, close } = await h.open(`#${id}`, { viewport: { width: 1280, height: 900 } });
      const ready = (k) => page.waitForFunction(([id, k]) => {
        const f = document.querySelector(`#${id} figure.live`);
        return f?.dataset.state === 'ready' && Number(f.dataset.updates) >= k;
      }, [id, k], { timeout: 30000 });
      // (the plots are read in view: a section out of view is not laid out, content-visibility: auto)
      const scales = async () => { await page.locator(`#${id} figure.live`).scrollIntoViewIfNeeded(); return plotScales(page, `#${id}`); };
      await ready(1);
      const wide = await scales();
      expect(Math.max(...wide.map((p) => p.width))).toBe(widest);
      expect(unscaled(wide)).toEqual([]);
      await page.setViewportSize({ width: 600, height: 900 });
      await ready(2);
      const narrow = await scales();
      expect(narrow.length).toBe(wide.length);
      expect(unscaled(narrow)).toEqual([]);
      expect(Math.max(...narrow.map((p) => p.width))).toBeLessThan(600);
      expect(await page.$eval(`#${id} figure.live`, (f) => f.dataset.engineMs)).toBe('0.00');
      // its live formula flows in the narrow room and is set in display again in the wide one
      const formula = () => page.$eval(`#${id} .live-formula`, (f) => ({ flow: f.dataset.flow, display: !!f.querySelector('.katex-display'), wide: f.scrollWidth > f.clientWidth + 1 }));
      expect(await formula()).toEqual({ flow: 'grouped', display: false, wide: false });
      await page.setViewportSize({ width: 1280, height: 900 });
      await ready(3);
      expect(await formula()).toEqual({ flow: undefined, display: true, wide: false });
      expect(await scales()).toEqual(wide);
      expect(errors).toEqual([]);
      await close();
    });
  }
});
