// The single-file build's stand-in for local-engine.js: no engine on the main thread, every
// request goes to the worker.
export const loadLocalEngine = null;
