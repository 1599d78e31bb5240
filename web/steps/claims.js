// (eq:claims) Every number the four source documents state, recomputed by the engine and judged.
// CLAIMS is the data: what each text says (a short quote), the inputs it states, what to compute
// (`compute`, run by the claimsCheck experiment) and how to judge the result. The verdicts follow
// from the computed values by the rules in `verdictOf`; only the judgement “misleading” is given
// in the data, always with its reason computed from the numbers.
import { SERIES_COLORS } from '../plots/style.js';
import { fmt, fmtInt, fmtTiny } from '../format.js';
import { el, liveFormula, liveSummary, setTex } from '../readout.js';
import { scrollsSideways } from '../scroll-region.js';
import './claims.css';

export const id = 'claims';

export const params = {
  pairs: { kind: 'stops', values: [500, 1000, 2000, 5000, 10000, 20000], default: 1000, label: 'sampled pairs', spoken: 'pairs', format: fmtInt },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

export const SOURCES = {
  '000': 'forum post',
  '001': 'blog post',
  '002': 'course §5.3',
  '003': 'note on √dₖ',
};

const STEP_LABELS = {
  'product-variance': 'Product variance',
  'dot-variance': 'Variance of q·k',
  'softmax-saturation': 'Saturation',
  'vanishing-gradients': 'Gradients',
  'scaling-choices': 'Scaling choices',
  'shift-vs-scale': 'Shift vs. scale',
  initialization: 'Initialization',
  temperature: 'Temperature',
};

export const VERDICTS = ['correct', 'approximately', 'wrong', 'misleading'];
const VERDICT_COLOR = { correct: SERIES_COLORS[2], approximately: SERIES_COLORS[4], wrong: SERIES_COLORS[1], misleading: SERIES_COLORS[3] };

// A sampled claim counts as correct when the stated value is within this many standard errors of
// the measurement: a correct claim fails it about once in 16,000 draws.
export const SAMPLED_SE = 4;
// Beyond rounding, within this relative error a claim is “approximately” right.
export const APPROX_REL = 0.1;

// fmt without trailing zeros after the point (−1.00 → −1, 0.100 → 0.1), and with exponents for
// values fmt would round to 0.
export function short(x, digits = 3) {
  if (x !== 0 && Math.abs(x) < 1e-12) return fmtTiny(x, digits);
  return fmt(x, digits).replace(/(\.\d*?)0+(?=$|×)/, '$1').replace(/\.(?=$|×)/, '');
}
// A value checked against numbers stated with `d` decimals: two more decimals than the text.
function fixed(x, d) {
  if (!Number.isFinite(x)) return fmt(x);
  if (x !== 0 && Math.abs(x) < 10 ** -(d + 2)) return short(x, 2);
  return x.toFixed(d + 2).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '').replace(/^-/, '−').replace(/^−0$/, '0');
}
const vec = (xs, digits = 3) => `(${Array.from(xs, (v) => short(v, digits)).join(', ')})`;
const pm = (v, se) => `${fmt(v, 4)}\u00a0±\u00a0${fmt(se, 2)}`;  // one unit: no break inside
const seeded = (r, ctx, n = r.n) => `${Array.isArray(n) ? n.map(fmtInt).join(' and ') : fmtInt(n)} pairs, seed ${ctx.seed}`;
const be = (n) => (n === 1 ? 'is' : 'are');
const oneIn = (p) => (p > 0 ? `about 1 row in ${fmtInt(Math.round(1 / p))}` : 'none');

