// Input → redraw for two builds of the page, side by side in one headless Chromium, alternated
// control by control and round by round so the shared host's drift hits both alike (an A/B of a
// change to the page; bench/interaction.mjs measures one build).
//   node bench/interaction-ab.mjs <dist A> <dist B> [step …] [--rounds=3]
// Build each with e.g. `npx vite build --outDir /tmp/dist-a --emptyOutDir` (after
// `bash tools/build.sh --wasm-only`). Training-ablation's controls (whole training runs) are left out
// unless named; a control that starts a streamed run is timed to its first chunk (its answer).
import { resolve } from 'node:path';
import { preview } from 'vite';
import { chromium } from 'playwright-core';
import { answerOf, controlValue, quantile, restoreControl, timeChange } from './interaction-measure.mjs';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const [A, B, ...only] = args;
if (!A || !B) throw new Error('usage: node bench/interaction-ab.mjs <dist A> <dist B> [step …] [--rounds=3]');
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) || 3);

const servers = await Promise.all([A, B].map((d) => preview({ build: { outDir: resolve(d) }, preview: { port: 0 }, logLevel: 'silent' })));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const pages = await Promise.all(servers.map(() => browser.newPage({ viewport: { width: 1280, height: 900 } })));
const url = (k, q = '') => servers[k].resolvedUrls.local[0] + q;

await pages[0].goto(url(0));
const steps = (await pages[0].$$eval('main section[id]', (ss) => ss.filter((s) => s.querySelector('figure.live')).map((s) => s.id)))
  .filter((s) => (only.length ? only.includes(s) : s !== 'training-ablation'));
const medians = [[], []];
console.log(`input → redraw (ms), medians of ${rounds}: A = ${A}, B = ${B}`);
for (const id of steps) {
  for (const k of [0, 1]) {
    await pages[k].goto(url(k, `?step=${id}`));
    await pages[k].waitForFunction((s) => document.querySelector(`#${s} figure.live`)?.dataset.state === 'ready', id, { timeout: 60000 });
  }
  for (const name of await pages[0].$$eval(`#${id} .controls [data-param]`, (els) => els.map((e) => e.name))) {
    const t = [[], []], initial = await Promise.all(pages.map((p) => controlValue(p, id, name)));
    for (let r = 0; r < rounds; r++)
      for (const k of (r % 2 ? [1, 0] : [0, 1])) t[k].push(await timeChange(pages[k], id, name, r, initial[k]));
    for (const [k, p] of pages.entries()) await restoreControl(p, id, name, initial[k]);
    const m = t.map((x) => quantile(x.map(answerOf), 0.5));
    medians[0].push(m[0]); medians[1].push(m[1]);
    console.log(`  ${id.padEnd(22)} ${name.padEnd(12)} A ${m[0].toFixed(1).padStart(7)}  B ${m[1].toFixed(1).padStart(7)}`);
  }
}
const within = (xs) => xs.filter((x) => x <= 16).length;
console.log(`  all ${medians[0].length} controls: median A ${quantile(medians[0], 0.5).toFixed(1)}, B ${quantile(medians[1], 0.5).toFixed(1)}; within 16 ms: A ${within(medians[0])}, B ${within(medians[1])}`);
await browser.close();
await Promise.all(servers.map((s) => s.close()));
