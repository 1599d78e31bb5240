// tools/prerender-math.js: the page's static math typeset at build time, as the browser would
// have typeset it, with KaTeX's inline styles turned into classes of a stylesheet (a strict CSP
// refuses style attributes in HTML). tests/browser/page.test.js measures the result in Chromium.
import { readFileSync, readdirSync } from 'node:fs';
import katex from 'katex';
import { describe, expect, it } from 'vitest';
import { mathStylesheet, prerenderMath, styleClass, withoutTexSource } from '../../tools/prerender-math.js';

const render = (tex, displayMode) => katex.renderToString(tex, { displayMode, throwOnError: false });
const text = (html) => html.replace(/<[^>]*>/g, '');
const tags = (html) => html.match(/<[a-zA-Z][\w-]*/g);

describe('prerenderMath', () => {
  it('turns inline and display math into KaTeX’s markup for their text, entities decoded, each style a class, its MathML without the TeX source', () => {
    const styles = new Map();
    const html = '<p>if <span class="math">j&gt;i</span> then</p><div class="math display">\\frac{a}{b}\\; c&lt;d</div>';
    const out = prerenderMath(html, styles);
    const katexOf = [render('j>i', false), render('\\frac{a}{b}\\; c<d', true)].map(withoutTexSource);
    expect(render('j>i', false)).toContain('<annotation encoding="application/x-tex">j&gt;i</annotation>');
    expect(katexOf[0]).not.toContain('<annotation');
    expect(out.match(/<math /g)).toHaveLength(2);  // the MathML screen readers read
    expect(out).not.toContain('<annotation');
    expect(out).not.toContain('style=');
    expect(text(out)).toBe(`if ${text(katexOf[0])} then${text(katexOf[1])}`);
    expect(tags(out)).toEqual(['<p', '<span', ...tags(katexOf[0]), '<div', ...tags(katexOf[1])]);
    // every style KaTeX wrote is one class, whose rule holds the same declarations, !important
    const written = katexOf.join('').match(/style="[^"]*"/g).map((s) => s.slice(7, -1));
    expect([...styles.values()].sort()).toEqual([...new Set(written)].sort());
    for (const style of written) expect(out).toMatch(new RegExp(`class="[^"]*\\b${styleClass(style)}\\b`));
    const css = mathStylesheet(styles);
    for (const [cls, style] of styles) {
      const rule = css.match(new RegExp(`\\.${cls}\\{([^}]*)\\}`))[1];
      expect(rule.split(';')).toEqual(style.split(';').filter(Boolean).map((d) => `${d.trim()}!important`));
    }
  });

  it('leaves everything else as it is: other classes, math with markup inside, text', () => {
    const html = '<span class="mathx">a</span><span class="math"><b>x</b></span><span class="math inline">y</span> a &gt; b';
    expect(prerenderMath(html)).toBe(html);
  });

  it('typesets every math element of the step sections, with no KaTeX error and no style attribute left', () => {
    const dir = new URL('../../web/sections/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const html = readFileSync(new URL(file, dir), 'utf8');
      const written = (html.match(/class="math/g) ?? []).length;
      const done = prerenderMath(html);
      expect((done.match(/class="math(?: display)?"><span class="katex/g) ?? []).length, file).toBe(written);
      expect(done, file).not.toContain('katex-error');
      expect(done, file).not.toContain('style="');
    }
  });
});

describe('styleClass', () => {
  it('names each of the whole page’s styles apart: the build, which stops on a collision, goes through', () => {
    const styles = new Map();
    const dir = new URL('../../web/sections/', import.meta.url);
    expect(() => {
      for (const file of readdirSync(dir)) prerenderMath(readFileSync(new URL(file, dir), 'utf8'), styles);
    }).not.toThrow();
    expect(styles.size).toBeGreaterThan(200);
  });

  it('stops the build when two styles get one name', () => {
    const style = render('\\frac{a}{b}', false).match(/style="([^"]*)"/)[1];
    const styles = new Map([[styleClass(style), 'color:red']]);  // another style, under that name
    expect(() => prerenderMath('<span class="math">\\frac{a}{b}</span>', styles)).toThrow(/hash alike/);
  });
});
