// One timed control change, shared by bench/interaction.mjs and bench/interaction-ab.mjs.
// The control is changed in the page and input → redraw is timed there, so no driver latency
// counts.
//
// Every change has the step's defaults on one side (issue 3: "at default sizes"): in even rounds a
// slider moves one stop from its default (up, or down at its end) and a select from its default to
// another option (a different one each time), in odd rounds back to the default; a number goes up
// by 1 (a seed). restoreControl then puts the control back to its default, untimed, so the next
// control is timed at the defaults too. (Until 2026-11-28 a select stepped on through its options
// and a slider was left a stop up: a step's later controls were timed at the sizes its earlier
// ones left, initialization's seed at d_model 768 and d_k 128.)
//
// Each change starts from a settled page, as a reader's does: 300 ms, no figure of the page
// computing, and then an idle main thread after the previous one, so its trailing work (the paint,
// the idle-time URL write, garbage collection) is not charged to the next change. Back to back,
// the engine's time grew round by round (product-variance's seed: 3.9, 5.9, 9.2, 13.7, 10.1 ms;
// settled, 2.6–8.7).
//
// Returns [ms, the engine's ms, the draw's ms, Plot builds, KaTeX typesets (the two counted by the
// marks web/plots/style.js and web/tex.js leave: attnlab:plot, attnlab:typeset), ms to the first
// partial redraw of a long run that streams its result (NaN for a run that drew only at its end)].
// A timed change's answer (timeChange's result): a streamed run's first chunk, else its redraw.
export const answerOf = (t) => (Number.isNaN(t[5]) ? t[0] : t[5]);

export const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

export async function timeChange(page, id, name, round, initial) {
  await page.waitForTimeout(300);
  // no figure still computing: a neighbour mounted as the step scrolled into view (the training
  // run, 0.2–1.3 s in the worker, when full-attention or exercises is measured) would otherwise
  // share the worker and the main thread with this change
  await page.waitForFunction(() => !document.querySelector('figure.live[data-state="computing"]'), null, { timeout: 60000 });
  await page.evaluate(() => new Promise((res) => requestIdleCallback(res, { timeout: 1000 })));
  return page.evaluate(async ([s, name, r, init]) => {
      const fig = document.querySelector(`#${s} figure.live`);
      const el = fig.querySelector(`[data-param="${name}"]`);
      const before = Number(fig.dataset.updates || 0), streamedBefore = Number(fig.dataset.streamed || 0);
      let first = NaN;  // a long run's first partial redraw (web/figure.js streamed)
      if (el.type === 'range') {
        if (r % 2) el.value = init;
        else el.value = String(Number(init) + (Number(init) < Number(el.max) ? 1 : -1));
      } else if (el.tagName === 'SELECT') {
        const i0 = [...el.options].findIndex((o) => o.value === init), others = el.options.length - 1;
        el.selectedIndex = r % 2 ? i0 : (i0 + 1 + (Math.floor(r / 2) % others)) % el.options.length;
      } else el.value = String(Number(el.value) + 1);
      // input → the figure's DOM updated (seen at once by a MutationObserver) and laid out
      // (offsetHeight forces style and layout); the wait for the next vsync is not counted
      const done = new Promise((res) => {
        const obs = new MutationObserver(() => {
          if (Number.isNaN(first) && Number(fig.dataset.streamed || 0) > streamedBefore) { void fig.offsetHeight; first = performance.now() - t; }
          if (Number(fig.dataset.updates || 0) > before && fig.dataset.state === 'ready') { obs.disconnect(); res(); }
        });
        obs.observe(fig, { attributes: true, attributeFilter: ['data-updates', 'data-state', 'data-streamed'] });
      });
      const marks = () => ['attnlab:plot', 'attnlab:typeset'].map((m) => performance.getEntriesByName(m).length);
      const m0 = marks();
      const t = performance.now();
      el.dispatchEvent(new Event(el.type === 'range' ? 'input' : 'change', { bubbles: true }));
      await done;
      void fig.offsetHeight;
      const ms = performance.now() - t, m1 = marks();
      return [ms, Number(fig.dataset.engineMs), Number(fig.dataset.drawMs), m1[0] - m0[0], m1[1] - m0[1], first];
  }, [id, name, round, initial]);
}

// The control's value now: what restoreControl puts back.
export const controlValue = (page, id, name) =>
  page.$eval(`#${id} figure.live [data-param="${name}"]`, (el) => el.value);

// Puts a control back to `value` (untimed) and waits for its figure to be drawn again.
export async function restoreControl(page, id, name, value) {
  const updates = await page.evaluate(([s, name, value]) => {  // before the change; null: none needed
    const fig = document.querySelector(`#${s} figure.live`), el = fig.querySelector(`[data-param="${name}"]`);
    if (el.value === value) return null;
    const n = Number(fig.dataset.updates || 0);
    el.value = value;
    el.dispatchEvent(new Event(el.type === 'range' ? 'input' : 'change', { bubbles: true }));
    return n;
  }, [id, name, value]);
  if (updates !== null) await page.waitForFunction(([s, n]) => {
    const fig = document.querySelector(`#${s} figure.live`);
    return Number(fig.dataset.updates || 0) > n && fig.dataset.state === 'ready';
  }, [id, updates], { timeout: 60000 });
}
