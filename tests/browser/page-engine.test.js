// Light requests on the page's own engine (web/local-engine.js, web/engine-client.js): once it has
// loaded, a change whose experiment the worker answered in under 12 ms (LIGHT_MS) is computed on the page,
// with no request to the worker, and gives the worker's numbers; a heavy one still goes to the
// worker. The single-file build has no page engine (tests/browser/embed.test.js opens it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readouts, startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const posted = (page) => page.evaluate(() => performance.getEntriesByName('attnlab:posted').length);
const updates = (page, id) => page.$eval(`#${id} figure.live`, (f) => Number(f.dataset.updates));

async function setSeed(page, id, seed) {
  const n = await updates(page, id);
  await page.fill(`#${id} input[name="seed"]`, String(seed));
  await page.dispatchEvent(`#${id} input[name="seed"]`, 'change');
  await waitForUpdates(page, id, n + 1);
}

describe('the page engine', () => {
  it('answers a light change with no request to the worker, with the numbers the worker gives', async () => {
    const { page, errors, close } = await h.open('?step=setup&seed=1');
    await page.locator('#setup figure.live').scrollIntoViewIfNeeded();
    await waitForUpdates(page, 'setup', 1);
    const fromWorker = await readouts(page, 'setup');  // the first run of an experiment: the worker
    await page.waitForFunction(() => performance.getEntriesByName('attnlab:page-engine').length > 0, null, { timeout: 30000 });
    await setSeed(page, 'setup', 2);
    const before = await posted(page);
    await setSeed(page, 'setup', 1);
    expect(await posted(page)).toBe(before);  // computed on the page
    expect(await readouts(page, 'setup')).toEqual(fromWorker);
    expect(errors).toEqual([]);
    await close();
  });

  it('shares its scripts with the worker: one file holds the engine\'s glue, one engine.js', async () => {
    // Both engines import the same chunks (vite.config.js, engineWorkerChunk); a worker bundled on
    // its own would carry a second copy of each, ~18 KB gzipped of the page's transfer.
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const scripts = new Map();  // url → body (the worker and the page each request a shared file)
    page.on('response', (r) => { if (/\.m?js$/.test(new URL(r.url()).pathname)) scripts.set(r.url(), r.text()); });
    await page.goto(`${h.base}?step=setup`);
    await page.waitForFunction(() => performance.getEntriesByName('attnlab:page-engine').length > 0, null, { timeout: 30000 });
    const bodies = await Promise.all(scripts.values());
    const holding = (text) => bodies.filter((body) => body.includes(text)).length;
    expect(holding('BindingError')).toBe(1);  // Embind's glue
    expect(holding('the engine ran out of memory for the inputs')).toBe(1);  // web/engine.js
    await context.close();
  });

  it('leaves a heavy run to the worker', async () => {
    // 10⁵ pairs at d_k = 64: 12.8 million normals for the histogram, 52 ms in Node on this host.
    // (The d_k sweep alone, 1.4 million normals, fell under LIGHT_MS on a fast host, and the test
    // that changed only the seed at 5,000 pairs then failed: it could not tell the engines apart.)
    const { page, errors, close } = await h.open('?step=dot-variance&seed=1&count=100000');
    await page.locator('#dot-variance figure.live').scrollIntoViewIfNeeded();
    await waitForUpdates(page, 'dot-variance', 1);
    await page.waitForFunction(() => performance.getEntriesByName('attnlab:page-engine').length > 0, null, { timeout: 30000 });
    const before = await posted(page);
    // (seed 7, not 2: the seeds next to the one shown are computed ahead in the worker, and one of
    // them would be answered without a request)
    await setSeed(page, 'dot-variance', 7);
    expect(await posted(page)).toBeGreaterThan(before);
    expect(errors).toEqual([]);
    await close();
  });
});
