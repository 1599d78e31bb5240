// The page lives in web/; `vite build` writes a static dist/ with relative URLs, so it can be
// served from any sub-path. The wasm modules in web/wasm/ come from tools/build.sh.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { ORDER } from './web/steps/order.js';

// Inlines each step's prose (web/sections/<id>.html) where a page says
// <!-- sections: … -->, in the order of web/steps/order.js.
function stepSections() {
  const dir = resolve(import.meta.dirname, 'web/sections');
  return {
    name: 'attnlab-step-sections',
    transformIndexHtml(html) {
      const sections = ORDER.map((id) => resolve(dir, `${id}.html`)).filter(existsSync)
        .map((file) => readFileSync(file, 'utf8')).join('\n');
      return html.replace(/<!-- sections:[\s\S]*?-->/, sections);
    },
    configureServer(server) {
      server.watcher.add(dir);
      server.watcher.on('change', (f) => { if (f.startsWith(dir)) server.ws.send({ type: 'full-reload' }); });
    },
  };
}

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: 'public',
  plugins: [stepSections()],
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
