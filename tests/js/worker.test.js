// The worker's protocol (web/worker.js), run in Node with the worker's globals stubbed: a newer
// request on a channel supersedes the older one, and a cancel ends it; runs on two
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
  it('a newer request on a channel supersedes the older one mid-run; another channel\'s run goes on; cancel ends a run', async () => {
    request({ id: 10, channel: 'a', name: 'dotVarianceSweep', params: { seed: 5 } });
    request({ id: 11, channel: 'b', name: 'dotVarianceSweep', params: { seed: 6 } });
    // once run 10 has reported progress (it is under way), a newer request on its channel
    await new Promise((resolve) => { answered = () => sent.some((m) => m.id === 10 && 'progress' in m) && resolve(); answered(); });
    request({ id: 12, channel: 'a', name: 'dotVariance', params: { dk: 64, count: 1000, seed: 5 } });
    await until([11, 12]);
    expect(sent.find((m) => m.id === 10 && m.superseded)).toBeDefined();
    expect(sent.some((m) => m.id === 10 && 'result' in m)).toBe(false);
    expect(sent.find((m) => m.id === 12 && 'result' in m).result.count).toBe(1000);
    expect(sent.find((m) => m.id === 11 && 'result' in m).result.points.length).toBe(13);  // its sweep, whole: dₖ = 1 … 4096
    // a cancel on a channel ends its run: answered superseded, never a result
    request({ id: 13, channel: 'a', name: 'dotVarianceSweep', params: { seed: 7 } });
    await new Promise((resolve) => { answered = () => sent.some((m) => m.id === 13 && 'progress' in m) && resolve(); answered(); });
    request({ id: 14, channel: 'a', name: 'cancel' });
    await new Promise((resolve) => { answered = () => sent.some((m) => m.id === 14 && m.superseded) && resolve(); answered(); });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent.find((m) => m.id === 13 && m.superseded)).toBeDefined();
    expect(sent.some((m) => m.id === 13 && 'result' in m)).toBe(false);
  });

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
    // one rest for the run, not one per chunk: a single timer of over half STREAM_PAUSE ms, while
    // the run streamed several more chunks. (Not counted: the warm-up's waits, 0 and 50 ms, and
    // the rest of a rest whose timer fired early: Node's timers may fire up to ~2 ms early.)
    const rests = timers.slice(timersBefore).filter((ms) => ms > STREAM_PAUSE / 2 && ms <= STREAM_PAUSE);
    expect(rests).toHaveLength(1);
    expect(sent.filter((m, i) => i > first && m.id === 4 && m.partial).length).toBeGreaterThan(2);
  });
});
