// Page soak: random control changes across every step of the built page in headless Chromium,
// as fast as the page takes them (each waits for its figure to redraw, or for a newer change to
// supersede it). Reports console errors, uncaught errors, unhandled rejections, the page's JS
// heap (after a forced GC) and its DOM nodes alive as the changes go on.
//   node bench/page-soak.mjs [--changes=1000] [--seed=1] [--json]
// tests/browser/soak.test.js runs the same with fewer changes and asserts the outcome.
import { resolve } from 'node:path';
import { preview } from 'vite';
import { chromium } from 'playwright-core';

export async function soak({ dist = process.env.ATTNLAB_DIST || 'dist', changes = 1000, seed = 1, report = () => {} } = {}) {
  const server = await preview({ build: { outDir: resolve(dist) }, preview: { port: 0 }, logLevel: 'silent' });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--js-flags=--expose-gc'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => addEventListener('unhandledrejection', (e) => console.error(`unhandled rejection: ${e.reason}`)));
  await page.goto(server.resolvedUrls.local[0]);
  const steps = await page.$$eval('main section[id]', (ss) => ss.filter((s) => s.querySelector('figure.live')).map((s) => s.id));
  const heap = async () => { await page.evaluate(() => globalThis.gc?.()); return (await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0)); };
  // DOM nodes alive (the JS heap holds only their wrappers): nodes kept off the page, as the live
  // formulas' recent shapes (web/tex.js) and the plots of other layouts (morph.js), count here
  const cdp = await page.context().newCDPSession(page);
  const domNodes = async () => (await cdp.send('Memory.getDOMCounters')).nodes;

  let x = seed >>> 0 || 1;
  const rand = (n) => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x % n; };
  const samples = [];
  for (let i = 0; i < changes; i++) {
    const id = steps[rand(steps.length)];
    const pick = rand(1 << 30);
    await page.evaluate(async ([sid, pick]) => {
      const fig = document.querySelector(`#${sid} figure.live`);
      fig.scrollIntoView({ block: 'center' });
      const inputs = [...fig.querySelectorAll('.controls [data-param]')];
      const el = inputs[pick % inputs.length];
      if (el.type === 'range') el.value = String(pick % (Number(el.max) + 1));
      else if (el.tagName === 'SELECT') el.selectedIndex = pick % el.options.length;
      else el.value = String(pick % 50);
      const before = Number(fig.dataset.updates || 0);
      el.dispatchEvent(new Event(el.type === 'range' ? 'input' : 'change', { bubbles: true }));
      // the redraw, or 3 s (a long sweep may be superseded by the next change: that is the point)
      await new Promise((res) => {
        const t = setTimeout(res, 3000);
        const obs = new MutationObserver(() => { if (Number(fig.dataset.updates || 0) > before) { clearTimeout(t); obs.disconnect(); res(); } });
        obs.observe(fig, { attributes: true, attributeFilter: ['data-updates', 'data-state'] });
      });
    }, [id, pick]);
    if (i % 100 === 0 || i === changes - 1) { samples.push({ change: i + 1, heapBytes: await heap(), domNodes: await domNodes() }); report(samples.at(-1)); }
  }
  await browser.close();
  await server.close();
  return { changes, steps: steps.length, errors, samples };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (k, d) => Number(process.argv.find((a) => a.startsWith(`--${k}=`))?.split('=')[1] ?? d);
  const json = process.argv.includes('--json');
  const r = await soak({ changes: arg('changes', 1000), seed: arg('seed', 1),
    report: (s) => { if (!json) console.log(`  after ${String(s.change).padStart(5)} changes: JS heap ${(s.heapBytes / 2 ** 20).toFixed(1)} MiB, ${s.domNodes} DOM nodes`); } });
  if (json) console.log(JSON.stringify(r, null, 2));
  else console.log(`page soak: ${r.changes} random control changes over ${r.steps} steps; ${r.errors.length} console errors, uncaught errors or unhandled rejections${r.errors.length ? `: ${r.errors.slice(0, 5).join(' | ')}` : ''}`);
}
