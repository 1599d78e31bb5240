// The first three steps in Chromium: setup (Q, K, S = QKᵀ), product-variance (XY) and the
// additions to dot-variance (standard deviation, sweep over d_k). Each renders without console
// errors, each control changes the numbers, and a URL reproduces them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNum, readouts, startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const text = (page, sel) => page.textContent(sel);
const rowOf = (table, name) => table.find((r) => r[0] === name);
const updates = (page, id) => page.getAttribute(`#${id} figure.live`, 'data-updates').then(Number);

// Opens `query`, scrolls the step's figure into view and waits for its first update.
async function openStep(query, id) {
  const p = await h.open(query);
  await p.page.locator(`#${id} figure.live`).scrollIntoViewIfNeeded();
  await waitForUpdates(p.page, id, 1);
  return p;
}

// Applies `act`, then waits for the next completed update of the step.
async function after(page, id, act) {
  const n = await updates(page, id);
  await act();
  await waitForUpdates(page, id, n + 1);
}

describe('setup in Chromium', () => {
  it('shows Q, K and the unscaled S = QKᵀ, and the outlined score is q_i·k_j of the shown rows', async () => {
    const { page, errors, close } = await openStep('?step=setup', 'setup');
    const [q, k, s] = await readouts(page, 'setup');
    expect(q.length).toBe(3);
    expect(k.length).toBe(4);
    expect(s.length).toBe(3);
    expect(q[0].length).toBe(1 + 4);  // d_k = 4 columns
    expect(await page.locator('#setup .plot svg').count()).toBeGreaterThan(0);
    expect(await page.locator('#setup .live-formula .katex').count()).toBe(2);

    // default pair: q₁, k₂. Its score from the shown (rounded) entries, against the shown S₁₂
    const dot = (qi, kj) => qi.slice(1).reduce((acc, v, l) => acc + parseNum(v) * parseNum(kj[l + 1]), 0);
    const bound = (qi, kj) => 0.005 * qi.slice(1).reduce((acc, v, l) => acc + Math.abs(parseNum(v)) + Math.abs(parseNum(kj[l + 1])) + 0.005, 0) + 0.005;
    const s12 = parseNum(s[0][2]);
    expect(Math.abs(dot(q[0], k[1]) - s12)).toBeLessThanOrEqual(bound(q[0], k[1]));
    expect(await text(page, '#setup tr.selected th')).toBe('q₁');
    expect(await page.locator('#setup .selected-cell').count()).toBe(1);
    expect(await text(page, '#setup .live-summary')).toMatch(/S₁₂ = q₁·k₂/);
    expect(errors).toEqual([]);
    await close();
  });

  it('moving d_k, the query and the key recomputes the example and the formula follows', async () => {
    const { page, errors, close } = await openStep('?step=setup', 'setup');
    const before = await readouts(page, 'setup');
    const slider = page.locator('#setup input[name="dk"]');
    await after(page, 'setup', async () => { await slider.focus(); await page.keyboard.press('ArrowRight'); });
    const [q5] = await readouts(page, 'setup');
    expect(q5[0].length).toBe(1 + 5);
    expect(await readouts(page, 'setup')).not.toEqual(before);

    await after(page, 'setup', () => page.selectOption('#setup select[name="query"]', '3'));
    await after(page, 'setup', () => page.selectOption('#setup select[name="key"]', '4'));
    expect(await text(page, '#setup .live-summary')).toMatch(/S₃₄ = q₃·k₄/);
    const rows = await page.$$eval('#setup tr.selected th', (ths) => ths.map((t) => t.textContent));
    expect(rows).toEqual(['q₃', 'k₄']);
    const [q, k, s] = await readouts(page, 'setup');
    const dot = q[2].slice(1).reduce((acc, v, l) => acc + parseNum(v) * parseNum(k[3][l + 1]), 0);
    expect(Math.abs(dot - parseNum(s[2][4]))).toBeLessThan(0.2);  // 5 rounded products: error far below this
    expect(await page.textContent('#setup .live-formula:nth-child(2)')).toContain(s[2][4].replace('−', '-'));  // the TeX source KaTeX keeps
    await expect.poll(() => page.url()).toMatch(/dk=5/);
    await expect.poll(() => page.url()).toMatch(/query=3/);
    await expect.poll(() => page.url()).toMatch(/key=4/);
    expect(errors).toEqual([]);
    await close();
  });

  it('a URL with parameters reproduces the same numbers; another seed gives others', async () => {
    const query = '?step=setup&dk=6&seed=42&query=2&key=3';
    const a = await openStep(query, 'setup');
    const first = await readouts(a.page, 'setup');
    const b = await openStep(query, 'setup');
    expect(await readouts(b.page, 'setup')).toEqual(first);
    expect(await b.page.inputValue('#setup input[name="seed"]')).toBe('42');
    const c = await openStep('?step=setup&dk=6&seed=43&query=2&key=3', 'setup');
    expect(await readouts(c.page, 'setup')).not.toEqual(first);
    for (const p of [a, b, c]) { expect(p.errors).toEqual([]); await p.close(); }
  });

  it('the colour legend spans ±e, the first nice number at or above the largest |score|, for every seed', async () => {
    const { page, errors, close } = await openStep('?step=setup&seed=1', 'setup');
    const ends = new Set();
    for (let seed = 1; seed <= 6; seed++) {
      if (seed > 1) await after(page, 'setup', () => page.fill('#setup input[name="seed"]', String(seed)).then(() => page.dispatchEvent('#setup input[name="seed"]', 'change')));
      const [, , s] = await readouts(page, 'setup');
      const top = Math.max(...s.flatMap((row) => row.slice(1).map((v) => Math.abs(parseNum(v)))));
      const ticks = await page.$$eval('#setup .heatmap > svg:first-child g[aria-label="x-axis tick label"] text', (ts) => ts.map((t) => t.textContent));
      const e = parseNum(ticks.at(-1));
      expect(ticks.map(parseNum)).toEqual([-e, -e / 2, 0, e / 2, e]);
      expect(e).toBeGreaterThanOrEqual(top - 0.005);  // the cells show two decimals
      expect(e).toBeLessThanOrEqual(1.34 * (top + 0.005));  // 1, 1.2, 1.5, 2, … 8, 10: no step above 4/3
      ends.add(e);
    }
    expect(ends.size).toBeGreaterThan(1);  // the legend was relabelled, not only kept
    expect(errors).toEqual([]);
    await close();
  });
});

