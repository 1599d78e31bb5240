// The page lives in web/; `vite build` writes a static dist/ with relative URLs, so it can be
// served from any sub-path. The wasm modules in web/wasm/ come from tools/build.sh.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { ORDER } from './web/steps/order.js';
import { mathStylesheet, prerenderMath } from './tools/prerender-math.js';

// Inlines each step's prose (web/sections/<id>.html) where a page says
// <!-- sections: … -->, in the order of web/steps/order.js, and typesets the page's static math
// (tools/prerender-math.js), whose positioning rules main.js and embed.js import as
// virtual:prerendered-math.css.
function stepSections() {
  const dir = resolve(import.meta.dirname, 'web/sections');
  const sections = () => ORDER.map((id) => resolve(dir, `${id}.html`)).filter(existsSync)
    .map((file) => readFileSync(file, 'utf8')).join('\n');
  const CSS = 'virtual:prerendered-math.css', RESOLVED = '\0virtual:prerendered-math.css';
  return {
    name: 'attnlab-step-sections',
    transformIndexHtml(html) {
      return prerenderMath(html.replace(/<!-- sections:[\s\S]*?-->/, sections()));
    },
    resolveId: (id) => (id === CSS ? RESOLVED : null),
    load(id) {
      if (id !== RESOLVED) return null;
      // every page's math: the sections and the pages' own (the title)
      const styles = new Map();
      for (const page of ['index.html', 'embed.html']) prerenderMath(readFileSync(resolve(import.meta.dirname, 'web', page), 'utf8'), styles);
      prerenderMath(sections(), styles);
      return mathStylesheet(styles);
    },
    configureServer(server) {
      server.watcher.add(dir);
      server.watcher.on('change', (f) => {
        if (!f.startsWith(dir)) return;
        const css = server.moduleGraph.getModuleById(RESOLVED);  // its rules follow the sections' math
        if (css) server.moduleGraph.invalidateModule(css);
        server.ws.send({ type: 'full-reload' });
      });
    },
  };
}

// KaTeX's fonts as woff2 only: every browser that runs the page's wasm SIMD reads woff2, and the
// woff and ttf copies KaTeX's stylesheet also lists were never fetched, but were shipped in dist/
// and inlined in the offline file (3.4 MB with them).
const KATEX_OLD_FONTS = /,url\(fonts\/[\w-]+\.woff\) format\("woff"\),url\(fonts\/[\w-]+\.ttf\) format\("truetype"\)/g;
function katexWoff2Only() {
  return {
    name: 'katex-woff2-only',
    enforce: 'pre',  // on the stylesheet as KaTeX wrote it, before Vite resolves its url()s
    transform(code, id) {
      if (!/katex\/dist\/katex(\.min)?\.css/.test(id)) return null;
      const out = code.replace(KATEX_OLD_FONTS, '');
      if (out === code) this.error('katex-woff2-only: KaTeX\'s stylesheet no longer lists woff and ttf fonts as expected');
      return { code: out, map: null };
    },
  };
}

// The engine's worker as one more entry of the page's own module graph, not Vite's separate worker
// bundle: its engine, glue and experiments are then the very chunks the page's own engine
// (web/local-engine.js) loads, fetched once. `virtual:engine-worker-url` is its URL, relative to
// the chunk that imports it (Rollup's import.meta.ROLLUP_FILE_URL_…).
function engineWorkerChunk() {
  const ID = 'virtual:engine-worker-url', RESOLVED = '\0virtual:engine-worker-url';
  let serve = false;
  return {
    name: 'attnlab-engine-worker-chunk',
    configResolved: (config) => { serve = config.command === 'serve'; },
    resolveId: (id) => (id === ID ? RESOLVED : null),
    // Vite's dynamic-import helper, now shared with the worker, reports a failed import on
    // `window`, which a worker lacks (a ReferenceError would hide the failure): `self` is both.
    transform(code, id) {
      if (id !== '\0vite/preload-helper.js') return null;
      const out = code.replace('window.dispatchEvent(e)', 'self.dispatchEvent(e)');
      if (out === code) this.error('attnlab-engine-worker-chunk: Vite\'s preload helper no longer reads as expected');
      return { code: out, map: null };
    },
    load(id) {
      if (id !== RESOLVED) return null;
      if (serve) return "export default new URL('/worker.js', import.meta.url).href;";
      const ref = this.emitFile({ type: 'chunk', id: resolve(import.meta.dirname, 'web/worker.js'), name: 'worker' });
      return `export default import.meta.ROLLUP_FILE_URL_${ref};`;
    },
  };
}

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: 'public',
  plugins: [stepSections(), katexWoff2Only(), engineWorkerChunk()],
  build: {
    outDir: '../dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 700,
    assetsInlineLimit: 0,  // no data: URLs: under the documented CSP, fonts come from 'self'
    rollupOptions: {
      // the full page, the embed page and the custom element's one script, under a fixed name
      // (instructors link to it). web/public/ (the example course page) is copied as it is.
      input: {
        index: resolve(import.meta.dirname, 'web/index.html'),
        embed: resolve(import.meta.dirname, 'web/embed.html'),
        'attnlab-step': resolve(import.meta.dirname, 'web/attnlab-step.js'),
      },
      output: { entryFileNames: (chunk) => (chunk.name === 'attnlab-step' ? '[name].js' : 'assets/[name]-[hash].js') },
    },
  },
  worker: { format: 'es' },
  preview: { port: 5173 },
});
