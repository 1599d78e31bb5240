// Every step of the page, whatever steps exist: it renders and computes without console errors,
// every control changes what the figure shows, and a URL with parameters reproduces the numbers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

let h, ids = [];
beforeAll(async () => {
  h = await startHarness();
  const { page, close } = await h.open();
  ids = await page.$$eval('main section[id]', (ss) => ss.filter((s) => s.querySelector('figure.live')).map((s) => s.id));
  await close();
});
afterAll(async () => { await h?.close(); });

const ready = (page, id, n = 1) => page.waitForFunction(([s, k]) => {
  const f = document.querySelector(`#${s} figure.live`);
  return f?.dataset.state === 'ready' && Number(f.dataset.updates) >= k;
}, [id, n], { timeout: 60000 });
// What a reader sees of a figure's results: its body text and every plot's SVG.
const shown = (page, id) => page.$eval(`#${id} figure.live .figure-body`, (b) => b.innerText + b.innerHTML.length);

describe('every step', () => {
  it('the page lists its steps in the nav, in order, with next/previous links', async () => {
    const { page, close } = await h.open();
    const nav = await page.$$eval('#steps-nav a', (as) => as.map((a) => new URLSearchParams(a.search).get('step')));
    expect(nav.length).toBeGreaterThanOrEqual(ids.length);
    expect(nav.filter((id) => ids.includes(id))).toEqual(ids);
    if (ids.length > 1) expect(await page.getAttribute(`#${ids[0]} .step-links a[rel="next"]`, 'href')).toBe(`?step=${ids[1]}`);
    await close();
  });

  it('each step computes, and each of its controls changes what its figure shows, without console errors', async () => {
    const { page, errors, close } = await h.open();
    for (const id of ids) {
      await page.locator(`#${id} figure.live`).scrollIntoViewIfNeeded();
      await ready(page, id);
      const controls = await page.$$eval(`#${id} .controls [data-param]`, (els) => els.map((e) => e.name));
      expect(controls.length, `${id} has controls`).toBeGreaterThan(0);
      for (const name of controls) {
        const before = await shown(page, id);
        const n = await page.$eval(`#${id} figure.live`, (f) => Number(f.dataset.updates));
        const el = page.locator(`#${id} [data-param="${name}"]`);
        const kind = await el.evaluate((e) => e.type || e.tagName);
        if (kind === 'range') { await el.focus(); await page.keyboard.press(await el.evaluate((e) => (Number(e.value) < Number(e.max) ? 'ArrowRight' : 'ArrowLeft'))); }
        else if (kind === 'select-one') await el.selectOption({ index: await el.evaluate((e) => (e.selectedIndex + 1) % e.options.length) });
        else if (kind === 'checkbox') await el.click();
        else { await el.fill(String(Number(await el.inputValue()) + 1)); await el.press('Enter'); await el.blur(); }
        await ready(page, id, n + 1);
        expect(await shown(page, id), `${id}: moving ${name} changes the figure`).not.toBe(before);
      }
    }
    // a log axis labels its ticks in one style: all written out or all powers of ten (not 1000 under 10⁴)
    const mixed = await page.$$eval('main g[aria-label$="-axis tick label"]', (axes) => axes.map((axis) => {
      const labels = [...axis.querySelectorAll('text')].map((t) => t.textContent);
      const powers = labels.filter((t) => /^10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+$/.test(t));
      return powers.length && powers.length < labels.length ? `${axis.closest('section').id}: ${labels.join(' ')}` : null;
    }).filter(Boolean));
    expect(mixed).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  }, 300000);

  it('a URL with a step and its parameters reproduces the same figure', async () => {
    for (const id of ids) {
      const a = await h.open(`?step=${id}`);
      await ready(a.page, id);
      const seed = await a.page.$(`#${id} [data-param="seed"]`);
      const query = seed ? `?step=${id}&seed=11` : `?step=${id}`;
      await a.close();
      const b = await h.open(query), c = await h.open(query);
      await ready(b.page, id);
      await ready(c.page, id);
      const text = (p) => p.$eval(`#${id} figure.live .figure-body`, (x) => x.innerText.replace(/Computed in [\d.]+ ms[^.]*\./, ''));
      // 'ready' covers side reports too (training-ablation's small and large d_k): nothing more arrives
      expect(await text(b.page), id).toBe(await text(c.page));
      expect([...b.errors, ...c.errors]).toEqual([]);
      await b.close();
      await c.close();
    }
  }, 300000);
});
