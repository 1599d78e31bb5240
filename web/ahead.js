// Work done ahead for one figure (web/figure.js): the requests a step expects the reader to make
// next (breaking-assumptions' other departures, initialization's other rules, n one stop either
// way, the seed ± 1), computed in the worker and drawn while the page is idle, so that the choice,
// when it comes, costs a draw and no round trip to the worker or the run behind it.
//   give(requests, prepare)  the list: requests { name, params, channel?, sizes? (as run's), …what
//                            prepare needs besides }, replacing the last one (results computed
//                            already are kept, and those the figure showed lately); each result
//                            then goes to prepare(request, result), which returns the builds of
//                            what the request would draw (or does them itself): a new n of
//                            full-attention is four heatmaps and two formulas, ~40 ms, so each
//                            build is a job of its own, as many to an idle period as it has room
//   take(channel, key)       { result, ms } computed ahead for a request on a channel of the
//                            figure (key: requestKey), if any
//   shown(channel, { key, name, params, sizes }, result)  a result the figure draws: a later list
//                            naming it takes it from here
//   wake()                   the figure is drawn again: work left over goes on
//   stop()                   the list is dropped (Stop, the figure's end)
// Two chains do the work. Computing: the next request, started in idle time once the figure is
// drawn (isReady) and then as soon as the last one returns (the worker's time is not the page's),
// one at a time on a channel of their own; paused while a reader's run of any figure has the
// worker (engine-client busy; a reader's request stops the run ahead, which is made again later).
// A request whose cost at its sizes is known to be over AHEAD_MS, or unknown while the figure's
// own request of that name took over AHEAD_MS, is not made: idle time is also the reader's
// battery, and 10⁵ pairs at d_k = 4096 take seconds (generous below that: a cold engine on a busy
// host took 30–60 ms for a run of 6). Nor is one that failed made again. Drawing: in idle time, the
// jobs of a result, else the next result not yet drawn at this room.
import { whenIdle } from './idle.js';

const AHEAD_MS = 500;
const SHOWN = 8;  // results the figure showed lately, kept for a list that names one again
const BUSY_WAIT = 100;  // ms before looking again when a reader's run has the worker
const JOB_ROOM = 8;  // ms an idle period must have left for another job after its first

// a request, as the figure's last result per channel names it; on a channel, as the list does
export const requestKey = (name, params) => `${name} ${JSON.stringify(params)}`;
const keyOf = (channel, key) => `${channel} ${key}`;

export function aheadOf({ client, channel, channelOf, isReady, layout }) {
  const aheadChannel = `${channel}/ahead`;
  // key → { key, request, result?, ms?, prepared?, building?, skipped? }; prepared: the room its
  // jobs were all done at; building: the room they were made for
  let list = new Map();
  const recent = new Map();  // key → result: what the figure showed lately
  const current = new Map();  // channel → the key of the result it shows
  const own = new Map();  // 'channel name' → [params, sizes] of the figure's last request of that name
  let prepare = null, running = null, ticket = 0, jobs = [];

  // too costly to run ahead: known at its sizes, or guessed from the figure's own request
  const costly = ({ name, params, channel: side, sizes }) => {
    const known = client.cost?.(name, params, sizes);
    if (known !== undefined) return known > AHEAD_MS;
    const mine = own.get(`${channelOf(side)} ${name}`);
    return !(mine && client.cost?.(name, ...mine) <= AHEAD_MS);
  };

  let drawing = false;  // one chain of idle callbacks at a time
  const draw = () => {
    if (drawing) return;
    drawing = true;
    whenIdle((deadline) => {
      drawing = false;
      let more = true, first = true;
      try {
        while (isReady() && (first || (deadline?.timeRemaining?.() ?? 0) > JOB_ROOM)) {
          first = false;
          if (!jobs.length) {
            const entry = [...list.values()].find((a) => 'result' in a && a.prepared !== layout() && a.building !== layout());
            if (!entry) { more = false; break; }
            entry.building = layout();
            const built = [prepare?.(entry.request, entry.result) ?? []].flat();
            jobs = [...built, () => {}].map((job, i) => ({ job, entry, last: i === built.length }));
            continue;
          }
          const { job, entry, last } = jobs.shift();
          job();
          if (last) {
            entry.prepared = entry.building;
            performance.mark('attnlab:ahead', { detail: channel });  // an entry drawn (for DevTools and the tests)
          }
        }
      } finally {
        if (more && isReady()) draw();  // (a build that threw is reported, and the rest go on)
      }
    }, { timeout: 1000, fallback: 50 });
  };

  const compute = async (t) => {
    if (t !== ticket || running || !isReady()) return;
    let next;
    for (const a of list.values()) {
      if ('result' in a || a.skipped) continue;
      if (costly(a.request)) { a.skipped = true; continue; }
      next = a;
      break;
    }
    if (!next) return;
    if (client.busy?.()) { setTimeout(() => compute(t), BUSY_WAIT); return; }
    const run = running = { key: next.key };
    let ms, failed = false;
    const result = await client.run(next.request.name, next.request.params,
      { channel: aheadChannel, worker: true, ahead: true, sizes: next.request.sizes, onTiming: (x) => { ms = x; } })
      .catch(() => { failed = true; return null; });
    if (running === run) running = null;
    // (a result depends on its request only: it is kept if the list given since still has it;
    // null is a run stopped by a reader's, to be made again; a failure is left to the reader's own
    // run to report)
    const entry = list.get(run.key);
    if (entry && failed) entry.skipped = true;
    else if (result !== null && entry && !('result' in entry)) { Object.assign(entry, { result, ms }); draw(); }
    compute(ticket);
  };

  const work = () => {
    const t = ticket;
    draw();
    whenIdle(() => compute(t), { timeout: 1000, fallback: 50 });
  };

  return {
    give(requests, prepareWith) {
      const next = new Map();
      for (const request of requests) {
        const key = keyOf(channelOf(request.channel), requestKey(request.name, request.params)), old = list.get(key);
        // a result keeps its drawing if the request's other fields (what prepare draws with) agree
        const same = old && JSON.stringify(old.request) === JSON.stringify(request);
        const known = old && 'result' in old ? { result: old.result, ms: old.ms, ...(same ? { prepared: old.prepared } : {}) }
          : recent.has(key) ? { result: recent.get(key), ...(current.get(channelOf(request.channel)) === key ? { prepared: layout() } : {}) } : {};
        next.set(key, { ...known, key, request });
      }
      list = next;
      prepare = prepareWith;
      jobs = [];  // (an entry whose jobs are dropped has no `prepared`: it is drawn again, its builds kept)
      ticket++;
      work();
    },
    take(ch, key) {
      const entry = list.get(keyOf(ch, key));
      return entry && 'result' in entry ? { result: entry.result, ms: entry.ms } : undefined;
    },
    shown(ch, { key: request, name, params, sizes }, result) {
      const key = keyOf(ch, request);
      recent.delete(key);
      recent.set(key, result);
      if (recent.size > SHOWN) recent.delete(recent.keys().next().value);
      own.set(`${ch} ${name}`, [params, sizes]);
      current.set(ch, key);
      // a request on the list that the figure ran itself is drawn: prepared at this room
      const entry = list.get(key);
      if (entry && !('result' in entry)) Object.assign(entry, { result, prepared: layout() });
    },
    wake: () => { if (list.size) work(); },
    stop() {
      list = new Map();
      jobs = [];
      prepare = null;
      ticket++;
      if (running) { running = null; client.cancel(aheadChannel, { ahead: true }); }
    },
  };
}