// kind: 'rounding'  stated numbers (as written) against the computed values
//       'sampled'   stated values against a measurement with standard errors
//       'test'      a qualitative statement; test(r) says whether the numbers bear it out
//       'judgement' verdict given here (misleading), with the computed evidence in why(r)
export const CLAIMS = [
  // ---- 000: the forum post
  { id: 'var-dk', sources: ['000', '002', '003'], step: 'dot-variance', quote: '“the dot product has variance d_k”', context: 'q·k at dₖ = 64',
    compute: { op: 'dotVariance', dk: 64 }, kind: 'sampled', stated: ({ dk }) => [dk] },
  { id: 'product-var', sources: ['000', '002', '003'], step: 'product-variance', quote: '“each with variance 1”', context: 'one product XY of independent N(0, 1)',
    compute: { op: 'productMoment', moment: 'variance' }, kind: 'sampled', stated: () => [1] },
  { id: 'std-8', sources: ['000', '002'], step: 'dot-variance', quote: '“At d_k = 64 … standard deviation ≈ 8”',
    compute: { op: 'dotStd', dk: 64 }, kind: 'sampled', stated: () => ['8'] },
  { id: 'easily', sources: ['000'], step: 'softmax-saturation', quote: '“softmax input can easily look like [-20, 3, 25, -15]”', context: 'four unscaled scores at dₖ = 64',
    compute: { op: 'spread', dk: 64, n: 4, example: [-20, 3, 25, -15], typicalRows: 100 }, kind: 'judgement', verdict: 'misleading',
    show: (r, ctx) => `${fmtInt(r.hits)} of ${fmtInt(r.rows)} sampled rows (one query, four keys) reach its spread of ${short(r.spread)} (exact: ${oneIn(r.theory)}); the widest spread ${short(r.widest)} (seed ${ctx.seed})`,
    why: (r) => `A spread of ${short(r.spread)} is ${short(r.inSigmas)} standard deviations, so such rows are rare; the point survives anyway, ` +
      `since typical unscaled rows of four already put ${fmt(r.typicalMax.mean)} of their weight on one key.` },
  { id: 'one-hot', sources: ['000'], step: 'softmax-saturation', quote: '“The softmax collapses to near-one-hot”', context: 'softmax of [−20, 3, 25, −15]',
    compute: { op: 'softmax', x: [-20, 3, 25, -15] }, kind: 'test', test: (r) => Math.max(...r.values) > 0.99,
    show: (r) => vec(r.values) },
  { id: 'nonmax-grad', sources: ['000'], step: 'vanishing-gradients', quote: '“the gradients for non-max positions become extremely small”', context: 'largest ‖∂p/\u2060∂xⱼ‖ over non-max j, same example',
    compute: { op: 'nonmaxGrad', x: [-20, 3, 25, -15] }, kind: 'test', test: (r) => r.values[0] < 1e-3 * r.uniform,
    show: (r) => `${fmt(r.values[0])} (uniform p: ${fmt(r.uniform)})` },
  { id: 'scaled-example', sources: ['000'], step: 'softmax-saturation', quote: '“the logits look more like [-2.5, 0.4, 3.1, -1.9]”', context: 'the example divided by √64',
    compute: { op: 'divide', x: [-20, 3, 25, -15], by: Math.sqrt(64) }, kind: 'rounding', stated: ['-2.5', '0.4', '3.1', '-1.9'] },
  { id: 'softer', sources: ['000'], step: 'softmax-saturation', quote: '“producing softer distributions the optimizer can actually learn from”', context: 'softmax of [−2.5, 0.4, 3.1, −1.9]',
    compute: { op: 'softmax', x: [-2.5, 0.4, 3.1, -1.9], alt: [-20, 3, 25, -15], typical: { dk: 64, n: 4, rows: 100, scale: 'sqrt' } },
    kind: 'test', test: (r) => Math.max(...r.values) < Math.max(...r.alt), show: (r) => vec(r.values),
    note: (r) => `Softer than the unscaled example, but still ${fmt(Math.max(...r.values))} on one key, because the example is an extreme draw: ` +
      `typical scaled rows of four put ${fmt(r.typical.maxWeight.mean)} on their top key.` },
  { id: 'unit-var', sources: ['002', '000', '003'], step: 'dot-variance', quote: '“The scaled scores have unit variance, regardless of dimension”', context: 'q·k/\u2060√dₖ at dₖ = 64',
    compute: { op: 'dotVariance', dk: 64, scale: 'sqrt' }, kind: 'sampled', stated: () => [1] },
  { id: 'xavier', sources: ['000'], step: 'initialization', quote: '“initialized to keep activations near unit variance (Xavier initialization)”', context: 'a 512 → 64 projection of N(0, 1) inputs',
    compute: { op: 'xavier', fanIn: 512, fanOut: 64, rows: 32 }, kind: 'judgement', verdict: 'misleading',
    show: (r, ctx) => `Var(qᵢ) = ${fmt(r.values[0])} (theory ${fmt(r.theory)}; seed ${ctx.seed})`,
    why: (r) => `Xavier’s Var(W) = 2/\u2060(fan_in + fan_out) gives the projection a variance of 2·fan_in/\u2060(fan_in + fan_out), which is 1 only for a square matrix: ` +
      `${fmt(r.theory)} for a ${r.fanIn} → ${r.fanOut} head.` },

  // ---- 001: the blog post
  { id: 'overflow', sources: ['002', '001'], step: 'shift-vs-scale', quote: '“Softmax can overflow with large inputs”', context: 'exp(x)/\u2060Σexp(x) in float32 for [100, 102, 103]',
    compute: { op: 'overflow', x: [100, 102, 103] }, kind: 'test',
    test: (r) => r.naive.some((v) => !Number.isFinite(v)) && r.stable.every(Number.isFinite),
    show: (r) => `as written ${vec(r.naive)}; max subtracted ${vec(r.stable)}` },
  { id: 'divide-10', sources: ['001'], step: 'shift-vs-scale', quote: '“[100, 102, 103] becomes [10.0, 10.2, 10.3]”', context: 'dividing by 10',
    compute: { op: 'divide', x: [100, 102, 103], by: 10 }, kind: 'rounding', stated: ['10.0', '10.2', '10.3'] },
  { id: 'gaps-divide', sources: ['001'], step: 'shift-vs-scale', quote: '“the 2-unit and 1-unit gaps become 0.2 and 0.1”',
    compute: { op: 'gaps', x: [100, 102, 103], by: 10 }, kind: 'rounding', stated: ['0.2', '0.1'] },
  { id: 'shift', sources: ['001'], step: 'shift-vs-scale', quote: '“[100, 102, 103] becomes [-3, -1, 0]”', context: 'subtracting the maximum',
    compute: { op: 'shift', x: [100, 102, 103] }, kind: 'rounding', stated: ['-3', '-1', '0'] },
  { id: 'gaps-shift', sources: ['001'], step: 'shift-vs-scale', quote: '“the gaps remain 2 and 1”',
    compute: { op: 'gaps', x: [100, 102, 103], shift: true }, kind: 'rounding', stated: ['2', '1'] },
  { id: 'ratio-before', sources: ['001'], step: 'shift-vs-scale', quote: '“102/100 = 1.02”',
    compute: { op: 'ratio', a: 102, b: 100 }, kind: 'rounding', stated: ['1.02'] },
  { id: 'ratio-after', sources: ['001'], step: 'shift-vs-scale', quote: '“10.2/10.0 = 1.02, just like before”',
    compute: { op: 'ratio', a: 10.2, b: 10.0 }, kind: 'rounding', stated: ['1.02'] },
  { id: 'ratios-matter', sources: ['001'], step: 'shift-vs-scale', quote: '“preserve the proportional relationships … because softmax relies on these”',
    compute: { op: 'shiftInvariance', x: [100, 102, 103] }, kind: 'judgement', verdict: 'misleading',
    show: (r) => `largest change of a weight under the shift: ${short(r.values[0])}; ratio ${short(r.ratioBefore)} → ${short(r.ratioAfter)}`,
    why: (r) => `Softmax depends only on differences: subtracting the maximum turns the ratio ${short(r.ratioBefore)} into ` +
      `${short(r.shifted[1])}/\u2060${short(r.shifted[0])} = ${short(r.ratioAfter)} and leaves every weight as it was.` },
  { id: 'spread-3', sources: ['001'], step: 'shift-vs-scale', quote: '“a 3-unit spread into a distribution like [0.09, 0.24, 0.67]”', context: 'softmax of [100, 102, 103]',
    compute: { op: 'softmax', x: [100, 102, 103], alt: [0, 1, 2] }, kind: 'rounding', stated: ['0.09', '0.24', '0.67'],
    why: (r) => `Those are the weights of [${r.altInput.join(', ')}], ${vec(r.alt)}; the gaps 2 and 1 of [100, 102, 103] give ${vec(r.values)}.` },
  { id: 'balanced', sources: ['001'], step: 'shift-vs-scale', quote: '“a more balanced distribution like [0.30, 0.33, 0.37]”', context: 'softmax of [10.0, 10.2, 10.3]',
    compute: { op: 'softmax', x: [10.0, 10.2, 10.3], alt: [0, 0.1, 0.2] }, kind: 'rounding', stated: ['0.30', '0.33', '0.37'],
    note: (r) => `Those are the weights of [${r.altInput.join(', ')}], ${vec(r.alt)}; [10.0, 10.2, 10.3] gives ${vec(r.values)}, balanced all the same.` },
  { id: 'growth', sources: ['001'], step: 'dot-variance', quote: '“As d_k increases (say from 64 to 512), the dot product … grows”', context: 'std of q·k at 512 over std at 64',
    compute: { op: 'stdGrowth', from: 64, to: 512 }, kind: 'sampled', stated: ({ from, to }) => [Math.sqrt(to / from)],
    show: (r, ctx) => `${fmt(r.std[0])} → ${fmt(r.std[1])}: ×${pm(r.values[0], r.se[0])}, theory √(512/64) = ${fmt(Math.sqrt(r.dks[1] / r.dks[0]), 4)} (${seeded(r, ctx)})` },
  { id: 'constant', sources: ['001'], step: 'dot-variance', quote: '“dividing by sqrt(d_k) keeps the standard deviation roughly constant”', context: 'std of q·k/\u2060√dₖ at dₖ = 64 and 512',
    compute: { op: 'scaledStds', dks: [64, 512] }, kind: 'sampled', stated: () => [1, 1],
    show: (r, ctx) => `${pm(r.values[0], r.se[0])} and ${pm(r.values[1], r.se[1])} (${seeded(r, ctx)})` },
  { id: 'near-uniform', sources: ['003', '001'], step: 'scaling-choices', quote: '“causing the softmax to produce nearly uniform distributions”', context: 'scores divided by dₖ = 64, eight keys',
    compute: { op: 'rowsMean', dk: 64, n: 8, rows: 100, scales: ['dk'] }, kind: 'test', test: (r) => nearlyUniform(r.rows[0].entropy.mean, r.n),
    show: (r, ctx) => `mean entropy ${fmt(r.rows[0].entropy.mean, 4)} of log ${r.n} = ${fmt(r.logN, 4)}; mean max weight ${fmt(r.values[0])} (1/\u2060n = ${fmt(r.uniform)}; ${r.count} queries, seed ${ctx.seed})` },

  // ---- 002: the course section
  { id: 'mean-xy', sources: ['002'], step: 'product-variance', quote: '“E[XY] = E[X]E[Y] = 0”', context: 'X, Y independent N(0, 1)',
    compute: { op: 'productMoment', moment: 'mean' }, kind: 'sampled', stated: () => [0] },
  { id: 'second-xy', sources: ['002'], step: 'product-variance', quote: '“E[(XY)²] = E[X²]E[Y²] = 1 × 1 = 1”',
    compute: { op: 'productMoment', moment: 'second' }, kind: 'sampled', stated: () => [1] },
  { id: 'peaked-3', sources: ['002'], step: 'softmax-saturation', quote: '“[8.5, -2.1, 7.9, ...]” → “[0.99, 0.00, 0.01, ...]”', context: 'softmax of the three scores shown',
    compute: { op: 'softmax', x: [8.5, -2.1, 7.9], ratioOf: [0, 2], split: [0.99, 0.01] }, kind: 'rounding', stated: ['0.99', '0.00', '0.01'],
    why: (r) => `8.5 and 7.9 differ by only ${short(r.gap)}, so their weights stand in the ratio e^${short(r.gap)} = ${short(r.ratio)} whatever the hidden entries are; ` +
      `a 0.99 : 0.01 split needs a gap of ln ${short(r.split)} = ${short(r.gapNeeded)}.` },
  { id: 'example-5', sources: ['002'], step: 'softmax-saturation', quote: '“[9.2, -3.1, 8.8, -5.4, 1.2]” → “[0.599, 0.000, 0.401, 0.000, 0.000]”',
    compute: { op: 'softmax', x: [9.2, -3.1, 8.8, -5.4, 1.2] }, kind: 'rounding', stated: ['0.599', '0.000', '0.401', '0.000', '0.000'] },
  { id: 'example-5-scaled', sources: ['002'], step: 'softmax-saturation', quote: '“divide by 8”: “[1.15, -0.39, 1.10, -0.68, 0.15]”',
    compute: { op: 'divide', x: [9.2, -3.1, 8.8, -5.4, 1.2], by: Math.sqrt(64) }, kind: 'rounding', stated: ['1.15', '-0.39', '1.10', '-0.68', '0.15'] },
  { id: 'example-5-softmax', sources: ['002'], step: 'softmax-saturation', quote: '“Softmax: [0.31, 0.07, 0.30, 0.05, 0.12]”', context: 'softmax of the scaled scores just above',
    compute: { op: 'softmax', x: [1.15, -0.39, 1.10, -0.68, 0.15] }, kind: 'rounding', stated: ['0.31', '0.07', '0.30', '0.05', '0.12'],
    why: (r) => `The stated weights add up to ${short(r.statedSum)}, not 1; softmax of these scores is ${vec(r.values)}.` },
  { id: 'same-result', sources: ['002'], step: 'shift-vs-scale', quote: '“Subtracting the maximum prevents overflow while giving the same result”', context: 'for [9.2, −3.1, 8.8, −5.4, 1.2]',
    compute: { op: 'overflow', x: [9.2, -3.1, 8.8, -5.4, 1.2] }, kind: 'test',
    test: (r) => r.naive.every(Number.isFinite) && r.maxDiff < 1e-6, show: (r) => `largest difference from exp(x)/\u2060Σexp(x): ${fmt(r.maxDiff)}` },
  { id: 'grad-one-hot', sources: ['002'], step: 'vanishing-gradients', quote: '“When softmax ≈ [1, 0, 0, ...]: gradients ≈ [0, 0, 0, ...]”', context: '‖J‖ (Frobenius) of the Jacobian at p = (1, 0, 0, 0)',
    compute: { op: 'jacobianNorm', p: [1, 0, 0, 0] }, kind: 'rounding', stated: ['0'] },
  { id: 'grad-healthy', sources: ['002'], step: 'vanishing-gradients', quote: '“[0.3, 0.3, 0.2, 0.2]: gradients ≈ [0.21, 0.21, 0.16, 0.16]”', context: 'the Jacobian’s diagonal ∂pᵢ/\u2060∂xᵢ',
    compute: { op: 'jacobian', p: [0.3, 0.3, 0.2, 0.2] }, kind: 'rounding', stated: ['0.21', '0.21', '0.16', '0.16'],
    note: (r) => `Right as the Jacobian’s diagonal pᵢ(1 − pᵢ), which is what is checked here; as a gradient they mislead: the off-diagonal entries −pᵢpⱼ reach ${short(r.maxOff)} and each row sums to 0. ` +
      `The whole matrix has ‖J‖ = ${fmt(r.norm)}.` },
  { id: 'temperature', sources: ['002'], step: 'temperature', quote: '“τ < √d_k: Sharper attention … τ > √d_k: Softer attention”', context: 'τ = ½√dₖ, √dₖ, 2√dₖ at dₖ = 64, eight keys',
    compute: { op: 'temperatureMeans', dk: 64, n: 8, rows: 100 }, kind: 'test',
    test: (r) => r.rows.every((x, i) => i === 0 || (x.maxWeight.mean < r.rows[i - 1].maxWeight.mean && x.entropy.mean > r.rows[i - 1].entropy.mean)),
    show: (r, ctx) => `mean max weight ${r.rows.map((x) => fmt(x.maxWeight.mean)).join(' → ')}; entropy ${r.rows.map((x) => fmt(x.entropy.mean)).join(' → ')} (${r.count} queries, seed ${ctx.seed})` },

  // ---- 003: the note on √d_k versus d_k
  { id: 'var-over-dk', sources: ['003'], step: 'scaling-choices', quote: '“over-scale the dot product, reducing the variance of the scores”', context: 'to 1/\u2060dₖ: q·k/\u2060dₖ at dₖ = 64',
    compute: { op: 'dotVariance', dk: 64, scale: 'dk' }, kind: 'sampled', stated: ({ dk }) => [1 / dk] },
  { id: 'float-small', sources: ['003'], step: 'scaling-choices', quote: '“very small values might be harder to handle precisely in floating-point”', context: 'float softmax of q·k/\u2060dₖ vs. double, dₖ = 64',
    compute: { op: 'precision', dk: 64, n: 8, rows: 16 }, kind: 'judgement', verdict: 'misleading',
    show: (r, ctx) => `largest relative error ${fmt(r.byDk.worst)} (with 1/\u2060√dₖ: ${fmt(r.bySqrt.worst)}; seed ${ctx.seed})`,
    why: (r) => `Floating point has the same relative precision for small numbers as for large ones (float32’s unit roundoff, 2⁻²⁴ ≈ ${fmt(r.unitRoundoff, 2)}, at every size): ` +
      `scores of size ${short(r.byDk.smallest)} and up are far above the smallest normal float, 2⁻¹²⁶ ≈ ${short(r.tiniest, 2)}, ` +
      `and the weights come out as accurately as with 1/\u2060√dₖ.` },
];

