// Shared plot styling: Okabe–Ito colours (colour-blind safe), and the one door to Observable Plot.
import * as Plot from '@observablehq/plot';
import './plot.css';

export const SERIES_COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9'];

// Plot.plot with the page's finishing touches:
// - one fixed class name, whose rules live once in plot.css. Plot otherwise puts a <style> in
//   every SVG and legend it makes, and each new <style> makes the browser re-match every rule of
//   the whole document (~10 ms per redraw here); inline <style> is also what a strict CSP
//   (style-src 'self') forbids.
// - Observable Plot puts aria-label on bare <g> elements, which is invalid ARIA without a role.
export function plot(options) {
  const node = Plot.plot({ className: 'attnlab-plot', ...options });
  node.querySelectorAll('style').forEach((s) => s.remove());
  node.querySelectorAll('g[aria-label]').forEach((g) => g.setAttribute('role', 'group'));
  return node;
}
