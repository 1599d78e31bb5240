// shift-vs-scale, initialization and breaking-assumptions in Chromium: each renders without
// console errors, each control changes what it shows, a URL reproduces its numbers, and the
// seed texts' numbers are shown next to values computed by the engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNum, readouts, startHarness, waitForUpdates } from './harness.js';
import { fmt } from '../../web/format.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const STEPS = ['shift-vs-scale', 'initialization', 'breaking-assumptions'];
const updates = (page, id) => page.$eval(`#${id} figure.live`, (f) => Number(f.dataset.updates || 0));
// What the figure shows: its text (tables, summary, legends) and its plots' markup.
const shown = (page, id) => page.$eval(`#${id} figure.live .figure-body`, (b) => b.innerText + b.innerHTML.length);
const summaryOf = (page, id) => page.textContent(`#${id} .live-summary`);

async function openStep(id, query = '') {
  const p = await h.open(`?step=${id}${query}`);
  await p.page.locator(`#${id} figure.live`).scrollIntoViewIfNeeded();
  await waitForUpdates(p.page, id, 1);
  return p;
}

// Moves one control the way a reader would and waits for the figure to recompute.
async function move(page, id, name, how) {
  const n = await updates(page, id);
  const el = page.locator(`#${id} [data-param="${name}"]`);
  if (how.select) await el.selectOption(how.select);
  else if (how.fill !== undefined) { await el.fill(String(how.fill)); await el.press('Enter'); }
  else { await el.focus(); for (let i = 0; i < how.keys; i++) await page.keyboard.press(how.key ?? 'ArrowRight'); }
  await waitForUpdates(page, id, n + 1);
}

