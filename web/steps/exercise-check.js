// (eq:exercises) An exercise's answer box and the judges of the typed answers: each compares what
// the student gives with the value the engine computed for the exercise's current settings.
import { fmt, fmtInt, fmtInterval } from '../format.js';
import { el } from '../readout.js';

// A form of fields (a number input, or a select of [value, text] options), a Check button and the
// verdict in a polite live region. judge(values by field name) → { ok, text }, or null while the
// exercise has no result. recheck() judges the last checked answer again, against new numbers.
export function checkForm({ fields, judge, onCheck = () => {} }) {
  const form = el('form', 'exercise-check');
  const inputs = fields.map(({ name, label, options }) => {
    const id = `${name}-${Math.random().toString(36).slice(2, 8)}`;
    const tag = el('label', null, label);
    tag.htmlFor = id;
    const input = options ? el('select') : Object.assign(el('input'), { type: 'number', step: 'any', inputMode: 'decimal' });
    Object.assign(input, { id, name });
    for (const [value, text] of options ?? []) input.append(Object.assign(el('option', null, text), { value }));
    form.append(tag, input);
    return input;
  });
  const button = Object.assign(el('button', null, 'Check'), { type: 'submit', disabled: true });
  form.append(button);
  const feedback = el('p', 'exercise-feedback');
  feedback.setAttribute('aria-live', 'polite');
  let checked = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const verdict = judge(Object.fromEntries(inputs.map((i) => [i.name, i.value.trim()])));
    if (!verdict) return;
    checked = true;
    feedback.textContent = verdict.text;
    feedback.dataset.ok = String(verdict.ok);
    onCheck(verdict);
  });
  return {
    nodes: [form, feedback],
    enable() { button.disabled = false; },
    recheck() { if (checked) form.requestSubmit(); },
  };
}

// A typed answer (its text, trimmed) as a number; '' (nothing typed) is NaN, not Number('')'s 0.
// The judges take the text: they judge its number and echo the text as the student typed it
// ("8", not fmt's "8.000").
const number = (typed) => (typed === '' ? NaN : Number(typed));
const near = (a, b, rel = 0.02) => Math.abs(a - b) <= rel * Math.abs(b);
const TYPE_FIRST = { ok: false, text: 'Type a number first.' };
// a wrong number with no likelier slip behind it: which way it is off, and a hint
const offBy = (shown, value, want, hint) => ({ ok: false, text: `Not quite: ${shown} is ${value > want ? 'too large' : 'too small'}. Hint: ${hint}` });

// A draw whose 95% interval misses √d_k, said so (the table marks its row too).
export const missed = (r) => (r.stdCI[0] <= r.theory && r.theory <= r.stdCI[1] ? ''
  : `; this draw’s interval misses √dₖ, as about one draw in twenty does (another seed will likely contain it)`);

// Exercise 1: the standard deviation of q·k at d_k = 512, against the theory √d_k and the engine's
// measured spread.
export function judgeStd(typed, r) {
  const value = number(typed);
  if (!Number.isFinite(value)) return TYPE_FIRST;
  const rel = Math.abs(value - r.theory) / r.theory;
  const inCI = r.stdCI[0] <= value && value <= r.stdCI[1];
  const measured = `the engine measured ${fmt(r.std, 4)} (95% interval ${fmtInterval(r.stdCI, 4)}) from ${fmtInt(r.pairs)} pairs, seed ${r.seed}` +
    missed(r);
  if (rel <= 0.02)
    return { ok: true, text: `Correct: √${r.dk} = ${fmt(r.theory, 4)}, and ${measured}.` };
  if (near(value, r.varianceTheory))
    return { ok: false, text: `${typed} is the variance of q·k, not its standard deviation. Take the square root.` };
  if (near(value, r.stdAt64))
    return { ok: false, text: `${typed} is the standard deviation at dₖ = 64. Here dₖ = ${r.dk}.` };
  if (inCI)
    return { ok: false, text: `${typed} lies inside the engine’s 95% interval, but it is not the exact value: Var(q·k) = dₖ gives it in closed form.` };
  return offBy(typed, value, r.theory, 'Var(q·k) = dₖ, and the standard deviation is the square root of the variance.');
}

