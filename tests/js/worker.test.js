// The worker's protocol (web/worker.js), run in Node with the worker's globals stubbed: runs on two
// channels take turns chunk by chunk, and each reports its own compute time, not the time between
// its start and its end (which would count the other run's chunks, and make a light run look heavy
// to the engine client, which then keeps it off the page's engine).
import { beforeAll, describe, expect, it } from 'vitest';

const sent = [];
const timers = [];  // the delay of every setTimeout the worker sets (its rests among them)
let answered = () => {}, STREAM_PAUSE;
beforeAll(async () => {
  globalThis.self = globalThis;
  globalThis.postMessage = (m) => { sent.push({ ...m, at: performance.now() }); answered(); };
  const setTimeout = globalThis.setTimeout;
  globalThis.setTimeout = (fn, ms, ...rest) => { timers.push(ms ?? 0); return setTimeout(fn, ms, ...rest); };
  ({ STREAM_PAUSE } = await import('../../web/worker.js'));
  await new Promise((resolve) => { answered = () => sent.some((m) => 'ready' in m) && resolve(); answered(); });
});

const request = (m) => self.onmessage({ data: m });
const until = (ids) => new Promise((resolve) => {
  answered = () => ids.every((id) => sent.some((m) => m.id === id && 'result' in m)) && resolve();
  answered();
});

describe('web/worker.js', () => {
  it('runs that take turns report compute times that do not overlap: together at most the wall time', async () => {
    const t0 = performance.now();
    request({ id: 1, channel: 'sweep', name: 'dotVarianceSweep', params: { seed: 3 } });
    request({ id: 2, channel: 'histogram', name: 'dotVariance', params: { dk: 256, count: 20000, seed: 3 } });
    await until([1, 2]);
    const wall = performance.now() - t0;
    const [sweep, histogram] = [1, 2].map((id) => sent.find((m) => m.id === id && 'result' in m));
    // they took turns: progress of the sweep came between the histogram's start and its end
    const between = sent.filter((m) => m.id === 1 && 'progress' in m && m.at < histogram.at);
    expect(between.length).toBeGreaterThan(0);
    expect(sweep.ms).toBeGreaterThan(0);
    expect(histogram.ms).toBeGreaterThan(0);
    expect(sweep.ms + histogram.ms).toBeLessThanOrEqual(wall);
    expect(histogram.result.count).toBe(20000);
  });

  it('rests every channel for STREAM_PAUSE ms after a streamed run\'s first chunk, so the page can draw it', async () => {
    const config = { dk: 16, seqLen: 8, optimizer: 'sgd', lr: 0.1, seed: 1, init: 'xavier-uniform' };
    const timersBefore = timers.length;
    request({ id: 3, channel: 'sweep', name: 'dotVarianceSweep', params: { seed: 4 } });
    request({ id: 4, channel: 'training', name: 'trainingRun', params: { config, from: 0, to: 40 } });
    await until([3, 4]);
    const first = sent.findIndex((m) => m.id === 4 && m.partial);
    expect(first).toBeGreaterThan(-1);
    // the next message of either run comes after the rest (without it: 0.4 ms). A timer's
    // fractional ms are truncated, and it may fire up to a ms early: 2 ms of slack.
    const next = sent[first + 1];
    expect(next.at - sent[first].at).toBeGreaterThanOrEqual(STREAM_PAUSE - 2);
    // one rest for the run, not one per chunk: a single timer of up to STREAM_PAUSE ms (the
    // warm-up's waits, 0 and 50 ms, are not rests), while the run streamed several more chunks
    const rests = timers.slice(timersBefore).filter((ms) => ms > 1 && ms <= STREAM_PAUSE);
    expect(rests).toHaveLength(1);
    expect(sent.filter((m, i) => i > first && m.id === 4 && m.partial).length).toBeGreaterThan(2);
  });
});