describe('product-variance in Chromium', () => {
  const table = (page) => page.$$eval('#product-variance table.moments tbody tr', (trs) =>
    trs.map((tr) => [...tr.cells].map((c) => c.textContent)));

  it('measures variance 1 and kurtosis near 9 for normal entries, beside the theory', async () => {
    const { page, errors, close } = await openStep('?step=product-variance', 'product-variance');
    const t = await table(page);
    expect(t.map((r) => r[0])).toEqual(['mean', 'variance', 'E[(XY)⁴]', 'kurtosis']);
    expect(t.map((r) => r[3])).toEqual(['0', '1', '9', '9']);
    // 50,000 samples: SE(s²) = √(8/n) ≈ 0.013, SE(κ̂) = √(5760/n) ≈ 0.34; 5 SE
    expect(Math.abs(parseNum(rowOf(t, 'variance')[1]) - 1)).toBeLessThan(0.07);
    expect(Math.abs(parseNum(rowOf(t, 'kurtosis')[1]) - 9)).toBeLessThan(1.7);
    expect(await page.locator('#product-variance .plot svg').count()).toBeGreaterThan(0);
    expect(await text(page, '#product-variance .density-legend')).toContain('K₀(|x|)/\u2060π');
    expect(await page.locator('#product-variance .live-formula .katex').count()).toBe(1);
    expect(errors).toEqual([]);
    await close();
  });

  it('other entry laws keep variance 1 but change the kurtosis; every control recomputes', async () => {
    const { page, errors, close } = await openStep('?step=product-variance', 'product-variance');
    const svg0 = await page.innerHTML('#product-variance .plot');
    await after(page, 'product-variance', () => page.selectOption('#product-variance select[name="distribution"]', 'uniform'));
    let t = await table(page);
    expect(rowOf(t, 'kurtosis')[3]).toBe('3.24');  // (9/5)²
    expect(Math.abs(parseNum(rowOf(t, 'variance')[1]) - 1)).toBeLessThan(0.04);  // SE √(2.24/n) ≈ 0.0067
    expect(Math.abs(parseNum(rowOf(t, 'kurtosis')[1]) - 3.24)).toBeLessThan(0.1);
    expect(await page.innerHTML('#product-variance .plot')).not.toBe(svg0);
    expect(await text(page, '#product-variance .density-legend')).toContain('ln(3/\u2060|x|)/6');

    await after(page, 'product-variance', () => page.selectOption('#product-variance select[name="distribution"]', 'rademacher'));
    t = await table(page);
    expect(rowOf(t, 'variance')[2]).toBe('—');  // no normal-approximation interval for a degenerate estimator
    expect(parseNum(rowOf(t, 'kurtosis')[1])).toBeCloseTo(1, 3);
    expect(await page.locator('#product-variance tr.outside').count()).toBe(0);
    // XY = ±1 has no density: the bars are each bin's share of the samples, on a probability axis,
    // two bars of about ½ (a density there read 2.5, ½ over the bin width) and no density curve
    expect(await text(page, '#product-variance .plot svg')).toContain('probability');
    expect(await page.locator('#product-variance .density-legend').count()).toBe(0);
    const shares = await page.$$eval('#product-variance details.data-table tbody tr', (rows) =>
      rows.map((r) => [...r.cells].map((c) => c.textContent)).filter((c) => c[1] !== '0').map((c) => [Number(c[0].replace('−', '-')), Number(c[2])]));
    expect(shares.map(([x]) => Math.round(x))).toEqual([-1, 1]);
    expect(shares.every(([, p]) => Math.abs(p - 0.5) < 0.01)).toBe(true);

    const svg1 = await page.innerHTML('#product-variance .plot');
    await after(page, 'product-variance', () => page.selectOption('#product-variance select[name="axis"]', 'log'));
    expect(await page.innerHTML('#product-variance .plot')).not.toBe(svg1);
    expect(await text(page, '#product-variance .plot')).toContain('log scale');

    const sum0 = await text(page, '#product-variance .live-summary');
    const slider = page.locator('#product-variance input[name="count"]');
    await after(page, 'product-variance', async () => { await slider.focus(); await page.keyboard.press('ArrowLeft'); });
    expect(await text(page, '#product-variance .live-summary')).toMatch(/^With 20,000 products XY/);
    expect(await text(page, '#product-variance .live-summary')).not.toBe(sum0);

    const seed = page.locator('#product-variance input[name="seed"]');
    const t0 = await table(page);
    await after(page, 'product-variance', async () => { await seed.fill('2'); await seed.dispatchEvent('change'); });
    expect(await table(page)).not.toEqual(t0);
    await expect.poll(() => page.url()).toMatch(/distribution=rademacher/);
    expect(errors).toEqual([]);
    await close();
  });

  it('a URL with parameters reproduces the same numbers', async () => {
    const query = '?step=product-variance&count=10000&distribution=uniform&seed=5';
    const a = await openStep(query, 'product-variance');
    const b = await openStep(query, 'product-variance');
    expect(await readouts(b.page, 'product-variance')).toEqual(await readouts(a.page, 'product-variance'));
    expect(await b.page.inputValue('#product-variance select[name="distribution"]')).toBe('uniform');
    for (const p of [a, b]) { expect(p.errors).toEqual([]); await p.close(); }
  });
});

