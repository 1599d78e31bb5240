// The page's handle on the engine worker (web/engine-client.js), driven with a stand-in worker:
// results and supersession reach the right caller, and a dead engine (a wasm trap: the worker
// reports a fatal error, or the worker itself fails) is replaced, its runs fail with a message that
// says so, and the next run works. After too many restarts the engine stays down.
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../web/worker-start.js', () => ({ startWorker: () => { throw new Error('tests pass their own start'); } }));
const { connectEngine } = await import('../../web/engine-client.js');

// A stand-in worker: answers 'ok' requests, reports a fatal wasm error for 'trap', and can fail.
class FakeWorker {
  static made = [];
  constructor() { this.terminated = false; FakeWorker.made.push(this); queueMicrotask(() => this.onmessage({ data: { ready: true, simd: true, arch: 'fake' } })); }
  postMessage({ id, channel, name, params }) {
    queueMicrotask(() => {
      if (this.terminated) return;
      if (name === 'trap') this.onmessage({ data: { id, error: { name: 'RuntimeError', message: 'memory access out of bounds', fatal: true } } });
      else if (name === 'cancel') {
        // as web/worker.js: the run on the channel, then the cancel itself, are answered superseded
        if (this.running?.channel === channel) this.onmessage({ data: { id: this.running.id, superseded: true } });
        this.onmessage({ data: { id, superseded: true } });
      } else if (name === 'never') this.running = { id, channel };  // a run in flight
      else this.onmessage({ data: { id, result: { echo: params, worker: FakeWorker.made.indexOf(this) }, ms: name === 'slow' ? 20 : name === 'medium' ? 9 : 1 } });
    });
  }
  terminate() { this.terminated = true; }
}
const start = () => new FakeWorker();

describe('engine-client', () => {
  it('resolves each run with its own result', async () => {
    FakeWorker.made = [];
    const c = connectEngine({ start });
    await expect(c.ready).resolves.toEqual({ simd: true, arch: 'fake' });
    const [a, b] = await Promise.all([c.run('ok', { x: 1 }), c.run('ok', { x: 2 })]);
    expect(a.echo).toEqual({ x: 1 });
    expect(b.echo).toEqual({ x: 2 });
  });

  it('a fatal engine error rejects the runs in flight, starts a new worker, tells the page, and the next run works', async () => {
    FakeWorker.made = [];
    const heard = [];
    const c = connectEngine({ start, onRestart: (reason, n, up) => heard.push([reason, n, up]) });
    await c.ready;
    const inFlight = c.run('never', {}, { channel: 'other' });
    await expect(c.run('trap', {})).rejects.toThrow(/memory access out of bounds/);
    await expect(inFlight).rejects.toMatchObject({ code: 'ENGINE_RESTARTED' });
    expect(FakeWorker.made.length).toBe(2);
    expect(FakeWorker.made[0].terminated).toBe(true);
    expect(heard).toEqual([[expect.stringContaining('memory access out of bounds'), 1, true]]);
    expect((await c.run('ok', { y: 3 })).worker).toBe(1);
  });

  it('a worker that fails after starting is replaced the same way', async () => {
    FakeWorker.made = [];
    const c = connectEngine({ start });
    await c.ready;
    const inFlight = c.run('never', {});
    FakeWorker.made[0].onerror({ message: 'boom' });
    await expect(inFlight).rejects.toThrow(/boom.*restarted/);
    expect((await c.run('ok', {})).worker).toBe(1);
  });

  it('after five restarts the engine stays down and says so', async () => {
    FakeWorker.made = [];
    const heard = [];
    const c = connectEngine({ start, onRestart: (reason, n, up) => heard.push(up) });
    await c.ready;
    for (let i = 0; i < 6; i++) await c.run('trap', {}).catch(() => {});
    expect(heard).toEqual([true, true, true, true, true, false]);
    await expect(c.run('ok', {})).rejects.toMatchObject({ code: 'ENGINE_DOWN' });
    // a cancel then has nothing to stop: it settles quietly, for callers that never await it
    await expect(c.cancel('ok')).resolves.toBeNull();
  });

  it('a cancel while the engine restarts settles with null, not a rejection no one handles', async () => {
    FakeWorker.made = [];
    const c = connectEngine({ start });
    await c.ready;
    const inFlight = c.run('never', {}, { channel: 'a' });
    FakeWorker.made[0].terminated = true;  // the worker dies before it answers the cancel
    const cancelled = c.cancel('a');
    FakeWorker.made[0].onerror({ message: 'boom' });
    await expect(inFlight).rejects.toThrow(/boom/);
    await expect(cancelled).resolves.toBeNull();
  });
});