// “Nearly uniform”, as the near-uniform claim is tested here and on scaling-choices: a mean
// entropy within 1% of log n, the uniform row's.
export const nearlyUniform = (meanEntropy, n) => meanEntropy >= 0.99 * Math.log(n);

const decimals = (s) => (/\.(\d+)/.exec(s)?.[1].length ?? 0);
const parse = (s) => (typeof s === 'number' ? s : Number(String(s).replace('−', '-')));

// The numbers a claim states, for its compute spec.
export function statedOf(c) {
  return typeof c.stated === 'function' ? c.stated(c.compute) : c.stated;
}

// The verdict the computed result `r` gives claim `c`.
export function verdictOf(c, r) {
  if (c.kind === 'judgement') return c.verdict;
  if (c.kind === 'test') return c.test(r) ? 'correct' : 'wrong';
  const stated = statedOf(c);
  let exact = true, approx = true;
  stated.forEach((s, i) => {
    const target = parse(s), v = r.values[i];
    const d = Math.abs(v - target);
    // rounding: half a unit in the last stated digit (tiny slack for binary fractions like 0.675)
    const tol = c.kind === 'sampled' ? SAMPLED_SE * r.se[i] : 0.5 * 10 ** -decimals(String(s)) * (1 + 1e-9) + 1e-12;
    if (!(d <= tol)) exact = false;
    if (!(d <= tol || d <= APPROX_REL * Math.abs(target))) approx = false;
  });
  return exact ? 'correct' : approx ? 'approximately' : 'wrong';
}

