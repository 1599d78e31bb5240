// A display formula rewritten to flow in a narrow room (web/tex-flow.js): rows become lines, the
// top-level separators places to break, and (grouped) each item between them one unbreakable piece.
import { describe, expect, it } from 'vitest';
import katex from 'katex';
import { flowTex } from '../../web/tex-flow.js';

const SATURATION = String.raw`p_j=\frac{e^{s_j}}{\sum_{l=1}^{16} e^{s_l}}:\qquad\begin{aligned}` +
  String.raw`s_j&=q\cdot k_j &&\Rightarrow\ \max_j p_j=0.681,\ \ H(p)=0.829\\` +
  String.raw`s_j&=q\cdot k_j/\sqrt{64} &&\Rightarrow\ \max_j p_j=0.213\end{aligned}`;

describe('flowTex', () => {
  it('sets the text before an aligned block and each of its rows on a line of its own, its & dropped', () => {
    const lines = flowTex(SATURATION).split(' \\\\ ');
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.startsWith('\\displaystyle '))).toBe(true);
    expect(lines[0]).toBe(String.raw`\displaystyle p_j=\frac{e^{s_j}}{\sum_{l=1}^{16} e^{s_l}}:`);  // its trailing \qquad gone
    expect(lines.join('')).not.toMatch(/(?<!\\)&/);
    // && (the column before the comment) became a \quad, a place to break
    expect(lines[2]).toBe(String.raw`\displaystyle s_j=q\cdot k_j/\sqrt{64} \quad \allowbreak \Rightarrow\ \max_j p_j=0.213`);
  });

  it('grouped, puts each item between separators in braces (a comma stays with its item), the spaces that open an item before its break', () => {
    expect(flowTex(String.raw`\max_j p_j=0.681,\ \ H(p)=0.829,\qquad d_k=64`, true))
      .toBe(String.raw`\displaystyle {\max_j p_j=0.681},\ \ \allowbreak {H(p)=0.829,}\qquad \allowbreak {d_k=64}`);
  });

  it('leaves an item with an \\allowbreak of its own ungrouped, so it can break where its author allowed', () => {
    expect(flowTex(String.raw`\begin{gathered}x=1\\y=\allowbreak 2,\qquad z=3\end{gathered}`, true))
      .toBe(String.raw`\displaystyle {x=1} \\ \displaystyle y=\allowbreak 2,\qquad \allowbreak {z=3}`);
  });

  it('does not split inside braces, \\left…\\right or a nested environment, nor at \\quad inside a longer command', () => {
    const tex = String.raw`a=\left(1,\ 2\right),\quad \text{b,\ c}=\begin{pmatrix}1\\2\end{pmatrix}\quadfoo`;
    expect(flowTex(tex, true)).toBe(String.raw`\displaystyle {a=\left(1,\ 2\right),}\quad \allowbreak {\text{b,\ c}=\begin{pmatrix}1\\2\end{pmatrix}\quadfoo}`);
  });

  it('gives TeX that KaTeX typesets without an error, grouped or not, for every live formula shape on the page', () => {
    const shapes = [
      SATURATION,
      String.raw`\begin{gathered}\sigma_W^{2}=\frac{2}{\text{fan}_\text{in}+\text{fan}_\text{out}}=\allowbreak\frac{2}{512+64}\ (\text{fan}_\text{out}=d_k)=0.00347,\qquad \sigma_q^{2}=1.778,\\\operatorname{Var}\Big(\frac{q\cdot k}{\sqrt{d_k}}\Big)=3.160\end{gathered}`,
      String.raw`\begin{aligned}S_{12} &= q_{1}\cdot k_{2}\\ &= {(-0.23)\cdot(-0.88)} + {1.07\cdot(-0.38)}\\ &\quad + {0.13\cdot 0.5}\\ &= -0.27\end{aligned}`,
      String.raw`p=\operatorname{softmax}(Kq/\tau),\qquad \tau\in\{\tfrac12\sqrt{d_k}=4,\ \sqrt{d_k}=8\},\quad d_k=64`,
    ];
    for (const tex of shapes) for (const grouped of [true, false]) {
      const html = katex.renderToString(flowTex(tex, grouped), { throwOnError: true });
      if (tex.includes('\\begin')) expect(html).toContain('newline');  // its rows, lines of their own
    }
  });
});
