// Page-level behaviour: the self-test (and its warning), history, cancelling a long run, the keyboard step list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readouts, startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const theory = async (page) => (await readouts(page, 'dot-variance'))[0].find((r) => r[0] === 'variance')[3];

describe('the page', () => {
  it('runs a self-test against a JavaScript reference on load and says it passed', async () => {
    const { page, errors, close } = await h.open();
    await page.waitForSelector('#engine-status[data-self-test]');
    expect(await page.getAttribute('#engine-status', 'data-self-test')).toBe('passed');
    expect(await page.textContent('#engine-status')).toMatch(/Self-test passed/);
    expect(errors).toEqual([]);
    await close();
  });

  it('says so, visibly and by name, when the engine disagrees with the reference', async () => {
    // The experiments' chunk served with the self-test's tolerance set below any error (-1), as if
    // every kernel were off: the status turns to a warning naming the three checks.
    const context = await h.browser.newContext({ viewport: { width: 1200, height: 900 } });
    let patched = 0;
    await context.route(/\/assets\/experiments-[^/]*\.js$/, async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace(/\b1e-5;(return\{ok:)/, () => { patched++; return '-1;return{ok:'; });
      await route.fulfill({ response, body });
    });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(h.base);
    await page.waitForSelector('#engine-status[data-self-test]');
    expect(patched).toBeGreaterThan(0);
    expect(await page.getAttribute('#engine-status', 'data-self-test')).toBe('failed');
    expect(await page.getAttribute('#engine-status', 'data-state')).toBe('error');
    expect(await page.textContent('#engine-status')).toBe('Warning: the engine disagrees with the JavaScript reference (softmax, dot product, attention row). ' +
      'The numbers on this page may be wrong in this browser.');
    expect(await page.isVisible('#engine-status')).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('arrives with its prose math typeset (tools/prerender-math.js), which the page leaves as it came', async () => {
    const raw = await (await fetch(h.base)).text();
    const written = raw.match(/class="math(?: display)?">/g) ?? [];
    expect(written.length).toBeGreaterThan(300);
    expect(raw.match(/class="math(?: display)?"><span class="katex/g)?.length).toBe(written.length);
    expect(raw).not.toContain('katex-error');
    // no script touches a formula of the prose while the page loads and draws its first figure
    const context = await h.browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.addInitScript(() => {  // from the end of parsing, before the page's modules run
      window.mathChanges = 0;
      document.addEventListener('readystatechange', () => {
        if (document.readyState !== 'interactive') return;
        new MutationObserver((records) => {
          window.mathChanges += records.filter((r) => (r.target.nodeType === 1 ? r.target : r.target.parentElement)?.closest('.math')).length;
        }).observe(document, { childList: true, subtree: true, characterData: true });
      });
    });
    const page = await context.newPage();
    await page.goto(`${h.base}?step=setup`);
    await waitForUpdates(page, 'setup', 1);
    expect(await page.evaluate(() => document.querySelectorAll('.math').length)).toBe(written.length);
    expect(await page.evaluate(() => window.mathChanges)).toBe(0);
    await context.close();
  });

  it('the build typesets the prose as the browser would: each formula measures as <attnlab-step> typesetting it at run time makes it', async () => {
    // every formula of one step's prose: the width and height of each of its boxes (KaTeX's
    // .base, an inline-block sized by the positioning the styles give), in ems of the formula's
    // font size; the prose around them, and so where lines wrap, differs between the two
    const measure = (root) => [...root.querySelectorAll('.math .katex')].map((k) => {
      const em = parseFloat(getComputedStyle(k).fontSize);
      return [...k.querySelectorAll('.base')].flatMap((b) => {
        const r = b.getBoundingClientRect();
        return [r.width / em, r.height / em];
      });
    });
    const id = 'product-variance';
    const built = await h.open(`?step=${id}`);
    await waitForUpdates(built.page, id, 1);
    const fromBuild = await built.page.evaluate(async ([s, f]) => { await document.fonts.ready; return new Function(`return ${f}`)()(document.getElementById(s)); }, [id, measure.toString()]);
    await built.close();
    const element = await h.open('examples/course.html');
    const atRunTime = await element.page.evaluate(async ([s, f]) => {
      const el = Object.assign(document.createElement('attnlab-step'), {});
      el.setAttribute('step', s);
      document.body.append(el);
      while (!el.shadowRoot?.querySelector('.math .katex')) await new Promise((r) => setTimeout(r, 20));
      await document.fonts.ready;
      return new Function(`return ${f}`)()(el.shadowRoot);
    }, [id, measure.toString()]);
    await element.close();
    expect(fromBuild.length).toBeGreaterThan(10);
    expect(fromBuild.map((f) => f.length)).toEqual(atRunTime.map((f) => f.length));
    // to 0.02 em: the two pages lay the formulas out at different pixel sizes, and each rounds
    // its boxes to its own pixels (a box without its style is off by 0.2 em and more)
    fromBuild.forEach((f, i) => f.forEach((v, j) => expect(Math.abs(v - atRunTime[i][j]), `formula ${i}, ${j}`).toBeLessThan(0.02)));
  });

  it('back and forward step through control gestures and redraw the figure', async () => {
    const { page, errors, close } = await h.open('?step=dot-variance&count=1000');
    await waitForUpdates(page, 'dot-variance', 1);
    const slider = page.locator('#dot-variance input[name="dk"]');
    await slider.focus();
    await page.keyboard.press('ArrowRight');           // 64 → 96
    await page.waitForFunction(() => location.search.includes('dk=96'));
    await page.waitForTimeout(1100);                   // a pause ends the gesture
    await page.keyboard.press('ArrowRight');           // 96 → 128, a new history entry
    await page.waitForFunction(() => location.search.includes('dk=128'));
    await expect.poll(() => theory(page)).toBe('128');
    await page.mouse.move(600, 400);
    await page.mouse.wheel(0, 300);                    // the reader reads on, into the figure
    await page.waitForFunction(() => scrollY > 0);
    await page.waitForTimeout(200);
    const y = await page.evaluate(() => scrollY);
    await page.goBack();
    await page.waitForFunction(() => location.search.includes('dk=96'));
    await expect.poll(() => theory(page)).toBe('96');
    expect(await page.evaluate(() => scrollY)).toBe(y);  // the same step: the reader stays put
    expect(await slider.getAttribute('aria-valuetext')).toBe('d sub k 96');
    await page.goForward();
    await expect.poll(() => theory(page)).toBe('128');
    expect(errors).toEqual([]);
    await close();
  });

  it('back and forward to another step’s entry keep what the reader set in the others, and so does a reload', async () => {
    // (the URL holds one step's parameters: before, forward to softmax-saturation's entry put
    // dot-variance back to its defaults)
    const { page, errors, close } = await h.open('?step=dot-variance&count=1000');
    await waitForUpdates(page, 'dot-variance', 1);
    await page.locator('#dot-variance input[name="dk"]').focus();
    await page.keyboard.press('ArrowRight');           // 64 → 96
    await page.waitForFunction(() => location.search.includes('dk=96'));
    await expect.poll(() => theory(page)).toBe('96');
    await page.click('#dot-variance .step-links a[rel="next"]');
    await page.waitForFunction(() => location.search === '?step=softmax-saturation');
    await page.goBack();
    await page.waitForFunction(() => location.search.includes('dk=96'));
    await page.goForward();
    await page.waitForFunction(() => location.search === '?step=softmax-saturation');
    await page.waitForTimeout(500);
    expect(await theory(page)).toBe('96');
    await page.reload();
    // up to dot-variance as a reader scrolls, with the wheel: the page holds the step it landed on
    // in place while the figures above draw (web/landing.js) until the reader's first input, and a
    // script's scroll alone is no input (it was sent back down 1 time in 3, dot-variance undrawn)
    await page.mouse.wheel(0, -200);
    await page.locator('#dot-variance figure.live').scrollIntoViewIfNeeded();
    await waitForUpdates(page, 'dot-variance', 1);
    expect(await theory(page)).toBe('96');
    expect(errors).toEqual([]);
    await close();
  });

  it('back while a change is still computing keeps the forward history', async () => {
    // (the change's report, after its run, wrote back's values as a new entry, and forward was gone)
    const { page, errors, close } = await h.open();
    await page.locator('#dot-variance figure.live').scrollIntoViewIfNeeded();
    await waitForUpdates(page, 'dot-variance', 1);
    const set = (name, to) => page.$eval(`#dot-variance [data-param="${name}"]`, (e, v) => {
      e.value = v === 'max' ? e.max : v;
      e.dispatchEvent(new Event('input', { bubbles: true }));
    }, to);
    await set('dk', 'max');
    await page.waitForFunction(() => location.search.includes('dk=4096'));
    await page.waitForTimeout(1200);                   // a pause ends the gesture
    await set('count', 'max');                         // a long run…
    await page.goBack();                               // …and back while it computes
    await page.waitForFunction(() => location.search === '');
    await page.waitForTimeout(2000);
    expect(await page.evaluate(() => location.search)).toBe('');
    await page.goForward();
    await page.waitForFunction(() => location.search.includes('dk=4096'));
    expect(errors).toEqual([]);
    await close();
  });

  it('a long run shows progress and can be stopped, from the keyboard too, and a control moved after computes again', async () => {
    const { page, errors, close } = await h.open('?step=dot-variance&dk=4096&count=100000');
    await page.waitForSelector('#dot-variance .busy:not([hidden])', { timeout: 20000 });
    await page.focus('#dot-variance .busy button');
    await page.keyboard.press('Enter');
    expect(await page.getAttribute('#dot-variance figure.live', 'data-state')).toBe('stopped');
    // the button hides: the keyboard's focus goes to the figure's first control, not to the page's start
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-param'))).toBe('dk');
    await page.keyboard.press('Home');  // d_k = 1: a control moved after Stop computes again
    await waitForUpdates(page, 'dot-variance', 1);
    expect(await page.getAttribute('#dot-variance figure.live', 'data-state')).toBe('ready');
    // stopped before its sweep was in, the figure still draws on the next change with the same
    // seed (the stopped sweep was kept as the seed's answer, null, and every later update drew nothing)
    await page.goto(h.base + '?step=dot-variance&dk=1024&count=100000&seed=9');
    await page.waitForFunction(() => document.querySelector('#dot-variance figure.live')?.dataset.state === 'computing');
    await page.$eval('#dot-variance .busy button', (b) => b.click());  // at once: the sweep is still on its way
    await page.$eval('#dot-variance [data-param="dk"]', (e) => { e.value = '0'; e.dispatchEvent(new Event('input', { bubbles: true })); });
    await waitForUpdates(page, 'dot-variance', 1);
    expect(await page.getAttribute('#dot-variance figure.live', 'data-state')).toBe('ready');
    // the engine is free again: a small request completes
    await page.goto(h.base + '?step=dot-variance&dk=8&count=500');
    await waitForUpdates(page, 'dot-variance', 1);
    expect(errors).toEqual([]);
    await close();
  });

  it('an engine error is said in the figure, beside nothing else, until a run succeeds again', async () => {
    // the worker's first setup request is spoiled on its way (d_k = −1), as a fault of the engine
    const context = await h.browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(() => {
      const post = Worker.prototype.postMessage;
      let spoiled = false;
      Worker.prototype.postMessage = function (msg, ...rest) {
        if (!spoiled && msg?.name === 'setupScores') { spoiled = true; msg = { ...msg, params: { ...msg.params, dk: -1 } }; }
        return post.call(this, msg, ...rest);
      };
    });
    await page.goto(h.base + '?step=setup&seed=1');
    await page.waitForFunction(() => document.querySelector('#setup figure.live')?.dataset.state === 'error', null, { timeout: 30000 });
    const note = page.locator('#setup figure.live > p.note');
    expect(await note.textContent()).toMatch(/^The engine reported an error: sampleEntries: count must be at least 1, got -1$/);
    expect(await note.isVisible()).toBe(true);
    await page.fill('#setup input[name="seed"]', '2');
    await page.dispatchEvent('#setup input[name="seed"]', 'change');
    await waitForUpdates(page, 'setup', 1);
    expect(await note.isHidden()).toBe(true);
    expect(await note.textContent()).toBe('');
    await context.close();
  });

  it('the progress bar appears only once a run has lasted 150 ms: a quick recomputation does not flash it', async () => {
    // A new seed reruns the sweep, which reports progress after each of its 13 points. Returns when
    // the bar first showed (null: never) and when the redraw was done, in ms from the change.
    const newSeed = (page) => page.evaluate(async () => {
      const fig = document.querySelector('#dot-variance figure.live');
      const busy = fig.querySelector('.busy'), seed = fig.querySelector('[data-param="seed"]');
      const before = Number(fig.dataset.updates), t = performance.now();
      let first = null;
      const watch = new MutationObserver(() => { if (!busy.hidden && first === null) first = performance.now() - t; });
      watch.observe(busy, { attributes: true, attributeFilter: ['hidden'] });
      seed.value = String(Number(seed.value) + 1);
      seed.dispatchEvent(new Event('change', { bubbles: true }));
      await new Promise((res) => {
        const o = new MutationObserver(() => { if (Number(fig.dataset.updates) > before && fig.dataset.state === 'ready') { o.disconnect(); res(); } });
        o.observe(fig, { attributes: true, attributeFilter: ['data-updates', 'data-state'] });
      });
      watch.disconnect();
      return { first, total: performance.now() - t };
    });
    // 100 000 pairs at d_k = 1024 are 2·10⁸ normal draws, seconds of work: certainly a long run
    for (const [query, long] of [['', false], ['&dk=1024&count=100000', true]]) {
      const { page, errors, close } = await h.open(`?step=dot-variance${query}`);
      await waitForUpdates(page, 'dot-variance', 1);
      const { first, total } = await newSeed(page);
      if (long) expect(first).not.toBeNull();  // the bar shows, and not before 150 ms
      if (first !== null) expect(first).toBeGreaterThanOrEqual(149);
      if (total < 149) expect(first).toBeNull();
      expect(await page.isHidden('#dot-variance .busy')).toBe(true);
      expect(errors).toEqual([]);
      await close();
    }
  });

  it('a link to a step deep in the page lands on it, and stays there while the figures above it draw', async () => {
    // (softmax-saturation's figure, drawn after the landing, grew its section by 1,633 px, and
    // scroll anchoring did not follow: vanishing-gradients' link ended in the section above)
    for (const id of ['vanishing-gradients', 'shift-vs-scale', 'training-ablation']) {
      const { page, errors, close } = await h.open(`?step=${id}`);
      await page.waitForFunction((s) => document.querySelector(`#${s} figure.live`)?.dataset.state !== undefined, id);
      await page.waitForTimeout(2500);
      expect(Math.abs(await page.evaluate((s) => document.getElementById(s).getBoundingClientRect().top, id)), id).toBeLessThan(2);
      expect(errors).toEqual([]);
      await close();
    }
  });

  it('the step list, a next link, back and forward each land on their step, and stay there', async () => {
    // (before: a click in the step list glided past ten sections and ended 2,219 px short of
    // vanishing-gradients; back to training-ablation ended 30,345 px from it)
    const { page, errors, close } = await h.open();
    await page.waitForSelector('#engine-status[data-state="ready"]', { timeout: 30000 });
    const settledAt = async (id) => {
      await page.waitForTimeout(2500);
      expect(await page.evaluate(() => location.search)).toBe(`?step=${id}`);
      return Math.abs(await page.evaluate((s) => document.getElementById(s).getBoundingClientRect().top, id));
    };
    await page.click('#steps-nav a[href="?step=vanishing-gradients"]');
    expect(await settledAt('vanishing-gradients')).toBeLessThan(2);
    await page.click('#steps-nav a[href="?step=training-ablation"]');
    expect(await settledAt('training-ablation')).toBeLessThan(2);
    await page.click('#training-ablation .step-links a[rel="next"]');  // a glide
    expect(await settledAt('exercises')).toBeLessThan(2);
    await page.goBack();
    expect(await settledAt('training-ablation')).toBeLessThan(2);
    await page.goBack();
    expect(await settledAt('vanishing-gradients')).toBeLessThan(2);
    await page.goForward();
    expect(await settledAt('training-ablation')).toBeLessThan(2);
    expect(errors).toEqual([]);
    await close();
  });

  it('a link in the prose to another step moves there in the page, without a reload', async () => {
    const { page, errors, close } = await h.open('?step=full-attention');
    await waitForUpdates(page, 'full-attention', 1);
    await page.evaluate(() => { window.stillHere = true; });
    await page.click('#full-attention a[href="?step=softmax-saturation"]');
    await page.waitForTimeout(2500);
    expect(await page.evaluate(() => location.search)).toBe('?step=softmax-saturation');
    expect(Math.abs(await page.evaluate(() => document.getElementById('softmax-saturation').getBoundingClientRect().top))).toBeLessThan(2);
    expect(await page.evaluate(() => window.stillHere)).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });

  it('the reader scrolling away from a linked step is not pulled back to it', async () => {
    const { page, close } = await h.open('?step=vanishing-gradients');
    await page.waitForFunction(() => document.getElementById('vanishing-gradients').getBoundingClientRect().top < 2);
    await page.mouse.move(600, 400);
    await page.mouse.wheel(0, -2000);
    await page.waitForTimeout(300);
    // the page above changes after the reader moved (as a figure drawing late would)
    await page.evaluate(() => { document.getElementById('setup').style.paddingTop = '400px'; });
    await page.waitForTimeout(1000);
    expect(await page.evaluate(() => document.getElementById('vanishing-gradients').getBoundingClientRect().top)).toBeGreaterThan(500);
    await close();
  });

  it('the step list is keyboard navigable', async () => {
    const { page, close } = await h.open();
    const first = page.locator('#steps-nav a').first();
    await first.focus();
    await page.keyboard.press('Enter');
    const id = await first.evaluate((a) => new URLSearchParams(a.search).get('step'));
    await page.waitForFunction((s) => location.search === `?step=${s}`, id);
    await expect.poll(() => page.evaluate((s) => document.getElementById(s).getBoundingClientRect().top, id)).toBeLessThan(300);
    await close();
  });

  it('a student goes from setup to claims by keyboard alone: Tab to the step list, then each step’s “next” link', async () => {
    const { page, errors, close } = await h.open();
    const active = () => page.evaluate(() => {
      const a = document.activeElement;
      return { nav: !!a?.closest('#steps-nav'), rel: a?.getAttribute('rel') ?? null, section: a?.closest('main > section')?.id ?? null,
        step: a?.search ? new URLSearchParams(a.search).get('step') : null };
    });
    // Tab from the top of the page reaches the step list, whose links go through every step in order
    const order = await page.$$eval('main > section[id]', (ss) => ss.map((s) => s.id));
    expect(order[0]).toBe('setup');
    expect(order.at(-1)).toBe('claims');
    let presses = 0;
    do { await page.keyboard.press('Tab'); presses++; } while (!(await active()).nav && presses < 10);
    const listed = [];
    for (let a = await active(); a.nav; a = await active()) { listed.push(a.step); await page.keyboard.press('Tab'); }
    expect(listed).toEqual(order);
    // from setup on: Tab to the section's “next” link (past its figure's controls), Enter, and on
    for (let i = 0; i + 1 < order.length; i++) {
      let a = await active();
      for (let k = 0; !(a.rel === 'next' && a.section === order[i]) && k < 400; k++) { await page.keyboard.press('Tab'); a = await active(); }
      expect(a, `the next link of ${order[i]}`).toMatchObject({ rel: 'next', section: order[i], step: order[i + 1] });
      await page.keyboard.press('Enter');
      await page.waitForFunction((s) => new URLSearchParams(location.search).get('step') === s, order[i + 1]);
      await expect.poll(() => page.evaluate((s) => document.getElementById(s).getBoundingClientRect().top, order[i + 1])).toBeLessThan(300);
    }
    expect(errors).toEqual([]);
    await close();
  }, 180000);

  it('the page, the embed page and the example course name an icon the site has, a PNG', async () => {
    // (an SVG icon is fetched and parsed again on every history update in Chromium: ~4 ms of the
    // main thread per control change, in the trace of one)
    const { page, errors, close } = await h.open();
    for (const path of ['', 'embed.html?step=setup', 'examples/course.html']) {
      await page.goto(h.base + path);
      const href = await page.$eval('link[rel="icon"]', (l) => l.href);
      const res = await page.request.get(href);
      expect(res.status(), path).toBe(200);
      expect(res.headers()['content-type'], path).toMatch(/^image\/png/);
    }
    expect(errors).toEqual([]);
    await close();
  });

  // web/tex.js rewrites only the numbers (and braced signs) of a formula whose shape is unchanged:
  // the result must be, element for element and letter for letter, what KaTeX typesets for the
  // same view on a fresh page
  async function expectFormulasAsFresh(step, query, seeds) {
    const { page, errors, close } = await h.open(query);
    const fresh = await h.open();
    const formulas = (p) => p.$$eval(`#${step} .live-formula .katex`, (ks) => ks.map((k) => ({
      text: k.textContent,
      shape: [...k.querySelectorAll('*')].map((e) => `${e.tagName}.${e.getAttribute('class') ?? ''}`).join(' '),
    })));
    await waitForUpdates(page, step, 1);
    const updates = () => page.$eval(`#${step} figure.live`, (f) => Number(f.dataset.updates));
    const seed = page.locator(`#${step} [data-param="seed"]`);
    for (const value of seeds) {
      const before = await updates();
      await seed.fill(value);
      await seed.dispatchEvent('change');
      await waitForUpdates(page, step, before + 1);
      await page.waitForFunction((s) => location.search.includes(s), `seed=${value}`);
      await fresh.page.goto(await page.evaluate(() => location.href));
      await waitForUpdates(fresh.page, step, 1);
      expect(await formulas(page)).toEqual(await formulas(fresh.page));
    }
    expect(fresh.errors).toEqual([]);
    await fresh.close();
    expect(errors).toEqual([]);
    await close();
  }

  it('a live formula whose numbers were rewritten in place is the formula a fresh page typesets', async () => {
    // dot-variance's measured variance, seed after seed
    await expectFormulasAsFresh('dot-variance', '?step=dot-variance&count=1000', ['2', '3', '4', '2', '5']);
  });

  it('a live formula whose numbers changed sign is rewritten to the formula a fresh page typesets', async () => {
    // scaling-choices' slope for a = ½ is near 0: its sign goes −, +, +, −, + over these seeds;
    // full-attention's scores of the query shown change sign entry by entry
    await expectFormulasAsFresh('scaling-choices', '?step=scaling-choices&seed=1', ['2', '3', '7', '2', '3']);
    await expectFormulasAsFresh('full-attention', '?step=full-attention&seed=1', ['2', '3', '2']);
  });

  it('a formula back to a shape it showed lately is not typeset again: the mask toggled off and on again typesets nothing', async () => {
    // KaTeX marks each typeset (attnlab:typeset); the mask adds a term and a case to two formulas.
    // Each change starts on an idle page, as a reader's does: a new shape's numbers are located
    // in idle time (a probe, web/tex.js), not in the redraw that brings the shape back.
    const { page, errors, close } = await h.open('?step=full-attention');
    await waitForUpdates(page, 'full-attention', 1);
    const typesets = () => page.evaluate(() => performance.getEntriesByName('attnlab:typeset').length);
    const idle = () => page.evaluate(() => new Promise((res) => requestIdleCallback(() => setTimeout(res, 50))));
    const toggle = async (value) => {
      await idle();
      const before = await page.$eval('#full-attention figure.live', (f) => Number(f.dataset.updates));
      const t0 = await typesets();
      await page.locator('#full-attention [data-param="causal"]').selectOption(value);
      await waitForUpdates(page, 'full-attention', before + 1);
      return (await typesets()) - t0;
    };
    expect(await toggle('on')).toBeGreaterThan(0);   // a new shape
    expect([await toggle('off'), await toggle('on'), await toggle('off')]).toEqual([0, 0, 0]);
    expect(errors).toEqual([]);
    await close();
  });
});
