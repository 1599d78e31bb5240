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
  postMessage({ id, name, params }) {
    queueMicrotask(() => {
      if (this.terminated) return;
      if (name === 'trap') this.onmessage({ data: { id, error: { name: 'RuntimeError', message: 'memory access out of bounds', fatal: true } } });
      else if (name === 'cancel') this.onmessage({ data: { id, superseded: true } });
      else if (name === 'never') { /* a run in flight */ } else this.onmessage({ data: { id, result: { echo: params, worker: FakeWorker.made.indexOf(this) }, ms: 1 } });
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
  });
});