// The engine's value as shown in the table.
export function shownValue(c, r, ctx) {
  if (c.show) return c.show(r, ctx);
  if (c.kind === 'sampled') return `${r.values.map((v, i) => pm(v, r.se[i])).join(' and ')} (${seeded(r, ctx)})`;
  const d = Math.max(...statedOf(c).map((x) => decimals(String(x))));
  const shown = Array.from(r.values, (v) => fixed(v, d));
  return shown.length > 1 ? `(${shown.join(', ')})` : shown[0];
}

// The one sentence beside a verdict: why for wrong and misleading, a note for the others if any.
export function reasonOf(c, r, verdict) {
  if (verdict === 'wrong' || verdict === 'misleading') {
    if (c.why) return c.why(r);
    return `The text states ${statedOf(c).join(', ')}; the engine computes ${shownValue(c, r, { seed: '' }).replace(/, seed $/, '')}.`;
  }
  return c.note ? c.note(r) : '';
}

// The claims as sent to the experiment: ids, compute specs, and the stated numbers.
export function claimRequests() {
  return CLAIMS.map((c) => ({ id: c.id, compute: c.compute,
    stated: c.kind === 'rounding' || c.kind === 'sampled' ? statedOf(c).map(parse) : undefined }));
}

export function mount(figure, { run }) {
  const formula = liveFormula();
  const counts = el('p', 'claims-counts');
  const wrap = scrollsSideways(el('div', 'claims-table-wrap'), () => 'The claims, and what the engine computes for each');
  const table = el('table', 'readout claims-table');
  const head = table.createTHead().insertRow();
  for (const name of ['Source', 'Claim', 'The engine computes', 'Verdict', 'Explained in']) {
    const th = el('th', null, name);
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  wrap.append(table);
  const summary = liveSummary();
  figure.body.append(formula, counts, wrap, summary);

  // the rows are built once; an update refills their value and verdict cells
  const rows = CLAIMS.map((c) => {
    const tr = body.insertRow();
    tr.dataset.claim = c.id;
    const src = tr.insertCell();
    src.className = 'claims-source';
    // the quote is the first source's words; the others make the same claim in their own
    const [quoted, ...also] = c.sources;
    src.textContent = quoted;
    if (also.length) src.append(el('span', 'claims-also', `also ${also.join(' · ')}`));
    src.title = c.sources.map((s) => `${s}: ${SOURCES[s]}`).join('; ');
    const claim = el('th');
    claim.scope = 'row';
    claim.append(el('span', 'claims-quote', c.quote));
    if (c.context) claim.append(el('span', 'claims-context', c.context));
    tr.append(claim);
    const value = tr.insertCell();
    value.className = 'claims-value';
    const verdict = tr.insertCell();
    verdict.className = 'claims-verdict';
    const label = el('span', 'claims-label');
    const reason = el('span', 'claims-reason');
    verdict.append(label, reason);
    const step = tr.insertCell();
    step.className = 'claims-step';
    const a = el('a', null, STEP_LABELS[c.step] ?? c.step);
    a.href = `?step=${c.step}`;
    step.append(a);
    return { tr, value, label, reason };
  });
  // a table to screen readers in every layout (claims.css lays it out as cards in a narrow room,
  // and a table whose parts are not displayed as table parts loses its role in Chromium)
  table.setAttribute('role', 'table');
  for (const g of [table.tHead, body]) g.setAttribute('role', 'rowgroup');
  for (const tr of table.rows) {
    tr.setAttribute('role', 'row');
    for (const cell of tr.cells) cell.setAttribute('role', cell.tagName === 'TD' ? 'cell' : cell.scope === 'col' ? 'columnheader' : 'rowheader');
  }

  return {
    async update({ pairs, seed }) {
      const r = await run('claimsCheck', { pairs, seed, claims: claimRequests() }, { onProgress: figure.progress });
      if (!r) return;
      const ctx = { seed: r.seed, pairs: r.pairs };
      const tally = Object.fromEntries(VERDICTS.map((v) => [v, 0]));
      CLAIMS.forEach((c, i) => {
        const res = r.results[c.id];
        const verdict = verdictOf(c, res);
        tally[verdict]++;
        const row = rows[i];
        row.tr.dataset.verdict = verdict;
        row.value.textContent = shownValue(c, res, ctx);
        row.label.textContent = verdict;
        row.label.style.setProperty('--verdict', VERDICT_COLOR[verdict]);
        row.reason.textContent = reasonOf(c, res, verdict);
      });
      const spread = r.results['spread-3'];
      const stated = statedOf(CLAIMS.find((c) => c.id === 'spread-3'));
      const tuple = (xs) => Array.from(xs, (v) => v.toFixed(3)).join(',\\,');
      setTex(formula, String.raw`\begin{aligned}\operatorname{softmax}(100,102,103)&=(${tuple(spread.values)})\;\ne\;(${stated.join(',\\,')})\ \text{(001)}\\
        \operatorname{softmax}(${spread.altInput.join(',')})&=(${tuple(spread.alt)})\end{aligned}`, true);
      counts.textContent = `${CLAIMS.length} claims: ` + VERDICTS.map((v) => `${tally[v]} ${v}`).join(', ') + '.';
      summary.textContent =
        `Recomputed with seed ${r.seed} and ${fmtInt(r.pairs)} sampled pairs: of ${CLAIMS.length} numbers and statements in the four texts, ` +
        `${tally.correct} ${tally.correct === 1 ? 'checks' : 'check'} out, ${tally.approximately} ${be(tally.approximately)} approximately right, ` +
        `${tally.wrong} ${be(tally.wrong)} wrong and ${tally.misleading} ${be(tally.misleading)} misleading.`;
      figure.done(r);
    },
  };
}
