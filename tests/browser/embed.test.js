// Embedding (docs/EMBEDDING.md): the example course page, auto-height in each protocol, the single
// offline file, a strict CSP, a sandboxed iframe, axe-core, a keyboard-only walk, the URL flags.
// Host pages are served by Playwright (context.route) from another origin than the built dist/,
// http://127.0.0.1 against the preview server's http://localhost, so every embed is cross-origin,
// as on a real course site.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER } from '../../web/steps/order.js';
import { DIST, startHarness } from './harness.js';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

// The preview server sends Access-Control-Allow-Origin: * (cors), as GitHub Pages does: the
// sandboxed iframe and the custom element loaded from another origin need it.
let h, HOST;
beforeAll(async () => {
  h = await startHarness({ cors: true });
  const served = new URL(h.base);
  HOST = `http://${served.hostname === 'localhost' ? '127.0.0.1' : 'localhost'}:${served.port}`;
});
afterAll(async () => { await h?.close(); });

// Console errors, uncaught exceptions and requests to anywhere but `origins`, per page.
function watch(page, origins) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => { errors.push(`dialog: ${d.message()}`); d.dismiss(); });
  page.on('request', (r) => {
    const u = r.url();
    if (![...origins, 'data:', 'blob:'].some((o) => u.startsWith(o))) errors.push(`off-origin request: ${u}`);
  });
  return errors;
}

