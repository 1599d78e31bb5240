// Edge case web_csp_without_wasm_unsafe_eval: a host whose Content-Security-Policy lacks
// 'wasm-unsafe-eval' cannot run WebAssembly. The page says so in words (status line and each
// figure's note) instead of hanging on "computing", and nothing else breaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'";
let h;
beforeAll(async () => { h = await startHarness({ headers: { 'Content-Security-Policy': CSP } }); });
afterAll(async () => { await h?.close(); });

describe("a CSP without 'wasm-unsafe-eval'", () => {
  it('the page and the embed say that WebAssembly is blocked by the CSP; figures stop computing with that note', async () => {
    const { page, errors, close } = await h.open('?step=setup');
    await page.waitForFunction(() => document.querySelector('#engine-status')?.dataset.state === 'error', null, { timeout: 30000 });
    const status = await page.textContent('#engine-status');
    expect(status).toContain('Content-Security-Policy');
    expect(status).toContain("'wasm-unsafe-eval'");
    await page.waitForFunction(() => document.querySelector('#setup figure.live')?.dataset.state === 'error', null, { timeout: 30000 });
    expect(await page.textContent('#setup figure.live .note')).toContain('Content-Security-Policy');
    // the only console errors are the browser's own CSP reports
    expect(errors.filter((e) => !/Content Security Policy|wasm-eval|wasm-unsafe-eval/i.test(e))).toEqual([]);

    await page.goto(`${h.base}embed.html?step=dot-variance`);
    await page.waitForFunction(() => document.querySelector('figure.live')?.dataset.state === 'error', null, { timeout: 30000 });
    expect(await page.textContent('figure.live .note')).toContain("'wasm-unsafe-eval'");
    await close();
  });
});
