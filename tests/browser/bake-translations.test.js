// web/plots/bake-translations.js: the translations Plot gives each tick and label are baked into
// their coordinates (a transform each made every frame's layerization twice as slow), and every
// element is still drawn exactly where it was.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

let h;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h?.close(); });

// Plot's forms (ticks, tick labels with y in em and a lowered subscript, groups), and the forms
// that must keep their transform: a rotation, a y in em beside a dy, relative and curved paths.
const SHAPES = `
  <g aria-label="x-axis tick" fill="none" stroke="currentColor" transform="translate(0.5,0)">
    <path transform="translate(40,270)" d="M0,0L0,6"></path><path transform="translate(90.25,270)" d="M0,0L0,6"></path></g>
  <g aria-label="x-axis tick label" transform="translate(0,9)">
    <text y="0.71em" transform="translate(40,270)">40</text>
    <text y="0.71em" transform="translate(90.25,270)">d<tspan dy="0.3em" font-size="0.8em">k</tspan></text></g>
  <text transform="translate(12,150) rotate(-90)" text-anchor="middle">loss</text>
  <text x="3" y="4" transform="translate(100,20)">x</text>
  <text y="0.32em" dy="0.1em" transform="translate(100,40)">y</text>
  <text transform="translate(7)">one</text>
  <path transform="translate(10,10)" d="M0,0H50V20L0,20Z" fill="none" stroke="black"></path>
  <path transform="translate(10,60)" d="m0,0l5,5" stroke="black"></path>
  <path transform="translate(10,80)" d="M0,0C1,1 2,2 3,3" stroke="black"></path>
  <line transform="translate(5,6)" x1="0" x2="30" y1="2" y2="2" stroke="black"></line>
  <rect transform="translate(200,100)" width="20" height="10"></rect>
  <circle transform="translate(300,200)" r="4"></circle>`;

describe('baked translations', () => {
  it('draw every element where its translation put it, and leave groups, rotations and relative or curved paths as they were', async () => {
    const page = await h.browser.newPage();
    await page.setContent(`<svg id="a" width="400" height="300" font-size="10" font-family="sans-serif">${SHAPES}</svg>`);
    await page.addScriptTag({ content: `${readFileSync('web/plots/bake-translations.js', 'utf8').replace(/^export /gm, '')}` });
    const r = await page.evaluate(() => {
      const a = document.getElementById('a'), b = a.cloneNode(true);
      document.body.append(b);
      const baked = bakeTranslations(b);  // a global of the classic script above
      const at = (svg) => { const o = svg.getBoundingClientRect(); return [...svg.querySelectorAll('*')].map((e) => {
        const q = e.getBoundingClientRect();
        return [q.x - o.x, q.y - o.y, q.width, q.height];
      }); };
      return { baked, a: at(a), b: at(b), kept: [...b.querySelectorAll('[transform]')].map((e) => `${e.tagName} ${e.getAttribute('transform')}`),
        tick: b.querySelector('path').getAttribute('d'), label: ['x', 'y', 'dy'].map((n) => b.querySelector('text').getAttribute(n)) };
    });
    await page.close();
    expect(r.baked).toBe(10);
    expect(r.kept).toEqual(['g translate(0.5,0)', 'g translate(0,9)', 'text translate(12,150) rotate(-90)', 'text translate(100,40)',
      'path translate(10,60)', 'path translate(10,80)']);
    expect(r.tick).toBe('M40,270L40,276');
    expect(r.label).toEqual(['40', '270', '0.71em']);
    expect(r.b.length).toBe(r.a.length);
    r.a.forEach((box, i) => box.forEach((v, k) => expect(Math.abs(r.b[i][k] - v), `element ${i}`).toBeLessThan(0.01)));
  });

  it('leave a page figure of four plots with a transform only on its groups', async () => {
    const { page, errors, close } = await h.open('?step=training-ablation');
    await page.waitForFunction(() => document.querySelector('#training-ablation figure.live')?.dataset.state === 'ready', null, { timeout: 60000 });
    const left = await page.$$eval('#training-ablation figure.live svg [transform]', (es) => es.map((e) => e.tagName));
    expect(left.length).toBeGreaterThan(0);  // Plot's mark groups
    expect(left.filter((t) => t !== 'g')).toEqual([]);  // the y-axis labels: Plot sets them without a rotation here
    expect(errors).toEqual([]);
    await close();
  });
});
