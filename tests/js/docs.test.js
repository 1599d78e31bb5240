// The docs name what the code has: EMBEDDING.md §2's parameters are each step's, and the
// README's table of steps is the page's, in order (both drifted once: a parameter that had become
// an option of another stayed in the table); and the Catch2 names reach CTest whole.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { steps } from '../../web/steps/index.js';
import { ORDER } from '../../web/steps/order.js';

// | `id` | `a` `b` … | rows of a markdown table whose first cell is a step id
const rows = (file) => readFileSync(file, 'utf8').split('\n')
  .map((line) => line.match(/^\| `([a-z-]+)` \| (.*) \|$/)).filter((m) => m && ORDER.includes(m[1]));

describe('the docs and the code', () => {
  it('EMBEDDING.md lists each step’s URL parameters, no more and no fewer', () => {
    const table = Object.fromEntries(rows('docs/EMBEDDING.md').map(([, id, cells]) => [id, [...cells.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1])]));
    expect(Object.keys(table)).toEqual(ORDER);
    for (const step of steps) expect(table[step.id], step.id).toEqual(Object.keys(step.params));
  });

  it('every Catch2 test name reaches CTest whole: none holds a ";" (catch_discover_tests splits a name there)', () => {
    const names = readdirSync('tests').filter((f) => f.endsWith('.tests.cpp'))
      .flatMap((f) => [...readFileSync(`tests/${f}`, 'utf8').matchAll(/TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]));
    expect(names.length).toBeGreaterThan(100);
    expect(names.filter((n) => n.includes(';'))).toEqual([]);
  });

  it('the README’s table of steps is the page’s, in order', () => {
    expect(rows('README.md').map(([, id]) => id)).toEqual(ORDER);
    expect(steps.map((s) => s.id)).toEqual(ORDER);
  });
});
