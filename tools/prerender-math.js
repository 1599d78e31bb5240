// The page's static math typeset at build time (vite.config.js runs it on index.html and
// embed.html once the step sections are inlined): every <span class="math">, <div class="math
// display"> or <p class="math display"> whose content is TeX text becomes KaTeX's HTML and MathML,
// as katex.render would have made it in the browser (but for the TeX source in the MathML, below). The page's script then typesets only what it
// finds untypeset (web/tex.js, typesetStatic), and its first figure no longer waits behind the
// ~400 formulas a page load used to typeset in one task (docs/PERFORMANCE.md).
// KaTeX positions its boxes with inline style attributes, which a strict Content-Security-Policy
// (style-src 'self', as the page supports) refuses in HTML; set from a script they were allowed.
// So each style becomes a class, named after a hash of its text, with the style as an !important
// rule (to win over katex.css as the attribute did) in a stylesheet of the page's own
// (mathStylesheet, served as virtual:prerendered-math.css).
import { createHash } from 'node:crypto';
import katex from 'katex';

const ENTITIES = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };
const decode = (s) => s.replace(/&(?:#(\d+)|#x([0-9a-f]+)|([a-z]+));/gi, (m, dec, hex, name) =>
  dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : ENTITIES[name] ?? m);

// an element whose class list is exactly math or math display, holding text only
const MATH = /<(span|div|p) class="(math(?: display)?)">([^<]*)<\/\1>/g;

// kx and 24 bits of the style's hash: short, as the 4,300 uses in the page repeat it (10 hex digits
// cost 3 KiB of the gzipped page more); classify refuses a collision
export const styleClass = (style) => `kx${createHash('sha256').update(style).digest('hex').slice(0, 6)}`;

// KaTeX's markup with each style="…" replaced by its class; styles: Map class → style, filled
function classify(markup, styles) {
  return markup.replace(/<([a-zA-Z][\w-]*)(\s[^<>]*?)?(\/?)>/g, (tag, name, attrs = '', close) => {
    const style = attrs.match(/\sstyle="([^"]*)"/);
    if (!style) return tag;
    const cls = styleClass(style[1]);
    if (styles.has(cls) && styles.get(cls) !== style[1]) throw new Error(`prerender-math: styles "${styles.get(cls)}" and "${style[1]}" hash alike`);
    styles.set(cls, style[1]);
    let rest = attrs.replace(style[0], '');
    rest = /\sclass="/.test(rest) ? rest.replace(/\sclass="([^"]*)"/, (_, c) => ` class="${c} ${cls}"`) : ` class="${cls}"${rest}`;
    return `<${name}${rest}${close}>`;
  });
}

// KaTeX's markup of a formula, rendered once per build: the vite plugin typesets the sections for
// index.html, for embed.html and again for the stylesheet. Its MathML, which screen readers read,
// stays; the TeX source KaTeX appends to it (<annotation encoding="application/x-tex">), which
// they do not read, goes: 4.3 KB of the gzipped page.
const TEX_SOURCE = /<annotation encoding="application\/x-tex">[^<]*<\/annotation>/g;
export const withoutTexSource = (markup) => markup.replace(TEX_SOURCE, '');
const rendered = new Map();
function render(tex, displayMode) {
  const key = `${displayMode ? 'D' : 'I'}${tex}`;
  if (!rendered.has(key)) rendered.set(key, withoutTexSource(katex.renderToString(tex, { displayMode, throwOnError: false })));
  return rendered.get(key);
}

export function prerenderMath(html, styles = new Map()) {
  return html.replace(MATH_AND_AFTER, (_, tag, cls, tex, after = '') => {
    const math = `<${tag} class="${cls}">${classify(render(decode(tex), cls === 'math display'), styles)}</${tag}>`;
    return after && holdsPunctuation(cls, decode(tex)) ? `<span class="math-nobr">${math}${after}</span>` : math + after;
  });
}

// Short inline math and the punctuation right after it stay on one line, in a span that does not
// wrap: the line breaker may break between a formula and a full stop (a word joiner did not stop
// Chromium). A long formula keeps its own break points. web/tex.js does the same in the browser.
const holdsPunctuation = (cls, tex) => cls === 'math' && tex.length <= 40;
const MATH_AND_AFTER = new RegExp(`${MATH.source}([.,;:!?)]+)?`, 'g');

// the rules of the classes prerenderMath gave out
export function mathStylesheet(styles) {
  const important = (style) => style.split(';').map((d) => d.trim()).filter(Boolean).map((d) => `${d}!important`).join(';');
  return [...styles].sort(([a], [b]) => (a < b ? -1 : 1)).map(([cls, style]) => `.${cls}{${important(style)}}`).join('\n') + '\n';
}