// A course page on another origin (HOST), with `body` as its content.
let hosts = 0;
async function openHost(body, { viewport = { width: 1000, height: 800 }, colorScheme = 'light' } = {}) {
  // The preview server is on loopback; Chromium lets a page reach it only with this permission.
  const context = await h.browser.newContext({ viewport, colorScheme, permissions: ['local-network-access'] });
  const url = `${HOST}/course/${++hosts}.html`;
  await context.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title></head><body>${body}</body></html>` }));
  const page = await context.newPage();
  const errors = watch(page, [h.base, HOST]);
  await page.goto(url);
  return { page, errors, close: () => context.close() };
}

const frameOf = async (page, selector = '#f') => (await page.waitForSelector(selector)).contentFrame();
const ready = (locator, timeout = 30000) => locator.locator('figure.live[data-state="ready"]').waitFor({ timeout });
// A lazy figure computes once it comes near the viewport. On a course page the iframes above it
// may resize after the scroll and push it back out (under load, before it was ever seen), so
// bring it into view again until it is ready; if it never is, say what state it is in.
async function readyInView(locator, timeout = 60000) {
  const deadline = Date.now() + timeout;
  const figure = locator.locator('figure.live').first();
  for (;;) {
    await figure.scrollIntoViewIfNeeded();
    try { return await ready(locator, Math.min(3000, Math.max(1, deadline - Date.now()))); } catch (err) {
      if (Date.now() < deadline) continue;
      const state = await figure.evaluate((f) => ({ state: f.dataset.state, updates: f.dataset.updates,
        note: f.querySelector('.note:not([hidden])')?.textContent })).catch(() => 'no figure');
      throw new Error(`not ready after ${timeout} ms: ${JSON.stringify(state)}`, { cause: err });
    }
  }
}

// Every message an embed may post, by name; null for anything else. Keys must match exactly.
function shapeOf(d) {
  const keys = (o) => Object.keys(o).sort().join(',');
  const height = (x) => Number.isInteger(x) && x > 0;
  if (typeof d === 'string') {
    try { d = JSON.parse(d); } catch { return null; }
    return d && keys(d) === 'height,subject' && d.subject === 'lti.frameResize' && height(d.height) ? 'canvas' : null;
  }
  if (!d || typeof d !== 'object') return null;
  if (keys(d) === 'height,type' && d.type === 'attnlab:resize' && height(d.height)) return 'attnlab';
  if (d.context !== 'h5p') return null;
  if (keys(d) === 'action,context' && d.action === 'hello') return 'h5p:hello';
  if (keys(d) === 'action,clientHeight,context,scrollHeight' && d.action === 'prepareResize'
      && height(d.scrollHeight) && height(d.clientHeight)) return 'h5p:prepareResize';
  if (keys(d) === 'action,context,scrollHeight' && d.action === 'resize' && height(d.scrollHeight)) return 'h5p:resize';
  return null;
}

// The host side of each protocol, as course platforms write it. RECORD keeps every message.
const RECORD = `<script>
  window.received = [];
  const frameOf = (source) => [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === source);
  addEventListener('message', (e) => {
    received.push({ data: e.data, origin: e.origin, from: frameOf(e.source)?.id ?? null });
  });
</script>`;
const LISTENERS = {
  // the neutral message, as web/public/examples/course.js and docs/EMBEDDING.md
  attnlab: `<script>addEventListener('message', (e) => {
    const d = e.data, f = frameOf(e.source);
    if (f && d && typeof d === 'object' && d.type === 'attnlab:resize' && Number.isFinite(d.height)) f.style.height = d.height + 'px';
  });</script>`,
  // Canvas: a JSON string (or an object) with subject lti.frameResize
  canvas: `<script>addEventListener('message', (e) => {
    let m = e.data;
    if (typeof m === 'string') { try { m = JSON.parse(m); } catch { return; } }
    const f = frameOf(e.source);
    if (f && m && m.subject === 'lti.frameResize') f.style.height = m.height + 'px';
  });</script>`,
  // H5P's h5p-resizer.js, the host side of its handshake; installed late (after the iframe has
  // loaded and said hello to nobody), so it announces itself with 'ready' to iframes whose src
  // mentions h5p, as h5p-resizer.js does
  h5p: `<script>window.installH5P = () => {
    addEventListener('message', (e) => {
      const d = e.data, f = frameOf(e.source);
      if (!d || d.context !== 'h5p' || !f) return;
      const respond = (action) => e.source.postMessage({ context: 'h5p', action }, e.origin);
      if (d.action === 'hello') respond('hello');
      else if (d.action === 'prepareResize') {
        if (f.clientHeight !== d.scrollHeight || d.scrollHeight !== d.clientHeight) {
          f.style.height = d.clientHeight + 'px';
          respond('resizePrepared');
        }
      } else if (d.action === 'resize') f.style.height = d.scrollHeight + 'px';
    });
    for (const f of document.querySelectorAll('iframe')) if (f.src.includes('h5p')) f.contentWindow.postMessage({ context: 'h5p', action: 'ready' }, '*');
  };</script>`,
};

// |iframe height − its document's height|, and how far the document overflows its viewport
async function fit(page, selector = '#f') {
  const frame = await frameOf(page, selector);
  const [content, overflow] = await frame.evaluate(() => [document.documentElement.getBoundingClientRect().height,
    document.documentElement.scrollHeight - innerHeight]);
  const box = await page.$eval(selector, (f) => f.clientHeight);
  return { off: Math.round(Math.abs(box - content)), overflow: Math.max(0, overflow), box };
}
const fitted = async (page) => { const { off, overflow } = await fit(page); return off <= 2 && overflow <= 1; };

describe('the example course page (web/public/examples/course.html)', () => {
  it('embeds three steps, an iframe and two <attnlab-step>; the elements compute only once in view, share one worker and follow their attributes', async () => {
    const { page, errors, close } = await h.open('examples/course.html');
    const iframe = page.frameLocator('#embed-dot-variance');
    await ready(iframe);
    // the lower element is out of reach of its lazy observer (200px past the viewport) and has not computed
    const lower = page.locator('#element-temperature');
    expect((await lower.boundingBox()).y).toBeGreaterThan(900 + 200);
    await lower.locator('figure.live').waitFor({ state: 'attached' });
    expect(await lower.locator('figure.live').getAttribute('data-updates')).toBeNull();
    for (const id of ['element-softmax', 'element-temperature']) {
      await readyInView(page.locator(`#${id}`));
    }
    // two workers: the iframe's (a document of its own) and one for both elements, not one each
    expect(page.workers().length).toBe(2);
    // observed attributes: a new dk redraws the figure and moves its slider
    const softmax = page.locator('#element-softmax');
    const before = Number(await softmax.locator('figure.live').getAttribute('data-updates'));
    await softmax.evaluate((el) => el.setAttribute('dk', '16'));
    await expect.poll(() => softmax.locator('figure.live').getAttribute('data-updates').then(Number)).toBeGreaterThan(before);
    expect(await softmax.locator('input[type="range"]').first().getAttribute('aria-valuetext')).toMatch(/\b16$/);
    // (attribute names are observed as HTML spells them, lowercased: seqlen for seqLen)
    expect(await page.evaluate(() => customElements.get('attnlab-step').observedAttributes.filter((n) => n !== n.toLowerCase()))).toEqual([]);
    // Shadow DOM: the page's rules stop at the element, and the step's styles stay inside it
    await page.addStyleTag({ content: 'h2 { color: rgb(255, 0, 0) !important; }' });
    expect(await softmax.locator('h2').evaluate((e) => getComputedStyle(e).color)).not.toBe('rgb(255, 0, 0)');
    expect(await page.evaluate(() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).fontFamily]))
      .toEqual(['rgb(255, 255, 255)', 'Georgia, serif']);
    expect(errors).toEqual([]);
    await close();
  }, 120000);
});

