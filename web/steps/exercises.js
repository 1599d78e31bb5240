// (eq:exercises) The course section's five exercises, each answered by its own small experiment.
// The questions are prose in web/sections/exercises.html; this module adds to each one its
// controls, its plot, a way to check an answer and the computed answer itself.
import { showBars } from '../plots/bars.js';
import { showSweepCurves } from '../plots/sweep-curves.js';
import { prefersDark, showHeatmap } from '../plots/heatmap.js';
import { fmt, fmtInt, fmtInterval, sub, texFixed } from '../format.js';
import { TREND, checkForm, judgeJacobians, judgeSaturation, judgeStd, judgeTemperature, missed } from './exercise-check.js';
import { dataTable, detailsFor, el, fillTable, liveFormula, liveSummary, setTex, show } from '../readout.js';
import { scrollsSideways } from '../scroll-region.js';
import { setSubscripted } from '../subscripts.js';
import './exercises.css';

export const id = 'exercises';

const THRESHOLDS = [0.5, 0.75, 0.9, 0.95, 0.99, 0.999];

export const params = {
  dk: { kind: 'stops', values: [4, 8, 16, 32, 64, 128, 256, 512], default: 64, label: 'dₖ (exercises 3 and 4)', spoken: 'd sub k', format: String },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
  pairs: { kind: 'stops', values: [200, 500, 1000, 2000, 5000, 10000, 20000], default: 500, label: 'sampled pairs', spoken: 'pairs', format: fmtInt },
  threshold: { kind: 'stops', values: THRESHOLDS, default: 0.99, label: 'threshold t', spoken: 'threshold', format: String },
  peak: { kind: 'stops', values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], default: 6, label: 'peak logit x', spoken: 'peak logit', format: String },
};

// Which exercise each control belongs to (moved there from the figure's control bar).
const CONTROL_HOME = { pairs: 1, threshold: 2, peak: 5 };

const tex = (x, d = 3) => texFixed(x, d);
const pm = (m, digits = 3) => `${fmt(m.mean, digits)}\u00a0±\u00a0${fmt(m.se, 1)}`;  // one unit: no break inside
// τ = f·√d_k is a whole number for the even powers of two: show it without decimals then.
const isWhole = (t) => Math.abs(t - Math.round(t)) < 1e-9;
const fmtTau = (t) => (isWhole(t) ? String(Math.round(t)) : fmt(t, 3));
const texTau = (t) => (isWhole(t) ? String(Math.round(t)) : t.toFixed(2));
const TAU_NAMES = ['½√dₖ', '√dₖ', '2√dₖ'];
const TAU_TEX = [String.raw`\tfrac12\sqrt{d_k}`, String.raw`\sqrt{d_k}`, String.raw`2\sqrt{d_k}`];

// A folded answer: <details><summary>Show the answer</summary>…</details>.
// Exercise 2: where t = 0.9, the usual threshold, falls beside the chosen one (nothing when it is t).
const nineTenths = (t, c90) => (Number(t) === 0.9 || c90?.x == null ? ''
  : ` (t = 0.9 is passed ${Number(t) > 0.9 ? 'already' : 'later'}, at x = ${fmt(c90.x, 3)})`);

// Exercise 5: the two Jacobians compared, in words that hold for every peak: a row is called
// saturated only once its largest weight is 0.9 or more.
function jacobianVerdict(peaked, uniform) {
  const ratio = uniform.norm / peaked.norm, top = Math.max(...peaked.p);
  const compared = ratio >= 1.1 ? `${fmt(ratio, 3)} times smaller than the uniform one’s`
    : ratio > 1 / 1.1 ? 'about as large as the uniform one’s' : `${fmt(1 / ratio, 3)} times larger than the uniform one’s`;
  return `The peaked Jacobian’s Frobenius norm is ${fmt(peaked.norm, 3)}, ${compared} (${fmt(uniform.norm, 3)}). ` +
    `Every gradient that reaches the logits passes through J, ` + (top >= 0.9
    ? `so a saturated softmax (its largest weight ${fmt(top, 3)}) passes back almost nothing: the logits of a peaked row barely learn, ` +
      'while a uniform row responds to every key.'
    : `and this row, its largest weight ${fmt(top, 3)}, is not saturated yet: a larger peak takes its norm toward 0, where a one-hot row’s is.`);
}

function answer(label = 'Show the answer') {
  const details = el('details', 'exercise-answer');
  details.append(el('summary', null, label));
  const body = scrollsSideways(el('div', 'exercise-answer-body'), () => 'the answer');
  details.append(body);
  return { details, body };
}

