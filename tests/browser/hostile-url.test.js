// Hand-edited and hostile URLs: every parameter of every step given markup, a huge number, a
// negative one, NaN or a long string. Each value is clamped or replaced by its default with a
// visible note; nothing from the URL becomes markup; every figure still computes, without console
// errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, waitForUpdates } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

const MARKUP = '<img src=x onerror="window.__pwned=1">';
const HOSTILE = [MARKUP, '1e308', '-1e9', 'NaN', 'Infinity', 'x'.repeat(5000), '0x10', ''];

describe('hostile URL parameters', () => {
  it('every step: markup, huge, negative, NaN and long values are clamped or refused with a note, never rendered as markup', async () => {
    const { page, errors, close } = await h.open('');
    // every step's controls are rendered on load (figures compute only when shown)
    const steps = await page.$$eval('main section[id]', (ss) => ss.filter((s) => s.querySelector('figure.live .controls'))
      .map((s) => [s.id, [...s.querySelectorAll('.controls [data-param]')].map((e) => e.name)]));
    await close();
    expect(steps.length).toBeGreaterThanOrEqual(13);
    for (const [k, [id, names]] of steps.entries()) {
      // one hostile value per parameter, a different one for each step
      const query = names.map((n, i) => `${n}=${encodeURIComponent(HOSTILE[(i + k) % HOSTILE.length])}`).join('&');
      const { page: p, errors: errs, close: done } = await h.open(`?step=${id}&${query}&${encodeURIComponent(MARKUP)}=1`);
      await waitForUpdates(p, id, 1);
      const state = await p.evaluate((sid) => ({
        pwned: window.__pwned ?? 0,
        imgs: document.querySelectorAll('img[src="x"]').length,
        note: document.querySelector(`#${sid} figure.live .note`)?.textContent ?? '',
        noteShown: !document.querySelector(`#${sid} figure.live .note`)?.hidden,
        values: [...document.querySelectorAll(`#${sid} .controls [data-param]`)].map((e) => e.value),
      }), id);
      expect(state.pwned, id).toBe(0);
      expect(state.imgs, id).toBe(0);
      // a value the step cannot use is named in a visible note, quoted as text
      if (names.some((n, i) => ['NaN', 'x'.repeat(5000), MARKUP, '0x10', ''].includes(HOSTILE[(i + k) % HOSTILE.length]) )) {
        expect(state.noteShown, id).toBe(true);
        expect(state.note.length, id).toBeLessThan(2000);  // long values are cut, not echoed whole
      }
      for (const v of state.values) expect(v.length, id).toBeLessThan(40);
      expect(errs, id).toEqual([]);
      await done();
    }
    expect(errors).toEqual([]);
  }, 300000);
});
