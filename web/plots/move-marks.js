// Plot's marks moved to new values through the scales of the plot that drew them, in place: what a
// redraw on unchanged axes needs instead of a Plot build (~0.2 ms against ~5–10). Each mover
// writes what Plot's own render writes, and the redraw test (tests/browser/redraw.test.js) holds
// the result to a fresh page's figure, attribute for attribute.
//   dots:  <circle cx cy>                (Dot.render: X, Y)
//   rules: <line x1 x2 y1 y2>, vertical  (RuleX: X, X, Y1, Y2), for interval bars
//   line:  <path d="Mx,yLx,y…">          (Line.render through d3-shape's line: 3 decimals)
// Each takes the mark's <g> and returns false, touching nothing, when its element count differs
// or a value has no finite position (a gap, or a value ≤ 0 on a log axis: Plot would leave it out).
import { setIf } from '../morph.js';

// a point drawn with an interval bar
export const hasBar = (p) => p.lo !== undefined && p.hi !== undefined;

// The <g> that holds a mark's elements, given the mark's <g aria-label>: a clipped mark is Plot's
// <g aria-label clip-path> around the mark's own <g>.
export const markGroup = (g) => (g?.hasAttribute('clip-path') ? g.firstElementChild : g);

const finite = (cs) => cs.every((c) => c.every(Number.isFinite));

// Prepares the moves of one redraw and applies them only if every one can be made.
export function moveMarks(x, y) {
  const moves = [];
  const plan = {
    ok: true,
    dots(g, points) {
      const xy = points.map((p) => [x.apply(p.x), y.apply(p.y)]);
      if (g?.childElementCount !== points.length || !finite(xy)) return (plan.ok = false);
      moves.push(() => xy.forEach(([X, Y], k) => { setIf(g.children[k], 'cx', X); setIf(g.children[k], 'cy', Y); }));
      return plan;
    },
    rules(g, bars) {
      const ends = bars.map((p) => [x.apply(p.x), y.apply(p.lo), y.apply(p.hi)]);
      if (g?.childElementCount !== bars.length || !finite(ends)) return (plan.ok = false);
      moves.push(() => ends.forEach(([X, lo, hi], k) => {
        const rule = g.children[k];
        setIf(rule, 'x1', X); setIf(rule, 'x2', X); setIf(rule, 'y1', lo); setIf(rule, 'y2', hi);
      }));
      return plan;
    },
    line(path, points) {
      const xy = points.map((p) => [x.apply(p.x), y.apply(p.y)]);
      if (path?.localName !== 'path' || points.length < 2 || !finite(xy)) return (plan.ok = false);
      const r3 = (v) => Math.round(v * 1000) / 1000;
      moves.push(() => setIf(path, 'd', `M${xy.map(([X, Y]) => `${r3(X)},${r3(Y)}`).join('L')}`));
      return plan;
    },
    // true once every planned move is made; false, with nothing moved, if one could not be
    apply: () => plan.ok && (moves.forEach((m) => m()), true),
  };
  return plan;
}