// Exercise 2: the x from which softmax(x, 0, 0, 0) counts as saturated at the threshold t, against
// ln(3t/(1 − t)) and the engine's first x past t on its grid. Within 0.05 is right.
export function judgeSaturation(typed, r, t) {
  const value = number(typed);
  if (!Number.isFinite(value)) return TYPE_FIRST;
  const c = r.crossings.find((cr) => cr.t === t);
  const engine = c.x === null ? `the engine finds no x up to ${r.xMax} on its grid` : `the engine’s first x past t on its grid (step ${r.step}) is ${fmt(c.x, 3)}`;
  if (Math.abs(value - c.closedForm) <= 0.05)
    return { ok: true, text: `Correct: p₁ = eˣ/\u2060(eˣ + 3) > ${t} once x > ln(3·${t}/\u2060(1 − ${t})) = ${fmt(c.closedForm, 4)}, and ${engine}.` };
  if (Math.abs(value - Math.log(t / (1 - t))) <= 0.05)
    return { ok: false, text: `${typed} is where eˣ/\u2060(eˣ + 1) passes ${t}: one zero logit. Here three logits are 0, so the sum is eˣ + 3.` };
  const other = r.crossings.find((cr) => cr.t !== t && Math.abs(value - cr.closedForm) <= 0.05);
  if (other) return { ok: false, text: `${typed} is the answer for t = ${other.t}; the threshold set is t = ${t}.` };
  return offBy(typed, value, c.closedForm, `solve eˣ/\u2060(eˣ + 3) = ${t} for x.`);
}

// Exercise 4: how the largest weight and the entropy of the query's weights move as τ grows from
// ½√d_k to 2√d_k, against the engine's three weight vectors.
export const TREND = [['', 'choose…'], ['rises', 'rises'], ['falls', 'falls'], ['stays', 'stays the same']];
const trendOf = (xs) => (xs.every((x, i) => i === 0 || x > xs[i - 1]) ? 'rises'
  : xs.every((x, i) => i === 0 || x < xs[i - 1]) ? 'falls' : 'stays');
export function judgeTemperature({ max, entropy }, r) {
  if (!max || !entropy) return { ok: false, text: 'Choose an answer for both first.' };
  const want = { max: trendOf(Array.from(r.max)), entropy: trendOf(Array.from(r.entropy)) };
  const seen = `for this query the engine gives ${Array.from(r.max, (m) => fmt(m)).join(' → ')} for the largest weight and ` +
    `${Array.from(r.entropy, (h) => fmt(h)).join(' → ')} nats of entropy`;
  if (max === want.max && entropy === want.entropy)
    return { ok: true, text: `Correct: ${seen}. A larger τ shrinks every gap between the logits, so the weights spread out.` };
  const wrong = [max !== want.max && 'the largest weight', entropy !== want.entropy && 'the entropy'].filter(Boolean).join(' and ');
  return { ok: false, text: `Not quite, look again at ${wrong}. Hint: dividing the logits by a larger τ makes their gaps smaller.` };
}

// Exercise 5: how many times smaller the peaked Jacobian's Frobenius norm is than the uniform one's,
// against the engine's two Jacobians; within 2% is right.
export function judgeJacobians(typed, r) {
  const value = number(typed);
  if (!Number.isFinite(value)) return TYPE_FIRST;
  const ratio = r.uniform.norm / r.peaked.norm;
  const norms = `‖J‖ is ${fmt(r.uniform.norm, 4)} for the uniform softmax and ${fmt(r.peaked.norm, 4)} for softmax(${r.peak}, 0, 0, 0)`;
  if (near(value, ratio)) return { ok: true, text: `Correct: ${norms}, a ratio of ${fmt(ratio, 4)}.` };
  if (near(value, 1 / ratio)) return { ok: false, text: `${typed} is the ratio the other way round: the peaked norm over the uniform one.` };
  if (near(value, r.uniform.norm) || near(value, r.peaked.norm))
    return { ok: false, text: `${typed} is one of the two norms; the question asks for their ratio, uniform over peaked.` };
  return offBy(typed, value, ratio, '‖J‖² = Σᵢⱼ Jᵢⱼ², with Jᵢᵢ = pᵢ(1 − pᵢ) and Jᵢⱼ = −pᵢpⱼ.');
}