describe('auto-height', () => {
  for (const protocol of ['attnlab', 'canvas', 'h5p']) {
    it(`a host listening for ${protocol === 'h5p' ? "H5P's resize handshake" : protocol === 'canvas' ? "Canvas's lti.frameResize" : 'attnlab:resize'} sizes the iframe to its content, and again when the content changes`, async () => {
      // H5P's resizer only greets iframes whose src mentions h5p: resize=h5p does
      const src = `${h.base}embed.html?step=setup&hide=prose${protocol === 'h5p' ? '&resize=h5p' : ''}`;
      const { page, errors, close } = await openHost(`${RECORD}${LISTENERS[protocol]}
        <h1>Week 6</h1><iframe id="f" title="attnlab" src="${src}" style="width: 800px; height: 200px; border: 0"></iframe>`);
      const frame = await frameOf(page);
      await ready(page.frameLocator('#f'));
      if (protocol === 'h5p') await page.evaluate(() => window.installH5P());
      await expect.poll(() => fitted(page), { timeout: 15000 }).toBe(true);
      const small = (await fit(page)).box;
      expect(small).toBeGreaterThan(300);
      // the prose comes back: the iframe grows with it; it goes again: the iframe shrinks
      await frame.evaluate(() => { document.body.dataset.hide = ''; });
      await expect.poll(async () => (await fit(page)).box, { timeout: 15000 }).toBeGreaterThan(small + 200);
      await expect.poll(() => fitted(page), { timeout: 15000 }).toBe(true);
      await frame.evaluate(() => { document.body.dataset.hide = 'prose'; });
      await expect.poll(async () => (await fit(page)).box, { timeout: 15000 }).toBeLessThan(small + 3);
      await expect.poll(() => fitted(page), { timeout: 15000 }).toBe(true);
      // everything the embed posted has a documented shape; resize=h5p posts H5P's shapes only
      const received = await page.evaluate(() => window.received.filter((m) => m.from === 'f').map((m) => m.data));
      const shapes = received.map(shapeOf);
      expect(shapes.filter((s) => s === null), JSON.stringify(received)).toEqual([]);
      if (protocol === 'h5p') expect(new Set(shapes)).toEqual(new Set(['h5p:hello', 'h5p:prepareResize', 'h5p:resize']));
      else expect(new Set(shapes)).toEqual(new Set(['attnlab', 'canvas', 'h5p:hello']));
      expect(errors).toEqual([]);
      await close();
    }, 60000);
  }

  it('posts to the named origin only, and ignores messages of unknown shape or from another window', async () => {
    const src = (flags) => `${h.base}embed.html?step=setup&hide=prose&resize=h5p,attnlab${flags}`;
    const { page, errors, close } = await openHost(`${RECORD}
      <iframe id="f" title="attnlab" src="${src(`&origin=${encodeURIComponent(HOST)}`)}" style="width: 800px; height: 600px"></iframe>
      <iframe id="elsewhere" title="attnlab, for another host" src="${src('&origin=http://elsewhere.example')}" style="width: 800px; height: 600px"></iframe>
      <iframe id="other" title="another window" srcdoc="<p>another window on the course page</p>"></iframe>`);
    const count = (shape) => page.evaluate(() => window.received.filter((m) => m.from === 'f'))
      .then((ms) => ms.filter((m) => shapeOf(m.data) === shape).length);
    await ready(page.frameLocator('#f'));
    await ready(page.frameLocator('#elsewhere'));
    // no host answers H5P's hello here: the embed says hello (again on each change), nothing more
    await expect.poll(() => count('h5p:hello')).toBeGreaterThan(0);
    await (await frameOf(page)).evaluate(() => document.fonts.ready);
    expect(await count('attnlab')).toBeGreaterThan(0);
    expect(await page.evaluate(() => window.received.filter((m) => m.from === 'f').every((m) => m.origin === new URL(document.querySelector('#f').src).origin))).toBe(true);
    // targetOrigin: the iframe told to post to another origin reaches nobody here
    expect(await page.evaluate(() => window.received.filter((m) => m.from === 'elsewhere').length)).toBe(0);

    // H5P's answers from a window that is not the parent, and unknown shapes from the parent
    const other = await frameOf(page, '#other');
    await other.evaluate(() => {
      const embed = parent.document.getElementById('f').contentWindow;
      embed.postMessage({ context: 'h5p', action: 'hello' }, '*');
      embed.postMessage({ context: 'h5p', action: 'resizePrepared' }, '*');
    });
    await page.evaluate(() => {
      const embed = document.getElementById('f').contentWindow;
      for (const m of [null, 'hello', 42, [], { context: 'h5p' }, { context: 'h5p', action: 'bogus' }, { context: 'h5p', action: 'resize' },
        { type: 'attnlab:resize', height: 5 }, '{"subject":"lti.frameResize","height":5}', { context: 'H5P', action: 'hello' }]) embed.postMessage(m, '*');
      // then a real handshake from the parent: it is answered, so everything above has been read
      embed.postMessage({ context: 'h5p', action: 'hello' }, '*');
    });
    await expect.poll(() => count('h5p:prepareResize')).toBe(1);
    await page.evaluate(() => document.getElementById('f').contentWindow.postMessage({ context: 'h5p', action: 'resizePrepared' }, '*'));
    await expect.poll(() => count('h5p:resize')).toBe(1);
    const received = await page.evaluate(() => window.received.filter((m) => m.from === 'f').map((m) => m.data));
    expect(received.map(shapeOf).filter((s) => s === null), JSON.stringify(received)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  }, 60000);
});

describe('the single offline file (dist/attnlab-offline.html)', () => {
  it('opened from file:// with the network off, renders every step and computes all of them', async () => {
    const file = resolve(DIST, 'attnlab-offline.html');
    expect(existsSync(file)).toBe(true);
    const context = await h.browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.setOffline(true);
    const page = await context.newPage();
    const errors = watch(page, ['file:']);
    await page.goto(pathToFileURL(file).href);
    const ids = await page.$$eval('main section[id]', (ss) => ss.filter((s) => s.querySelector('figure.live')).map((s) => s.id));
    expect(ids).toEqual(ORDER.filter((id) => existsSync(resolve(import.meta.dirname, `../../web/sections/${id}.html`))));
    for (const id of ids) {
      await readyInView(page.locator(`#${id}`));
    }
    expect(await page.getAttribute('#engine-status', 'data-self-test')).toBe('passed');
    expect(await page.locator('figure.live:not([data-state="ready"])').count()).toBe(0);
    // its icon is in the file too (with none, a browser asks the server for /favicon.ico)
    expect(await page.getAttribute('link[rel="icon"]', 'href')).toMatch(/^data:image\/png;base64,/);
    expect(errors).toEqual([]);
    await context.close();
  }, 120000);
});

describe('under a strict Content-Security-Policy', () => {
  let strict;
  beforeAll(async () => { strict = await startHarness({ headers: { 'Content-Security-Policy': CSP } }); });
  afterAll(async () => { await strict?.close(); });

  // Opens `query` with every CSP violation in any frame recorded (before any script of the page runs).
  async function openStrict(query) {
    const context = await strict.browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors = watch(page, [strict.base]);
    const violations = [];
    await page.exposeBinding('__violation', ({ frame }, v) => violations.push(`${frame.url()}: ${v}`));
    await page.addInitScript(() => addEventListener('securitypolicyviolation', (e) =>
      window.__violation(`${e.violatedDirective} blocked ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`), true));
    const response = await page.goto(strict.base + query);
    expect(response.headers()['content-security-policy']).toBe(CSP);
    return { page, errors, violations, close: () => context.close() };
  }

  it(`the full page computes every figure with 0 violations and 0 console errors, though eval stays blocked in the page and in the engine's worker`, async () => {
    const { page, errors, violations, close } = await openStrict('index.html');
    const ids = await page.$$eval('main section[id]', (ss) => ss.filter((s) => s.querySelector('figure.live')).map((s) => s.id));
    for (const id of ids) {
      await readyInView(page.locator(`#${id}`));
    }
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
    expect(await page.getAttribute('#engine-status', 'data-self-test')).toBe('passed');
    // The policy is in force in the page and in the engine's worker (which has its own, from its
    // response): a string given to setTimeout, which needs 'unsafe-eval', never runs. So the
    // WebAssembly engine ran without 'unsafe-eval': Embind, linked with -sDYNAMIC_EXECUTION=0,
    // generates no code at run time. (DevTools' own evaluate is exempt from the policy, so the
    // probe is a timer, which the page runs itself; it has half a second to run.)
    const stringTimer = (scope) => scope.evaluate(() => new Promise((done) => {
      self.__ran = done;
      setTimeout('self.__ran("ran")', 0);
      setTimeout(() => done('blocked'), 500);
    }));
    expect(page.workers()).toHaveLength(1);
    expect(await stringTimer(page)).toBe('blocked');
    expect(await stringTimer(page.workers()[0])).toBe('blocked');
    await close();
  }, 120000);

  it('the embed page (three steps) and the example course page (iframe and custom elements) compute with 0 violations and 0 console errors', async () => {
    for (const step of ['setup', 'softmax-saturation', 'full-attention']) {
      const { page, errors, violations, close } = await openStrict(`embed.html?step=${step}&hide=prose`);
      await ready(page, 60000);
      expect(violations, step).toEqual([]);
      expect(errors, step).toEqual([]);
      await close();
    }
    const { page, errors, violations, close } = await openStrict('examples/course.html');
    await ready(page.frameLocator('#embed-dot-variance'));
    for (const id of ['element-softmax', 'element-temperature']) {
      await readyInView(page.locator(`#${id}`));
    }
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  }, 120000);
});

describe('H5P’s handshake', () => {
  it('a host whose resizer is there from the start gets one prepareResize per height, not one per hello it answered', async () => {
    // (the embed says hello at each change until the host answers; it answered every hello, and
    // each answer asked for room again at the same height)
    const { page, errors, close } = await openHost(`${RECORD}${LISTENERS.h5p}<script>installH5P()</script>
      <h1>Week 6</h1><iframe id="f" title="attnlab" src="${h.base}embed.html?step=setup&hide=prose&resize=h5p" style="width: 800px; height: 200px; border: 0"></iframe>`);
    await ready(page.frameLocator('#f'));
    await expect.poll(() => fitted(page), { timeout: 15000 }).toBe(true);
    await page.waitForTimeout(500);
    const posted = await page.evaluate(() => window.received.filter((m) => m.from === 'f' && m.data?.context === 'h5p').map((m) => m.data));
    const hellos = posted.filter((d) => d.action === 'hello').length, asks = posted.filter((d) => d.action === 'prepareResize');
    expect(asks.length).toBeGreaterThan(0);
    expect(asks.filter((d, i) => i && d.scrollHeight === asks[i - 1].scrollHeight)).toEqual([]);
    expect(hellos).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await close();
  }, 60000);
});

describe('on another origin', () => {
  it('a sandboxed iframe (sandbox="allow-scripts", opaque origin, no storage) computes, and still reports its height', async () => {
    const { page, errors, close } = await openHost(`${RECORD}
      <iframe id="f" title="attnlab" sandbox="allow-scripts" src="${h.base}embed.html?step=setup&hide=prose" style="width: 800px; height: 700px"></iframe>`);
    await ready(page.frameLocator('#f'));
    const frame = await frameOf(page);
    expect(await frame.evaluate(() => self.origin)).toBe('null');
    // storage is out of reach here; nothing in the embed touches it, so nothing throws
    expect(await frame.evaluate(() => { try { return typeof localStorage.length; } catch (e) { return e.name; } })).toBe('SecurityError');
    await expect.poll(() => page.evaluate(() => window.received.filter((m) => m.from === 'f' && m.origin === 'null' && m.data?.type === 'attnlab:resize').length)).toBeGreaterThan(0);
    expect(await frame.$$('.load-failed')).toEqual([]);  // embed-check.js: the modules ran
    expect(errors).toEqual([]);
    await close();
  }, 60000);

  it('a sandboxed iframe whose server sends no Access-Control-Allow-Origin says so, where its modules cannot load', async () => {
    const bare = await startHarness();  // Vite's default CORS: no header for the origin 'null'
    const { page, close } = await openHost(`<iframe id="f" title="attnlab" sandbox="allow-scripts" src="${bare.base}embed.html?step=setup"
      style="width: 800px; height: 700px"></iframe>`);
    const frame = await frameOf(page);
    const alert = await frame.waitForSelector('p.load-failed[role="alert"]', { timeout: 30000 });
    expect(await alert.textContent()).toMatch(/sandboxed iframe.*Access-Control-Allow-Origin.*allow-same-origin.*attnlab-offline\.html/);
    expect(await frame.$$('section[data-embedded]')).toEqual([]);
    await close();
    await bare.close();
  }, 60000);

  it('<attnlab-step> taken out of the page while it computes stops its run; put back, it computes again', async () => {
    // (its run went on in the shared worker, taking turns from the other figures', for seconds)
    const { page, errors, close } = await openHost(`<script type="module" src="${h.base}attnlab-step.js"></script>
      <attnlab-step id="e" step="dot-variance" dk="4096" count="100000" hide="prose"></attnlab-step>`);
    const state = () => page.$eval('#e', (e) => e.shadowRoot?.querySelector('figure.live')?.dataset.state);
    await expect.poll(state, { timeout: 30000 }).toBe('computing');
    const posted = () => page.evaluate(() => performance.getEntriesByName('attnlab:posted').length);
    const before = await posted();
    const element = await page.$eval('#e', (e) => { window.kept = e; e.remove(); return e.isConnected; });
    expect(element).toBe(false);
    await expect.poll(posted).toBeGreaterThan(before);  // the cancel of its channels
    await page.evaluate(() => { window.kept.setAttribute('count', '1000'); window.kept.setAttribute('dk', '16'); document.body.append(window.kept); });
    await expect.poll(state, { timeout: 30000 }).toBe('ready');
    expect(errors).toEqual([]);
    await close();
  }, 60000);

  it('<attnlab-step> moved within the page keeps its figure: nothing is computed again, and it stays live', async () => {
    const { page, errors, close } = await openHost(`<script type="module" src="${h.base}attnlab-step.js"></script>
      <div id="a"><attnlab-step id="e" step="setup" dk="8" hide="prose"></attnlab-step></div><div id="b"></div>`);
    await ready(page.locator('#e'));
    const look = () => page.$eval('#e', (e) => {
      const f = e.shadowRoot.querySelector('figure.live');
      return { updates: f.dataset.updates, marked: f.dataset.marked, parent: e.parentElement.id };
    });
    await page.$eval('#e', (e) => { e.shadowRoot.querySelector('figure.live').dataset.marked = 'yes'; });
    const posted = () => page.evaluate(() => performance.getEntriesByName('attnlab:posted').length);
    const [before, sent] = [await look(), await posted()];
    await page.$eval('#e', (e) => document.querySelector('#b').append(e));  // out and back in, in one task
    await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    expect(await look()).toEqual({ ...before, parent: 'b' });  // the same figure, not drawn again
    expect(await posted()).toBe(sent);                           // no cancel, no new run
    await page.$eval('#e', (e) => e.setAttribute('dk', '16'));   // still live
    await expect.poll(async () => (await look()).updates).toBe(String(Number(before.updates) + 1));
    expect(errors).toEqual([]);
    await close();
  }, 60000);

  it('<attnlab-step> loaded from another origin than the course page computes (its worker starts through the CORS fallback)', async () => {
    const { page, errors, close } = await openHost(`<script type="module" src="${h.base}attnlab-step.js"></script>
      <h1>Week 6</h1><attnlab-step id="e" step="dot-variance" dk="16" count="1000" hide="prose"></attnlab-step>`);
    await ready(page.locator('#e'));
    expect(page.workers().map((w) => w.url().slice(0, 5))).toEqual(['data:']);
    expect(errors).toEqual([]);
    await close();
  }, 60000);
});

describe('accessibility of the embeds (axe-core: no serious or critical violations)', () => {
  const serious = (result) => result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.length} nodes, e.g. ${v.nodes[0].target.join(' ')}`);
  const RULES = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] };

  for (const theme of ['light', 'dark']) {
    // every step's embed in the light theme; three in the dark one (the full page's axe test
    // covers every figure in both themes)
    const embeds = theme === 'light' ? ORDER : ['setup', 'dot-variance', 'full-attention'];
    it(`embed.html for ${theme === 'light' ? 'every step' : 'three steps'}, and the course page with its custom elements (${theme})`, async () => {
      const { page, errors, close } = await h.open('', { colorScheme: theme });
      for (const step of embeds) {
        await page.goto(`${h.base}embed.html?step=${step}&theme=${theme}`);
        await page.locator('figure.live').scrollIntoViewIfNeeded();
        await ready(page, 60000);
        await page.addScriptTag({ path: AXE });
        expect(serious(await page.evaluate((o) => axe.run(document, o), RULES)), step).toEqual([]);
      }
      await page.goto(`${h.base}examples/course.html`);
      for (const id of ['element-softmax', 'element-temperature']) {
        await readyInView(page.locator(`#${id}`));
      }
      await page.addScriptTag({ path: AXE });
      // axe reaches into open shadow roots; the iframe's page is the embed checked above
      expect(serious(await page.evaluate((o) => axe.run(document, { ...o, iframes: false }), RULES))).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    }, 400000);
  }
});

