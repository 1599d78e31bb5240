// Every plot has a name, its numbers in a table and a summary in its figure. axe-core (WCAG 2.1
// A/AA and best practice) on the whole page with every figure drawn, in the light and the dark
// theme: no serious or critical violations. axe does not judge text drawn in SVG, so the heatmaps'
// cell labels are checked here against their cells' colours.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyFigureReady, heatmapLabelContrasts, startHarness } from './harness.js';

const require = createRequire(import.meta.url);
let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

describe('accessibility', () => {
  it('every plot has a name and a text alternative: its numbers in its own table, and a summary', async () => {
    const { page, errors, close } = await h.open();
    await everyFigureReady(page);
    const found = await page.evaluate(() => {
      // a plot's own table: the one its box names in aria-details (one table for several plots, or
      // a readout in another panel: readout.js detailsFor), else the one in its panel. Not any table
      // of its grid or figure: a plot that lost its table would pass on a neighbour's.
      const own = (p) => {
        const box = p.closest('[aria-details]');
        return box ? document.getElementById(box.getAttribute('aria-details')) : p.closest('.panel');
      };
      const plots = [...document.querySelectorAll('main figure.live .plot svg.attnlab-plot, main figure.live .heatmap')];
      return {
        count: plots.length,
        lacking: plots.filter((p) => {
          const name = p.getAttribute('aria-label') ?? p.querySelector('[aria-label]')?.getAttribute('aria-label');
          const table = !!own(p)?.querySelector('tbody tr');
          return !(name?.length > 20 && table && p.closest('figure.live').querySelector('.live-summary')?.textContent.length > 40);
        }).map((p) => `${p.closest('section').id}: ${p.getAttribute('aria-label')}`),
      };
    });
    expect(found.count).toBeGreaterThan(50);
    expect(found.lacking).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  }, 120000);

  // the phone: panels and data tables wider than the screen scroll, and must be focusable then
  const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
  for (const [colorScheme, where, options] of [['light', 'desktop', {}], ['dark', 'desktop', {}], ['light', 'phone', PHONE]]) {
    it(`the full page has no serious or critical axe violations (${colorScheme} theme, ${where})`, async () => {
      const { page, errors, close } = await h.open('', { colorScheme, ...options });
      // mount every figure, and let each finish drawing
      await everyFigureReady(page);
      // content-visibility skips rendering far from the viewport, which axe's colour checks need
      await page.addStyleTag({ content: 'main > section { content-visibility: visible !important; }' });
      // and two frames for the boxes that now scroll sideways to be judged (web/scroll-region.js)
      await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
      await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
      const result = await page.evaluate(() => axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] },
      }));
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.length} nodes, e.g. ${v.nodes[0].target.join(' ')}`);
      expect(bad).toEqual([]);
      // every heatmap cell's label against its cell: WCAG's 4.5 for text
      const labels = (await heatmapLabelContrasts(page)).flat();
      expect(labels.length).toBeGreaterThan(0);
      expect(labels.filter((l) => l.contrast < 4.5).map((l) => `${l.where} (${l.contrast.toFixed(2)})`)).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    }, 240000);
  }

  it('a live formula\'s MathML, which layout skips (style.css), is still what a screen reader reads: math with the engine\'s numbers', async () => {
    const { page, errors, close } = await h.open('?step=dot-variance');
    await page.waitForFunction(() => document.querySelector('#dot-variance figure.live')?.dataset.state === 'ready', null, { timeout: 30000 });
    const formula = page.locator('#dot-variance figure.live .live-formula');
    expect(await formula.locator('.katex-mathml').evaluate((e) => getComputedStyle(e).contentVisibility)).toBe('auto');
    // the measured variance, as the figure's table gives it, read in the formula's math
    const measured = await page.$eval('#dot-variance figure.live table.readout', (t) =>
      [...t.rows].find((r) => r.cells[0].textContent === 'variance').cells[1].textContent);
    expect(await formula.ariaSnapshot()).toMatch(new RegExp(`^- math: Var .*= 64 → measured ${measured.replace('.', '\\.')} ,`));
    expect(errors).toEqual([]);
    await close();
  });
});
