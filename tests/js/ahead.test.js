// Work done ahead for a figure (web/ahead.js), driven with a stand-in engine client: each request is
// computed once, one at a time, on the figure's ahead channel; its result is taken in place of a
// run; a prepare's builds each get an idle slot; what is too costly, or would share the worker with
// a reader's run, waits or is not made; what the figure showed is not computed again.
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../web/idle.js', () => ({ whenIdle: (fn) => setTimeout(fn, 0) }));
const { aheadOf, requestKey } = await import('../../web/ahead.js');

const settle = () => new Promise((res) => setTimeout(res, 30));
// a request the figure made, as figure.js tells ahead.shown of it
const asked = (name, params) => ({ key: requestKey(name, params), name, params });

// A stand-in client: runs answer after a tick with their params, costs are what the test sets.
function fakeClient() {
  const client = {
    runs: [], cancels: [], costs: new Map(), readerBusy: false, delay: 1,
    run: (name, params, { channel, onTiming }) => {
      client.runs.push([channel, name, params]);
      if (name === 'fails') return Promise.reject(new Error('the engine reported an error'));
      return new Promise((res) => setTimeout(() => { onTiming?.(3); res({ name, params }); }, client.delay));
    },
    cancel: (channel) => client.cancels.push(channel),
    cost: (name, params) => client.costs.get(`${name} ${JSON.stringify(params)}`),
    busy: () => client.readerBusy,
  };
  return client;
}
const make = (client, isReady = () => true) => aheadOf({ client, channel: 'fig#1', channelOf: (side) => (side ? `fig#1/${side}` : 'fig#1'), isReady, layout: () => 0 });

describe('ahead', () => {
  it('computes each request once, in order, on the figure\'s ahead channel, and answers take() with its result and time', async () => {
    const client = fakeClient(), ahead = make(client);
    client.costs.set('sweep {"n":8}', 5);
    client.costs.set('row {"n":8}', 1);
    ahead.shown('fig#1', asked('sweep', { n: 8 }), 'shown');
    ahead.shown('fig#1/q', asked('row', { n: 8 }), 'shown');
    ahead.give([{ name: 'sweep', params: { n: 16 } }, { name: 'row', params: { n: 16 }, channel: 'q' }], () => {});
    await settle();
    expect(client.runs).toEqual([['fig#1/ahead', 'sweep', { n: 16 }], ['fig#1/ahead', 'row', { n: 16 }]]);
    expect(ahead.take('fig#1', requestKey('sweep', { n: 16 }))).toEqual({ result: { name: 'sweep', params: { n: 16 } }, ms: 3 });
    expect(ahead.take('fig#1/q', requestKey('row', { n: 16 }))).toEqual({ result: { name: 'row', params: { n: 16 } }, ms: 3 });
    expect(ahead.take('fig#1', requestKey('row', { n: 16 }))).toBeUndefined();  // another channel's request
    // the same list again: nothing more is run
    ahead.give([{ name: 'sweep', params: { n: 16 } }, { name: 'row', params: { n: 16 }, channel: 'q' }], () => {});
    await settle();
    expect(client.runs.length).toBe(2);
  });

  it('runs each build a prepare returns, in order, and marks the entry drawn only after the last', async () => {
    const client = fakeClient(), ahead = make(client), order = [];
    client.costs.set('sweep {"n":16}', 5);
    const marks = () => performance.getEntriesByName('attnlab:ahead').length, before = marks();
    ahead.give([{ name: 'sweep', params: { n: 16 }, values: 'v' }], (request, result) => {
      order.push(['prepare', request.values, result.params.n]);
      return [() => order.push('a'), () => { order.push('b'); order.push(marks() - before); }];
    });
    await settle();
    expect(order).toEqual([['prepare', 'v', 16], 'a', 'b', 0]);
    expect(marks() - before).toBe(1);
  });

  it('does not run a request known or guessed to cost over half a second, nor while a reader\'s run has the worker', async () => {
    const client = fakeClient(), ahead = make(client);
    client.costs.set('sweep {"n":8}', 900);  // the figure's own: n = 16 is not guessed cheap
    client.costs.set('row {"n":8}', 2);
    ahead.shown('fig#1', asked('sweep', { n: 8 }), 'shown');
    ahead.shown('fig#1/q', asked('row', { n: 8 }), 'shown');
    client.costs.set('big {}', 2000);
    client.readerBusy = true;
    ahead.give([{ name: 'sweep', params: { n: 16 } }, { name: 'big', params: {} }, { name: 'row', params: { n: 16 }, channel: 'q' }], () => {});
    await settle();
    expect(client.runs).toEqual([]);  // the reader's run has the worker
    client.readerBusy = false;
    await new Promise((res) => setTimeout(res, 150));
    expect(client.runs).toEqual([['fig#1/ahead', 'row', { n: 16 }]]);
  });

  it('does not compute again a request the figure drew, and stop() drops the list and the run in flight', async () => {
    const client = fakeClient(), ahead = make(client);
    client.delay = 200;
    client.costs.set('sweep {"n":16}', 5);
    ahead.shown('fig#1', asked('sweep', { n: 8 }), 'drawn at 8');
    ahead.shown('fig#1', asked('sweep', { n: 16 }), 'drawn at 16');  // the reader went on to 16
    ahead.give([{ name: 'sweep', params: { n: 8 } }, { name: 'sweep', params: { n: 32 } }], () => {});
    expect(ahead.take('fig#1', requestKey('sweep', { n: 8 }))).toEqual({ result: 'drawn at 8', ms: undefined });
    await vi.waitFor(() => expect(client.runs.length).toBe(1), { interval: 5 });  // n = 32's run is going
    ahead.stop();
    expect(client.cancels).toEqual(['fig#1/ahead']);
    await new Promise((res) => setTimeout(res, 300));
    expect(client.runs).toEqual([['fig#1/ahead', 'sweep', { n: 32 }]]);
    expect(ahead.take('fig#1', requestKey('sweep', { n: 32 }))).toBeUndefined();
  });

  it('does not make again a run that failed (a dead engine would be asked without end), and goes on with the rest', async () => {
    const client = fakeClient(), ahead = make(client);
    client.costs.set('fails {}', 1);
    client.costs.set('sweep {"n":16}', 1);
    ahead.give([{ name: 'fails', params: {} }, { name: 'sweep', params: { n: 16 } }], () => {});
    await settle();
    expect(client.runs).toEqual([['fig#1/ahead', 'fails', {}], ['fig#1/ahead', 'sweep', { n: 16 }]]);
  });

  it('goes on with work left over when the figure, busy with a run of its own, is drawn again (wake)', async () => {
    const client = fakeClient();
    let ready = false;
    const ahead = make(client, () => ready);
    client.costs.set('sweep {"n":16}', 1);
    ahead.give([{ name: 'sweep', params: { n: 16 } }], () => {});
    await settle();
    expect(client.runs).toEqual([]);  // the figure was computing
    ready = true;
    ahead.wake();
    await settle();
    expect(client.runs).toEqual([['fig#1/ahead', 'sweep', { n: 16 }]]);
  });
});
