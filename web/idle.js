// fn once the main thread is idle, and at the latest after `timeout` ms; where there is no
// requestIdleCallback (Safari), after `fallback` ms. For work off the reader's input: reporting a
// change to the URL (figure.js), locating a formula's numbers (tex.js).
export const whenIdle = (fn, { timeout, fallback }) =>
  (self.requestIdleCallback ? requestIdleCallback(fn, { timeout }) : setTimeout(fn, fallback));
