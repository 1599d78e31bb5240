// The peers benchmark (issue 6; bench/peers-core.mjs) runs every implementation and form it
// reports, and its checks refuse a wrong output. A small run: the benchmark's own sizes take
// minutes, and its timings are for `npm run bench:peers`, not for a test (no peak probe here: it is
// built apart, by bench/build-peak.sh).
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs-core';
import * as tfWasm from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web';
import { createEngine } from '../../web/engine.js';
import { checkAttention, checkSoftmax, jsAttention, jsSoftmax, runPeers } from '../../bench/peers-core.mjs';
import { markdown, ratios, table } from '../../bench/peers-report.mjs';

const rounds = { small: 1, large: 1, softmax: 1 };
const run = await runPeers({ createEngine, tf, tfWasm, ort, peakWasm: null }, rounds, () => {},
  { attentionSizes: [[32, 16], [48, 8]], softmaxSize: [16, 40] });

describe('the peers benchmark', () => {
  it('checks and times every implementation and form of both calls, one thread each', () => {
    const timed = (what) => run.results.filter((r) => r.what === what && r.value !== null).map((r) => r.impl);
    const forms = ['attnlab SIMD128', 'attnlab SIMD128 inputs resident', 'attnlab SIMD128 no copies', 'attnlab scalar', 'plain JS', 'onnxruntime-web'];
    for (const what of ['attention 32×16', 'attention 48×8'])
      expect(timed(what).sort()).toEqual([...forms, 'attnlab SIMD128 O only', 'tfjs matMul(q, k, false, true)', 'tfjs matMul(q, transpose(k))'].sort());
    expect(timed('softmax 16×40').sort()).toEqual([...forms, 'attnlab SIMD128 into out', 'tfjs softmax'].sort());
    expect(run.results.every((r) => r.value === null || r.value > 0)).toBe(true);
    expect(run.env).toMatchObject({ tfjsThreads: 1, ortThreads: 1, noCopies: 'workspace', peakProbe: null });
  });

  it('derives every ratio it reports from the run, and none from a missing figure', () => {
    const r = ratios(run.results)['attention 32×16'];
    const value = (impl) => run.results.find((x) => x.what === 'attention 32×16' && x.impl === impl).value;
    const tfBest = Math.max(value('tfjs matMul(q, k, false, true)'), value('tfjs matMul(q, transpose(k))'));
    expect(r['attnlab inputs resident / faster tfjs form']).toBeCloseTo(value('attnlab SIMD128 inputs resident') / tfBest, 12);
    expect(r['SIMD / scalar']).toBeCloseTo(value('attnlab SIMD128') / value('attnlab scalar'), 12);
    expect(r['attnlab no copies % of SIMD128 peak']).toBeNull();   // no probe in this run
    const md = markdown([['Node', run]]).join('\n');
    expect(md).toContain('| attnlab SIMD128, inputs resident |');
    expect(md).toContain('| SIMD128 peak probe | n/a | n/a |');
    expect(table(run, 'a test').join('\n')).toContain('attnlab SIMD128 no copies');
  });

  it('refuses an output off the double reference by more than its tolerance', () => {
    const [n, d] = [8, 4];
    const [q, k, v] = [1, 2, 3].map((s) => Float32Array.from({ length: n * d }, (_, i) => Math.sin(s * 7.3 + i)));
    const o = jsAttention(q, k, v, n, d);
    expect(() => checkAttention('plain JS', o, { q, k, v, n, d })).not.toThrow();
    o[4 * d + 1] += 1e-3;   // a row it checks (n / 2)
    expect(() => checkAttention('off', o, { q, k, v, n, d })).toThrow(/O\[4\]\[1\]/);
    expect(() => checkAttention('short', o.subarray(1), { q, k, v, n, d })).toThrow(/Float32Array/);
    const x = Float32Array.from({ length: 3 * 5 }, (_, i) => Math.cos(i));
    const y = jsSoftmax(x, 3, 5);
    expect(() => checkSoftmax('plain JS', y, x, 3, 5)).not.toThrow();
    y[7] *= 1 + 1e-4;
    expect(() => checkSoftmax('off', y, x, 3, 5)).toThrow(/Y\[1\]\[2\]/);
  });
});
