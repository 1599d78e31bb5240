// The softmax steps in Chromium: softmax-saturation, vanishing-gradients, scaling-choices,
// temperature. Each renders without console errors, every control changes what it shows, a URL
// reproduces the same numbers, and the source texts' numbers appear next to computed ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heatmapLabelContrasts, startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

// Light settings for the d_k sweeps (32 queries per d_k) so every update is quick.
const LIGHT = { 'softmax-saturation': 'rows=32', 'vanishing-gradients': 'rows=32', 'scaling-choices': 'rows=32', temperature: 'rows=64' };
const CONTROLS = {
  'softmax-saturation': ['dk', 'n', 'rows', 'seed', 'query'],
  'vanishing-gradients': ['dk', 'n', 'rows', 'seed', 'query'],
  'scaling-choices': ['dk', 'n', 'rows', 'seed', 'query'],
  temperature: ['tau', 'dk', 'n', 'rows', 'seed', 'query'],
};

// fmt's output back to a number: real minus, ×10⁻⁸ exponents.
const SUP = { '⁻': '-', '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9' };
const num = (s) => Number(s.trim().replace(/−/g, '-').replace(/,/g, '').replace(/×10([⁻⁰-⁹¹²³]+)/, (_, e) => `e${[...e].map((c) => SUP[c]).join('')}`));

