// The native engine beside the wasm figures, for reference (issue 6): attention forward at the
// peers' sizes and softmax of a 1024×1024 matrix, timed inside C++ (build/<dir>/attnlab_cli, ops
// benchAttention and benchSoftmax: the checked API, outputs reused, median of 15 calls), for
// g++'s default target (xsimd's SSE2 path) and for this CPU (-march=native: AVX2 or AVX-512).
//   node bench/native.mjs         (configures and builds build/native and build/native-arch if needed)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const BUILDS = [['build/native', 'OFF'], ['build/native-arch', 'ON']];
const SIZES = [[256, 64], [512, 64], [1024, 512]];
const cli = (dir, request) => JSON.parse(execFileSync(`${dir}/attnlab_cli`, { input: JSON.stringify(request) }).toString());

const rows = [];
for (const [dir, arch] of BUILDS) {
  if (!existsSync(`${dir}/build.ninja`)) execFileSync('cmake', ['-S', '.', '-B', dir, '-G', 'Ninja', `-DATTNLAB_NATIVE_ARCH=${arch}`], { stdio: 'ignore' });
  execFileSync('cmake', ['--build', dir, '--target', 'attnlab_cli'], { stdio: 'ignore' });
  const info = cli(dir, { op: 'info' });
  const attention = SIZES.map(([n, d]) => 4 * n * n * d / 1e6 / cli(dir, { op: 'benchAttention', n, d, rounds: n > 512 ? 5 : 15 }).ms);
  const softmax = cli(dir, { op: 'benchSoftmax', rows: 1024, cols: 1024 }).ms;
  rows.push({ build: `native ${info.arch}${arch === 'ON' ? ' (-march=native)' : ''}`, attention, softmax });
}
console.log(`native engine (g++, one thread, fp32, no copies; medians): attention forward GFLOP/s at ${SIZES.map(([n, d]) => `${n}×${d}`).join(', ')}; softmax 1024² ms`);
for (const r of rows) console.log(`  ${r.build.padEnd(34)} ${r.attention.map((g) => g.toFixed(1).padStart(7)).join('')}   softmax ${r.softmax.toFixed(2)} ms`);
