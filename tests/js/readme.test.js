// The README's examples run as written: the JS one through the package's own name ('attnlab'),
// the C++ one compiled against the native engine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const readme = readFileSync('README.md', 'utf8');
const example = (tag, lang) => {
  const m = readme.match(new RegExp(`<!-- example:${tag} -->\\s*\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``));
  if (!m) throw new Error(`README.md has no <!-- example:${tag} --> block`);
  return m[1];
};

describe('README examples', () => {
  it('the JavaScript example runs and prints what its comments say', () => {
    // A file inside the package, so `import 'attnlab'` resolves through package.json "exports".
    const file = '.readme-example.tmp.mjs';
    writeFileSync(file, example('js', 'js'));
    try {
      const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
      const lines = out.trim().split('\n');
      expect(lines[0]).toBe('true sse4.1');
      const variance = Number(lines[1].split(' ')[0]);
      expect(Math.abs(variance - 64)).toBeLessThan(5 * 64 * Math.sqrt((2 + 6 / 64) / 20000));
      expect(lines.at(-1)).toBe('softmax: x has 3 elements, expected rows*cols = 4');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('the C++ example compiles against the engine and runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'attnlab-readme-'));
    try {
      writeFileSync(join(dir, 'example.cpp'), example('cpp', 'cpp'));
      execFileSync('g++', ['-std=c++17', '-O2', '-Icpp', '-Ibuild/native/system-headers', join(dir, 'example.cpp'),
        'build/native/libattnlab.a', '-o', join(dir, 'example')]);
      const out = execFileSync(join(dir, 'example'), { encoding: 'utf8' });
      expect(out).toMatch(/^Var\(q\.k\) = \d+\.\d, 95% interval \[\d+\.\d, \d+\.\d\]\noutput row 0: \d\.\d{4} \d\.\d{4}\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
