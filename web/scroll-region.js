// Boxes that scroll sideways when their content is wider than they are (style.css: panels, data
// tables and display formulas, on a phone). While one does, it is a focusable region named by its
// title, so that the keyboard can scroll it, and plain again once its content fits. One
// ResizeObserver watches them all; its callbacks come after layout, so reading the widths forces
// none. It hears a box change size; content that widens inside a box of the same size is heard
// through judgeAgain, which a figure calls after each redraw (web/figure.js), and which runs for
// the whole document whenever web fonts arrive (a formula set in KaTeX's fonts is narrower than in
// the fallback it was first laid out in).
const titles = new WeakMap();  // box → () => its name
const sideways = globalThis.ResizeObserver && new ResizeObserver((entries) => {
  for (const { target: box } of entries) {
    if (!box.isConnected) { sideways.unobserve(box); continue; }  // taken out of the page: let it go
    if (box.scrollWidth > box.clientWidth + 1) {
      if (box.tabIndex !== 0) box.tabIndex = 0;
      if (box.getAttribute('role') !== 'region') box.setAttribute('role', 'region');
      const name = titles.get(box)();
      if (box.getAttribute('aria-label') !== name) box.setAttribute('aria-label', name);
    } else for (const a of ['tabindex', 'role', 'aria-label']) if (box.hasAttribute(a)) box.removeAttribute(a);
  }
});
export function scrollsSideways(box, title) {
  titles.set(box, title);
  box.classList.add('sideways');
  sideways?.observe(box);
  return box;
}

// The boxes under root judged again after the next layout: a box observed anew has its size
// reported then (nothing is read now). (Chromium ignores observe() of a box already observed.)
export function judgeAgain(root) {
  if (!sideways) return;
  for (const box of root.querySelectorAll('.sideways')) { sideways.unobserve(box); sideways.observe(box); }
}
globalThis.document?.fonts?.addEventListener('loadingdone', () => judgeAgain(document));
