// The peers benchmark (bench/peers.mjs) in headless Chromium: the same measurements
// (bench/peers-core.mjs) run in a page, one thread, fp32, everything alternated round by round.
//   bash bench/build-peak.sh && node bench/peers-browser.mjs [--json] [--rounds=N]
// Serves the repository root with Vite's preview server (as tests/browser/harness.js serves dist/)
// and opens bench/peers.html in Debian's Chromium through playwright-core (no browser download).
// Every library and wasm binary comes from this server (node_modules, web/, build/peak/); any
// off-origin request fails the run. The page is not cross-origin isolated, so TensorFlow.js
// loads its non-threaded SIMD build and onnxruntime-web runs its wasm on the main thread.
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { preview } from 'vite';
import { chromium } from 'playwright-core';
import { ratios, table } from './peers-report.mjs';

const root = resolve(import.meta.dirname, '..');
const json = process.argv.includes('--json');
const fixed = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9)) || 0;
const rounds = { small: fixed || 15, large: fixed || 5, softmax: fixed || 15 };
for (const f of ['web/wasm/attnlab.wasm', 'web/wasm/attnlab-scalar.wasm', 'build/peak/peak.wasm'])
  if (!existsSync(resolve(root, f))) throw new Error(`${f} is missing: run \`bash tools/build.sh --wasm-only\` and \`bash bench/build-peak.sh\` first`);

const server = await preview({ configFile: false, root, build: { outDir: root }, preview: { port: 0 }, logLevel: 'silent' });
const base = server.resolvedUrls.local[0];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (m) => (m.type() === 'error' ? problems.push(m.text()) : !json && console.error(`  … ${m.text()}`)));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (!r.url().startsWith(base) && !/^(data|blob):/.test(r.url())) problems.push(`off-origin request: ${r.url()}`); });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  const wasmFiles = [];
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    else if (r.url().endsWith('.wasm')) wasmFiles.push(r.url().slice(base.length - 1));
  });
  await page.goto(`${base}bench/peers.html`);
  await page.waitForFunction(() => document.body?.dataset.ready === 'true', null, { timeout: 30000 });
  const run = await page.evaluate((r) => window.runPeersInPage(r), rounds);
  if (problems.length) throw new Error(`the page reported problems:\n  ${problems.join('\n  ')}`);
  const where = `headless Chromium ${browser.version()}`;
  Object.assign(run.env, { runtime: `${where} (${run.env.runtime})`, cpu: cpus()[0]?.model, cores: cpus().length, wasmFiles });
  if (json) console.log(JSON.stringify({ ...run, ratios: ratios(run.results) }, null, 2));
  else console.log(table(run, where).join('\n'));
} finally {
  await browser.close();
  await server.close();
}
