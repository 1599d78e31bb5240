// Screenshots of the built page in headless Chromium, for looking at what we ship.
//   node tools/screenshot.mjs [query] [out.png] [--dark] [--width=1200] [--selector=CSS] [--open=CSS]
// --open: the <details> elements it matches are opened first (an exercise's answer, a data table).
// Serves dist/ (or $ATTNLAB_DIST) with Vite's preview server on a free port, waits until every live figure is ready.
import { preview } from 'vite';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const [query = '', out = '/tmp/attnlab.png'] = args.filter((a) => !a.startsWith('--'));
const width = Number([...flags].find((f) => f.startsWith('--width='))?.slice(8) || 1200);
const selector = [...flags].find((f) => f.startsWith('--selector='))?.slice(11);
const open = [...flags].find((f) => f.startsWith('--open='))?.slice(7);

import { resolve } from 'node:path';
const dist = resolve(process.env.ATTNLAB_DIST || 'dist');  // another build folder, if given
const server = await preview({ build: { outDir: dist }, preview: { port: 0, strictPort: false }, logLevel: 'silent' });
const url = server.resolvedUrls.local[0];
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: flags.has('--dark') ? 'dark' : 'light' });
page.on('console', (m) => m.type() === 'error' && console.log('console error:', m.text()));
page.on('pageerror', (e) => console.log('page error:', e.message));
await page.goto(url + query);
// scroll through so every figure mounts, then wait for them
await page.evaluate(async () => {
  for (const f of document.querySelectorAll('figure.live')) { f.scrollIntoView(); await new Promise((r) => setTimeout(r, 50)); }
  window.scrollTo(0, 0);
});
// wait for the figures in the shot: the selected element's, or all of them
await page.waitForFunction((sel) => {
  const root = sel ? document.querySelector(sel) : document;
  const figs = root ? [...(root.matches?.('figure.live') ? [root] : root.querySelectorAll('figure.live'))] : [];
  return figs.every((f) => f.dataset.state === 'ready');
}, selector ?? null, { timeout: 60000 });
// lay every section out for real: with content-visibility: auto, the sections above the shot
// change height as they scroll in and out of view, and the element moves under the camera
await page.addStyleTag({ content: 'main section { content-visibility: visible !important; }' });
if (open) await page.$$eval(open, (ds) => ds.forEach((d) => { d.open = true; }));
// An element is shot in a window at least as tall as it, scrolled to its top, once it stays put
// for a few frames. (Shot in a 900 px window, a taller section came out shifted 250–300 px into
// the section before, its end cut: the page moved under the shot.)
if (selector) {
  // the element's box in the window once it has not moved for 5 frames (scrolled to its top first)
  const settle = (sel) => page.evaluate(async (s) => {
    const el = document.querySelector(s);
    if (!el) return null;
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    window.scrollTo({ top: el.getBoundingClientRect().top + scrollY, behavior: 'instant' });
    const rect = () => { const b = el.getBoundingClientRect(); return { x: b.left, y: b.top, width: b.width, height: b.height }; };
    let last = '', still = 0;
    for (let i = 0; i < 120 && still < 5; i++) {
      await frame();
      if (Math.abs(el.getBoundingClientRect().top) > 0.5) window.scrollTo({ top: el.getBoundingClientRect().top + scrollY, behavior: 'instant' });
      const now = JSON.stringify(rect());
      still = now === last ? still + 1 : 0;
      last = now;
    }
    return rect();
  }, sel);
  let box = await settle(selector);
  if (!box) throw new Error(`screenshot: nothing matches ${selector}`);
  // a window as tall as the element, until the element's height holds in it (what comes into view
  // may still grow)
  for (let i = 0; i < 4; i++) {
    const height = Math.min(16000, Math.max(900, Math.ceil(box.height)));
    if (page.viewportSize().height === height) break;
    await page.setViewportSize({ width, height });
    box = await settle(selector);
  }
  await page.locator(selector).first().screenshot({ path: out });
}
else await page.screenshot({ path: out, fullPage: true });
console.log('wrote', out, 'from', url + query);
await browser.close();
await server.close();
