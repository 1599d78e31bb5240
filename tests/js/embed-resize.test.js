// H5P's resize handshake (web/embed-resize.js), with the page's globals stubbed: the order in
// which the host's answer and the resize observer's report arrive is set here, not left to a
// browser's timing (the browser tests, tests/browser/embed.test.js, cover the real pages).
import { afterEach, describe, expect, it } from 'vitest';
import { startAutoHeight } from '../../web/embed-resize.js';

function page() {
  const s = { height: 300, posted: [], observers: [], listener: null };
  globalThis.window = { innerHeight: 200 };
  globalThis.document = { documentElement: {} };
  globalThis.ResizeObserver = class { constructor(cb) { s.observers.push(cb); } observe() {} disconnect() {} };
  globalThis.addEventListener = (type, f) => { if (type === 'message') s.listener = f; };
  globalThis.removeEventListener = () => {};
  const target = { postMessage: (m) => s.posted.push(m) };
  s.stop = startAutoHeight({ target, protocols: ['h5p'], measure: () => s.height });
  s.host = (action) => s.listener({ source: target, origin: 'https://course.example', data: { context: 'h5p', action } });
  s.resized = () => s.observers.forEach((cb) => cb());
  s.asks = () => s.posted.filter((m) => m.action === 'prepareResize').map((m) => m.scrollHeight);
  return s;
}
afterEach(() => { for (const k of ['window', 'document', 'ResizeObserver', 'addEventListener', 'removeEventListener']) delete globalThis[k]; });

describe('H5P’s handshake', () => {
  it('asks once for a height the host’s hello measured before the resize observer reported it', () => {
    // (in a fresh clone's CI run the host's answer came first, and the observer's report asked again)
    const p = page();
    expect(p.posted.map((m) => m.action)).toEqual(['hello']);
    p.height = 527;          // the figure drew; the observer has not reported it yet
    p.host('hello');         // the host answers: the first ask measures 527
    p.resized();             // the observer's report of 527
    p.host('hello');         // the host's answer to a second hello changes nothing
    expect(p.asks()).toEqual([527]);
    p.height = 600; p.resized();
    p.height = 527; p.resized();
    expect(p.asks()).toEqual([527, 600, 527]);
  });

  it('asks again at one height only for the host’s own resize, and a new host (ready) starts over', () => {
    const p = page();
    p.host('hello');
    p.host('resize');        // the host's window changed: room at the same height is asked for again
    expect(p.asks()).toEqual([300, 300]);
    p.host('ready');         // a new resizer: hello first, then the height it has not seen
    expect(p.posted.at(-1).action).toBe('hello');
    p.host('hello');
    expect(p.asks()).toEqual([300, 300, 300]);
  });
});
