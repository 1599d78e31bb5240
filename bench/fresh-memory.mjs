// What fresh memory costs, in headless Chromium and in Node: a typed array whose pages are touched
// for the first time, against the same bytes written into an array that is kept. On this project's
// machines (a VM whose first touch of a page is slow) Chromium pays it for every new array, since
// its allocator gives freed memory back to the system; Node's malloc reuses it. Every result the
// engine hands back as a new array, and every copy (slice, structured clone), pays it in Chromium.
//   node bench/fresh-memory.mjs
import { chromium } from 'playwright-core';

const measure = () => {
  const med = (f, n = 15) => {
    const t = [];
    for (let i = 0; i < n; i++) { const t0 = performance.now(); f(); t.push(performance.now() - t0); }
    return t.sort((a, b) => a - b)[n >> 1];
  };
  const N = 1 << 20;  // 4 MiB of floats
  const src = new Float32Array(N).fill(1), kept = new Float32Array(N);
  let sink = 0;
  return {
    'new Float32Array(4 MiB), untouched': med(() => { sink += new Float32Array(N)[12345]; }),
    'new Float32Array(4 MiB), every page written': med(() => { const a = new Float32Array(N); a.fill(2); sink += a[5]; }),
    'slice() of 4 MiB': med(() => { sink += src.slice()[5]; }),
    'set() of 4 MiB into a kept array': med(() => { kept.set(src); sink += kept[5]; }),
    '100 × new Float32Array(16 KiB), one write each': med(() => { for (let i = 0; i < 100; i++) { const a = new Float32Array(4096); a[i] = 1; sink += a[0]; } }),
    sink,
  };
};

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage();
const inChromium = await page.evaluate(measure);
await browser.close();
const inNode = measure();
console.log(`median ms of 15 (Chromium ${browser.version()}, Node ${process.versions.node}):`);
console.log(`  ${''.padEnd(48)} ${'Chromium'.padStart(9)} ${'Node'.padStart(9)}`);
for (const k of Object.keys(inNode).filter((k) => k !== 'sink'))
  console.log(`  ${k.padEnd(48)} ${inChromium[k].toFixed(2).padStart(9)} ${inNode[k].toFixed(2).padStart(9)}`);