describe('input', () => {
  it('a keyboard-only walk: Tab reaches the controls in order with visible focus; ArrowRight moves a slider and redraws', async () => {
    const { page, errors, close } = await h.open('embed.html?step=dot-variance&count=1000');
    const fig = page.locator('figure.live');
    await fig.scrollIntoViewIfNeeded();
    await ready(page);
    const controls = await page.$$eval('figure.live .controls :is(input, select)', (els) => els.map((e) => e.name));
    expect(controls).toEqual(['dk', 'count', 'seed']);
    // Tab from the top of the document; note each focused control and whether its focus shows
    const reached = [];
    for (let i = 0; i < 40 && reached.length < controls.length; i++) {
      await page.keyboard.press('Tab');
      const focus = await page.evaluate(() => {
        const e = document.activeElement;
        const s = getComputedStyle(e);
        return { name: e.closest('.controls') ? e.name : null, visible: e.matches(':focus-visible') && s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 };
      });
      if (focus.name) reached.push(focus);
    }
    expect(reached).toEqual(controls.map((name) => ({ name, visible: true })));
    // back to the d_k slider; ArrowRight: 64 → 96, spoken, and the figure redraws
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    const slider = page.locator('input[name="dk"]');
    expect(await slider.evaluate((e) => e === document.activeElement)).toBe(true);
    const updates = Number(await fig.getAttribute('data-updates'));
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => slider.getAttribute('aria-valuetext')).toBe('d sub k 96');
    await expect.poll(() => fig.getAttribute('data-updates').then(Number)).toBeGreaterThan(updates);
    await ready(page);
    expect(errors).toEqual([]);
    await close();
  }, 60000);

  it('the embed does not capture the mouse wheel: a wheel over it scrolls the course page', async () => {
    const { page, errors, close } = await openHost(`${RECORD}${LISTENERS.attnlab}
      <iframe id="f" title="attnlab" src="${h.base}embed.html?step=dot-variance&hide=prose&count=1000" style="width: 800px; height: 300px"></iframe>
      <div style="height: 3000px"></div>`);
    await ready(page.frameLocator('#f'));
    await expect.poll(() => fitted(page), { timeout: 15000 }).toBe(true);
    const box = await page.locator('#f').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + Math.min(box.height, 700) / 2);
    await page.mouse.wheel(0, 400);
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(100);
    expect(errors).toEqual([]);
    await close();
  }, 60000);
});

