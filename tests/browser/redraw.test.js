// Redraws that patch the page in place (web/tex.js's numbers, plots/heatmap.js's cells,
// plots/bars.js's bars, plots/sweep-curves.js's marker, morph.js) must leave each figure exactly
// as a fresh page draws it for the same URL: same elements, attributes and text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

// A page at `query` and a fresh one to open the same URL in later, to compare with; done() checks
// that neither logged an error and closes both.
async function twinPages(query) {
  const main = await h.open(query), fresh = await h.open();
  return {
    page: main.page, fresh,
    async done() {
      expect(main.errors).toEqual([]);
      expect(fresh.errors).toEqual([]);
      await fresh.close();
      await main.close();
    },
  };
}

// Every element of the figure's body as tag, attributes (ids and what points at them apart: Plot
// numbers its clip paths per page, a form's label points at an input id made per page) and own
// text (a canvas: its pixels, hashed), in document order.
// (after two frames: whether a box scrolls sideways, and so is a focusable region, is judged
// after the layout that follows a redraw, web/scroll-region.js)
const frames = (page) => page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
const snapshot = async (page, id) => (await frames(page), page.$eval(`#${id} .figure-body`, (body) => [...body.querySelectorAll('*')].map((e) => {
  const attrs = e.getAttributeNames().filter((a) => a !== 'id' && a !== 'clip-path' && a !== 'for').sort().map((a) => `${a}=${e.getAttribute(a)}`);
  // (a heatmap's canvas: a hash of its pixels, plots/heatmap.js)
  const hash = (str) => { let x = 2166136261; for (let i = 0; i < str.length; i++) x = Math.imul(x ^ str.charCodeAt(i), 16777619); return (x >>> 0).toString(16); };
  const text = e.localName === 'canvas' ? `pixels ${hash(e.toDataURL())}` : [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join('');
  return `${e.tagName} ${attrs.join(' ')} ${text}`;
})));

// The training figure drawn, the report at small and large d_k included (another channel).
const settled = (p) => p.waitForFunction(() => {
  const f = document.querySelector('#training-ablation figure.live');
  return f?.dataset.state === 'ready' && /lowest/.test(f.querySelector('.training-contrast')?.textContent ?? '');
}, null, { timeout: 90000 });

// control, value: a number field's value, a select's option or a slider's stop index
const CASES = {
  'setup': [['seed', '2'], ['key', '3'], ['seed', '5']],
  // n and d_v: new heatmap layouts and data tables; a row alone redraws its lines; the mask off
  // again: formulas of a shape drawn before
  'full-attention': [['seed', '2'], ['row', '5'], ['causal', 'on'], ['seed', '3'], ['n', '5'], ['row', '3'], ['dv', '1'], ['n', '4'], ['causal', 'off']],
  // n = 32, 16, 4 (cell labels: Plot's own cells); rows and seed: curves moved in place on their fixed axes
  'vanishing-gradients': [['dk', '7'], ['query', '3'], ['dk', '6'], ['n', '4'], ['query', '5'], ['n', '3'], ['n', '1'], ['rows', '2'], ['seed', '4']],
  // seed: curves moved in place on fixed axes; n back to 16: bars and curves shown before come back
  'scaling-choices': [['n', '4'], ['seed', '2'], ['n', '3'], ['query', '2'], ['rows', '2']],
  // seed and d_k: the measured point and the curves moved in place on fixed axes (plots/move-marks.js)
  'initialization': [['dmodel', '5'], ['init', 'lecun-normal'], ['sigma', '3'], ['dmodel', '4'], ['seed', '2'], ['dk', '2'], ['seed', '3'], ['init', 'glorot-uniform']],
  // seed and sample size: the same; the first departure again: its plots shown before come back, moved
  'breaking-assumptions': [['seed', '2'], ['count', '2'], ['departure', 'rho'], ['seed', '3'], ['rho', '6'], ['departure', 'mean'], ['seed', '4']],
  'softmax-saturation': [['dk', '7'], ['query', '3'], ['dk', '9']],
  'shift-vs-scale': [['offset', '3'], ['divisor', '2'], ['offset', '5']],
  'temperature': [['tau', '3'], ['query', '2']],
  // the histograms' bars moved in place (another seed or sample size), rebuilt for a new d_k, and
  // for d_k back to 64 those of its range shown before come back, their bars moved (so do the
  // normal entries' in product-variance)
  'dot-variance': [['seed', '2'], ['dk', '5'], ['count', '2'], ['dk', '11'], ['seed', '3']],
  // each control redraws its own exercise only; peak: the two Jacobians' cells recoloured in place
  'exercises': [['peak', '3'], ['threshold', '2'], ['dk', '6'], ['peak', '8'], ['seed', '4'], ['pairs', '3']],
  'product-variance': [['seed', '2'], ['count', '4'], ['seed', '3'], ['axis', 'log'], ['seed', '4'], ['distribution', 'uniform'], ['seed', '5'], ['distribution', 'normal']],
};

describe('redraws in place', () => {
  for (const [id, changes] of Object.entries(CASES)) {
    it(`${id}: a figure redrawn in place is the figure a fresh page draws for the same URL`, async () => {
      const { page, fresh, done } = await twinPages(`?step=${id}`);
      await waitForUpdates(page, id, 1);
      for (const [name, value] of changes) {
        const before = await page.$eval(`#${id} figure.live`, (f) => Number(f.dataset.updates));
        const url = await page.evaluate(() => location.search);
        const control = page.locator(`#${id} [data-param="${name}"]`);
        const tag = await control.evaluate((e) => e.type || e.tagName);
        if (tag === 'range') await control.evaluate((e, v) => { e.value = v; e.dispatchEvent(new Event('input', { bubbles: true })); }, value);
        else if (tag === 'SELECT' || tag === 'select-one') await control.selectOption(value);
        else { await control.fill(value); await control.dispatchEvent('change'); }
        await waitForUpdates(page, id, before + 1);
        await page.waitForFunction((u) => location.search !== u, url);  // the URL follows the redraw
        await fresh.page.goto(await page.evaluate(() => location.href));
        await waitForUpdates(fresh.page, id, 1);
        expect(await snapshot(page, id)).toEqual(await snapshot(fresh.page, id));
      }
      await done();
    });
  }
});

// The other half of the claim: those redraws are in place. A new seed keeps every plot's <svg>
// (its marks moved through the scales, plots/*.js through showMoved in morph.js) and every data
// table's <table> (its cells' text rewritten, readout.js dataTable), and a range
// shown before comes back as the very nodes drawn then: a plot module that rebuilt on every
// change would pass the test above and fail these.
describe('redraws keep their nodes', () => {
  const change = async (page, id, name, value) => {
    const before = await page.$eval(`#${id} figure.live`, (f) => Number(f.dataset.updates));
    await page.locator(`#${id} [data-param="${name}"]`).evaluate((e, v) => {
      e.value = v;
      e.dispatchEvent(new Event(e.type === 'range' ? 'input' : 'change', { bubbles: true }));
    }, value);
    await waitForUpdates(page, id, before + 1);
  };
  const svgs = (page, id) => page.evaluateHandle((s) => [...document.querySelectorAll(`#${s} figure.live svg, #${s} figure.live details.data-table > table`)], id);
  const sameNodes = (page, a, b) => page.evaluate(([x, y]) => x.length > 0 && x.length === y.length && x.every((n, i) => n === y[i]), [a, b]);

  // [step, the rest of its URL]: each step at its defaults, and views whose axes once followed
  // the data: heavy tails' half-widths (now on an axis between powers of ten), a custom σ whose
  // Var(q·k/√dₖ) ≈ (512·0.1²)² ≈ 26 lies beyond the rules' 0.1 … 10, a log density axis (which
  // left out the empty tail bins, different for each seed), ±1 products (whose two bars are
  // the data's top, which moves with the seed) and the Jacobian's sweeps (their floor followed the
  // unscaled median, which spans decades from seed to seed)
  for (const [id, query = ''] of [['setup'], ['product-variance'], ['product-variance', '&axis=log&count=1000'],
    ['product-variance', '&distribution=rademacher'], ['dot-variance'], ['softmax-saturation'], ['temperature'],
    ['initialization'], ['exercises'], ['breaking-assumptions', '&departure=student-t'], ['initialization', '&init=custom&sigma=0.1'],
    ['vanishing-gradients']]) {
    it(`${id}${query}: a new seed redraws every plot and data table in place`, async () => {
      const { page, errors, close } = await h.open(`?step=${id}${query}`);
      await waitForUpdates(page, id, 1);
      await change(page, id, 'seed', '2');  // (seed 1 → 2: axes that hold both)
      const before = await svgs(page, id);
      await change(page, id, 'seed', '3');
      expect(await sameNodes(page, before, await svgs(page, id))).toBe(true);
      expect(errors).toEqual([]);
      await close();
    });
  }

  it('initialization: another initialisation moves the measured point on the formulas\' plot, which stays, and patches the numbers of the formula after its rule', async () => {
    const { page, errors, close } = await h.open('?step=initialization');
    await waitForUpdates(page, 'initialization', 1);
    const theory = () => page.evaluateHandle(() => [document.querySelector('#initialization svg[aria-label^="Var(q·k/√dₖ) against d_model"]')]);
    // the rule's formula takes each initialisation's shape; the one after it (σ_q², Var) keeps its shape
    const implied = () => page.evaluateHandle(() => [...document.querySelectorAll('#initialization .live-formula:not(.weight-rule) .katex *')]);
    const impliedText = () => page.$eval('#initialization .live-formula:not(.weight-rule) .katex-html', (e) => e.textContent);
    const first = await theory(), firstImplied = await implied();
    let text = await impliedText();
    for (const init of ['lecun-normal', 'he-normal', 'glorot-packed']) {
      const before = await page.$eval('#initialization figure.live', (f) => Number(f.dataset.updates));
      await page.locator('#initialization [data-param="init"]').selectOption(init);
      await waitForUpdates(page, 'initialization', before + 1);
      expect(await sameNodes(page, first, await theory())).toBe(true);
      expect(await sameNodes(page, firstImplied, await implied()), init).toBe(true);
      expect(await impliedText(), init).not.toBe(text);
      text = await impliedText();
    }
    expect(errors).toEqual([]);
    await close();
  });

  it('shift-vs-scale: a new divisor keeps the overflow sweep, and an offset shown before brings back the sweep drawn for it', async () => {
    const { page, errors, close } = await h.open('?step=shift-vs-scale');
    await waitForUpdates(page, 'shift-vs-scale', 1);
    const sweep = () => page.evaluateHandle(() => [document.querySelector('#shift-vs-scale .panel svg')]);
    const first = await sweep();
    const offset = await page.$eval('#shift-vs-scale [data-param="offset"]', (e) => e.value);  // its stop
    await change(page, 'shift-vs-scale', 'divisor', '3');
    expect(await sameNodes(page, first, await sweep())).toBe(true);
    await change(page, 'shift-vs-scale', 'offset', String(Number(offset) + 1));  // another marked c: another layout
    expect(await sameNodes(page, first, await sweep())).toBe(false);
    await change(page, 'shift-vs-scale', 'offset', offset);
    expect(await sameNodes(page, first, await sweep())).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });

  it("dot-variance: d_k back to 64 shows again the histograms drawn for it, moved", async () => {
    const { page, errors, close } = await h.open('?step=dot-variance');
    await waitForUpdates(page, 'dot-variance', 1);
    const first = await page.evaluateHandle(() => [...document.querySelectorAll('#dot-variance .panel svg')]);
    await change(page, 'dot-variance', 'dk', '12');  // 96
    await change(page, 'dot-variance', 'count', '2');
    expect(await sameNodes(page, first, await page.evaluateHandle(() => [...document.querySelectorAll('#dot-variance .panel svg')]))).toBe(false);
    await change(page, 'dot-variance', 'dk', '11');  // 64 again, with another sample size
    expect(await sameNodes(page, first, await page.evaluateHandle(() => [...document.querySelectorAll('#dot-variance .panel svg')]))).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });
});

// A departure of breaking-assumptions is a new figure (a formula, two plots). The others at the
// same sizes and seed are computed in the worker while the page is idle, and drawn ahead (web/figure.js
// ahead): choosing one then asks the worker nothing and builds nothing, and shows what a fresh page
// draws for its URL.
// How many performance marks of this name the page has left (attnlab:posted, attnlab:plot, …).
const marks = (page, name) => page.evaluate((n) => performance.getEntriesByName(n).length, name);

describe('drawn ahead', () => {
  // what a change itself costs: requests to the worker, Plot builds, KaTeX typesets
  const costs = (page) => Promise.all(['attnlab:posted', 'attnlab:plot', 'attnlab:typeset'].map((n) => marks(page, n)));
  // (marks of this step's figure only: a neighbouring figure in view draws ahead too, and its
  // marks made the count before this one's builds were done)
  const drawnAhead = (page, k, id) => page.waitForFunction(([n, step]) =>
    performance.getEntriesByName('attnlab:ahead').filter((m) => String(m.detail).startsWith(`${step}#`)).length >= n, [k, id], { timeout: 30000 });
  const AHEAD_TIMING = /^Computed ahead in [\d.]+ ms by the engine, before it was chosen\.$/;
  const timing = (page, id) => page.$eval(`#${id} figure.live > p.timing`, (p) => p.textContent);
  // the page's URL, opened fresh, draws the figure as the page shows it, attribute for attribute
  async function likeFresh(page, fresh, id, label) {
    await fresh.page.goto(await page.evaluate(() => location.href));
    await waitForUpdates(fresh.page, id, 1);
    expect(await snapshot(page, id), label).toEqual(await snapshot(fresh.page, id));
  }
  // the seed set to `seed`, and the figure's `updates`-th update done; then (seedShown) the URL
  // written and the figure as a fresh page draws it
  async function moveSeed(page, id, seed, updates) {
    await page.locator(`#${id} [data-param="seed"]`).evaluate((e, v) => { e.value = v; e.dispatchEvent(new Event('change', { bubbles: true })); }, seed);
    await waitForUpdates(page, id, updates);
  }
  async function seedShown(page, fresh, id, seed) {
    await page.waitForFunction((v) => new URLSearchParams(location.search).get('seed') === v, seed);
    await likeFresh(page, fresh, id, 'seed');
  }

  it('breaking-assumptions: another departure, computed and drawn while the page was idle, is drawn with no request, no Plot build and no typeset, as a fresh page draws it', async () => {
    const id = 'breaking-assumptions';
    const { page, fresh, done } = await twinPages(`?step=${id}`);
    await waitForUpdates(page, id, 1);
    await drawnAhead(page, 3, id);
    expect(await marks(page, 'attnlab:posted-ahead')).toBeGreaterThanOrEqual(3);
    for (const [departure, updates] of [['student-t', 2], ['layernorm', 3], ['rho', 4]]) {
      const before = await costs(page);
      await page.locator(`#${id} [data-param="departure"]`).selectOption(departure);
      await waitForUpdates(page, id, updates);
      expect(await costs(page), departure).toEqual(before);
      expect(await timing(page, id)).toMatch(AHEAD_TIMING);
      await page.waitForFunction((d) => new URLSearchParams(location.search).get('departure') === d, departure);
      await likeFresh(page, fresh, id, departure);
    }
    await done();
  });

  it('breaking-assumptions: a departure chosen before it was computed ahead is computed once, by its own request, and not again ahead', async () => {
    // (10,000 pairs: each departure's run takes long enough, ~0.2 s, that layernorm, the last one
    // ahead, is chosen before its turn, and not so long that it is not run ahead (web/ahead.js);
    // the list given after that draw must keep its drawn result rather than run it again ahead,
    // and the others are computed and drawn ahead once each)
    const id = 'breaking-assumptions';
    const { page, errors, close } = await h.open(`?step=${id}&count=10000`);
    await waitForUpdates(page, id, 1);
    expect(await marks(page, 'attnlab:ahead')).toBe(0);
    await page.locator(`#${id} [data-param="departure"]`).selectOption('layernorm');
    await waitForUpdates(page, id, 2);
    expect(await page.$eval(`#${id} figure.live > p.timing`, (p) => p.textContent)).toMatch(/^Computed in [\d.]+ ms by the engine\.$/);
    // rho and Student-t, then nothing more (mean was drawn, layernorm is drawn)
    await page.waitForFunction(() => performance.getEntriesByName('attnlab:ahead').length >= 2, null, { timeout: 30000 });
    await page.waitForTimeout(1500);
    expect(await marks(page, 'attnlab:ahead')).toBe(2);
    for (const [departure, updates] of [['rho', 3], ['student-t', 4], ['mean', 5]]) {
      const posted = await marks(page, 'attnlab:posted');
      await page.locator(`#${id} [data-param="departure"]`).selectOption(departure);
      await waitForUpdates(page, id, updates);
      expect(await marks(page, 'attnlab:posted'), departure).toBe(posted);
    }
    expect(errors).toEqual([]);
    await close();
  });

  it('training-ablation: the steps control one stop down (a prefix) or up (a longer run) draws with no Plot build until its run ends, as a fresh page draws it', async () => {
    // (the stops next to the chosen one are drawn once a run is over and the page idle: a stop is
    // a new step axis, four plots; a longer run builds nothing before its first chunk)
    const id = 'training-ablation';
    const { page, fresh, done } = await twinPages(`?step=${id}`);
    await settled(page);
    // [stop index, its steps]: 200 (a prefix), 300 (a prefix again), 500 (200 steps more to train)
    for (const [stop, steps] of [['1', '200'], ['2', '300'], ['3', '500']]) {
      await page.waitForFunction((s) => document.querySelector(`#${s} .figure-body`).dataset.ahead === 'drawn', id);
      const before = await marks(page, 'attnlab:plot');
      await page.evaluate((s) => {  // the plots built when the change is first drawn
        const fig = document.querySelector(`#${s} figure.live`), n = [fig.dataset.streamed, fig.dataset.updates];
        window.firstDraw = null;
        const obs = new MutationObserver(() => {
          if (fig.dataset.streamed === n[0] && fig.dataset.updates === n[1]) return;
          obs.disconnect();
          window.firstDraw = performance.getEntriesByName('attnlab:plot').length;
        });
        obs.observe(fig, { attributes: true, attributeFilter: ['data-streamed', 'data-updates'] });
      }, id);
      const url = await page.evaluate(() => location.search);
      await page.locator(`#${id} [data-param="steps"]`).evaluate((e, v) => { e.value = v; e.dispatchEvent(new Event('input', { bubbles: true })); }, stop);
      await page.waitForFunction((u) => location.search !== u, url);
      await settled(page);
      expect(await page.evaluate(() => window.firstDraw), steps).toBe(before);
      expect(await page.$eval(`#${id} .training-status`, (e) => e.textContent)).toBe(`step ${steps} of ${steps}`);
      await fresh.page.goto(await page.evaluate(() => location.href));
      await settled(fresh.page);
      expect(await snapshot(page, id), steps).toEqual(await snapshot(fresh.page, id));
    }
    await done();
  }, 180000);

  // [step, requests computed ahead at the defaults, at the first n above them: n one stop either
  // way and, in the softmax steps, the seed one either way, each a sweep and a query]
  const NEARBY = [['full-attention', 2, 2], ['softmax-saturation', 8, 8], ['vanishing-gradients', 8, 8], ['scaling-choices', 8, 8]];
  for (const [id, first, next] of NEARBY) {
    it(`${id}: n one stop up, computed and drawn while the page was idle, is drawn with no request, no Plot build and no typeset, as a fresh page draws it${next === 8 ? '; so is the seed one up' : ''}`, async () => {
      const { page, fresh, done } = await twinPages(`?step=${id}`);
      await waitForUpdates(page, id, 1);
      await drawnAhead(page, first, id);
      const before = await costs(page);
      await page.locator(`#${id} [data-param="n"]`).evaluate((e) => { e.value = String(+e.value + 1); e.dispatchEvent(new Event('input', { bubbles: true })); });
      await waitForUpdates(page, id, 2);
      expect(await costs(page)).toEqual(before);
      expect(await timing(page, id)).toMatch(AHEAD_TIMING);
      await page.waitForFunction(() => new URLSearchParams(location.search).has('n'));
      await likeFresh(page, fresh, id, 'n');
      if (id !== 'full-attention') {
        await drawnAhead(page, first + next, id);
        const posted = await marks(page, 'attnlab:posted');
        await moveSeed(page, id, '2', 3);  // the default seed, 1, one up
        expect(await marks(page, 'attnlab:posted')).toBe(posted);
      }
      await done();
    }, 90000);
  }

  it('scaling-choices: the seed one up, whose a = ½ slope turns to scientific notation (3 → 4: −9.44×10⁻⁴), has its formula typeset ahead: no request, no Plot build, no typeset', async () => {
    const id = 'scaling-choices';
    const { page, fresh, done } = await twinPages(`?step=${id}&seed=3`);
    await waitForUpdates(page, id, 1);
    await drawnAhead(page, 8, id);
    const before = await costs(page);
    await moveSeed(page, id, '4', 2);
    expect(await costs(page)).toEqual(before);
    expect(await page.$eval(`#${id} .live-formula annotation`, (a) => a.textContent)).toMatch(/\\times 10\^\{-4\}/);
    await seedShown(page, fresh, id, '4');
    await done();
  }, 90000);

  it('initialization: another rule, computed and drawn while the page was idle, is drawn with no run, no Plot build and no typeset, as a fresh page draws it', async () => {
    // (its run is light, on the page's own engine once measured: no request to the worker either
    // way, so the engine's time says whether it ran)
    const id = 'initialization';
    const { page, fresh, done } = await twinPages(`?step=${id}`);
    await waitForUpdates(page, id, 1);
    await drawnAhead(page, 6, id);
    // [rule, the figure's updates, results drawn ahead by then: the six other rules, then the one
    // left behind each time, shown before but drawn again ahead for the new list]
    for (const [init, updates, drawn] of [['he-normal', 2, 7], ['custom', 3, 8]]) {
      const before = await costs(page);
      await page.locator(`#${id} [data-param="init"]`).selectOption(init);
      await waitForUpdates(page, id, updates);
      expect(await costs(page), init).toEqual(before);
      expect(await timing(page, id)).toMatch(AHEAD_TIMING);
      await page.waitForFunction((v) => new URLSearchParams(location.search).get('init') === v, init);
      await likeFresh(page, fresh, id, init);
      await drawnAhead(page, drawn, id);
    }
    await done();
  }, 90000);

  it('dot-variance: the seed one up, its histograms and its sweep computed while the page was idle, is drawn with no request, as a fresh page draws it', async () => {
    const id = 'dot-variance';
    const { page, fresh, done } = await twinPages(`?step=${id}`);
    await waitForUpdates(page, id, 1);
    await drawnAhead(page, 4, id);
    const posted = await marks(page, 'attnlab:posted');
    await moveSeed(page, id, '2', 2);
    expect(await marks(page, 'attnlab:posted')).toBe(posted);
    await seedShown(page, fresh, id, '2');
    await done();
  }, 90000);
});

describe('training curves redrawn in place', () => {
  it('training-ablation: a new run moved onto the axes already drawn is the figure a fresh page draws, with at most the log-axis plots built', async () => {
    // (plots/training-curves.js: the log axes span fixed decades at least, so most runs share them
    // and a new run's lines are moved; the report at small and large d_k, another channel, is
    // waited for in both pages)
    const ID = 'training-ablation';
    const { page, fresh, done } = await twinPages(`?step=${ID}`);
    await settled(page);
    const builds = (p) => p.evaluate((id) => [performance.getEntriesByName('attnlab:plot').length,
      Number(document.querySelector(`#${id} figure.live`).dataset.streamed || 0)], ID);
    // the y axes' tick labels of the four plots
    const yTicks = (f) => [...f.querySelectorAll('.panel .plot svg.attnlab-plot')].map((svg) =>
      [...svg.querySelectorAll('g[aria-label="y-axis tick label"] text')].map((t) => t.textContent).join(' '));
    for (const [name, value] of [['optimizer', 'adam'], ['lr', '2'], ['init', 'lecun']]) {
      const url = await page.evaluate(() => location.search), [b0, s0] = await builds(page);
      const ticks0 = await page.evaluate(([id, f]) => (0, eval)(f)(document.querySelector(`#${id} figure.live`)), [ID, yTicks.toString()]);
      await page.evaluate(([id, f]) => {  // the plots built, and the axes, when the run's first chunk is drawn
        const fig = document.querySelector(`#${id} figure.live`), streamed = fig.dataset.streamed;
        const obs = new MutationObserver(() => {
          if (fig.dataset.streamed === streamed) return;
          obs.disconnect();
          window.firstChunkTicks = (0, eval)(f)(fig);
          window.firstChunkBuilds = performance.getEntriesByName('attnlab:plot').length;
        });
        obs.observe(fig, { attributes: true, attributeFilter: ['data-streamed'] });
      }, [ID, yTicks.toString()]);
      const control = page.locator(`#${ID} [data-param="${name}"]`);
      if (name === 'lr') await control.evaluate((e, v) => { e.value = v; e.dispatchEvent(new Event('input', { bubbles: true })); }, value);
      else await control.selectOption(value);
      await page.waitForFunction((u) => location.search !== u, url);
      await settled(page);
      // each redraw of the run (its streamed chunks and its end) built at most the two log-axis
      // plots: accuracy and entropy, on fixed axes, had their lines moved (a build of all four
      // plots per redraw, as before, is twice that)
      const [b1, s1] = await builds(page);
      expect(b1 - b0).toBeLessThanOrEqual(2 * (s1 - s0 + 1));
      // and the first chunk built none: its curves moved onto the decades the last run ended on
      // (a log axis keeps them while a run streams, yKeep; the first chunk's own decades are
      // narrower, and each run's axes would jump in, then out again)
      expect(await page.evaluate(() => window.firstChunkBuilds), name).toBe(b0);
      expect(await page.evaluate(() => window.firstChunkTicks), name).toEqual(ticks0);
      await fresh.page.goto(await page.evaluate(() => location.href));
      await settled(fresh.page);
      const plots = (p) => p.$$eval(`#${ID} .panel .plot svg.attnlab-plot`, (svgs) => svgs.map((s) => s.outerHTML.replace(/ (id|clip-path)="[^"]*"/g, '')));
      expect(await plots(page)).toEqual(await plots(fresh.page));
      expect(await snapshot(page, ID)).toEqual(await snapshot(fresh.page, ID));
    }
    await done();
  }, 180000);
});
