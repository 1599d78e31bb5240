// The sentences a step writes at run time read true at the ends of its controls' ranges: a
// departure of strength 0, a divisor of 1, a count of 0 or 1, a threshold below the usual 0.9, a
// peak too small to saturate (each read wrongly there before).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

// the figure's text once it and its side reports are drawn
async function textOf(query, id) {
  const { page, errors, close } = await h.open(query);
  await page.locator(`#${id} figure.live`).scrollIntoViewIfNeeded();
  await page.waitForFunction((s) => document.querySelector(`#${s} figure.live`)?.dataset.state === 'ready', id, { timeout: 60000 });
  // every answer and data table open: their text is read too
  const text = await page.$eval(`#${id} figure.live`, (f) => { f.querySelectorAll('details').forEach((d) => { d.open = true; }); return f.innerText; });
  expect(errors).toEqual([]);
  await close();
  return text;
}

describe('sentences computed at run time', () => {
  it('breaking-assumptions: a mean or a correlation of 0 breaks no premise, and 1/√dₖ normalises', async () => {
    for (const [query, premise] of [['departure=mean&mu=0', 'A mean μ = 0'], ['departure=rho&rho=0', 'A correlation ρ = 0']]) {
      const text = await textOf(`?step=breaking-assumptions&${query}`, 'breaking-assumptions');
      expect(text).toContain(`${premise} breaks nothing`);
      expect(text).toMatch(/\tnone \([μρ]\u00a0=\u00a00\)\t/);  // the overview table's "premise it breaks" agrees
      expect(text).not.toMatch(/does not normalise/);
    }
    // and a non-zero one still breaks it
    expect(await textOf('?step=breaking-assumptions&departure=mean&mu=0.5', 'breaking-assumptions')).toMatch(/A mean μ = 0\.5 breaks “mean 0”.*does not normalise/);
  });

  it('breaking-assumptions: with ν ≤ 4 the intervals shrink slowly and lose their coverage, they do not fail to shrink', async () => {
    const text = await textOf('?step=breaking-assumptions&departure=student-t&df=3', 'breaking-assumptions');
    expect(text).toMatch(/more slowly than 1\/\u2060√N/);
    expect(text).not.toMatch(/do not settle/);
  });

  it('claims: the tally agrees in number with each count', async () => {
    const text = await textOf('?step=claims', 'claims');
    const tally = text.match(/(\d+) checks? out, (\d+) (?:is|are) approximately right, (\d+) (?:is|are) wrong and (\d+) (?:is|are) misleading/);
    expect(tally).not.toBeNull();
    for (const n of tally.slice(1)) expect(tally[0]).not.toMatch(new RegExp(`\\b${n} ${n === '1' ? '(are|check)\\b' : '(is|checks)\\b'}`));
    expect(tally[0]).toMatch(/\b1 (is|checks)\b/);  // seed 1 has a count of 1 (approximately right)
  });

  it('vanishing-gradients: no one-hot row is "0 of …", a tiny median is written as such, and no norm\'s interval goes below 0', async () => {
    const none = await textOf('?step=vanishing-gradients&n=64&rows=32', 'vanishing-gradients');
    expect(none).toMatch(/none of the 32 queries at dₖ = 4096 is/);
    expect(none).not.toMatch(/\b0 of the 32 queries/);
    expect(none).not.toMatch(/\t\[−/);  // a table's interval whose lower end is below 0
    // n = 2 and d_k = 4096: the unscaled median ‖J‖ is ~10⁻²⁷, which a plain format writes as 0
    const tiny = await textOf('?step=vanishing-gradients&n=2&rows=1024&dk=4096', 'vanishing-gradients');
    const line = tiny.split('\n').find((l) => /^q·k \(no scale\)\t/.test(l));
    expect(line.split('\t')[3]).toMatch(/×10⁻/);
  });

  it('shift-vs-scale: dividing by 1 leaves the weights as they were', async () => {
    const text = await textOf('?step=shift-vs-scale&divisor=1', 'shift-vs-scale');
    expect(text).toMatch(/Dividing \[100, 102, 103\] by 1 leaves it, and its weights .* as they were/);
    expect(text).not.toMatch(/by 1 keeps its ratios and changes/);
  });

  it('exercises: t = 0.9 is passed later than a lower threshold, and a small peak is not called saturated', async () => {
    const low = await textOf('?step=exercises&threshold=0.5&peak=1', 'exercises');
    expect(low).toMatch(/With t = 0\.5, .* \(t = 0\.9 is passed later, at x = /);
    expect(low).not.toMatch(/already/);
    expect(low).toMatch(/is not saturated yet/);
    expect(low).not.toMatch(/a saturated softmax/);
    const high = await textOf('?step=exercises&threshold=0.99&peak=8', 'exercises');
    expect(high).toMatch(/\(t = 0\.9 is passed already, at x = /);
    expect(high).toMatch(/times smaller than the uniform one’s .* a saturated softmax \(its largest weight/);
  });
});
