// (eq:training-ablation) One attention layer trained four times, side by side, from the same
// initial weights on the same batches: scale 1/√d_k, none, 1/d_k, a learned 1/τ. The worker runs
// the engine's trainer in chunks (a new run's first chunk also on the page's engine); this module
// accumulates the streamed curves and draws them.
import { CONTRAST } from '../experiments/training-ablation.js';
import { SERIES_COLORS } from '../plots/style.js';
import { keepTrainingCurves, showTrainingCurves, smooth } from '../plots/training-curves.js';
import { nextValues } from '../controls.js';
import { whenIdle } from '../idle.js';
import { fmt } from '../format.js';
import { dataTable, detailsFor, el, fillTable, grid, liveSummary, panel, show } from '../readout.js';
import './training-ablation.css';

export const id = 'training-ablation';

const VARIANTS = ['invSqrtDk', 'none', 'invDk', 'learned'];
// (“α = …” is one unit, its spaces no-break ones: in a narrow table a line broke after the “=”)
const NAMES = { invSqrtDk: 'α\u00a0=\u00a01/\u2060√dₖ', none: 'α\u00a0=\u00a01 (none)', invDk: 'α\u00a0=\u00a01/\u2060dₖ', learned: 'α\u00a0=\u00a01/\u2060τ, learned' };
const METRICS = ['loss', 'accuracy', 'entropy', 'gradNorm', 'scale'];
const STEP_BY = 10;