describe('dot-variance additions in Chromium', () => {
  const sweepRows = (page) => page.$$eval('#dot-variance details.data-table tbody tr', (trs) =>
    trs.map((tr) => [...tr.cells].map((c) => c.textContent)));

  it('shows the standard deviation: at d_k = 512 (the course exercise) it is measured near √512', async () => {
    const { page, errors, close } = await openStep('?step=dot-variance&dk=512', 'dot-variance');
    const [raw, scaled] = await readouts(page, 'dot-variance');
    const sd = rowOf(raw, 'std. deviation');
    expect(sd[3]).toBe('22.63');
    // 5,000 pairs: SE(s)/σ ≈ ½·√((2 + 6/d)/N) ≈ 1%; allow 5%
    expect(Math.abs(parseNum(sd[1]) - Math.sqrt(512))).toBeLessThan(0.05 * Math.sqrt(512));
    expect(rowOf(scaled, 'std. deviation')[3]).toBe('1');
    expect(await text(page, '#dot-variance .live-summary')).toMatch(/√512 = 22\.63/);
    expect(await page.locator('#dot-variance .live-formula .katex').count()).toBe(1);
    expect(errors).toEqual([]);
    await close();
  });

  it('sweeps d_k = 1 … 4096: the variance tracks d_k, the sweep follows the seed and not the d_k slider', async () => {
    const { page, errors, close } = await openStep('?step=dot-variance', 'dot-variance');
    const rows = await sweepRows(page);
    expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 13 }, (_, i) => String(2 ** i)));
    for (const r of rows) {
      const d = parseNum(r[0]), n = parseNum(r[1]);
      expect(Math.abs(parseNum(r[2]) - d), `d_k = ${d}`).toBeLessThan(5 * d * Math.sqrt((2 + 6 / d) / n));
    }
    expect(await page.locator('#dot-variance .panels').nth(1).locator('svg').count()).toBe(2);
    expect(await text(page, '#dot-variance .sweep-note')).toMatch(/4,096 at dₖ = 1, 512 at dₖ = 64, 64 at dₖ = 4096/);

    const slider = page.locator('#dot-variance input[name="dk"]');
    await after(page, 'dot-variance', async () => { await slider.focus(); await page.keyboard.press('ArrowLeft'); });
    expect(await sweepRows(page)).toEqual(rows);
    const seed = page.locator('#dot-variance input[name="seed"]');
    await after(page, 'dot-variance', async () => { await seed.fill('3'); await seed.dispatchEvent('change'); });
    expect(await sweepRows(page)).not.toEqual(rows);
    expect(errors).toEqual([]);
    await close();
  });
});