const softmax = (x) => {
  const m = Math.max(...x);
  const e = x.map((v) => Math.exp(v - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
};

const bodyText = (page, id) => page.$eval(`#${id} .figure-body`, (b) => b.innerText);
const updates = (page, id) => page.$eval(`#${id} figure.live`, (f) => Number(f.dataset.updates || 0));

async function openStep(id, query = '') {
  const p = await h.open(`?step=${id}&${LIGHT[id]}${query}`);
  await p.page.locator(`#${id} figure.live`).scrollIntoViewIfNeeded();
  await waitForUpdates(p.page, id, 1);
  return p;
}

for (const id of Object.keys(CONTROLS)) {
  describe(`${id} in Chromium`, () => {
    it('renders its plots, tables and summary with no console errors', async () => {
      const { page, errors, close } = await openStep(id);
      expect(await page.locator(`#${id} .figure-body svg`).count()).toBeGreaterThanOrEqual(3);
      expect(await page.locator(`#${id} .live-formula .katex`).count()).toBe(1);
      expect((await page.textContent(`#${id} .live-summary`)).length).toBeGreaterThan(80);
      // every plot has a text alternative: a data table behind it
      expect(await page.locator(`#${id} details.data-table`).count()).toBeGreaterThanOrEqual(3);
      expect(await page.locator(`#${id} .softmax-verdicts p`).count()).toBeGreaterThanOrEqual(2);
      expect(errors).toEqual([]);
      await close();
    });

    it('every control changes the numbers it shows', async () => {
      const { page, errors, close } = await openStep(id);
      for (const name of CONTROLS[id]) {
        const before = await bodyText(page, id);
        const url = page.url();
        const n = await updates(page, id);
        const input = page.locator(`#${id} [name="${name}"]`);
        if ((await input.getAttribute('type')) === 'range') {
          await input.focus();
          await page.keyboard.press('ArrowRight');
        } else {
          await input.fill(String(Number(await input.inputValue()) + 1));
          await input.press('Tab');
        }
        await waitForUpdates(page, id, n + 1);
        expect(await bodyText(page, id), `moving ${name}`).not.toBe(before);
        await expect.poll(() => page.url(), `the URL follows ${name}`).not.toBe(url);  // once the redraw is done
      }
      expect(errors).toEqual([]);
      await close();
    });

    it('a URL with parameters reproduces the same numbers, and another seed changes them', async () => {
      const query = id === 'temperature' ? '&tau=2&dk=256&n=8&seed=7&query=3' : '&dk=256&n=8&seed=7&query=3';
      const a = await openStep(id, query);
      const first = await bodyText(a.page, id);
      await a.close();
      const b = await openStep(id, query);
      expect(await bodyText(b.page, id)).toBe(first);
      expect(await b.page.inputValue(`#${id} input[name="seed"]`)).toBe('7');
      expect(await b.page.getAttribute(`#${id} input[name="dk"]`, 'aria-valuetext')).toBe('d sub k 256');
      const c = await openStep(id, query.replace('seed=7', 'seed=8'));
      expect(await bodyText(c.page, id)).not.toBe(first);
      for (const p of [a, b, c]) expect(p.errors).toEqual([]);
      await b.close();
      await c.close();
    });
  });
}

describe('the source texts’ numbers are shown next to computed ones', () => {
  it('vanishing-gradients: a peaked row’s ‖J‖ far below 10⁻¹² is shown with its exponent, not as the one-hot 0', async () => {
    const { page, errors, close } = await h.open('?step=vanishing-gradients&dk=4096&n=64&rows=32');
    await page.locator('#vanishing-gradients figure.live').scrollIntoViewIfNeeded();
    await waitForUpdates(page, 'vanishing-gradients', 1);
    const cells = await page.$$eval('#vanishing-gradients table.readout tbody tr', (trs) => trs
      .filter((tr) => ['‖J‖', 'largest |Jᵢⱼ|'].includes(tr.cells[0].textContent)).map((tr) => tr.cells[1].textContent));
    expect(cells.length).toBeGreaterThan(0);
    const tiny = cells.filter((c) => /×10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+$/.test(c) && num(c) < 1e-12);
    expect(tiny.length, cells.join(' | ')).toBeGreaterThan(0);  // seed 1's query 1 at d_k = 4096: ~10⁻⁴³
    for (const c of tiny) expect(num(c)).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await close();
  });

  it('softmax-saturation: each key’s two bars stand at its place, as tall as its weights in the table, drawn and moved', async () => {
    const { page, errors, close } = await openStep('softmax-saturation');
    const check = async () => {
      const { bars, rows, axis } = await page.$eval('#softmax-saturation .panel', (panel) => {
        const svg = panel.querySelector('svg.attnlab-plot');
        const base = svg.querySelector('g[aria-label="rule"] line').getAttribute('y1');
        return {
          bars: [...svg.querySelectorAll('g[aria-label="rect"] rect')].map((r) => ({ x: +r.getAttribute('x'), w: +r.getAttribute('width'),
            h: +r.getAttribute('height'), top: +r.getAttribute('y'), base: +base, fill: r.getAttribute('fill') })),
          rows: [...panel.querySelectorAll('details.data-table tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
          axis: [...svg.querySelectorAll('g[aria-label="x-axis tick label"] text')].map((t) => t.textContent),
        };
      });
      const n = rows.length;
      expect(n).toBe(16);
      expect(bars.length).toBe(2 * n);  // series by series: no scale, then ÷√dₖ
      expect(axis).toEqual(rows.map((r) => r[0]));
      const ys = rows.flatMap((r) => [num(r[3]), num(r[4])]);
      const pxPerUnit = Math.max(...bars.map((b) => b.h)) / Math.max(...ys);
      for (let j = 0; j < n; j++) for (const k of [0, 1]) {
        const b = bars[k * n + j];
        expect(Math.abs(b.h - num(rows[j][3 + k]) * pxPerUnit)).toBeLessThan(0.6);  // the table's 3 digits
        expect(b.top + b.h).toBeCloseTo(b.base, 6);  // standing on the baseline
      }
      // key j's pair side by side, left to right, in the same order as the keys
      for (let j = 0; j < n; j++) {
        expect(bars[j].x + bars[j].w).toBeLessThanOrEqual(bars[n + j].x);
        if (j) expect(bars[n + j - 1].x + bars[n + j - 1].w).toBeLessThan(bars[j].x);
      }
      expect(new Set(bars.slice(0, n).map((b) => b.fill)).size).toBe(1);
      expect(bars[0].fill).not.toBe(bars[n].fill);
    };
    await check();  // as built
    const before = await updates(page, 'softmax-saturation');
    await page.fill('#softmax-saturation [data-param="seed"]', '7');
    await page.press('#softmax-saturation [data-param="seed"]', 'Enter');
    await waitForUpdates(page, 'softmax-saturation', before + 1);
    await check();  // moved in place (plots/bars.js moveBars)
    expect(errors).toEqual([]);
    await close();
  });

  it('softmax-saturation: the course example, recomputed, with the text’s wrong values marked', async () => {
    const { page, errors, close } = await openStep('softmax-saturation');
    const rows = await page.$$eval('#softmax-saturation .softmax-sources table.readout tbody tr', (trs) =>
      trs.map((tr) => [...tr.cells].map((c) => ({ text: c.textContent, off: c.classList.contains('softmax-off') }))));
    const scores = [9.2, -3.1, 8.8, -5.4, 1.2];
    const p = softmax(scores.map(Math.fround)), p8 = softmax(scores.map((s) => Math.fround(s / 8)));
    for (let j = 0; j < 5; j++) {
      expect(Math.abs(num(rows[j][3].text) - p[j])).toBeLessThan(Math.max(5e-4 * p[j], 5e-4));
      expect(Math.abs(num(rows[j][6].text) - p8[j])).toBeLessThan(5e-3 * p8[j]);
      expect(rows[j][2].off).toBe(false);  // the unscaled claims are right to their last digit
    }
    expect(rows[0][5]).toEqual({ text: '0.31', off: true });  // the text's scaled weight of position 1
    expect(rows[5][5]).toEqual({ text: '0.850', off: true }); // …which sum to 0.85
    const verdicts = await page.textContent('#softmax-saturation .softmax-verdicts');
    expect(verdicts).toContain('sum to 0.850, not 1');
    expect(verdicts).toContain(`= ${Math.exp(0.6).toPrecision(3)}`);
    expect(verdicts).toMatch(/turned up in \d+ of 32,768 sampled rows/);
    expect(errors).toEqual([]);
    await close();
  });

  it('vanishing-gradients: the course text’s numbers are J’s diagonal; a one-hot row passes exactly 0', async () => {
    const { page, errors, close } = await openStep('vanishing-gradients');
    const rows = await page.$$eval('#vanishing-gradients .softmax-sources table.readout tbody tr', (trs) =>
      trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const p = [0.3, 0.3, 0.2, 0.2];
    for (let i = 0; i < 4; i++) {
      for (let j = 0; j < 4; j++) expect(num(rows[i][j + 1])).toBeCloseTo(p[i] * ((i === j) - p[j]), 5);
      expect(Math.abs(num(rows[i][6]))).toBeLessThan(1e-6);  // each row of J sums to 0
    }
    const verdicts = await page.textContent('#vanishing-gradients .softmax-verdicts');
    expect(verdicts).toContain('[0.210, 0.210, 0.160, 0.160]');
    expect(verdicts).toContain('[0.21, −0.090, −0.060, −0.060]');
    expect(verdicts).toContain('largest |Jᵢⱼ| is 0, and its backward pass returns a gradient whose largest entry is 0');
    // the forum row (−20, 3, 25, −15): its float32 ‖J‖ lacks J₃₃ (p₃ rounds to 1), √3·p₂; by hand it is 2·p₂
    const [, f32, exact] = verdicts.match(/‖J‖ is (\S+) in float32, where p₃ rounds to exactly 1 .*?‖J‖ = (\S+)\./);
    const p2 = Math.exp(-22) / (1 + Math.exp(-22) + Math.exp(-45) + Math.exp(-40));
    expect(num(f32) / (Math.sqrt(3) * p2)).toBeCloseTo(1, 1);
    expect(num(exact) / (2 * p2)).toBeCloseTo(1, 1);
    expect(errors).toEqual([]);
    await close();
  });

  it('vanishing-gradients: the summary explains a row that passes more unscaled, and only such a row', async () => {
    const { page, errors, close } = await openStep('vanishing-gradients');
    const text = () => page.textContent('#vanishing-gradients .live-summary');
    const norms = async () => (await text()).match(/‖J‖ = ([\d.]+) unscaled, ([\d.]+) scaled/).slice(1).map(Number);
    const seen = new Set();
    for (const query of [1, 2, 3, 4, 5, 6]) {
      const n = Number(await page.$eval('#vanishing-gradients figure.live', (f) => f.dataset.updates));
      await page.fill('#vanishing-gradients input[name="query"]', String(query));
      await page.dispatchEvent('#vanishing-gradients input[name="query"]', 'change');
      await waitForUpdates(page, 'vanishing-gradients', n + 1);
      const [unscaled, scaled] = await norms();
      const explained = (await text()).includes('This row passes more unscaled: ‖J‖ is largest, 0.500, when two weights split the row evenly');
      expect(explained, `query ${query}: ${unscaled} against ${scaled}`).toBe(unscaled > scaled);
      seen.add(explained);
    }
    expect(seen.size).toBe(2);  // both kinds of row were among them
    expect(errors).toEqual([]);
    await close();
  });

  it('vanishing-gradients: every Jacobian cell’s label reads against its cell, the peaked panel on the shared scale', async () => {
    // n = 2: the peaked row is one-hot but for ~1e-11, so its cells are near-white on the scale the
    // spread row sets; judged against its own values, three of its labels came out white
    const { page, errors, close } = await openStep('vanishing-gradients', '&n=2');
    const contrasts = await heatmapLabelContrasts(page, '#vanishing-gradients');
    expect(contrasts.map((c) => c.length)).toEqual([4, 4]);
    for (const c of contrasts.flat()) expect(c.contrast, c.where).toBeGreaterThanOrEqual(4.5);
    expect(errors).toEqual([]);
    await close();
  });

  it('scaling-choices: float32 softmax of logits divided by d_k is accurate to a few roundings', async () => {
    const { page, errors, close } = await openStep('scaling-choices', '&dk=4096');
    const verdicts = await page.textContent('#scaling-choices .softmax-verdicts');
    const m = verdicts.match(/divided by dₖ is within a relative (\S+)/);
    expect(m).not.toBeNull();
    expect(num(m[1])).toBeLessThan(16 * 2 ** -24);
    expect(verdicts).toMatch(/floating-point arithmetic”: misleading\./);  // the claims table's verdict on it
    expect(errors).toEqual([]);
    await close();
  });

  it('temperature: sharper below √d_k and softer above, for every query', async () => {
    const { page, errors, close } = await openStep('temperature');
    const verdicts = await page.textContent('#temperature .softmax-verdicts');
    expect(verdicts).toContain('for 64 of the 64 queries');
    expect(verdicts).toMatch(/Sharper below √dₖ: yes/);
    expect(verdicts).toMatch(/Softer above √dₖ: yes/);
    expect(errors).toEqual([]);
    await close();
  });
});