describe('URL flags and attributes', () => {
  const visible = (page, selector) => page.locator(selector).first().isVisible();

  it('hide= hides prose, controls, title and link; theme= sets the colours whatever the reader prefers', async () => {
    const { page, errors, close } = await h.open('embed.html?step=setup&hide=prose,controls', { colorScheme: 'dark' });
    expect(await visible(page, 'main > section > p')).toBe(false);
    expect(await visible(page, 'figure.live .controls')).toBe(false);
    expect(await visible(page, 'main > section > h2')).toBe(true);
    expect(await visible(page, '.embed-link')).toBe(true);
    await ready(page);
    await page.goto(`${h.base}embed.html?step=setup&hide=title,link`);
    expect(await visible(page, 'main > section > h2')).toBe(false);
    expect(await visible(page, '.embed-link')).toBe(false);
    expect(await visible(page, 'main > section > p')).toBe(true);
    expect(await visible(page, 'figure.live .controls')).toBe(true);
    // the page's background (html's, which the canvas takes): dark here by preference
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(await background()).toBe('rgb(22, 23, 26)');
    await page.goto(`${h.base}embed.html?step=setup&theme=light`);
    expect(await background()).toBe('rgb(253, 252, 250)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${h.base}embed.html?step=setup&theme=dark`);
    expect(await background()).toBe('rgb(22, 23, 26)');
    expect(errors).toEqual([]);
    await close();
  }, 60000);

  it('<attnlab-step hide=…> takes commas as the embed page does, and names what it cannot hide', async () => {
    const host = await openHost(`<script type="module" src="${h.base}attnlab-step.js"></script>
      <attnlab-step id="e" step="setup" hide="prose,controls, frame"></attnlab-step>`);
    const shown = (selector) => host.page.locator(`#e ${selector}`).first().isVisible();
    await ready(host.page.locator('#e'));
    expect(await shown('section > p')).toBe(false);
    expect(await shown('figure.live .controls')).toBe(false);
    expect(await shown('section > h2')).toBe(true);
    expect(await host.page.locator('#e figure.live .note').textContent()).toContain('hide: ignoring “frame”');
    // live: a new value applies at once
    await host.page.evaluate(() => document.getElementById('e').setAttribute('hide', 'title link'));
    await expect.poll(() => shown('section > h2')).toBe(false);
    expect(await shown('.embed-link')).toBe(false);
    expect(await shown('section > p')).toBe(true);
    expect(await shown('figure.live .controls')).toBe(true);
    expect(await host.page.locator('#e figure.live .note').isVisible()).toBe(false);
    expect(host.errors).toEqual([]);
    await host.close();
  }, 60000);

  it('a link in the prose to another step opens the whole derivation there, in a new tab: the course page and the iframe stay', async () => {
    // (written for the full page as href="?step=…": in the element it navigated the course page,
    // in the iframe it dropped the embed's flags)
    const host = await openHost(`<script type="module" src="${h.base}attnlab-step.js"></script>
      <attnlab-step id="e" step="full-attention"></attnlab-step>
      <iframe id="f" title="attnlab" src="${h.base}embed.html?step=full-attention&theme=dark" style="width: 900px; height: 600px"></iframe>`);
    const course = host.page.url();
    const element = host.page.locator('#e a[href*="step=softmax-saturation"]');
    await element.waitFor();
    const frame = host.page.frameLocator('#f').locator('a[href*="step=softmax-saturation"]');
    await frame.waitFor();
    for (const a of [element, frame]) {
      expect(await a.getAttribute('href')).toBe(`${h.base}index.html?step=softmax-saturation`);
      expect(await a.getAttribute('target')).toBe('_blank');
      const [tab] = await Promise.all([host.page.context().waitForEvent('page'), a.click()]);
      await tab.waitForLoadState();
      expect(tab.url()).toBe(`${h.base}index.html?step=softmax-saturation`);
      await tab.close();
    }
    expect(host.page.url()).toBe(course);
    // the element's own link to the whole derivation goes out the same way
    const own = host.page.locator('#e .embed-link a');
    expect([await own.getAttribute('href'), await own.getAttribute('target'), await own.getAttribute('rel')])
      .toEqual([`${h.base}index.html?step=full-attention`, '_blank', 'noopener']);
    expect(await host.page.frameLocator('#f').locator('body').evaluate(() => location.search)).toBe('?step=full-attention&theme=dark');
    expect(host.errors).toEqual([]);
    await host.close();
  }, 60000);

  it("<attnlab-step theme=…> gives its heatmaps the element's theme, whatever the page's", async () => {
    // on a light page, a dark element's weights (mostly near 0) sit on the dark ramp's near-black
    // end, and turn near-white when the attribute says light
    const host = await openHost(`<script type="module" src="${h.base}attnlab-step.js"></script>
      <attnlab-step id="e" step="full-attention" theme="dark" hide="prose"></attnlab-step>`);
    const updates = () => host.page.evaluate(() => Number(document.getElementById('e').shadowRoot.querySelector('figure.live')?.dataset.updates ?? 0));
    const lightness = () => host.page.evaluate(() => {
      const canvas = document.getElementById('e').shadowRoot.querySelector('.attention-map canvas.heatmap-cells');
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const l = [];
      for (let k = 0; k < data.length; k += 4) if (data[k + 3] === 255) l.push((data[k] + data[k + 1] + data[k + 2]) / 765);
      return l.sort((a, b) => a - b)[l.length >> 1];  // the median painted pixel
    });
    await expect.poll(updates, { timeout: 30000 }).toBeGreaterThan(0);
    expect(await lightness()).toBeLessThan(0.3);
    const n = await updates();
    await host.page.evaluate(() => document.getElementById('e').setAttribute('theme', 'light'));
    await expect.poll(updates, { timeout: 30000 }).toBeGreaterThan(n);
    expect(await lightness()).toBeGreaterThan(0.7);
    expect(host.errors).toEqual([]);
    await host.close();
  }, 60000);

  it('unknown flag values and steps are named in a visible note, and nothing from the URL or an attribute becomes markup', async () => {
    const attack = '<img src=x onerror=alert(1)>';
    const q = new URLSearchParams({ step: attack, hide: `prose,${attack}`, theme: '<svg onload=alert(1)>', origin: 'javascript:alert(1)', dk: attack });
    const { page, errors, close } = await h.open(`embed.html?${q}`);
    const note = page.locator('figure.live .note');
    await note.waitFor();
    const text = await note.textContent();
    for (const part of ['step: “<img', 'hide: ignoring “<img', 'theme: ignoring “<svg', 'origin: “javascript:alert(1)”', 'dk: “<img']) expect(text).toContain(part);
    expect(await page.locator('main > section').getAttribute('id')).toBe('setup');   // the first step, instead
    expect(await page.locator('img, [onerror], [onload]').count()).toBe(0);
    await ready(page);
    expect(errors).toEqual([]);
    await close();

    // the same through <attnlab-step>'s attributes
    const host = await openHost(`<script type="module" src="${h.base}attnlab-step.js"></script>
      <attnlab-step id="e" step="&lt;img src=x onerror=alert(1)&gt;" dk="&lt;img src=x onerror=alert(1)&gt;"></attnlab-step>`);
    const elementNote = host.page.locator('#e figure.live .note');
    await elementNote.waitFor();
    expect(await elementNote.textContent()).toMatch(/step: “<img src=x onerror=alert\(1\)>” is not a step.*dk: “<img/);
    expect(await host.page.locator('img, [onerror], [onload]').count()).toBe(0);
    await ready(host.page.locator('#e'));
    expect(host.errors).toEqual([]);
    await host.close();
  }, 60000);
});
