// Can this toolchain give the engine a fused multiply-add in wasm? Relaxed SIMD's f32x4.relaxed_madd
// (one instruction for a·b + c, an FMA on x86 with FMA3) would lift the products past the mul+add
// peak probe of bench/peers*.mjs. Debian's Emscripten 3.1.6 (clang 14) accepts -mrelaxed-simd, but
// emits the proposal's early encoding (0xfd 0xaf 0x01, "f32x4.fma"), which V8 no longer accepts;
// the standard one is 0xfd 0x85 0x02. This compiles one such function and asks Node and Chromium
// whether they take each encoding.
//   node bench/relaxed-simd.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };  // Emscripten's acorn (tools/build.sh)
const dir = mkdtempSync(join(tmpdir(), 'attnlab-relaxed-'));
writeFileSync(join(dir, 'fma.c'), '#include <wasm_simd128.h>\n' +
  'v128_t fma4(v128_t a, v128_t b, v128_t c) { return __builtin_wasm_fma_f32x4(a, b, c); }\n');
execFileSync('emcc', ['-O2', '-msimd128', '-mrelaxed-simd', '--no-entry', '-sSTANDALONE_WASM',
  '-sEXPORTED_FUNCTIONS=_fma4', join(dir, 'fma.c'), '-o', join(dir, 'fma.wasm')],
  { env, stdio: ['ignore', 'ignore', 'inherit'] });
const bytes = [...readFileSync(join(dir, 'fma.wasm'))];
const find = (b, seq) => b.findIndex((_, i) => seq.every((x, j) => b[i + j] === x));
const at = find(bytes, [0xfd, 0xaf, 0x01]);
console.log(`emcc ${execFileSync('emcc', ['--version'], { env }).toString().split('\n')[0]}`);
console.log(`  emits the early encoding fd af 01: ${at >= 0 ? 'yes' : 'no'}; the standard fd 85 02: ${find(bytes, [0xfd, 0x85, 0x02]) >= 0 ? 'yes' : 'no'}`);
// the same module with the standard opcode in place of the early one (both are two-byte LEBs)
const standard = bytes.slice();
if (at >= 0) standard.splice(at + 1, 2, 0x85, 0x02);
// self-contained, so the page runs the same function (page.evaluate sends its source)
const compiles = (b) => { try { new WebAssembly.Module(new Uint8Array(b)); return 'compiles'; } catch (e) { return `refused (${e.message.replace(/^.*: /, '')})`; } };
console.log(`  Node ${process.versions.node}: early ${compiles(bytes)}; standard ${compiles(standard)}`);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage();
console.log(`  Chromium ${browser.version()}: early ${await page.evaluate(compiles, bytes)}; standard ${await page.evaluate(compiles, standard)}`);
await browser.close();
