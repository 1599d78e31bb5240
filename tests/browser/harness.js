// Browser-test harness: serves the built dist/ with Vite's preview server and drives Debian's
// Chromium through playwright-core (which never downloads a browser). Collects console errors
// and uncaught exceptions per page, so every test can assert there were none.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { preview } from 'vite';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

// ATTNLAB_DIST names another build folder (e.g. a private one while others rebuild dist/).
export const DIST = process.env.ATTNLAB_DIST || 'dist';

// Options for the preview server: `headers` sent with every response (e.g. a
// Content-Security-Policy), `cors` as Vite's preview.cors (true: Access-Control-Allow-Origin: *).
export async function startHarness({ headers, cors } = {}) {
  if (!existsSync(`${DIST}/index.html`)) throw new Error(`${DIST}/ is missing: run \`bash tools/build.sh --page\` first`);
  const server = await preview({ build: { outDir: resolve(DIST) }, preview: { port: 0, strictPort: false, headers, cors }, logLevel: 'silent' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const base = server.resolvedUrls.local[0];
  return {
    base,
    browser,  // for tests that set up their own context (routes, file:// pages)
    async open(query = '', options = {}) {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, ...options });
      const page = await context.newPage();
      const errors = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('request', (r) => { const u = r.url(); if (!u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:')) errors.push(`off-origin request: ${u}`); });
      page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} for ${r.url()}`); });
      await page.goto(base + query);
      return { page, errors, close: () => context.close() };
    },
    async close() { await browser.close(); await server.close(); },
  };
}

// Waits until the figure of `stepId` has finished `n` updates in total.
export async function waitForUpdates(page, stepId, n) {
  await page.waitForFunction(([id, k]) => {
    const f = document.querySelector(`#${id} figure.live`);
    return f && f.dataset.state === 'ready' && Number(f.dataset.updates) >= k;
  }, [stepId, n], { timeout: 30000 });
}

// The readout tables of a step as arrays of row texts.
export function readouts(page, stepId) {
  return page.$$eval(`#${stepId} table.readout`, (tables) =>
    tables.map((t) => [...(t.tBodies[0]?.rows ?? [])].map((r) => [...r.cells].map((c) => c.textContent))));
}

// Brings every live figure of the page into view in turn (a figure mounts when it nears the
// viewport) and waits until each is ready; the ids of their steps, in the page's order.
export async function everyFigureReady(page) {
  const ids = await page.$$eval('main section[id]', (ss) => ss.filter((s) => s.querySelector('figure.live')).map((s) => s.id));
  for (const id of ids) {
    await page.locator(`#${id} figure.live`).scrollIntoViewIfNeeded();
    await page.waitForFunction((s) => document.querySelector(`#${s} figure.live`)?.dataset.state === 'ready', id, { timeout: 60000 });
  }
  return ids;
}

export const parseNum = (s) => Number(s.replace('−', '-').replace(/,/g, ''));

// Each heatmap's cell labels (in the page's `.heatmap svg:last-child` maps under `selector`) as
// [{ contrast, where }]: WCAG's contrast ratio of the label's fill against its cell's (axe does
// not judge text drawn in SVG).
export function heatmapLabelContrasts(page, selector = '') {
  return page.$$eval(`${selector} .heatmap svg:last-child`, (maps) => maps.map((map) => {
    const rgb = (c) => (c === 'white' ? [255, 255, 255] : c === 'black' ? [0, 0, 0] : c.match(/\d+/g).slice(0, 3).map(Number));
    const lum = (c) => rgb(c).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
      .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
    const cells = [...map.querySelectorAll('g[aria-label="cell"] rect')].map((r) => r.getAttribute('fill'));
    return [...map.querySelectorAll('g[aria-label="text"] text')].map((t, k) => {
      const [a, b] = [lum(t.getAttribute('fill')), lum(cells[k])].sort((x, y) => y - x);
      return { contrast: (a + 0.05) / (b + 0.05), where: `${map.getAttribute('aria-label')}, cell ${k}: ${t.getAttribute('fill')} on ${cells[k]}` };
    });
  }));
}