export const params = {
  dk: { kind: 'stops', values: [8, 16, 32, 64, 128, 256, 512], default: 128, label: 'dₖ', spoken: 'd sub k', format: String },
  seqLen: { kind: 'stops', values: [4, 8, 16, 32], default: 8, label: 'tokens L', spoken: 'tokens', format: String },
  optimizer: { kind: 'choice', options: { sgd: 'SGD, momentum 0.9', adam: 'Adam' }, default: 'sgd', label: 'optimizer' },
  lr: { kind: 'stops', values: [0.001, 0.003, 0.01, 0.03, 0.1, 0.3], default: 0.1, label: 'learning rate', format: String },
  // a custom σ is one of the choices, so that no control sits idle
  init: { kind: 'choice', options: { 'xavier-uniform': 'Xavier uniform', 'xavier-normal': 'Xavier normal', lecun: 'LeCun normal',
    'sigma-0.01': 'N(0, 0.01²)', 'sigma-0.1': 'N(0, 0.1²)', 'sigma-1': 'N(0, 1)' }, default: 'xavier-uniform', label: 'init' },
  steps: { kind: 'stops', values: [100, 200, 300, 500, 1000], default: 300, label: 'steps', format: String },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

const configOf = (v) => ({ dk: v.dk, seqLen: v.seqLen, optimizer: v.optimizer, lr: v.lr, seed: v.seed,
  ...(v.init.startsWith('sigma-') ? { init: 'custom', sigma: Number(v.init.slice(6)) } : { init: v.init }) });
const empty = () => Object.fromEntries(VARIANTS.map((n) => [n, Object.fromEntries(METRICS.map((m) => [m, []]))]));
const tail = (xs, k) => { const s = xs.slice(-k); return s.reduce((a, b) => a + b, 0) / Math.max(1, s.length); };

// What the contrast runs show, in words, from their numbers: which scaling ends lowest and how the
// unscaled run compares with 1/√d_k at each d_k and optimizer.
function contrastSentence(r) {
  const parts = r.rows.map((row) => {
    const v = row.variants, best = VARIANTS.reduce((a, b) => (v[b].loss < v[a].loss ? b : a));
    const ratio = v.none.loss / v.invSqrtDk.loss;
    return `at dₖ = ${row.dk} with ${row.optimizer === 'sgd' ? 'SGD' : 'Adam'} the unscaled run ends with ` +
      `${ratio >= 1 ? `${fmt(ratio, 2)}× the loss` : `${fmt(1 / ratio, 2)}× less loss`} of the 1/\u2060√dₖ run, and ${NAMES[best]} ends lowest`;
  });
  return `Seed ${r.seed}, L = ${r.seqLen}: ${parts.join('; ')}. Early in training (first 10 steps) the unscaled runs’ attention entropy is ` +
    `${r.rows.map((row) => fmt(row.variants.none.entropyEarly)).join(', ')} nats in the same order, against ` +
    `${r.rows.map((row) => fmt(row.variants.invSqrtDk.entropyEarly)).join(', ')} with 1/\u2060√dₖ.`;
}

function download(name, type, text) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function mount(figure, { run, cancel }) {
  const button = (text, title) => Object.assign(el('button', undefined, text), { type: 'button', title });
  const play = button('Play', 'Train up to the chosen number of steps');
  const step = button(`Step +${STEP_BY}`, `Train ${STEP_BY} more steps`);
  const reset = button('Reset', 'Back to step 0, the same initial weights');
  const csv = button('Export CSV', 'Download every curve as CSV');
  const json = button('Export JSON', 'Download the configuration and every curve as JSON');
  const status = el('span', 'training-status');
  status.setAttribute('aria-live', 'polite');
  const bar = el('div', 'training-toolbar');
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', 'Training');
  bar.append(play, step, reset, csv, json, status);

  const legend = el('p', 'training-legend');
  for (const [i, n] of VARIANTS.entries()) {
    const item = el('span', 'training-key', NAMES[n]);
    item.style.setProperty('--key', SERIES_COLORS[i]);
    legend.append(item);
  }
  const panels = { loss: panel('Loss (cross-entropy), log axis'), accuracy: panel('Accuracy on the batch'),
    entropy: panel('Attention entropy (nats)'), gradNorm: panel('Gradient at the scores ‖∂L/\u2060∂s‖, log axis') };
  for (const p of Object.values(panels)) p.table.remove();
  const runs = panel('Each run at the step shown');
  runs.plot.remove();
  const { table } = runs;
  table.classList.add('training-runs');
  const data = el('div');
  detailsFor(data, ...Object.values(panels).map((p) => p.plot));  // one table for the four plots
  const summary = liveSummary();
  const contrast = panel(`Small and large dₖ, both optimizers (${CONTRAST.steps} steps, the seed and L above, other settings at their defaults)`);
  contrast.plot.remove();
  const contrastText = el('p', 'training-contrast');
  contrast.el.append(contrastText);
  figure.body.append(bar, legend, grid(panels.loss.el, panels.accuracy.el), grid(panels.entropy.el, panels.gradNorm.el), runs.el, data, summary, contrast.el);

  // One configuration's training is one trajectory, the same on every replay: `curves` holds its
  // first `trained` steps, of which the figure shows the first `at` (fewer after the steps control
  // went down). A steps control moved down shows a prefix; moved up, it shows more of what is
  // trained and trains on from `trained` only. Any other control is a new trajectory.
  let values = null, config = null;
  let curves = empty(), trained = 0, at = 0, running = false, pending = 0;

  // true if `chunk` continued the curves (one that does not is stale)
  const append = (chunk) => {
    if (!chunk || chunk.from !== trained) return false;
    for (const n of VARIANTS) for (const m of METRICS) curves[n][m].push(...chunk.variants[n][m]);
    at = trained = chunk.step;
    return true;
  };
  // the curves' steps 1 … upTo (those shown: upTo = at)
  const curvesTo = (upTo) => (upTo === trained ? curves : Object.fromEntries(VARIANTS.map((n) =>
    [n, Object.fromEntries(METRICS.map((m) => [m, curves[n][m].slice(0, upTo)]))])));
  const shownCurves = () => curvesTo(at);

  // The four plots as [panel, options] for the curves `shown` on a step axis of `steps`. Each is
  // drawn at the room of this figure (plots/room.js), its lines moved in place on unchanged axes;
  // while a run streams (keep), a log axis keeps its decades as long as the curves fit in them (the
  // last run's axes ended where its curves did: a new run's first chunk fits them, and moves onto
  // them without a build).
  function plotsOf(shown, steps, keep) {
    const series = (m) => VARIANTS.map((n) => ({ name: NAMES[n], values: shown[n][m] }));
    const common = { steps, window: 10, width: 520, height: 240, yKeep: keep };
    return [
      [panels.loss, { ...common, series: series('loss'), yLabel: 'loss', yLog: true, yCover: [0.01, 10], yFloor: 1e-8 }],
      [panels.accuracy, { ...common, series: series('accuracy'), yLabel: 'accuracy', yDomain: [0, 1] }],
      [panels.entropy, { ...common, series: series('entropy'), yLabel: 'entropy (nats)',
        yDomain: [0, Math.log(values.seqLen) * 1.15], ref: { name: `uniform: ln ${values.seqLen}`, y: Math.log(values.seqLen) } }],
      [panels.gradNorm, { ...common, series: series('gradNorm'), yLabel: '‖∂L/∂s‖', yLog: true, yCover: [1e-4, 10], yFloor: 1e-12 }],
    ];
  }

  // The steps control's stops next to the chosen one, drawn ahead once the run is over and the page
  // idle, one plot at a time: a stop shown is a new step axis, four Plot builds (~20 ms, and a
  // longer run's first chunk waited behind them). Up to a stop past the trained steps, the plots as
  // trainTo draws them before its first chunk (the curves so far, decades kept); down to one, the
  // prefix it shows.
  let aheadTicket = 0;
  function drawAhead() {
    const ticket = ++aheadTicket, stops = trained ? nextValues(params.steps, values.steps) : [];
    const jobs = stops.flatMap((s) => plotsOf(curvesTo(Math.min(s, trained)), s, s > trained));
    figure.body.dataset.ahead = 'drawing';  // (then 'drawn': for the tests)
    const next = () => whenIdle(() => {
      if (ticket !== aheadTicket || running) return;
      if (!jobs.length) { figure.body.dataset.ahead = 'drawn'; return; }
      const [p, options] = jobs.shift();
      keepTrainingCurves(p.plot, options);
      next();
    }, { timeout: 1000, fallback: 50 });
    next();
  }

  // plots: false leaves the curves drawn (a run about to stream its first chunk redraws them)
  function draw({ plots = true } = {}) {
    const shown = shownCurves();
    if (plots) for (const [p, options] of plotsOf(shown, Math.max(values.steps, at), running)) showTrainingCurves(p.plot, options);
    status.textContent = `step ${at} of ${values.steps}`;
    play.textContent = running ? 'Pause' : 'Play';
    play.title = running ? 'Stop training here (Play continues)' : 'Train up to the chosen number of steps';

    const k = Math.max(1, Math.round(at / 10));  // the last 10% of the steps
    const last = (n, m) => tail(shown[n][m], k);
    fillTable(table, ['run', `loss, last ${k} steps`, 'accuracy', 'entropy', '‖∂L/\u2060∂s‖', 'α at the end'],
      VARIANTS.map((n) => ({ name: NAMES[n], cells: at ? [fmt(last(n, 'loss')), fmt(last(n, 'accuracy')), fmt(last(n, 'entropy')),
        fmt(last(n, 'gradNorm')), fmt(shown[n].scale.at(-1))] : ['', '', '', '', ''] })));
    if (!running) {  // the long table only once the run stops
      const sm = Object.fromEntries(VARIANTS.map((n) => [n, ['loss', 'accuracy', 'entropy', 'gradNorm'].map((m) => smooth(shown[n][m], 10))]));
      show(data, dataTable('Every tenth step as a table (smoothed as plotted: loss, accuracy, entropy, gradient)',
        ['step', ...VARIANTS.flatMap((n) => ['loss', 'accuracy', 'entropy', '‖∂L/\u2060∂s‖'].map((name) => ({ group: NAMES[n], name })))],
        Array.from({ length: Math.ceil(at / STEP_BY) }, (_, r) => {
          const i = Math.min(at, (r + 1) * STEP_BY) - 1;
          return [i + 1, ...VARIANTS.flatMap((n) => sm[n].map((ys) => fmt(ys[i])))];
        })));
    }
    summary.textContent = at ? sentence(shown, k) : `Step 0: the four runs share their initial weights (seed ${values.seed}). Press Play.`;
  }

  function sentence(shown, k) {
    const last = (n) => tail(shown[n].loss, k);
    const early = Math.min(10, at);
    const h = (n) => tail(shown[n].entropy.slice(0, early), early);
    const ranked = [...VARIANTS].sort((a, b) => last(a) - last(b));
    return `After ${at} steps at dₖ = ${values.dk} (${values.optimizer === 'sgd' ? 'SGD with momentum' : 'Adam'}, learning rate ${values.lr}, ` +
      `seed ${values.seed}), the loss over the last ${k} steps is ${VARIANTS.map((n) => `${fmt(last(n))} for ${NAMES[n]}`).join(', ')}: ` +
      `lowest ${NAMES[ranked[0]]}, highest ${NAMES[ranked.at(-1)]}. Over the first ${early} steps the unscaled run’s attention entropy ` +
      `averages ${fmt(h('none'))} nats against ${fmt(h('invSqrtDk'))} for 1/\u2060√dₖ (uniform: ln ${values.seqLen} = ${fmt(Math.log(values.seqLen))}). ` +
      learnedPath(shown.learned, k);
  }

  // The learned scale's path: α = 1/τ from its start to now, and, when it has grown and the loss
  // has climbed back from its lowest, why: a larger α sharpens the softmax toward saturation.
  function learnedPath({ scale, loss, entropy }, k) {
    const lowest = loss.reduce((b, v, i) => (v < loss[b] ? i : b), 0);
    const grew = scale.at(-1) > 2 * scale[0], climbed = tail(loss, k) > 2 * loss[lowest];
    return `The learned run’s α = 1/\u2060τ went from ${fmt(scale[0])} to ${fmt(scale.at(-1))}` +
      (grew && climbed ? `; its loss was lowest at step ${lowest + 1} (${fmt(loss[lowest])}) and has climbed since, its entropy down to ` +
        `${fmt(entropy.at(-1))} nats: a growing α sharpens the softmax toward the saturation of the vanishing-gradients step.` : '.');
  }

  // Shows step `to`, training from `trained` as far as needed and drawing as the chunks arrive;
  // false if paused or superseded.
  async function trainTo(to) {
    const ticket = ++pending;
    if (to <= trained) {  // trained already: a prefix of the curves (a run on its way is stopped)
      if (running) cancel();
      running = false;
      at = to;
      draw();
      figure.done();
      drawAhead();
      return true;
    }
    running = true;
    at = trained;
    let frame = 0, raf = 0, drawn = false;
    // The first chunk, drawn at once. A new trajectory's comes from the page's engine too
    // (trainingStart, below), once that is known to be light at these sizes (engine-client.js;
    // elsewhere it is not made, but to learn that cost): it is drawn before the frame of the
    // reader's change, where the worker's waited behind that frame (10–20 ms of paint on the
    // whole page). Whichever comes first is drawn, and the other, the same chunk, is not.
    const first = (chunk) => {
      if (ticket !== pending || drawn || !append(chunk)) return;
      drawn = true;
      draw();
      figure.streamed();
    };
    // (cache: false: after a reset the same request must train again; its last answer is only
    // the last chunk). Asked for before the figure shows where training starts: the worker trains
    // its first chunk while the main thread draws that.
    const answer = run('trainingRun', { config, from: trained, to }, {
      cache: false,
      onProgress: (p, chunk) => {
        // after a pause the chunks already on their way are dropped: training stops where the
        // curves stop (the worker's trainer rewinds to that step when play resumes)
        if (ticket !== pending) return;
        figure.progress(p);
        // the first chunk at once, so the curves start as soon as training does; then a redraw
        // at most every 200 ms, at a frame: the main thread stays free for the reader
        if (!drawn) first(chunk);
        else if (append(chunk) && !frame) frame = setTimeout(() => { raf = requestAnimationFrame(() => { frame = raf = 0; draw(); figure.streamed(); }); }, 200);
      },
    });
    if (trained === 0)
      run('trainingStart', { config }, { channel: 'start', sizes: { dk: config.dk, seqLen: config.seqLen }, optional: true, timing: false })
        .then(first, () => {});
    // the status and tables at once; the curves of a new run only with its first chunk, a few ms
    // on: emptying four plots first cost the main thread ~15 ms, which the chunk then waited for
    draw({ plots: trained > 0 });
    const r = await answer;
    if (ticket !== pending) return false;  // a newer request took over: it draws
    clearTimeout(frame);
    cancelAnimationFrame(raf);  // a streamed redraw still waiting would only repeat the last one
    running = false;
    append(r);
    draw();
    figure.done();
    if (r !== null) drawAhead();  // (not after Stop: the reader asked for the work to end)
    return r !== null;
  }

  play.addEventListener('click', () => {
    if (running) { running = false; pending++; aheadTicket++; cancel(); draw(); figure.done(); }
    else trainTo(Math.max(values.steps, at < values.steps ? values.steps : at + STEP_BY));
  });
  step.addEventListener('click', () => trainTo(at + STEP_BY));
  reset.addEventListener('click', () => {
    if (running) { pending++; cancel(); running = false; }
    aheadTicket++;  // (the plots being drawn ahead were for the curves reset drops)
    curves = empty(); at = trained = 0;
    draw();
    figure.done();
  });
  csv.addEventListener('click', () => {
    const shown = shownCurves();
    const rows = ['step,run,loss,accuracy,entropy,grad_norm,scale'];
    for (const n of VARIANTS) shown[n].loss.forEach((_, i) =>
      rows.push([i + 1, n, ...METRICS.map((m) => shown[n][m][i])].join(',')));
    download(`attnlab-training-dk${values.dk}-seed${values.seed}.csv`, 'text/csv', `${rows.join('\n')}\n`);
  });
  json.addEventListener('click', () => {
    const shown = shownCurves();
    download(`attnlab-training-dk${values.dk}-seed${values.seed}.json`, 'application/json',
      JSON.stringify({ config: { ...config, steps: at }, runs: Object.fromEntries(VARIANTS.map((n) => [n, shown[n]])) }));
  });

  // The report at small and large d_k, after the main run. It depends on the seed and L only: the
  // same pair is answered at once from the figure's last result (which drops any older one still
  // running), and only the newest request draws.
  let contrastTicket = 0;
  async function drawContrast(v) {
    const ticket = ++contrastTicket;
    contrastText.textContent = `Training the runs at small and large dₖ for seed ${v.seed}, L = ${v.seqLen}…`;
    contrast.table.hidden = true;
    const r = await run('trainingContrast', { seed: v.seed, seqLen: v.seqLen }, { channel: 'contrast', onProgress: figure.progress });
    if (ticket !== contrastTicket) return;
    if (!r) {  // stopped (a newer request would have taken the ticket)
      contrastText.textContent = `Stopped before the runs at small and large dₖ were done; change a control to train them again.`;
      return;
    }
    contrast.table.hidden = false;
    fillTable(contrast.table, ['dₖ, optimizer', ...VARIANTS.map((n) => NAMES[n])], r.rows.map((row) => ({
      name: `${row.dk}, ${row.optimizer === 'sgd' ? 'SGD' : 'Adam'} (lr ${row.lr})`,
      // (accuracy to two decimals: two significant digits wrote 0.997 as "1.0" beside "0.93")
      cells: VARIANTS.map((n) => `loss ${fmt(row.variants[n].loss)}, acc ${row.variants[n].accuracy.toFixed(2)}`),
    })));
    contrastText.textContent = contrastSentence(r);
  }

  return {
    // New parameters: the chosen number of steps of the same trajectory (only the steps control
    // changed), or else a new experiment from step 0, played to it; the figure is ready once the
    // report at small and large d_k is in too.
    async update(v) {
      const next = configOf(v);
      if (JSON.stringify(next) !== JSON.stringify(config)) { curves = empty(); at = trained = 0; }
      values = v;
      config = next;
      if (await trainTo(v.steps)) await drawContrast(v);
    },
  };
}
