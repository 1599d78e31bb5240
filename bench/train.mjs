// Training throughput of the scaling ablation (engine.createTrainer): steps per second, each step
// training all four variants on one batch, in wasm (SIMD and scalar builds, in Node) and natively
// (build/native/attnlab_cli, op "train", which times its step loop in C++: the default build, SSE2).
//   node bench/train.mjs [--json]
// As in throughput.mjs, the two wasm builds are timed in alternation, round by round, after a
// 300 ms warm-up, and each figure is a median; the native figure is the median of 5 runs. A run
// of the default length (TRAIN_DEFAULTS.steps) is timed whole as well, creation included: that is
// what the page waits for. The builds' curves are compared first: a fast wrong answer cannot pass.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, timeInterleaved } from './timing.mjs';
import { createEngine, TRAIN_DEFAULTS, TRAIN_VARIANTS } from '../web/engine.js';

const ROUNDS = 9, CHUNK = 20, NATIVE_RUNS = 5;
const CLI = fileURLToPath(new URL('../build/native/attnlab_cli', import.meta.url));
const engines = [await createEngine({ simd: true }), await createEngine({ simd: false })];
const builds = ['wasm SIMD128', 'wasm scalar'];

const timeBoth = (fns) => timeInterleaved(fns, ROUNDS);

function native(request) {
  return JSON.parse(execFileSync(CLI, { input: JSON.stringify(request), encoding: 'utf8', maxBuffer: 256 << 20 }));
}

// [label, options, whole default-length runs timed too]
const sizes = [['the default size', {}, true], ['d_k = 256 (the Catch2 claim)', { dk: 256 }, false]];
const results = [];
for (const [what, options, wholeRuns] of sizes) {
  const config = { ...TRAIN_DEFAULTS, ...options };
  // the same curves from both builds (and natively): bit for bit, as tests/js/train.test.js asserts
  const curves = engines.map((e) => { const t = e.createTrainer(config); t.step(10); const c = t.curves().variants; t.dispose(); return c; });
  const nat = existsSync(CLI) ? native({ op: 'train', ...config, steps: 10 }).variants : null;
  for (const v of TRAIN_VARIANTS)
    for (let i = 0; i < 10; i++)
      if (curves[0][v].loss[i] !== curves[1][v].loss[i] || (nat && curves[0][v].loss[i] !== Math.fround(nat[v].loss[i])))
        throw new Error(`${what}: the builds disagree at ${v}.loss[${i}]`);

  const trainers = engines.map((e) => e.createTrainer(config));
  const ms = timeBoth(trainers.map((t) => () => { if (t.steps > 2 ** 17) t.reset(); t.step(CHUNK); }));
  trainers.forEach((t) => t.dispose());
  ms.forEach((t, i) => results.push({ build: builds[i], what, stepsPerSecond: CHUNK / t * 1000 }));
  if (existsSync(CLI)) {
    const steps = wholeRuns ? config.steps : 60;
    const seconds = median(Array.from({ length: NATIVE_RUNS }, () => native({ op: 'train', ...config, steps }).seconds));
    results.push({ build: 'native', what, stepsPerSecond: steps / seconds, runSeconds: wholeRuns ? seconds : undefined });
  }
  // the default run, whole: create, step(steps), read the curves, dispose
  if (wholeRuns) engines.forEach((e, i) => {
    const runs = Array.from({ length: 3 }, () => {
      const t0 = performance.now();
      const t = e.createTrainer(config);
      t.step(config.steps);
      t.curves();
      t.dispose();
      return (performance.now() - t0) / 1000;
    });
    results.find((r) => r.build === builds[i] && r.what === what).runSeconds = median(runs);
  });
}

if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2));
else {
  const d = TRAIN_DEFAULTS;
  console.log(`training throughput in Node ${process.version}, one thread; a step trains all 4 variants on one batch`);
  console.log(`default size: dk ${d.dk}, dv ${d.dv}, dx ${d.dx}, ${d.classes} classes, seqLen ${d.seqLen}, batch ${d.batch}, ${d.optimizer}; a run is ${d.steps} steps`);
  if (!existsSync(CLI)) console.log(`  (no native figures: ${CLI} is missing; run \`bash tools/build.sh\`)`);
  for (const [what] of sizes) {
    console.log(`  ${what}:`);
    for (const r of results.filter((x) => x.what === what)) {
      const run = r.runSeconds === undefined ? '' : `   a ${d.steps}-step run: ${r.runSeconds.toFixed(2)} s`;
      console.log(`    ${r.build.padEnd(13)} ${Math.round(r.stepsPerSecond).toLocaleString('en-US').padStart(7)} steps/s${run}`);
    }
  }
}

// The page's default run in headless Chromium (needs a built dist/, or $ATTNLAB_DIST): the
// training-ablation step plays its default configuration (web/steps/training-ablation.js) as soon
// as it is shown; the worker's time for the whole run, and the time from the step's first request
// to its last redraw, medians of 3 page loads.
const dist = resolve(process.env.ATTNLAB_DIST || 'dist');  // absolute: Vite resolves a relative outDir against its root, web/
if (existsSync(`${dist}/index.html`) && !process.argv.includes('--json')) {
  const { preview } = await import('vite');
  const { chromium } = await import('playwright-core');
  const server = await preview({ build: { outDir: dist }, preview: { port: 0 }, logLevel: 'silent' });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage();
    await page.goto(`${server.resolvedUrls.local[0]}?step=training-ablation`);
    await page.waitForFunction(() => document.querySelector('#training-ablation figure.live')?.dataset.updates === '1', null, { timeout: 120000 });
    runs.push(await page.evaluate(() => {
      const f = document.querySelector('#training-ablation figure.live');
      const posted = performance.getEntriesByName('attnlab:posted').map((e) => e.startTime);
      return { engine: Number(f.dataset.engineMs), status: f.querySelector('.training-status').textContent, start: Math.min(...posted) };
    }));
    runs.at(-1).wall = await page.evaluate(() => performance.now()) - runs.at(-1).start;
    await page.close();
  }
  await browser.close();
  await server.close();
  console.log(`  the page's default run in headless Chromium (${runs[0].status}, dk 128, SGD): worker ${(median(runs.map((r) => r.engine)) / 1000).toFixed(2)} s, ` +
    `first request to last redraw ≈ ${(median(runs.map((r) => r.wall)) / 1000).toFixed(2)} s (medians of 3)`);
}
