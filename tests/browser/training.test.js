// The training-ablation step in Chromium: the default run plays by itself and draws four curves per
// plot; pause keeps the state and play continues it to the same numbers as an uninterrupted run;
// step and reset; CSV and JSON exports hold every point; it draws while it trains.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const ID = 'training-ablation';
const status = (page) => page.textContent(`#${ID} .training-status`);
const atStep = async (page) => Number((await status(page)).match(/step (\d+)/)[1]);
const posted = (page) => page.evaluate(() => performance.getEntriesByName('attnlab:posted').length);
// what the figure shows of the main run: status, table, summary, every curve's path
const mainRun = (page) => page.$eval(`#${ID} .figure-body`, (b) => [
  b.querySelector('.training-status').textContent, b.querySelector('table.training-runs').textContent,
  b.querySelector('.live-summary').textContent, ...[...b.querySelectorAll('.panel g[aria-label="line"] path')].map((p) => p.getAttribute('d'))]);
const tableRows = (page) => page.$$eval(`#${ID} figure table.training-runs tbody tr`, (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));

describe('training-ablation in Chromium', () => {
  it('plays the default run to 300 steps, draws four curves in each plot, fills the table, the summary and the d_k report', async () => {
    const { page, errors, close } = await h.open(`?step=${ID}`);
    await waitForUpdates(page, ID, 1);
    expect(await status(page)).toBe('step 300 of 300');
    for (const p of await page.$$(`#${ID} .panel .plot svg.attnlab-plot`)) {
      expect(await p.$$eval('g[aria-label="line"] path', (ps) => ps.length)).toBe(4);
    }
    const rows = await tableRows(page);
    expect(rows.map((r) => r[0])).toEqual(['α\u00a0=\u00a01/\u2060√dₖ', 'α\u00a0=\u00a01 (none)', 'α\u00a0=\u00a01/\u2060dₖ', 'α\u00a0=\u00a01/\u2060τ, learned']);
    for (const r of rows) expect(Number(r[1].replace('×10', 'e').replace('⁻', '-'))).toBeGreaterThan(0);
    expect(await page.textContent(`#${ID} .live-summary`)).toMatch(/After 300 steps at dₖ = 128/);
    // the figure is ready only once its report at small and large d_k is in
    expect(await page.textContent(`#${ID} .training-contrast`)).toMatch(/at dₖ = 256 with Adam/);
    expect(errors).toEqual([]);
    await close();
  });

  it('pause keeps the state, play continues it, and the result equals an uninterrupted run; step adds 10; reset returns to 0', async () => {
    // reference: an uninterrupted run of 200 steps
    const ref = await h.open(`?step=${ID}&steps=1000&dk=256`);
    await waitForUpdates(ref.page, ID, 1);
    const uninterrupted = await tableRows(ref.page);
    await ref.close();

    const { page, errors, close } = await h.open(`?step=${ID}&steps=1000&dk=256`);
    await page.waitForFunction((id) => /step ([1-9]\d*) of 1000/.test(document.querySelector(`#${id} .training-status`)?.textContent ?? ''), ID);
    await page.click(`#${ID} .training-toolbar button:text("Pause")`);
    const paused = await atStep(page);
    expect(paused).toBeLessThan(1000);
    await page.waitForTimeout(300);
    expect(await atStep(page)).toBe(paused);  // it stays
    expect(await page.textContent(`#${ID} .training-toolbar button >> nth=0`)).toBe('Play');
    await page.click(`#${ID} .training-toolbar button:text("Play")`);
    await page.waitForFunction((id) => document.querySelector(`#${id} .training-status`)?.textContent === 'step 1000 of 1000', ID, { timeout: 60000 });
    expect(await tableRows(page)).toEqual(uninterrupted);

    await page.click(`#${ID} .training-toolbar button:text("Step +10")`);
    await page.waitForFunction((id) => document.querySelector(`#${id} .training-status`)?.textContent === 'step 1010 of 1000', ID);
    await page.click(`#${ID} .training-toolbar button:text("Reset")`);
    expect(await status(page)).toBe('step 0 of 1000');
    expect(await page.textContent(`#${ID} .live-summary`)).toContain('Step 0');
    expect(errors).toEqual([]);
    await close();
  });

  it('play right after a reset trains the run again, to the same numbers', async () => {
    // (the same request as the run just played was answered from the figure's last result, the
    // run's last chunk, which continues nothing: it stayed at step 0)
    const { page, errors, close } = await h.open(`?step=${ID}`);
    await waitForUpdates(page, ID, 1);
    const played = await tableRows(page);
    await page.click(`#${ID} .training-toolbar button:text("Reset")`);
    expect(await status(page)).toBe('step 0 of 300');
    await page.click(`#${ID} .training-toolbar button:text("Play")`);
    await page.waitForFunction((id) => document.querySelector(`#${id} .training-status`)?.textContent === 'step 300 of 300', ID, { timeout: 60000 });
    expect(await tableRows(page)).toEqual(played);
    expect(errors).toEqual([]);
    await close();
  });

  it('the steps control shows a prefix of the same run when moved down, and trains only the new steps when moved up', async () => {
    const fresh = async (steps) => {
      const ref = await h.open(`?step=${ID}&dk=32&steps=${steps}`);
      await waitForUpdates(ref.page, ID, 1);
      const shown = await mainRun(ref.page);
      await ref.close();
      return shown;
    };
    const { page, errors, close } = await h.open(`?step=${ID}&dk=32`);
    await waitForUpdates(page, ID, 1);
    const move = async (by, updates) => {
      await page.$eval(`#${ID} [data-param="steps"]`, (e, d) => {
        e.value = String(Number(e.value) + d);
        e.dispatchEvent(new Event('input', { bubbles: true }));
      }, by);
      await waitForUpdates(page, ID, updates);
    };
    const before = await posted(page);
    await move(-1, 2);  // 300 → 200: drawn from the curves trained already, no request
    expect(await posted(page)).toBe(before);
    expect(await mainRun(page)).toEqual(await fresh(200));
    const plots = () => page.evaluateHandle((id) => [...document.querySelectorAll(`#${id} .panel .plot svg.attnlab-plot`)], ID);
    const builds = () => page.evaluate(() => performance.getEntriesByName('attnlab:plot').length);
    const at200 = await plots();
    await move(+2, 3);  // 200 → 500: steps 301 to 500 trained, the rest as before
    expect(await posted(page)).toBeGreaterThan(before);
    expect(await mainRun(page)).toEqual(await fresh(500));
    // back to 200: the plots of 200 steps drawn before come back (plots/training-curves.js), built
    // again by none
    const built = await builds();
    await move(-2, 4);
    expect(await page.evaluate(([a, b]) => a.length === 4 && a.every((n, i) => n === b[i]), [at200, await plots()])).toBe(true);
    expect(await builds()).toBe(built);
    expect(await mainRun(page)).toEqual(await fresh(200));
    expect(errors).toEqual([]);
    await close();
  });

  it('exports every point of every run as CSV and as JSON', async () => {
    const { page, errors, close } = await h.open(`?step=${ID}&steps=100&dk=32`, { acceptDownloads: true });
    await waitForUpdates(page, ID, 1);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click(`#${ID} button:text("Export CSV")`)]);
    const lines = readFileSync(await csv.path(), 'utf8').trim().split('\n');
    expect(lines[0]).toBe('step,run,loss,accuracy,entropy,grad_norm,scale');
    expect(lines.length).toBe(1 + 4 * 100);
    const [json] = await Promise.all([page.waitForEvent('download'), page.click(`#${ID} button:text("Export JSON")`)]);
    const data = JSON.parse(readFileSync(await json.path(), 'utf8'));
    expect(data.config).toMatchObject({ dk: 32, steps: 100, seed: 1 });
    for (const run of Object.values(data.runs)) expect(run.loss.length).toBe(100);
    // the CSV's first unscaled loss is the JSON's
    expect(Number(lines.find((l) => l.startsWith('1,none,')).split(',')[2])).toBeCloseTo(data.runs.none.loss[0], 6);
    expect(errors).toEqual([]);
    await close();
  });

  it('the small and large d_k report shows progress, and Stop ends it too, saying so', async () => {
    // steps=100: the main run ends quickly; the report (four runs of its own) takes seconds
    const { page, errors, close } = await h.open(`?step=${ID}&steps=100`);
    const contrast = `#${ID} .training-contrast`;
    // Stop is pressed in the same task that sees the report's progress bar, so the report cannot
    // have been drawn in between (an answer already on its way is dropped by Stop)
    await page.evaluate((id) => new Promise((resolve) => {
      const fig = document.querySelector(`#${id} figure.live`);
      const stopNow = () => {
        const busy = fig.querySelector('.busy'), text = fig.querySelector('.training-contrast');
        if (!busy || busy.hidden || !text?.textContent.startsWith('Training the runs')) return false;
        busy.querySelector('button').click();
        return true;
      };
      if (stopNow()) return resolve();
      const watch = new MutationObserver(() => { if (stopNow()) { watch.disconnect(); resolve(); } });
      watch.observe(fig, { attributes: true, childList: true, subtree: true, characterData: true });
    }), ID);
    expect(await page.getAttribute(`#${ID} figure.live`, 'data-state')).toBe('stopped');
    await page.waitForFunction((s) => document.querySelector(s)?.textContent.startsWith('Stopped before'), contrast);
    // the worker dropped it: no report arrives later
    await page.waitForTimeout(4000);
    expect(await page.textContent(contrast)).toMatch(/^Stopped before the runs at small and large dₖ were done/);
    expect(await page.getAttribute(`#${ID} figure.live`, 'data-state')).toBe('stopped');
    expect(errors).toEqual([]);
    await close();
  });

  it('a new run’s first chunk comes from the page’s engine, drawn in the task of the change, and the run ends as on a fresh page', async () => {
    const { page, errors, close } = await h.open(`?step=${ID}`);
    await waitForUpdates(page, ID, 1);
    await page.waitForFunction(() => performance.getEntriesByName('attnlab:page-engine').length > 0);
    // one change first: the load's first chunk, on a cold worker, may have taken over 12 ms, and
    // the page's engine takes only runs it knows to be light (engine-client.js)
    await page.selectOption(`#${ID} [data-param="init"]`, 'lecun');
    await waitForUpdates(page, ID, 2);
    // the change, then microtasks only: no message from the worker can be handled in between
    const inTask = await page.evaluate(async (id) => {
      const fig = document.querySelector(`#${id} figure.live`), select = fig.querySelector('[data-param="optimizer"]');
      const before = Number(fig.dataset.streamed || 0);
      select.value = 'adam';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      for (let k = 0; k < 100; k++) await Promise.resolve();
      return [Number(fig.dataset.streamed || 0) - before, fig.querySelector('.training-status').textContent,
        fig.querySelectorAll('.panel g[aria-label="line"] path').length, fig.dataset.engineMs];
    }, ID);
    // (the first chunk's engine time is not the figure's: the run's is, when it ends)
    expect(inTask).toEqual([1, 'step 2 of 300', 16, '0.00']);
    await waitForUpdates(page, ID, 3);
    const fresh = await h.open(`?step=${ID}&optimizer=adam&init=lecun`);
    await waitForUpdates(fresh.page, ID, 1);
    expect(await mainRun(page)).toEqual(await mainRun(fresh.page));
    expect(errors).toEqual([]);
    await fresh.close();
    await close();
  });

  it('draws the first streamed chunk as it arrives, and later ones only every 200 ms', async () => {
    // The page's clock is Playwright's, paused from the start: the worker trains in real time and
    // its chunks arrive, but no page timer fires until the test moves the clock. The first chunk
    // (2 steps) must be drawn without a timer; the chunks after it wait for the 200 ms between
    // redraws. (The run, d_k = 512, L = 32, 1000 steps, lasts seconds, far beyond the waits.)
    const context = await h.browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await context.addInitScript(() => {  // counts the messages the page receives from workers
      window.fromWorkers = 0;
      const Native = window.Worker;
      window.Worker = class extends Native {
        constructor(...args) { super(...args); this.addEventListener('message', () => { window.fromWorkers++; }); }
      };
    });
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1000);
    await page.goto(`${h.base}?step=${ID}&steps=1000&dk=512&seqLen=32`);
    await page.waitForSelector(`#${ID} .training-status`);
    // the engine's greeting, the run's start and a few chunks: several messages in
    await page.waitForFunction(() => window.fromWorkers >= 6, null, { timeout: 30000 });
    expect(await status(page)).toBe('step 2 of 1000');
    await page.clock.runFor(250);
    expect(await status(page)).toMatch(/^step (1[2-9]|[2-9]\d|\d{3}) of 1000$/);
    expect(errors).toEqual([]);
    await context.close();
  }, 60000);

  it('draws while it trains: the curves and the status advance through intermediate steps before the end', async () => {
    // (how long the main thread is busy per redraw is measured in bench/, not asserted here)
    // Every status the page shows is recorded by a MutationObserver, not by polling, so a fast
    // engine cannot slip between two looks; the run (d_k = 512, L = 32, 1000 steps: seconds)
    // spans many of the page's 200 ms redraws. (d_k = 256 with L = 8 took about 0.5 s on a fast
    // host: two redraws, and the test failed there.)
    const { page, errors, close } = await h.open(`?step=${ID}&steps=1000&dk=512&seqLen=32`);
    await page.waitForSelector(`#${ID} .training-status`);
    await page.evaluate((id) => {
      window.statuses = new Set();
      const el = document.querySelector(`#${id} .training-status`);
      window.statuses.add(el.textContent);
      new MutationObserver(() => window.statuses.add(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
    }, ID);
    await page.waitForFunction(() => [...window.statuses].some((s) => s.startsWith('step 1000')), null, { timeout: 60000 });
    const seen = await page.evaluate(() => [...window.statuses]);
    const intermediate = seen.filter((s) => /^step [1-9]\d* of 1000$/.test(s) && s !== 'step 1000 of 1000');
    expect(intermediate.length).toBeGreaterThanOrEqual(3);
    expect(errors).toEqual([]);
    await close();
  }, 120000);
});
