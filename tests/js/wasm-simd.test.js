// The SIMD build really uses SIMD128: its disassembly (wasm-objdump from Debian's wabt; the
// copies in build/wasm/named/ keep function names, via --profiling-funcs) shows f32x4 arithmetic
// inside each hot kernel, and the scalar build, whose kernels carry the same names, shows none.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// (the copies that keep their function names: the page's, web/wasm/, are stripped of them)
const wasmFile = (name) => fileURLToPath(new URL(`../../build/wasm/named/${name}`, import.meta.url));

function disassemble(file) {
  try {
    return execFileSync('wasm-objdump', ['-d', file], { encoding: 'utf8', maxBuffer: 512 << 20 });
  } catch (err) {
    throw new Error(`wasm-objdump -d ${file} failed (install Debian's wabt; build with \`bash tools/build.sh\`): ${err.message}`);
  }
}

// Function name → its instructions (the text after "|" on each line), from headers such as
//   009e89 func[134] <attnlab::dot(attnlab::Vec<float const>, attnlab::Vec<float const>)>:
function functions(disassembly) {
  const result = new Map();
  let body = null;
  for (const line of disassembly.split('\n')) {
    const header = /^[0-9a-f]+ func\[\d+\] <(.+)>:$/.exec(line);
    if (header) result.set(header[1], (body = []));
    else if (body && line.includes('|')) body.push(line.slice(line.indexOf('|') + 1).trim());
  }
  return result;
}

// The one function whose name starts with `prefix`.
function kernel(fns, prefix) {
  const names = [...fns.keys()].filter((n) => n.startsWith(prefix));
  expect(names, `functions named ${prefix}…`).toHaveLength(1);
  return fns.get(names[0]);
}

const opcodes = (body) => new Set(body.map((ins) => ins.split(/\s+/)[0]));
const KERNELS = ['attnlab::dot(', 'attnlab::matmul_nt(', 'attnlab::matmul_nn(', 'attnlab::matmul_tn(', 'attnlab::softmax_rows(',
  'attnlab::normals(', 'attnlab::student_t('];

describe('SIMD128 in the wasm builds', () => {
  const simd = functions(disassemble(wasmFile('attnlab.wasm')));
  const scalar = disassemble(wasmFile('attnlab-scalar.wasm'));
  const scalarFns = functions(scalar);

  it('the disassembly of both builds is split into named functions', () => {
    expect(simd.size).toBeGreaterThan(50);
    expect(scalarFns.size).toBeGreaterThan(50);
    expect([...simd.values()].reduce((n, body) => n + body.length, 0)).toBeGreaterThan(10000);
  });

  // xsimd's fma on the SSE4.1 path is a mul and an add; Emscripten lowers each to SIMD128.
  it.each(KERNELS)('%s… in the SIMD build contains f32x4.mul and f32x4.add', (prefix) => {
    const ops = opcodes(kernel(simd, prefix));
    expect(ops.has('f32x4.mul'), `${prefix} has no f32x4.mul`).toBe(true);
    expect(ops.has('f32x4.add'), `${prefix} has no f32x4.add`).toBe(true);
  });

  it('the scalar build has the same kernels, doing scalar f32 arithmetic, and no f32x4 instruction at all', () => {
    for (const prefix of KERNELS) expect(kernel(scalarFns, prefix).length, prefix).toBeGreaterThan(0);
    const allOps = opcodes([...scalarFns.values()].flat());
    expect(allOps.has('f32.mul')).toBe(true);
    expect(allOps.has('f32.add')).toBe(true);
    expect(scalar).not.toMatch(/f32x4\./);
  });
});
