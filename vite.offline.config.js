// The single offline file: dist/attnlab-offline.html, the whole page with its JS, CSS, KaTeX fonts,
// the worker and both wasm builds inlined, to open by double-click (file://) with no network.
//   npx vite build --config vite.offline.config.js     (tools/build.sh --page runs it)
import { readFileSync, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, mergeConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import base from './vite.config.js';

const outDir = resolve(import.meta.dirname, 'build/offline');
export default mergeConfig(base, defineConfig({
  publicDir: false,
  resolve: { alias: [
    { find: /^\.\/worker-start\.js$/, replacement: resolve(import.meta.dirname, 'web/worker-start-inline.js') },
    { find: /^\.\/local-engine\.js$/, replacement: resolve(import.meta.dirname, 'web/local-engine-none.js') },
  ] },
  plugins: [viteSingleFile({ removeViteModuleLoader: true }), {
    name: 'attnlab-offline-file',
    // the icon inlined too (860 bytes): without one a browser asks the server for /favicon.ico
    transformIndexHtml: (html) => html.replace(/(<link rel="icon"[^>]*href=")\.\/favicon\.png"/,
      `$1data:image/png;base64,${readFileSync(resolve(import.meta.dirname, 'web/public/favicon.png')).toString('base64')}"`),
    closeBundle() { renameSync(resolve(outDir, 'index.html'), resolve(import.meta.dirname, process.env.ATTNLAB_OFFLINE_OUT || 'dist/attnlab-offline.html')); },
  }],
  build: {
    outDir, emptyOutDir: true, assetsInlineLimit: () => true, cssCodeSplit: false,
    rollupOptions: { input: resolve(import.meta.dirname, 'web/index.html'), output: { entryFileNames: 'assets/[name].js' } },
  },
  worker: { format: 'iife' },  // a classic worker: file:// pages (origin null) cannot start module workers from blobs
}));
