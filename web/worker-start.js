// Starts the engine's worker from its bundled file. (The single-file build swaps this module for
// worker-start-inline.js, whose worker is inlined in the page.)
import workerUrl from './worker.js?worker&url';

// A sandboxed iframe (sandbox="allow-scripts", an opaque origin) may not start a worker from the
// server's URL; it may from a blob of its own, which imports the worker module (that import is a
// CORS request: the server must allow it, as GitHub Pages does).
export function startWorker() {
  try {
    return new Worker(workerUrl, { type: 'module' });
  } catch {
    const source = `import ${JSON.stringify(new URL(workerUrl, document.baseURI).href)};`;
    return new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), { type: 'module' });
  }
}
