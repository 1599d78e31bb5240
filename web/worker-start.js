// Starts the engine's worker: web/worker.js, built as one more chunk of the page's own module graph
// (vite.config.js), so its engine and experiments are the files the page's own engine loads too.
// (The single-file build swaps this module for worker-start-inline.js, whose worker is inlined.)
import workerUrl from 'virtual:engine-worker-url';

// A worker script must be same-origin with the document, and is not when
//   - the page is in a sandboxed iframe (sandbox="allow-scripts"): its origin is opaque, 'null';
//   - <attnlab-step> is loaded from another origin than the course page's.
// Either fails late (the constructor succeeds, the worker's error event fires once the fetch is
// refused), so the origins are compared first. The worker then starts from a data: URL that
// imports the worker module. (Not a blob: Chromium refuses a module worker from a blob made in
// an opaque origin.) The import is a CORS request: the server must send
// Access-Control-Allow-Origin, as GitHub Pages does; see docs/EMBEDDING.md.
export function startWorker() {
  const url = new URL(workerUrl, document.baseURI);
  if (url.origin === self.origin) return new Worker(url, { type: 'module' });
  return new Worker(`data:text/javascript,${encodeURIComponent(`import ${JSON.stringify(url.href)};`)}`, { type: 'module' });
}
