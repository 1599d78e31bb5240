// One live figure: the scaffold every step's figure gets on the full page, in the embed page and
// in <attnlab-step>. It renders the controls, mounts the step module when the figure comes near
// the viewport, and reruns the module's update on every change.
//   control → values → onChange (URL, attribute) → worker request → engine → result → plot
import { renderControls } from './controls.js';
import { aheadOf, requestKey } from './ahead.js';
import { whenIdle } from './idle.js';
import { el } from './readout.js';
import { watchRoom } from './plots/room.js';
import { judgeAgain } from './scroll-region.js';

const BUSY_DELAY = 150;  // ms before a run still going shows its progress bar
const fmtMs = (ms) => (ms < 10 ? ms.toFixed(1) : String(Math.round(ms)));

// step: a module of web/steps/; fig: its <figure class="live">; client: connectEngine();
// values, notes: the starting parameters and what was wrong with the given ones;
// onChange(values): after each user change, once its redraw is done and the main thread is idle
// (writing history costs a few ms, which a redraw should not wait for); eager: mount now rather
// than when scrolled into view.
export function mountFigure({ step, fig, client, values, notes = [], onChange = () => {}, eager = false }) {
  const controlsEl = el('div', 'controls');
  const body = el('div', 'figure-body');
  const note = el('p', 'note');
  note.hidden = true;
  const busy = el('div', 'busy');
  busy.hidden = true;
  const bar = document.createElement('progress');
  bar.max = 1;
  bar.setAttribute('aria-label', 'computing');
  const stop = el('button', undefined, 'Stop');
  stop.type = 'button';
  // Stop ends every run of the figure, its own and those of its side channels (a step's reports);
  // an answer already on its way draws nothing
  stop.addEventListener('click', () => {
    for (const ch of [channel, ...sideChannels]) drop(ch);
    ahead.stop();
    // the button is about to hide: the keyboard's focus goes to the figure's first control, not
    // back to the start of the page
    (controlsEl.querySelector('input, select, button') ?? fig).focus({ preventScroll: true });
    hideBusy();
    fig.dataset.state = 'stopped';
  });
  busy.append(bar, stop);
  const timing = el('p', 'timing');
  fig.prepend(controlsEl, note, busy, body);
  fig.append(timing);
  // the notes on the parameters (from the URL or the attributes), and the last run's error until
  // a run succeeds again
  let paramNotes = notes, errorNote = null;
  const showNotes = () => {
    const list = errorNote ? [...paramNotes, errorNote] : paramNotes;
    note.hidden = !list.length;
    note.textContent = list.join('; ');
  };
  showNotes();

  // one worker channel per figure: several figures of one step (embeds) never supersede each other
  const channel = `${step.id}#${mountFigure.count = (mountFigure.count ?? 0) + 1}`;
  const sideChannels = new Set();
  let current = values;
  let view = null;
  let resolvedAt = 0;  // the newest update's start, or its result's arrival: done() − resolvedAt is the draw
  // 'ready' means the newest update has drawn and returned (a side report it awaits included) and
  // none is still running. Usually the newest is the last to return; but one answered from the last
  // result (below) draws at once, and the older request it dropped returns after it, so whichever
  // returns last settles the state. A draw outside update() (a button of the step) settles at once.
  let inFlight = 0;    // update() calls not yet returned
  let drawnSinceNewest = false;
  // The progress bar appears only for a run still going after BUSY_DELAY ms: a quick one would
  // only flash it, and showing it moves the figure's body down (a layout and a repaint of the
  // figure, twice, on the main thread the redraw needs).
  let busyTimer = 0, lastProgress = 0;
  function hideBusy() { clearTimeout(busyTimer); busyTimer = 0; busy.hidden = true; }
  const settle = () => { hideBusy(); fig.dataset.state = 'ready'; ahead.wake(); };
  const figure = {
    body,
    // a control's element (its label, input and value), for a step that places it beside its
    // question (exercises); null if the step has no such parameter
    control: (name) => controlsEl.querySelector(`[data-param="${name}"]`)?.closest('.control') ?? null,
    // grows when the figure's room changes (plots/room.js): a step that skips redrawing what its
    // last results drew keys that on this too, so its plots are drawn again at their new widths
    layout: 0,
    progress: (p) => {
      lastProgress = p;
      if (!busy.hidden) bar.value = p;
      else if (!busyTimer) busyTimer = setTimeout(() => {
        busyTimer = 0;
        if (fig.dataset.state !== 'computing') return;
        bar.value = lastProgress;
        busy.hidden = false;
      }, BUSY_DELAY);
    },
    // a long run drew part of its result (a chunk of training): data-streamed grows (the
    // interaction benchmark times a control's first one)
    streamed: () => { fig.dataset.streamed = String(+(fig.dataset.streamed || 0) + 1); },
    done: () => {
      fig.dataset.drawMs = (performance.now() - resolvedAt).toFixed(2);
      if (errorNote) { errorNote = null; showNotes(); }  // drawn again: the last error is past
      judgeAgain(body);  // content that widened may now scroll sideways, or fit
      drawnSinceNewest = true;
      hideBusy();
      if (inFlight === 0) settle();
      fig.dataset.updates = String(+(fig.dataset.updates || 0) + 1);
    },
  };
  // The last result per channel, by request: experiments are pure functions of their parameters,
  // so a control that only changes the drawing (a log axis, say) reuses it without the worker.
  const last = new Map();   // channel → { key, result }
  const pending = new Map();  // channel → { dropped } for the request in flight
  // Drops a channel's request in flight: the worker stops it if it is still running, and its
  // answer, if it had already finished (then it is on its way), resolves to null.
  const drop = (ch) => {
    const older = pending.get(ch);
    if (older) { older.dropped = true; pending.delete(ch); }
    client.cancel(ch);
  };
  // Results computed ahead (web/ahead.js): the requests a step expects next, computed and drawn
  // while the page is idle. A request of the figure's among them, on its channel or a side one, is
  // answered from its result, as from the last one (a reader's request to the worker stops the run
  // ahead in flight: web/engine-client.js).
  const channelOf = (side) => (side ? `${channel}/${side}` : channel);
  const ahead = aheadOf({ client, channel, channelOf, isReady: () => fig.dataset.state === 'ready', layout: () => figure.layout });
  let aheadMs = null;  // ms the engine took ahead for what this update draws, if it took any
  // the figure's last result on a channel, which the next list of requests ahead may name
  // (a result that came back for a request since dropped is kept, as it depends on its request
  // only, but it is not the one shown)
  const keepLast = (ch, request, result, drawn = true) => {
    last.set(ch, { key: request.key, result });
    if (drawn) ahead.shown(ch, request, result);
  };

  const ctx = {
    // a step may run side jobs on channels of its own: they are named within this figure's.
    // cache: false for a run whose answer depends on more than its parameters (a streamed
    // training run continues the worker's trainer: after a reset, the same request must train again)
    // timing: false for a run whose time is not the figure's (a training run's first chunk, beside
    // the run itself); optional: as engine-client's run
    run: (name, params, opts = {}) => {
      const ch = channelOf(opts.channel);
      if (opts.channel) sideChannels.add(ch);
      const key = requestKey(name, params), cache = opts.cache !== false;
      const asked = { key, name, params, sizes: opts.sizes };
      const early = cache && last.get(ch)?.key !== key ? ahead.take(ch, key) : undefined;
      if (early) {
        keepLast(ch, asked, early.result);
        if (early.ms !== undefined) aheadMs = (aheadMs ?? 0) + early.ms;
      }
      if (cache && last.get(ch)?.key === key) {
        if (pending.has(ch)) drop(ch);  // an older request must not draw over this
        return Promise.resolve(last.get(ch).result);
      }
      // an older request still out draws nothing: the worker supersedes it, but an answer computed
      // on the page's engine (engine-client.js) comes before it
      const request = { dropped: false };
      if (pending.has(ch)) pending.get(ch).dropped = true;
      pending.set(ch, request);
      const settle = () => { if (pending.get(ch) === request) pending.delete(ch); };
      return client.run(name, params, { onProgress: opts.onProgress, worker: opts.worker, sizes: opts.sizes, optional: opts.optional, channel: ch,
        onTiming: (ms) => {
          if (request.dropped || opts.timing === false) return;
          resolvedAt = performance.now();
          fig.dataset.engineMs = ms.toFixed(2);
          engineRan = true;
          timing.textContent = `Computed in ${fmtMs(ms)} ms by the engine.`;
        } }).then((result) => {
        settle();
        if (result !== null && cache) keepLast(ch, asked, result, !request.dropped);
        return request.dropped ? null : result;
      }, (err) => {
        settle();
        if (request.dropped) return null;
        throw err;
      });
    },
    cancel: () => drop(channel),  // the run in flight stops, and an answer on its way draws nothing
    // ahead(requests, prepare): what to compute and draw ahead (web/ahead.js give)
    ahead: (requests, prepare) => ahead.give(requests, prepare),
  };

  // An update answered wholly from results already computed says so, rather than leave the last
  // run's time standing as if it were this one's.
  let updates = 0, engineRan = false;
  const update = async () => {
    const id = ++updates;
    engineRan = false;
    aheadMs = null;
    fig.dataset.state = 'computing';
    // until a result arrives, this update has cost the engine nothing and everything is the draw
    // (an update answered from the last result, or one that redraws without asking the engine)
    resolvedAt = performance.now();
    fig.dataset.engineMs = '0.00';
    inFlight++;
    drawnSinceNewest = false;
    try {
      await view.update(current);
      if (id === updates && !engineRan) timing.textContent = aheadMs !== null
        ? `Computed ahead in ${fmtMs(aheadMs)} ms by the engine, before it was chosen.`
        : 'Redrawn from results already computed: the engine did not run.';
    } catch (err) {
      hideBusy();
      fig.dataset.state = 'error';
      errorNote = `The engine reported an error: ${err.message}`;
      showNotes();
    } finally {
      inFlight--;
      if (inFlight === 0 && drawnSinceNewest && fig.dataset.state === 'computing') settle();
    }
  };

  // A change is reported with its own values, and not at all if newer values came meanwhile (a
  // change, or back/forward through apply): reporting the newest instead, after a run, recorded
  // back's values as a new history entry and threw the forward ones away.
  let changes = 0;
  const controls = renderControls(controlsEl, step.params, current, (next) => {
    current = next;
    const change = ++changes;
    const report = () => whenIdle(() => { if (change === changes) onChange(next); }, { timeout: 250, fallback: 16 });
    if (view) update().then(report); else report();
  });

  const mountNow = () => {
    if (view) return;
    view = step.mount(figure, ctx);
    update();
  };
  // a figure whose room changed (a window resized, a tablet turned) draws its plots again at their
  // new widths, from the results it has; a run still going draws at the new room when it ends
  const unwatchRoom = watchRoom(body, () => {
    figure.layout++;
    if (view && fig.dataset.state === 'ready') update();
  });
  // compute when the figure comes near the viewport (or at once when asked to)
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) { observer.disconnect(); mountNow(); }
  }, { rootMargin: '200px' });
  if (eager) mountNow(); else observer.observe(fig);

  return {
    // new values from outside (back/forward, an attribute): the controls follow, the figure redraws
    apply(next, nextNotes = []) {
      current = next;
      changes++;  // a change not yet reported is not reported now
      controls.set(next);
      paramNotes = nextNotes;
      errorNote = null;
      showNotes();
      if (view) update();
    },
    // the figure is gone (an element taken out of its page): its runs stop, its watchers end
    dispose() {
      for (const ch of [channel, ...sideChannels]) drop(ch);
      ahead.stop();
      hideBusy();
      observer.disconnect();
      unwatchRoom();
    },
  };
}
