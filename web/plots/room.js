// The room a plot has: the width of the content of the figure it is drawn in, so that its text is
// drawn at its size. An SVG wider than its room is scaled down whole (max-width: 100%): a 900-wide
// plot on a 390px phone came out at a third of its size, its 12px labels at 4px, and so did one in
// an <attnlab-step> set in a narrow column of a wide course page.
//   watchRoom(body, redraw)  a figure's content box (web/figure.js), measured by one ResizeObserver
//                            (its callbacks come after layout: reading the width forces none);
//                            redraw() when the room changes what its widest plot would be drawn at
//                            (a window resized, a tablet turned, a column that narrows)
//   drawIn(container, build) build() with the room of the figure the container is in: fitWidth
//                            inside it uses that room (web/morph.js's showMoved calls it)
//   fitWidth(width)          a plot's width: at most the room, not below MIN_WIDTH, nor above its own
//   roomOf(el)               the room of el's figure (web/tex.js flows a formula in a narrow one)
// Before a figure's first measurement (and outside any figure) the room is the window's less the
// page's and the figure's side padding (style.css: 1.25rem each) and the figure's 1px borders,
// from innerWidth: no layout forced. Wide screens keep every plot's own width.
const MIN_WIDTH = 240;
const RESIZE_WAIT = 100;  // ms of quiet after a resize before the figure redraws once

const rooms = new WeakMap();  // figure body → { room, used, wanted, redraw, timer }
let drawing = null;           // the figure state of the plot being built, inside drawIn

let remPx = 0;
function windowRoom() {
  const view = globalThis.innerWidth;
  if (!view) return 0;
  remPx ||= (typeof getComputedStyle === 'function' && parseFloat(getComputedStyle(document.documentElement).fontSize)) || 16;
  return Math.floor(view - 2 * (2.5 * remPx + 1));
}

const fitted = (width, room) => (room ? Math.max(Math.min(width, MIN_WIDTH), Math.min(width, room)) : width);

export function fitWidth(width) {
  const room = drawing?.room || windowRoom();
  if (drawing) {
    drawing.used = room;
    drawing.wanted = Math.max(drawing.wanted, width);
  }
  return fitted(width, room);
}

const observer = globalThis.ResizeObserver && new ResizeObserver((entries) => {
  for (const { target, contentRect } of entries) {
    // a figure taken out of the page (an <attnlab-step> given another step) reports a size of 0:
    // let it go, or the observer would hold it for the page's life
    if (!target.isConnected) { observer.unobserve(target); clearTimeout(rooms.get(target)?.timer); rooms.delete(target); continue; }
    const s = rooms.get(target);
    const room = Math.floor(contentRect.width);
    if (!s || !room || room === s.room) continue;
    s.room = room;
    // redraw only if the widest plot drawn (and so any) would now be drawn at another width
    if (!s.used || fitted(s.wanted, room) === fitted(s.wanted, s.used)) continue;
    clearTimeout(s.timer);
    s.timer = setTimeout(s.redraw, RESIZE_WAIT);
  }
});

// Returns the end of the watch (a figure disposed of).
export function watchRoom(body, redraw) {
  rooms.set(body, { room: 0, used: 0, wanted: 0, redraw, timer: 0 });
  observer?.observe(body);
  return () => { observer?.unobserve(body); clearTimeout(rooms.get(body)?.timer); rooms.delete(body); };
}

// The room of the figure el is in (the window's, before its first measurement or outside one).
export const roomOf = (el) => rooms.get(el.closest?.('.figure-body'))?.room || windowRoom();

// build() at the room of container's figure; ahead: a plot built before it is asked for (morph.js
// keepMoved), whose build marks itself so (buildingAhead, plots/style.js)
let ahead = false;
export function drawIn(container, build, { ahead: early = false } = {}) {
  const was = [drawing, ahead];
  drawing = rooms.get(container.closest?.('.figure-body')) ?? null;
  ahead = early;
  try { return build(); } finally { [drawing, ahead] = was; }
}
export const buildingAhead = () => ahead;
