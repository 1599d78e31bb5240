// Controls rendered from a step's parameter spec, and the URL that mirrors them.
//
// A spec maps a parameter name to one of
//   { kind: 'stops', values: [...], default, label, unit? }   a slider over fixed values (log scales)
//   { kind: 'int', min, max, default, label }                  a number field
//   { kind: 'choice', options: { value: label }, default, label }
// Values from the URL are parsed here: a number between the control's values takes the nearest
// (a stop, or an integer within range), and a value that cannot be used falls back to the default;
// both are reported in `notes`, never inserted as markup.
import { setSubscripted } from './subscripts.js';

export function parseParams(spec, search) {
  const values = {}, notes = [];
  for (const [name, p] of Object.entries(spec)) {
    const raw = search.get(name);
    values[name] = p.default;
    if (raw === null) continue;
    const v = coerce(p, raw);
    if (v === undefined) notes.push(`${name}: “${raw.slice(0, 40)}” is not a valid value; using ${p.default}`);
    else {
      values[name] = v;
      if (p.kind !== 'choice' && v !== Number(raw)) notes.push(`${name}: ${raw.slice(0, 40)} is not one of the control’s values; using the nearest, ${p.format ? p.format(v) : v}`);  // (τ = √2 as its control writes it)
    }
  }
  return { values, notes };
}

// What an embedded step can hide (the embed page's hide=, <attnlab-step>'s hide attribute).
export const HIDE = ['prose', 'controls', 'title', 'link'];

// A list flag, its items separated by commas or spaces (hide=prose,controls; hide="prose controls"):
// the allowed items; the others are named in `notes`.
export function parseList(name, raw, allowed, notes) {
  const items = raw.split(/[\s,]+/).filter(Boolean);
  const bad = items.filter((s) => !allowed.includes(s));
  if (bad.length) notes.push(`${name}: ignoring ${bad.map((b) => `“${b.slice(0, 20)}”`).join(', ')} (allowed: ${allowed.join(', ')})`);
  return items.filter((s) => allowed.includes(s));
}

function coerce(p, raw) {
  if (p.kind === 'choice') return Object.hasOwn(p.options, raw) ? raw : undefined;
  const x = Number(raw);
  if (!Number.isFinite(x) || raw.trim() === '') return undefined;
  if (p.kind === 'int') return Math.min(p.max, Math.max(p.min, Math.round(x)));
  // stops: the nearest allowed value (on a log scale for positive stops)
  const d = (v) => (v > 0 && x > 0 ? Math.abs(Math.log(v / x)) : Math.abs(v - x));
  return p.values.reduce((best, v) => (d(v) < d(best) ? v : best), p.values[0]);
}

export function toSearch(stepId, spec, values) {
  const s = new URLSearchParams({ step: stepId });
  for (const name of Object.keys(spec)) if (values[name] !== spec[name].default) s.set(name, String(values[name]));
  return s;
}

let uid = 0;

// The values one press of an arrow key takes a control to from `value` (spec: its entry in a
// step's params), the one above first: a stops control's next stops, a number's value ± 1 (a
// seed); a choice has none. What a step draws ahead (web/ahead.js).
export function nextValues(spec, value) {
  if (spec.kind === 'int') return [value + 1, value - 1].filter((v) => v >= spec.min && v <= spec.max);
  const i = spec.kind === 'stops' ? spec.values.indexOf(value) : -1;
  return i < 0 ? [] : [spec.values[i + 1], spec.values[i - 1]].filter((v) => v !== undefined);
}

// Renders the controls into `container`; onChange(values) fires on every input.
export function renderControls(container, spec, values, onChange) {
  const current = { ...values };
  const setters = {};
  container.replaceChildren();
  for (const [name, p] of Object.entries(spec)) {
    const id = `ctl-${name}-${++uid}`;
    const wrap = document.createElement('div');
    wrap.className = 'control';
    const label = document.createElement('label');
    label.htmlFor = id;
    setSubscripted(label, p.label);  // d_model's "model" as a subscript
    const out = document.createElement('output');
    out.htmlFor = id;
    let input;
    const show = (v) => {
      const text = p.format ? p.format(v) : String(v);
      out.textContent = text;
      if (input.type === 'range') input.setAttribute('aria-valuetext', `${p.spoken ?? p.label} ${text}`);
    };
    if (p.kind === 'stops') {
      input = Object.assign(document.createElement('input'), { type: 'range', min: 0, max: p.values.length - 1, step: 1 });
      input.value = String(p.values.indexOf(current[name]));
      input.addEventListener('input', () => { current[name] = p.values[+input.value]; show(current[name]); onChange({ ...current }); });
      setters[name] = (v) => { input.value = String(p.values.indexOf(v)); show(v); };
    } else if (p.kind === 'int') {
      input = Object.assign(document.createElement('input'), { type: 'number', min: p.min, max: p.max, step: 1, inputMode: 'numeric' });
      input.value = String(current[name]);
      input.addEventListener('change', () => {
        const v = coerce(p, input.value);
        current[name] = v ?? p.default;
        input.value = String(current[name]);
        show(current[name]);
        onChange({ ...current });
      });
      setters[name] = (v) => { input.value = String(v); show(v); };
    } else {
      input = document.createElement('select');
      for (const [value, text] of Object.entries(p.options)) input.append(new Option(text, value));
      input.value = current[name];
      input.addEventListener('change', () => { current[name] = input.value; show(current[name]); onChange({ ...current }); });
      setters[name] = (v) => { input.value = v; show(v); };
    }
    input.id = id;
    input.name = name;
    input.dataset.param = name;
    wrap.append(label, input);
    if (p.kind === 'stops') wrap.append(out);  // a number field shows its own value
    container.append(wrap);
    show(current[name]);
  }
  return {
    set(next) {
      Object.assign(current, next);
      for (const [name, v] of Object.entries(next)) setters[name]?.(v);
    },
  };
}
