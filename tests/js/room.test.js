// plots/room.js: a plot is drawn at the room of the figure it is in, and a figure whose room
// changes redraws only when its widest plot would be drawn at another width. (The ResizeObserver
// is a stand-in here; tests/browser/narrow.test.js runs the real one.)
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

let room, observed, unobserved, report;
beforeAll(async () => {
  observed = [];
  unobserved = [];
  globalThis.ResizeObserver = class {
    constructor(cb) { report = cb; }
    observe(el) { observed.push(el); }
    unobserve(el) { unobserved.push(el); }
  };
  globalThis.innerWidth = 1200;
  room = await import('../../web/plots/room.js?stand-in');
});
afterAll(() => { delete globalThis.ResizeObserver; delete globalThis.innerWidth; });

// a figure body and a container inside it, as figure.js and a step make them
function figure() {
  const body = { isConnected: true, closest: () => body };
  const container = { closest: (sel) => (sel === '.figure-body' ? body : null) };
  const redraw = vi.fn();
  room.watchRoom(body, redraw);
  const resize = (width) => report([{ target: body, contentRect: { width } }]);
  return { body, container, redraw, resize };
}

describe('the room of a figure', () => {
  beforeEach(() => { vi.useFakeTimers(); });  // the 100 ms wait after a resize
  afterEach(() => { vi.useRealTimers(); });

  it('is what its plots are drawn at, once measured; before that, the window less the padding', () => {
    const f = figure();
    expect(observed).toContain(f.body);
    expect(room.drawIn(f.container, () => room.fitWidth(900))).toBe(900);  // 1200 − 82 of room
    f.resize(600);
    expect(room.drawIn(f.container, () => room.fitWidth(900))).toBe(600);
    expect(room.drawIn(f.container, () => room.fitWidth(520))).toBe(520);
    expect(room.fitWidth(900)).toBe(900);  // outside any figure: the window's
  });

  it('a change redraws the figure once, after the resize settles, only if its widest plot changes width', () => {
    const f = figure();
    f.resize(1069);
    room.drawIn(f.container, () => [room.fitWidth(900), room.fitWidth(460)]);
    f.resize(1000);                    // 900 still fits
    vi.advanceTimersByTime(500);
    expect(f.redraw).not.toHaveBeenCalled();
    f.resize(800); f.resize(700); f.resize(600);  // a drag: one redraw at the end
    vi.advanceTimersByTime(50);
    expect(f.redraw).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(f.redraw).toHaveBeenCalledTimes(1);
    room.drawIn(f.container, () => room.fitWidth(900));  // the redraw, at 600
    f.resize(200); f.resize(230);      // down to the floor: 240, one redraw
    vi.advanceTimersByTime(200);
    expect(f.redraw).toHaveBeenCalledTimes(2);
    room.drawIn(f.container, () => room.fitWidth(900));
    f.resize(235);                     // still the floor's 240: none
    vi.advanceTimersByTime(200);
    expect(f.redraw).toHaveBeenCalledTimes(2);
  });

  it('a figure that has drawn nothing yet is not redrawn: its first draw will use the room', () => {
    const f = figure();
    f.resize(500);
    vi.advanceTimersByTime(500);
    expect(f.redraw).not.toHaveBeenCalled();
    expect(room.drawIn(f.container, () => room.fitWidth(900))).toBe(500);
  });

  it('a figure taken out of the page is let go: no longer observed, and its pending redraw dropped', () => {
    const f = figure();
    f.resize(1069);
    room.drawIn(f.container, () => room.fitWidth(900));
    f.resize(600);                     // a redraw is pending …
    f.body.isConnected = false;
    f.resize(0);                       // … when the figure leaves the page
    vi.advanceTimersByTime(500);
    expect(f.redraw).not.toHaveBeenCalled();
    expect(unobserved).toContain(f.body);
  });
});
