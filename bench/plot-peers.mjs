// docs/performance-peers.svg: the peers benchmark's attention throughput as bars, one panel per
// size, one row per runtime (Node, Chromium), drawn by Observable Plot in headless Chromium.
//   node bench/peers.mjs --json > build/peers-node.json
//   node bench/peers-browser.mjs --json > build/peers-chromium.json
//   node bench/plot-peers.mjs build/peers-node.json build/peers-chromium.json > docs/performance-peers.svg
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';

const IMPLS = ['wasm SIMD128 peak', 'attnlab SIMD128 no copies', 'attnlab SIMD128 inputs resident', 'attnlab SIMD128 O only', 'attnlab SIMD128', 'onnxruntime-web',
  'tfjs matMul(q, transpose(k))', 'tfjs matMul(q, k, false, true)', 'attnlab scalar', 'plain JS'];
const rows = process.argv.slice(2).flatMap((file) => {
  const { results } = JSON.parse(readFileSync(file, 'utf8'));
  const runtime = /chromium/i.test(file) ? 'headless Chromium' : 'Node';
  return results.filter((r) => r.what.startsWith('attention') && r.value !== null)
    .map((r) => ({ runtime, size: r.what.replace('attention ', ''), impl: r.impl === 'peak' ? IMPLS[0] : r.impl, gflops: r.value }));
});
if (!rows.length) throw new Error('usage: node bench/plot-peers.mjs peers-node.json [peers-chromium.json] > out.svg');

const root = resolve(import.meta.dirname, '..');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  await page.setContent('<body></body>');
  for (const f of ['node_modules/d3/dist/d3.min.js', 'node_modules/@observablehq/plot/dist/plot.umd.min.js'])
    await page.addScriptTag({ content: readFileSync(resolve(root, f), 'utf8') });
  const svg = await page.evaluate(([rows, impls]) => {
    const node = Plot.plot({
      width: 960, height: 70 + 175 * new Set(rows.map((r) => r.runtime)).size, marginLeft: 210, marginRight: 130, marginTop: 30,
      style: { fontFamily: 'system-ui, sans-serif', fontSize: '12px', background: 'white' },
      x: { label: 'attention forward, GFLOP/s (one thread, fp32) →', grid: true },
      y: { domain: impls, label: null },
      fx: { label: null, domain: [...new Set(rows.map((r) => r.size))] }, fy: { label: null },
      color: { domain: impls, range: ['#999999', '#0072b2', '#3d95cc', '#8cc8ec', '#d55e00', '#e69f00', '#f0c571', '#009e73', '#cc79a7'] },
      marks: [
        Plot.barX(rows, { x: 'gflops', y: 'impl', fx: 'size', fy: 'runtime', fill: 'impl' }),
        Plot.text(rows, { x: 'gflops', y: 'impl', fx: 'size', fy: 'runtime', text: (d) => d.gflops.toFixed(1), textAnchor: 'start', dx: 3, fontSize: 10 }),
        Plot.ruleX([0]),
      ],
    });
    node.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    return node.outerHTML;
  }, [rows, IMPLS]);
  process.stdout.write(`${svg}\n`);
} finally {
  await browser.close();
}
