// The page lives in web/; `vite build` writes a static dist/ with relative URLs, so it can be
// served from any sub-path. The wasm modules in web/wasm/ come from tools/build.sh.
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: false,
  build: { outDir: '../dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 700 },
  worker: { format: 'es' },
  preview: { port: 5173 },
});
