// Shared plot styling: Okabe–Ito colours (colour-blind safe), and the finishing touches every
// Observable Plot figure needs on this page.
export const SERIES_COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9'];

// Observable Plot puts aria-label on bare <g> elements, which is invalid ARIA without a role.
export function finishPlot(node) {
  node.querySelectorAll('g[aria-label]').forEach((g) => g.setAttribute('role', 'group'));
  return node;
}
