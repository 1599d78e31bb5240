// The foundation's promise in a real browser: the page opens on the dot-variance step, the SIMD
// engine computes in a worker, and moving d_k changes the histogram and the measured variance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNum, readouts, startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const varianceOf = async (page) => {
  const [raw, scaled] = await readouts(page, 'dot-variance');
  const row = (t) => t.find((r) => r[0] === 'variance');
  return { raw: parseNum(row(raw)[1]), scaled: parseNum(row(scaled)[1]), rawCI: row(raw)[2], theory: parseNum(row(raw)[3]) };
};

describe('dot-variance in Chromium', () => {
  it('reports that the WebAssembly SIMD build is in use', async () => {
    const { page, errors, close } = await h.open();
    await page.waitForSelector('#engine-status[data-state="ready"]');
    expect(await page.getAttribute('#engine-status', 'data-simd')).toBe('true');
    expect(await page.textContent('#engine-status')).toMatch(/SIMD128/);
    expect(errors).toEqual([]);
    await close();
  });

  it('moving d_k recomputes: the histogram and the measured variance change and track d_k', async () => {
    const { page, errors, close } = await h.open();
    await page.waitForSelector('#engine-status[data-state="ready"]');
    // below the fold: not computed until it scrolls into view
    expect(await page.getAttribute('#dot-variance figure.live', 'data-state')).toBeNull();
    await page.locator('#dot-variance figure.live').scrollIntoViewIfNeeded();
    await waitForUpdates(page, 'dot-variance', 1);
    const before = await varianceOf(page);
    const svgBefore = await page.innerHTML('#dot-variance .panel .plot');
    expect(before.theory).toBe(64);

    const slider = page.locator('#dot-variance input[name="dk"]');
    await slider.focus();
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');  // 64 → 512 (half-octave stops)
    await expect.poll(() => slider.getAttribute('aria-valuetext')).toBe('d sub k 512');
    await page.waitForFunction(() => document.querySelector('#dot-variance table.readout tr:last-child td:last-child')?.textContent === '512');
    await waitForUpdates(page, 'dot-variance', 2);

    const after = await varianceOf(page);
    expect(after.theory).toBe(512);
    expect(await page.innerHTML('#dot-variance .panel .plot')).not.toBe(svgBefore);
    // 5000 pairs: SE(s²) ≈ d·√((2 + 6/d)/N) ≈ 0.02·d, so 5 SE ≈ 10% of d_k
    expect(Math.abs(after.raw - 512)).toBeLessThan(0.1 * 512);
    expect(Math.abs(before.raw - 64)).toBeLessThan(0.1 * 64);
    expect(Math.abs(after.scaled - 1)).toBeLessThan(0.1);
    await page.waitForFunction((s) => location.search.includes(s), 'dk=512');  // the URL follows the request
    expect(errors).toEqual([]);
    await close();
  });

  it('a URL with parameters reproduces the same numbers', async () => {
    const query = '?step=dot-variance&dk=256&count=2000&seed=7';
    const a = await h.open(query);
    await waitForUpdates(a.page, 'dot-variance', 1);
    const first = await readouts(a.page, 'dot-variance');
    await a.close();
    const b = await h.open(query);
    await waitForUpdates(b.page, 'dot-variance', 1);
    expect(await readouts(b.page, 'dot-variance')).toEqual(first);
    expect(await b.page.inputValue('#dot-variance input[name="seed"]')).toBe('7');
    const other = await h.open('?step=dot-variance&dk=256&count=2000&seed=8');
    await waitForUpdates(other.page, 'dot-variance', 1);
    expect(await readouts(other.page, 'dot-variance')).not.toEqual(first);
    for (const p of [a, b, other]) expect(p.errors).toEqual([]);
    await b.close();
    await other.close();
  });

  it("the sweep marks the histograms' d_k, its label clear of the y axis's label at either end", async () => {
    // (a marker label centred on d_k = 1 ran over "↑ variance of q·k"; plots/sweep-curves.js)
    for (const dk of [1, 64, 4096]) {
      const { page, errors, close } = await h.open(`?step=dot-variance&dk=${dk}`);
      await waitForUpdates(page, 'dot-variance', 1);
      const boxes = await page.$$eval('#dot-variance g.sweep-marker', (gs) => gs.map((g) => {
        const svg = g.ownerSVGElement, box = (e) => e.getBoundingClientRect();
        const [line, label] = g.children, y = box(svg.querySelector(':scope > g[aria-label="y-axis label"]'));
        return { text: label.textContent, label: box(label), line: box(line), yLabel: y, svg: box(svg) };
      }));
      expect(boxes).toHaveLength(2);  // Var(q·k) and Var(q·k)/d_k
      for (const b of boxes) {
        expect(b.text).toBe(`dₖ = ${dk}`);
        const apart = b.label.left >= b.yLabel.right || b.label.bottom <= b.yLabel.top || b.label.top >= b.yLabel.bottom;
        expect(apart, `label ${JSON.stringify(b.label)} against the y axis's label ${JSON.stringify(b.yLabel)}`).toBe(true);
        expect(b.label.left).toBeGreaterThanOrEqual(b.svg.left);
        expect(b.label.right).toBeLessThanOrEqual(b.svg.right);
        expect(Math.abs(b.label.left - b.line.left)).toBeLessThan(b.label.width + 8);  // beside its line
      }
      expect(errors).toEqual([]);
      await close();
    }
  });

  it('the prose and math render even when the wasm module cannot load', async () => {
    const { page, close } = await h.open('', {});
    await page.context().route('**/*.wasm', (route) => route.abort());
    await page.reload();
    await page.waitForSelector('#engine-status[data-state="error"]');
    expect(await page.locator('h1 .katex').count()).toBe(1);
    expect(await page.locator('#dot-variance .katex-display').count()).toBeGreaterThan(0);
    await close();
  });
});
