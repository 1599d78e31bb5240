// Bars moved in place: the redraw of a histogram whose axes did not change.
import { setIf } from '../morph.js';

// The bars of a Plot.rectY(…, { y1, y2: value, inset: 0.5 }) in svg moved to new values through
// its y scale, as Plot computes them; false, touching nothing, if svg does not hold as many bars.
export function moveRects(svg, y, y1, values, ariaLabel) {
  const rects = svg?.querySelector('g[aria-label="rect"]')?.children;
  if (!y || !rects || rects.length !== values.length) return false;
  const Y1 = y.apply(y1);
  values.forEach((v, i) => {
    const Y2 = y.apply(v);
    setIf(rects[i], 'y', Math.min(Y1, Y2) + 0.5);
    setIf(rects[i], 'height', Math.max(0, Math.abs(Y1 - Y2) + 0 - 0.5 - 0.5));  // Plot's own sum, to the last bit
  });
  svg.setAttribute('aria-label', ariaLabel);
  return true;
}
