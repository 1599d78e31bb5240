// A figure reuses its last result when a request repeats it (web/figure.js): the experiments are
// pure functions of their parameters, so a control that changes only the drawing needs no engine
// work, and a request that returns to the last result drops the one still in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const ID = 'product-variance';
const posted = (page) => page.evaluate(() => performance.getEntriesByName('attnlab:posted').length);
// the figure's numbers: its tables, formula and summary (the plots' axes follow the axis control)
const shown = (page) => page.$eval(`#${ID} .figure-body`, (b) => [...b.querySelectorAll('table, p, .katex-mathml')].map((e) => e.textContent).join('\n'));

describe('the last result, reused', () => {
  it('a control that changes only the drawing (the density axis) redraws without asking the engine, and says so', async () => {
    const { page, errors, close } = await h.open(`?step=${ID}`);
    await waitForUpdates(page, ID, 1);
    const before = await posted(page);
    const numbers = await shown(page);
    const timing = () => page.textContent(`#${ID} figure.live > p.timing`);
    expect(await timing()).toMatch(/^Computed in [\d.]+ ms by the engine\.$/);
    await page.locator(`#${ID} [data-param="axis"]`).selectOption('log');
    await waitForUpdates(page, ID, 2);
    expect(await posted(page)).toBe(before);
    expect(await page.$eval(`#${ID} figure.live`, (f) => f.dataset.engineMs)).toBe('0.00');
    expect(await shown(page)).toBe(numbers);
    // not the last run's time, as if it were this redraw's
    expect(await timing()).toBe('Redrawn from results already computed: the engine did not run.');
    expect(errors).toEqual([]);
    await close();
  });

  it('moving a control away and straight back draws the first value: the request in flight does not draw over it', async () => {
    const { page, errors, close } = await h.open(`?step=${ID}`);
    await waitForUpdates(page, ID, 1);
    const first = await shown(page);
    const updates = await page.$eval(`#${ID} figure.live`, (f) => Number(f.dataset.updates));
    // away to the next sample size (a new request) and back within one task
    await page.$eval(`#${ID} [data-param="count"]`, (e) => {
      const v = e.value;
      e.value = String(Number(v) - 1);
      e.dispatchEvent(new Event('input', { bubbles: true }));
      e.value = v;
      e.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await waitForUpdates(page, ID, updates + 1);
    await page.waitForTimeout(1500);  // time enough for the dropped request to have come back
    expect(await page.$eval(`#${ID} figure.live`, (f) => f.dataset.state)).toBe('ready');
    expect(await shown(page)).toBe(first);
    expect(errors).toEqual([]);
    await close();
  });

  it('a strength the experiment does not read (ρ while the mean is broken; σ under Glorot) redraws without asking the engine', async () => {
    for (const [id, query, param, changed] of [
      ['breaking-assumptions', 'departure=mean', 'rho', (b) => b.querySelector('table.words').textContent],
      ['initialization', 'init=glorot-uniform', 'sigma', (b) => [...b.querySelectorAll('table')].map((t) => t.textContent).join('\n')],
    ]) {
      const { page, errors, close } = await h.open(`?step=${id}&${query}`);
      await waitForUpdates(page, id, 1);
      const before = await posted(page);
      const text = await page.$eval(`#${id} .figure-body`, changed);
      await page.$eval(`#${id} [data-param="${param}"]`, (e) => {
        e.value = String(Number(e.value) + 1);
        e.dispatchEvent(new Event('input', { bubbles: true }));
      });
      await waitForUpdates(page, id, 2);
      expect(await posted(page), id).toBe(before);
      expect(await page.$eval(`#${id} figure.live`, (f) => f.dataset.engineMs), id).toBe('0.00');
      // what the strength does change is redrawn: the formulas at the new ρ, the custom-σ curve
      expect(await page.$eval(`#${id} .figure-body`, changed), id).not.toBe(text);
      expect(errors).toEqual([]);
      await close();
    }
  });
});