function readout() {
  const t = el('table', 'readout');
  return t;
}

export function mount(figure, { run }) {
  const fig = figure.body.closest('figure');
  const ex = {};
  for (const div of fig.querySelectorAll('.exercise')) {
    const n = Number(div.dataset.exercise);
    const controls = el('div', 'controls exercise-controls');
    div.append(controls);
    ex[n] = { div, controls };
    figure.body.append(div);
  }
  // Each exercise's own controls move next to its question; dₖ and the seed stay on top.
  for (const [name, n] of Object.entries(CONTROL_HOME)) {
    const control = figure.control(name);
    if (control && ex[n]) ex[n].controls.append(control);
  }
  for (const e of Object.values(ex)) if (!e.controls.children.length) e.controls.remove();
  const summary = liveSummary();
  figure.body.append(summary);

  // (1) type, check, reveal
  const e1 = ex[1];
  const c1 = checkForm({ fields: [{ name: 'exercise-1-answer', label: 'Your answer: std of q·k ≈' }],
    judge: (v) => e1.result && judgeStd(v['exercise-1-answer'], e1.result) });
  const a1 = answer();
  e1.formula = liveFormula();
  e1.table = readout();
  e1.text = el('p');
  a1.body.append(e1.formula, e1.table, e1.text);
  e1.div.append(...c1.nodes, a1.details);

  // (2) the curve of the four weights, the threshold, the crossing
  const e2 = ex[2];
  e2.plot = el('div', 'plot');
  e2.data = el('div');
  detailsFor(e2.data, e2.plot);
  const a2 = answer();
  e2.formula = liveFormula();
  e2.table = readout();
  e2.text = el('p');
  a2.body.append(e2.formula, e2.table, e2.text);
  // the plot's marker names the answer: it shows once the student has found it or opened it
  // (for the threshold it was found at: another threshold's marker waits for its own answer)
  const reveal2 = () => e2.div.classList.toggle('answered', a2.details.open || e2.found === e2.view);
  a2.details.addEventListener('toggle', reveal2);
  const c2 = checkForm({ fields: [{ name: 'exercise-2-answer', label: 'Your answer: saturated from x ≈' }],
    judge: (v) => e2.result && judgeSaturation(v['exercise-2-answer'], e2.result, e2.view),
    onCheck: (v) => { if (v.ok) e2.found = e2.view; reveal2(); } });
  e2.div.append(e2.plot, e2.data, ...c2.nodes, a2.details);

  // (3) the link, and what the two runs start from
  const e3 = ex[3];
  const a3 = answer('Show what the two runs start from');
  e3.table = readout();
  e3.text = el('p');
  a3.body.append(e3.table, e3.text);
  e3.div.append(a3.details);

  // (4) bars of one query's weights at three temperatures
  const e4 = ex[4];
  e4.formula = liveFormula();
  e4.plot = el('div', 'plot');
  e4.data = el('div');
  detailsFor(e4.data, e4.plot);
  const a4 = answer();
  e4.table = readout();
  e4.text = el('p');
  a4.body.append(e4.table, e4.text);
  const c4 = checkForm({ fields: [{ name: 'max', label: 'As τ grows, the largest weight', options: TREND },
    { name: 'entropy', label: 'and the entropy', options: TREND }], judge: (v) => e4.result && judgeTemperature(v, e4.result) });
  e4.div.append(e4.formula, e4.plot, e4.data, ...c4.nodes, a4.details);

  // (5) two Jacobians as heatmaps
  const e5 = ex[5];
  e5.formula = liveFormula();
  e5.plots = el('div', 'exercise-jacobians');
  // the peaked and the uniform Jacobian: a title and a heatmap each, redrawn in place
  e5.sides = [0, 1].map(() => {
    const wrap = el('div', 'exercise-jacobian'), title = el('h3', 'panel-title'), plot = el('div');
    wrap.append(title, plot);
    e5.plots.append(wrap);
    return { title, plot };
  });
  e5.data = el('div');
  detailsFor(e5.data, ...e5.sides.map((s) => s.plot));  // one table for both Jacobians
  const a5 = answer();
  e5.table = readout();
  e5.text = el('p');
  a5.body.append(e5.table, e5.text);
  const c5 = checkForm({ fields: [{ name: 'exercise-5-answer', label: 'Your answer: ‖J‖ uniform / ‖J‖ peaked ≈' }],
    judge: (v) => e5.result && judgeJacobians(v['exercise-5-answer'], e5.result) });
  e5.div.append(e5.formula, e5.plots, e5.data, ...c5.nodes, a5.details);

  // each exercise's answer box: usable once the exercise has a result, its last answer judged
  // again against each new one
  const forms = { 1: c1, 2: c2, 4: c4, 5: c5 };

  const draw = {
    1(r) {
      setTex(e1.formula, String.raw`\operatorname{Var}(q\cdot k)=d_k\ \Rightarrow\ \sigma(q\cdot k)=\sqrt{d_k}=\sqrt{${r.dk}}=${tex(r.theory, 2)},\qquad \hat\sigma=${tex(r.std, 2)}`, true);
      fillTable(e1.table, ['', 'value', '95% interval'], [
        { name: 'theory √dₖ', cells: [fmt(r.theory, 4), ''] },
        { name: `measured (${fmtInt(r.pairs)} pairs, seed ${r.seed})`, cells: [fmt(r.std, 4), fmtInterval(r.stdCI, 4)],
          outside: !(r.stdCI[0] <= r.theory && r.theory <= r.stdCI[1]) },
      ]);
      e1.text.textContent = `The variance of q·k is dₖ = ${r.dk}, so the standard deviation is √${r.dk} ≈ ${fmt(r.theory, 4)}: ` +
        `a typical unscaled score is about ${fmt(r.theory / Math.sqrt(64), 3)} times wider than at dₖ = 64. ` +
        `The engine’s sample standard deviation is ${fmt(r.std, 4)} ± ${fmt(r.stdSE, 2)} (one standard error)${missed(r)}.`;
    },
    2(r, { threshold }) {
      reveal2();
      const stride = Math.round(0.25 / r.step);
      const pts = (ys) => Array.from({ length: Math.floor((r.x.length - 1) / stride) + 1 }, (_, k) => ({ x: r.x[k * stride], y: ys[k * stride] }));
      const c = r.crossings.find((cr) => cr.t === threshold);
      showSweepCurves(e2.plot, {
        series: [{ name: 'p₁ (the logit x)', points: pts(r.p1) }, { name: 'p₂ = p₃ = p₄ (the zeros)', points: pts(r.rest) }],
        // t's name at the end where p₁ is farther from the line (at t = 0.99, p₁ runs along it on
        // the right; at t = 0.5 it crosses it on the left)
        refs: [{ name: `t = ${threshold}`, y: threshold, left: Math.abs(r.p1[0] - threshold) > Math.abs(r.p1.at(-1) - threshold) }], marker: c.x === null ? undefined : { x: c.x, label: `x = ${fmt(c.x, 3)}` },
        xLog: false, xLabel: 'x', yLabel: 'weight', yDomain: [0, 1], width: 640, height: 260,
        ariaLabel: `The four weights of softmax(x, 0, 0, 0) for x from 0 to ${r.xMax}, with the threshold ${threshold}`,
      });
      const ints = Array.from({ length: r.xMax + 1 }, (_, i) => Math.round(i / r.step));
      show(e2.data, dataTable('The weights as a table', ['x', 'p₁', 'p₂ = p₃ = p₄'],
        ints.map((i) => [String(Number(r.x[i].toFixed(2))), fmt(r.p1[i], 4), fmt(r.rest[i], 4)])));
      setTex(e2.formula, String.raw`p_1(x)=\frac{e^x}{e^x+3}>t\iff x>\ln\frac{3t}{1-t}=\ln\frac{3\cdot ${threshold}}{1-${threshold}}=${tex(c.closedForm, 2)}`, true);
      fillTable(e2.table, ['threshold t', `first x on the grid (step ${r.step})`, 'closed form ln(3t/\u2060(1 − t))'],
        r.crossings.map((cr) => ({ name: String(cr.t), cells: [cr.x === null ? `none up to ${r.xMax}` : fmt(cr.x, 3), fmt(cr.closedForm, 4)] })));
      const c90 = r.crossings.find((cr) => cr.t === 0.9);
      e2.text.textContent = c.x === null
        ? `With t = ${threshold} the largest weight does not pass the threshold for x up to ${r.xMax}.`
        : `With t = ${threshold}, softmax(x, 0, 0, 0) counts as saturated from x = ${fmt(c.x, 3)} on` +
          `${nineTenths(threshold, c90)}. Each extra unit of x divides the small weights by about e, ` +
          `so a logit gap of a few units is enough. Two unscaled scores at dₖ = 64 differ by a normal amount with standard deviation ` +
          `√(2·64) ≈ ${fmt(Math.sqrt(2 * 64), 3)}: gaps of this size are common.`;
    },
    3(r) {
      const rows = [['unscaled (scale 1)', r.unscaled], [`scaled (1/\u2060√${r.dk})`, r.scaled]];
      fillTable(e3.table, ['', 'max weight', 'entropy (nats)', '‖J‖', 'non-max gradient'],
        rows.map(([name, m]) => ({ name, cells: [pm(m.maxWeight), pm(m.entropy), pm(m.jacobianNorm), pm(m.nonmaxGrad)] })));
      setSubscripted(e3.text,
        `Means over ${r.rows} random queries against ${r.n} keys at dₖ = ${r.dk} (seed ${r.seed}, ± one standard error). ` +
        `Without the scale the rows put ${fmt(r.unscaled.maxWeight.mean)} of their weight on one key on average; the softmax Jacobian, ` +
        `which carries every gradient to the scores, is ${fmt(r.scaled.jacobianNorm.mean / r.unscaled.jacobianNorm.mean, 3)} times smaller than with it, ` +
        `and the gradient reaching a score that is not the largest is ${fmt(r.scaled.nonmaxGrad.mean / r.unscaled.nonmaxGrad.mean, 3)} times smaller. ` +
        `That slows the unscaled run. But the scale also sets how far each update moves the scores: the gradient reaching W_Q and W_K is ` +
        `multiplied by it too, so with SGD the change a step makes to a score is dₖ = ${fmtInt(r.dk)} times larger without the scale than with it, ` +
        `for the same gradient at the scores. ` +
        `Which effect wins depends on the learning rate: the unscaled run may stall, or pull ahead and then overshoot. ` +
        `With the scale, the spread of the scores and the size of their steps no longer grow with dₖ, so one learning rate can serve small and large dₖ alike: compare them in the training step.`);
    },
    4(r) {
      const keys = Array.from({ length: r.n }, (_, j) => `k${sub(j + 1)}`);
      const names = r.taus.map((t, i) => `τ = ${TAU_NAMES[i]} = ${fmtTau(t)}`);
      const w = (t) => Array.from(r.weights.subarray(t * r.n, (t + 1) * r.n));
      setTex(e4.formula, String.raw`p=\operatorname{softmax}(Kq/\tau),\qquad \tau\in\{${r.taus.map((t, i) => `${TAU_TEX[i]}=${texTau(t)}`).join(',\\ ')}\},\quad d_k=${r.dk}`, true);
      showBars(e4.plot, {
        categories: keys, series: names.map((name, t) => ({ name, values: w(t) })), yLabel: 'weight', height: 240,
        ariaLabel: `The weights of one query over ${r.n} keys at three temperatures`,
      });
      show(e4.data, dataTable('The weights as a table', ['key', ...names],
        keys.map((k, j) => [k, ...r.taus.map((_, t) => fmt(r.weights[t * r.n + j], 3))])));
      fillTable(e4.table, ['τ', 'max weight (this query)', 'entropy (this query)', `mean max weight (${r.rows} queries)`, `mean entropy (${r.rows} queries)`],
        r.taus.map((t, i) => ({ name: names[i], cells: [fmt(r.max[i]), fmt(r.entropy[i]), pm(r.means[i].maxWeight), pm(r.means[i].entropy)] })));
      e4.text.textContent =
        `Halving τ doubles every gap between the logits, so the top key takes more: its weight goes ` +
        `${Array.from(r.max, (m) => fmt(m)).join(' → ')} as τ goes from ½√dₖ to 2√dₖ, while the entropy rises ` +
        `${Array.from(r.entropy, (h) => fmt(h)).join(' → ')} nats (uniform would be log ${r.n} = ${fmt(r.logN)}). ` +
        `τ below √dₖ sharpens the pattern towards one key; τ above it spreads the weight out.`;
    },
    5(r) {
      const extent = Math.max(r.peaked.maxAbs, r.uniform.maxAbs);
      [[r.peaked, `peaked: softmax(${r.peak}, 0, 0, 0)`], [r.uniform, 'uniform: softmax(0, 0, 0, 0)']].forEach(([side, title], i) => {
        e5.sides[i].title.textContent = title;
        showHeatmap(e5.sides[i].plot, {
          values: side.jacobian, rows: r.n, cols: r.n, rowLabel: 'row i', colLabel: 'column j', label: '∂pᵢ/∂xⱼ', diverging: true,
          domain: [-extent, extent], width: 220, ariaLabel: `${r.n}×${r.n} softmax Jacobian, ${title}`,
        });
      });
      const row = (p) => Array.from(p, (v) => tex(v, 3)).join(',\\ ');
      setTex(e5.formula, String.raw`J=\operatorname{diag}(p)-pp^\top,\qquad p_{\text{peaked}}=(${row(r.peaked.p)}),\quad p_{\text{uniform}}=(${row(r.uniform.p)})`, true);
      const cols = ['i\u00a0\\\u00a0j', ...Array.from({ length: r.n }, (_, j) => `j = ${j + 1}`)];
      const asRows = (side, name) => Array.from({ length: r.n }, (_, i) => [`${name} i = ${i + 1}`, ...Array.from(side.jacobian.subarray(i * r.n, (i + 1) * r.n), (v) => fmt(v, 3))]);
      show(e5.data, dataTable('Both Jacobians as a table', cols, [...asRows(r.peaked, 'peaked'), ...asRows(r.uniform, 'uniform')]));
      fillTable(e5.table, ['', 'largest weight', '‖J‖ (engine)', 'closed form', 'largest |Jᵢⱼ|'], [
        { name: 'peaked', cells: [fmt(r.peaked.p[0], 4), fmt(r.peaked.norm, 4), fmt(r.peaked.closedForm, 4), fmt(r.peaked.maxAbs, 4)] },
        { name: 'uniform', cells: [fmt(r.uniform.p[0], 4), fmt(r.uniform.norm, 4), `√${r.n - 1}/${r.n} = ${fmt(r.uniformTheory, 4)}`, fmt(r.uniform.maxAbs, 4)] },
      ]);
      e5.text.textContent = jacobianVerdict(r.peaked, r.uniform);
    },
  };

  // view(values): what else than its result an exercise's drawing reads
  const JOBS = [
    { n: 1, name: 'exerciseScoreStd', args: (v) => ({ pairs: v.pairs, seed: v.seed }), channel: null },
    { n: 2, name: 'exerciseSaturation', args: () => ({ thresholds: THRESHOLDS }), channel: 'exercises:2', view: (v) => v.threshold },
    { n: 3, name: 'exerciseAblationPreview', args: (v) => ({ dk: v.dk, seed: v.seed }), channel: 'exercises:3' },
    { n: 4, name: 'exerciseTemperature', args: (v) => ({ dk: v.dk, seed: v.seed }), channel: 'exercises:4' },
    // (the heatmaps' colour ramps follow the theme, which an embed's attribute can change)
    { n: 5, name: 'exerciseJacobians', args: (v) => ({ peak: v.peak }), channel: 'exercises:5', view: () => prefersDark(e5.plots) },
  ];
  const cache = {};

  return {
    async update(values) {
      const results = await Promise.all(JOBS.map(async (job) => {
        const args = job.args(values);
        const key = JSON.stringify(args);
        if (cache[job.n]?.key !== key) {
          // exercise 1 runs on the step's own channel, so the Stop button can stop a long sample
          const opts = job.channel ? { channel: job.channel } : { onProgress: figure.progress };
          const r = await run(job.name, args, opts);
          if (!r) return null;  // superseded by a newer request
          cache[job.n] = { key, result: r };
        }
        return cache[job.n].result;
      }));
      if (results.some((r) => r === null)) return;
      // an exercise whose result and view are those it shows (ex[n]) is left as it is (a control
      // of another exercise changed)
      results.forEach((r, i) => {
        const { n, view = () => null } = JOBS[i];
        const v = view(values);
        if (ex[n].result === r && ex[n].view === v) return;
        Object.assign(ex[n], { result: r, view: v });
        draw[n](r, values);
        forms[n]?.enable();
        forms[n]?.recheck();
      });
      const [r1, , r3] = results;
      summary.textContent =
        `Recomputed: ${fmtInt(r1.pairs)} sampled pairs at dₖ = ${r1.dk} for exercise 1 (seed ${r1.seed}), ` +
        `softmax(x, 0, 0, 0) at ${fmtInt(results[1].x.length)} values of x, ${r3.rows} random queries at dₖ = ${r3.dk} for exercises 3 and 4, ` +
        `and two ${results[4].n}×${results[4].n} Jacobians with peak logit ${values.peak}. Open the answers to compare with yours.`;
      figure.done();
    },
  };
}