// The page's own engine for light requests (local-engine.js in the page), stood in for by
// generator experiments that record their calls.
describe('engine-client with a page engine', () => {
  const withPageEngine = (calls) => ({
    start,
    local: async () => ({ engine: { page: true }, experiments: {
      ok: function* (engine, params) { calls.push(params); return { echo: params, page: engine.page }; },
      slow: function* () { calls.push('slow'); return {}; },
      medium: function* () { calls.push('medium'); return {}; },
      boom: function* () { throw new WebAssembly.RuntimeError('unreachable'); },
    } }),
  });
  const loaded = async (c) => { await c.ready; await new Promise((r) => setTimeout(r, 0)); };

  it('a request the worker answered within 12 ms at these sizes is computed next on the page, in the calling task; other sizes and heavier ones go to the worker', async () => {
    FakeWorker.made = [];
    const calls = [];
    const c = connectEngine(withPageEngine(calls));
    await loaded(c);
    expect((await c.run('ok', { x: 1, seed: 1 })).worker).toBe(0);  // no cost known yet: the worker
    const timed = [];
    const next = c.run('ok', { x: 1, seed: 2 }, { onTiming: (ms) => timed.push(ms) });
    expect(calls).toEqual([{ x: 1, seed: 2 }]);  // already computed when run() returns
    expect(await next).toEqual({ echo: { x: 1, seed: 2 }, page: true });
    expect(timed).toHaveLength(1);
    expect((await c.run('ok', { x: 2, seed: 2 })).worker).toBe(0);  // sizes never measured
    await c.run('slow', {});
    await c.run('slow', {});
    expect(calls).toEqual([{ x: 1, seed: 2 }]);  // 20 ms in the worker: never on the page
    await c.run('medium', {});
    await c.run('medium', {});
    expect(calls).toEqual([{ x: 1, seed: 2 }, 'medium']);  // 9 ms: on the page, after the frame it spares
  });

  it('the query shown is not a size: a light run for one query makes the next query light too', async () => {
    FakeWorker.made = [];
    const calls = [];
    const c = connectEngine(withPageEngine(calls));
    await loaded(c);
    expect((await c.run('ok', { n: 16, seed: 1, query: 1 })).worker).toBe(0);
    expect(await c.run('ok', { n: 16, seed: 1, query: 7 })).toMatchObject({ page: true });
    expect(calls).toEqual([{ n: 16, seed: 1, query: 7 }]);
    expect((await c.run('ok', { n: 32, seed: 1, query: 7 })).worker).toBe(0);  // n is a size
  });

  it('sizes given by the caller decide what counts as the same work: another rule at the same sizes is light at once', async () => {
    FakeWorker.made = [];
    const calls = [];
    const c = connectEngine(withPageEngine(calls));
    await loaded(c);
    const sizes = { dmodel: 512, dk: 64 };
    expect((await c.run('ok', { init: 'glorot-uniform', dmodel: 512, dk: 64 }, { sizes })).worker).toBe(0);
    expect(await c.run('ok', { init: 'he-normal', dmodel: 512, dk: 64 }, { sizes })).toMatchObject({ page: true });
    expect(calls).toEqual([{ init: 'he-normal', dmodel: 512, dk: 64 }]);
    expect((await c.run('ok', { init: 'he-normal', dmodel: 1024, dk: 64 }, { sizes: { dmodel: 1024, dk: 64 } })).worker).toBe(0);
    // without them every parameter but the seed and query is a size
    expect((await c.run('ok', { init: 'lecun-normal', dmodel: 512, dk: 64 })).worker).toBe(0);
  });

  it('an optional run is made on the page when it is light there, in the worker only to learn its cost, and else not at all', async () => {
    FakeWorker.made = [];
    const calls = [];
    const posted = () => performance.getEntriesByName('attnlab:posted').length;
    // no page engine (the single-file build, or before it loads): not made
    const bare = connectEngine({ start });
    await bare.ready;
    let before = posted();
    expect(await bare.run('ok', { x: 1 }, { optional: true })).toBeNull();
    expect(posted()).toBe(before);
    const c = connectEngine(withPageEngine(calls));
    await loaded(c);
    before = posted();
    expect((await c.run('ok', { x: 1, seed: 1 }, { optional: true })).worker).toBe(1);  // its cost unknown: learnt in the worker (c's)
    expect(posted()).toBe(before + 1);
    expect(await c.run('ok', { x: 1, seed: 2 }, { optional: true })).toMatchObject({ page: true });  // light: on the page
    await c.run('slow', {});  // 20 ms in the worker
    before = posted();
    expect(await c.run('slow', {}, { optional: true })).toBeNull();  // heavy: not made
    expect(posted()).toBe(before);
    expect(calls).toEqual([{ x: 1, seed: 2 }]);
  });

  it('a light request asked for in the worker stays there, to overlap a run on the page', async () => {
    FakeWorker.made = [];
    const calls = [];
    const c = connectEngine(withPageEngine(calls));
    await loaded(c);
    await c.run('ok', { x: 1, seed: 1 });  // light at these sizes from now on
    expect((await c.run('ok', { x: 1, seed: 2 }, { worker: true })).worker).toBe(0);
    expect(calls).toEqual([]);
    expect(await c.run('ok', { x: 1, seed: 3 })).toMatchObject({ page: true });  // without it: the page
  });

  it('a light request on the page cancels the run in flight on its channel', async () => {
    FakeWorker.made = [];
    const c = connectEngine(withPageEngine([]));
    await loaded(c);
    await c.run('ok', { seed: 1 });
    const older = c.run('never', {}, { channel: 'fig' });
    expect(await c.run('ok', { seed: 2 }, { channel: 'fig' })).toMatchObject({ page: true });
    expect(await older).toBeNull();
  });

  it('a trap inside the page engine rejects that run and retires the page engine: the worker takes the next', async () => {
    FakeWorker.made = [];
    const calls = [];
    const c = connectEngine(withPageEngine(calls));
    await loaded(c);
    await c.run('boom', {});  // answered by the worker in 1 ms
    await c.run('ok', {});
    await expect(c.run('boom', {})).rejects.toThrow(/unreachable/);
    expect((await c.run('ok', { z: 1 })).worker).toBe(0);
    expect(calls).toEqual([]);
  });

  it('a page engine that fails to load leaves every run to the worker', async () => {
    FakeWorker.made = [];
    const c = connectEngine({ start, local: async () => { throw new Error('no wasm here'); } });
    await loaded(c);
    await c.run('ok', {});
    expect((await c.run('ok', {})).worker).toBe(0);
  });

  it('a reader\'s run stops the runs ahead of every channel, and busy() counts only the reader\'s runs', async () => {
    FakeWorker.made = [];
    const c = connectEngine({ start });
    await c.ready;
    const early = c.run('never', {}, { channel: 'fig#1/ahead', ahead: true });
    await new Promise((res) => setTimeout(res, 0));
    expect(c.busy()).toBe(false);  // only a run ahead is in the worker
    const mine = c.run('ok', { x: 1 }, { channel: 'fig#2' });
    expect(c.busy()).toBe(true);
    await expect(early).resolves.toBeNull();  // stopped: the figure runs it again later
    expect((await mine).echo).toEqual({ x: 1 });
    expect(c.busy()).toBe(false);
    expect(c.cost('ok', { x: 1, seed: 5 })).toBe(1);  // its last run at these sizes (the seed aside)
    expect(c.cost('ok', { x: 2 })).toBeUndefined();
  });
});