describe('assumption steps in Chromium', () => {
  it('shift-vs-scale: the blog post\'s numbers next to the engine\'s, the overflow threshold, and every control', async () => {
    const { page, errors, close } = await openStep('shift-vs-scale');
    const tables = await readouts(page, 'shift-vs-scale');
    // limits table: ln FLT_MAX computed as Math.log of the largest float32
    const limits = tables.find((t) => t[0]?.[0]?.startsWith('ln FLT_MAX'));
    expect(limits[0][1]).toBe(fmt(Math.log((2 - 2 ** -23) * 2 ** 127), 9));
    // the claims table: the post states [0.09, 0.24, 0.67]; softmax([100, 102, 103]) is e^(x − 103)/Σ
    const claims = tables.find((t) => t[0]?.[0] === '[100, 102, 103]');
    const z = Math.exp(-3) + Math.exp(-1) + 1;
    expect(claims[0][1]).toBe('[0.09, 0.24, 0.67]');   // as the post states them
    expect(claims[0][2]).toBe(`[${[Math.exp(-3) / z, Math.exp(-1) / z, 1 / z].map((v) => fmt(v, 3)).join(', ')}]`);
    expect(claims[0][3]).toBe('[101, 102, 103]');
    expect(claims[1][3]).toBe('[10.1, 10.2, 10.3]');
    const rowClass = await page.$$eval('#shift-vs-scale table.readout tbody tr', (trs) => trs.filter((t) => t.classList.contains('outside')).length);
    expect(rowClass).toBeGreaterThan(0);
    // at c = 95 the naive softmax has NaNs; the stable one matches softmax(x − max x) bit for bit
    const logits = tables.find((t) => t.length === 8);
    expect(logits.some((r) => r[4] === 'NaN')).toBe(true);
    expect(logits.every((r) => r[3] === '0')).toBe(true);
    expect(await summaryOf(page, 'shift-vs-scale')).toMatch(/bit for bit/);

    // lowering c below the threshold: no NaN left, and the URL follows
    let before = await shown(page, 'shift-vs-scale');
    await move(page, 'shift-vs-scale', 'offset', { key: 'ArrowLeft', keys: 15 });
    await page.waitForFunction((s) => location.search.includes(s), 'offset=80');  // the URL follows the request
    const low = (await readouts(page, 'shift-vs-scale')).find((t) => t.length === 8);
    expect(low.every((r) => r[4] !== 'NaN')).toBe(true);
    expect(await shown(page, 'shift-vs-scale')).not.toBe(before);
    for (const [name, how] of [['divisor', { key: 'ArrowLeft', keys: 2 }], ['seed', { fill: 7 }]]) {
      before = await shown(page, 'shift-vs-scale');
      await move(page, 'shift-vs-scale', name, how);
      expect(await shown(page, 'shift-vs-scale'), name).not.toBe(before);
    }
    expect(errors).toEqual([]);
    await close();
  });

  it('initialization: Glorot on 512 → 64 gives Var(q·k/√d_k) near (2·512/576)², LeCun near 1, and every control recomputes', async () => {
    const { page, errors, close } = await openStep('initialization');
    const measuredScore = async () => {
      const t = (await readouts(page, 'initialization')).find((x) => x.some((r) => r[0] === 'q·k/\u2060√dₖ'));
      const row = t.find((r) => r[0] === 'q·k/\u2060√dₖ');
      return { value: parseNum(row[1]), ci: row[2], formula: parseNum(row[4]) };
    };
    const glorot = await measuredScore();
    const target = ((2 * 512) / 576) ** 2;
    expect(glorot.formula).toBeCloseTo(target, 3);
    // 512 pairs: SE(s²) ≈ σ²·√(2/512) ≈ 6%, so 5 SE ≈ 31% of the target
    expect(Math.abs(glorot.value - target)).toBeLessThan(0.31 * target);
    expect(glorot.value).toBeGreaterThan(2);
    const check = await page.textContent('#initialization .seed-check');
    expect(check).toContain('Source 000');
    expect(check).toContain(`= ${fmt(target, 4)}`);

    await move(page, 'initialization', 'init', { select: 'lecun-normal' });
    const lecun = await measuredScore();
    expect(lecun.formula).toBe(1);
    expect(Math.abs(lecun.value - 1)).toBeLessThan(0.31);
    for (const [name, how] of [['sigma', { keys: 1 }], ['dmodel', { key: 'ArrowLeft', keys: 2 }], ['dk', { key: 'ArrowLeft', keys: 1 }], ['seed', { fill: 4 }]]) {
      const before = await shown(page, 'initialization');
      await move(page, 'initialization', name, how);
      expect(await shown(page, 'initialization'), name).not.toBe(before);
    }
    await page.waitForFunction((s) => location.search.includes(s), 'init=lecun-normal');  // the URL follows the request
    // d_model, σ_W², W_Q: the strings' TeX-like underscores are shown as subscripts, in the control's
    // label, the prose, the tables and the plot's SVG text (KaTeX's own TeX source apart)
    const shownUnderscores = await page.evaluate(() => {
      const walker = document.createTreeWalker(document.querySelector('#initialization figure.live'), NodeFilter.SHOW_TEXT);
      const out = [];
      for (let n; (n = walker.nextNode());) if (n.data.includes('_') && !n.parentElement.closest('.katex-mathml')) out.push(n.data);
      return out;
    });
    expect(shownUnderscores).toEqual([]);
    expect(await page.$$eval('#initialization .controls label sub', (s) => s.map((e) => e.textContent))).toEqual(['model']);
    expect(await page.$$eval('#initialization svg text tspan', (s) => s.map((e) => e.textContent))).toContain('model');
    expect(await page.$$eval('#initialization table.readout th sub', (s) => s.map((e) => e.textContent))).toEqual(['model', 'Q', 'K']);  // the data table's d_model, W_Q, W_K
    expect(errors).toEqual([]);
    await close();
  });

  it('breaking-assumptions: every departure plots its formula, and every control recomputes', async () => {
    const { page, errors, close } = await openStep('breaking-assumptions');
    expect(await summaryOf(page, 'breaking-assumptions')).toMatch(/dₖ\(1 \+ 2μ²\) lies inside/);
    const overview = async () => (await readouts(page, 'breaking-assumptions')).find((t) => t.length === 4 && t[0][0].startsWith('mean μ'));
    // a formula in the overview is one unit: its spaces are no-break ones
    expect((await overview())[0][2]).toBe(`1\u00a0+\u00a02μ²\u00a0=\u00a0${fmt(1.5, 4)}`);
    for (const [name, how] of [['mu', { keys: 1 }], ['rho', { keys: 1 }], ['df', { keys: 1 }], ['count', { key: 'ArrowLeft', keys: 1 }], ['seed', { fill: 3 }]]) {
      const before = await shown(page, 'breaking-assumptions');
      await move(page, 'breaking-assumptions', name, how);
      expect(await shown(page, 'breaking-assumptions'), name).not.toBe(before);
    }
    expect((await overview())[0][2]).toBe(`1\u00a0+\u00a02μ²\u00a0=\u00a0${fmt(1 + 2 * 0.75 ** 2, 4)}`);
    for (const departure of ['rho', 'student-t', 'layernorm']) {
      await move(page, 'breaking-assumptions', 'departure', { select: departure });
      const legend = await page.textContent('#breaking-assumptions .panel');
      expect(legend).toContain(departure === 'rho' ? 'dₖ(1 + ρ²)' : departure === 'layernorm' ? 'dₖ²/\u2060(dₖ − 1)' : 'dₖ, the derivation’s premise');
      const chosen = await page.$eval('#breaking-assumptions tr.chosen th', (th) => th.textContent);
      expect(chosen).toContain('(plotted)');
      if (departure !== 'student-t') continue;
      // heavy tails: the right plot's half-widths are in the data table too, under their heading;
      // normal entries' shrink from dₖ = 2 to 512 as √((2 + 6/2)/(2 + 6/512)), whatever n
      const data = await page.$eval('#breaking-assumptions details.data-table table', (t) => ({
        groups: [...t.tHead.rows[0].cells].map((c) => c.textContent),
        rows: [...t.tBodies[0].rows].map((tr) => [...tr.cells].map((c) => c.textContent)),
      }));
      expect(data.groups).toContain('half-width of the interval / dₖ');
      const normal = data.rows.map((r) => parseNum(r[8]));
      expect(data.rows[0][0]).toBe('2');
      expect(normal[0] / normal.at(-1)).toBeCloseTo(Math.sqrt(5 / (2 + 6 / 512)), 1);
    }
    expect(errors).toEqual([]);
    await close();
  }, 120000);

  it('a URL with parameters reproduces the same numbers, and another seed changes them', async () => {
    const queries = {
      'shift-vs-scale': '&offset=120&divisor=4&seed=5',
      initialization: '&init=he-normal&dmodel=256&dk=32&seed=6',
      'breaking-assumptions': '&departure=layernorm&count=1000&seed=8',
    };
    for (const id of STEPS) {
      const a = await openStep(id, queries[id]);
      const first = await readouts(a.page, id);
      const summary = await summaryOf(a.page, id);
      await a.close();
      const b = await openStep(id, queries[id]);
      expect(await readouts(b.page, id), id).toEqual(first);
      expect(await summaryOf(b.page, id)).toBe(summary);
      const other = await openStep(id, queries[id].replace(/seed=\d+/, 'seed=99'));
      expect(await summaryOf(other.page, id), id).not.toBe(summary);
      expect([...a.errors, ...b.errors, ...other.errors]).toEqual([]);
      await b.close();
      await other.close();
    }
  }, 120000);
});
