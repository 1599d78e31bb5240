// Wires the page: typesets any math the build left, starts the engine worker, mounts each step's
// figure when it scrolls into view, and keeps the focused step's parameters in the URL.
//   control → URL state → worker request → engine → result → plot
import 'katex/dist/katex.min.css';
import 'virtual:prerendered-math.css';  // the build's typeset math: its positioning rules
import { connectEngine } from './engine-client.js';
import { loadLocalEngine } from './local-engine.js';
import { parseParams, toSearch } from './controls.js';
import { mountFigure } from './figure.js';
import { steps } from './steps/index.js';
import { land } from './landing.js';
import { typesetStatic } from './tex.js';

function buildNav() {
  const list = document.getElementById('steps-nav');
  for (const step of steps) {
    const section = document.getElementById(step.id);
    if (!section) continue;
    const a = document.createElement('a');
    a.href = `?step=${step.id}`;
    a.textContent = section.dataset.title;
    const li = document.createElement('li');
    li.append(a);
    list.append(li);
  }
}

const status = document.getElementById('engine-status');
const client = connectEngine({
  local: loadLocalEngine,
  onRestart: (reason, count, up) => {
    status.dataset.state = 'error';
    status.textContent = up
      ? `The engine failed (${reason}) and was restarted (${count}×); change a control to recompute.`
      : `The engine failed (${reason}) too often and has stopped; reload the page.`;
  },
});
client.ready.then(
  async ({ simd, arch }) => {
    const build = simd
      ? `WebAssembly SIMD128 build (xsimd ${arch} kernels lowered to f32x4)`
      : 'scalar WebAssembly build (this browser has no SIMD128)';
    status.dataset.simd = String(simd);
    status.textContent = `Engine ready: ${build}. Running the self-test…`;
    const test = await client.run('selfTest', {}, { channel: 'self-test' });
    const worst = Math.max(...test.checks.map((c) => c.error));
    status.dataset.selfTest = test.ok ? 'passed' : 'failed';
    status.textContent = test.ok
      ? `Engine ready: ${build}. Self-test passed: softmax, a dot product and an attention row agree with a JavaScript reference (largest relative error ${worst.toExponential(1)}).`
      : `Warning: the engine disagrees with the JavaScript reference (${test.checks.filter((c) => !(c.error <= test.tolerance)).map((c) => c.name).join(', ')}). The numbers on this page may be wrong in this browser.`;
    status.dataset.state = test.ok ? 'ready' : 'error';
  },
  (err) => {
    status.textContent = `${err.message[0].toUpperCase()}${err.message.slice(1)}.`;
    status.dataset.state = 'error';
  },
);

// History: the first change after a pause opens a new entry, later changes amend it, so
// back/forward steps through gestures rather than through every slider position.
// The URL holds the changed step's parameters (a link reproduces that view); each entry's state
// also holds what every figure showed then, so that back and forward give the other steps theirs
// too, where the URL alone would reset them to their defaults.
let lastPush = 0;
let urlStep = new URLSearchParams(location.search).get('step');  // the step of the entry shown
const shown = new Map();  // step id → the values its figure shows
const entryState = () => ({ steps: Object.fromEntries(shown) });
function recordUrl(search) {
  const url = `?${search}`;
  if (url === location.search) return;
  if (performance.now() - lastPush > 1000) history.pushState(entryState(), '', url);
  else history.replaceState({ ...history.state, ...entryState() }, '', url);  // (a place saved for back stays)
  lastPush = performance.now();
  urlStep = new URLSearchParams(search).get('step');
}

// A step's values in the entry shown: the URL's step from the URL, another from the entry's state
// or at its defaults. Saved values are checked as a URL's are: a state kept from an older page
// (a reload restores it) may not fit this one.
function entryValues(step) {
  const search = new URLSearchParams(location.search), saved = history.state?.steps?.[step.id];
  if (search.get('step') === step.id) return parseParams(step.params, search);
  return parseParams(step.params, new URLSearchParams(saved ? toSearch(step.id, step.params, saved) : ''));
}

function setupStep(step) {
  const section = document.getElementById(step.id);
  const fig = section?.querySelector('figure.live');
  if (!fig) return null;
  section.querySelector('h2')?.setAttribute('tabindex', '-1');
  const { values, notes } = entryValues(step);
  shown.set(step.id, values);
  const figure = mountFigure({
    step, fig, client, values, notes,
    eager: new URLSearchParams(location.search).get('step') === step.id,
    onChange: (current) => { shown.set(step.id, current); recordUrl(toSearch(step.id, step.params, current)); },
  });
  return { step, section, apply: (next) => { shown.set(step.id, next); figure.apply(next); } };
}

// "Previous · next" at the end of each step, so the derivation reads in order.
function linkSteps() {
  const sections = steps.map((st) => document.getElementById(st.id)).filter(Boolean);
  sections.forEach((section, i) => {
    const nav = document.createElement('p');  // plain links: one landmark per section would be noise
    nav.className = 'step-links';
    for (const [target, rel, label] of [[sections[i - 1], 'prev', '← '], [sections[i + 1], 'next', '']]) {
      if (!target) continue;
      const a = document.createElement('a');
      a.href = `?step=${target.id}`;
      a.rel = rel;
      a.textContent = rel === 'prev' ? `${label}${target.dataset.title}` : `${target.dataset.title} →`;
      nav.append(a);
    }
    section.append(nav);
  });
}

// Every link to a step (the step list, previous/next, the prose's) moves to it in this page, without
// a reload; a modified click (a new tab or window) is the browser's.
document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target.closest?.('a[href^="?step="]');
  const id = a && new URLSearchParams(a.search).get('step');
  if (!id || !document.getElementById(id)?.matches('main > section')) return;
  e.preventDefault();
  goToStep(id);
});

// A neighbouring step is a glide away; a far one a jump, which lays out only the sections it lands
// among (a glide past ten sections would draw all their figures on the way).
function goToStep(id) {
  const section = document.getElementById(id);
  const from = steps.findIndex((st) => st.id === reading), to = steps.findIndex((st) => st.id === id);
  history.replaceState({ ...history.state, y: scrollY }, '');  // where the reader was, for back
  history.pushState(entryState(), '', `?step=${id}`);
  urlStep = id;
  land(section, { smooth: from >= 0 && Math.abs(to - from) <= 1 });
  section.querySelector('h2')?.focus({ preventScroll: true });
}

typesetStatic(document);  // (the build typeset the page's own: only what it could not is left)
buildNav();
linkSteps();
const mounted = steps.map(setupStep).filter(Boolean);

const focusStep = new URLSearchParams(location.search).get('step');
const focused = mounted.find((m) => m.step.id === focusStep)?.section;
if (focused) land(focused);

// The nav marks the step being read.
const navLinks = new Map([...document.querySelectorAll('#steps-nav a')].map((a) => [new URLSearchParams(a.search).get('step'), a]));
let reading = null;  // the step in the middle of the window
for (const m of mounted) new IntersectionObserver((entries) => {
  if (!entries.some((e) => e.isIntersecting)) return;
  reading = m.step.id;
  for (const a of navLinks.values()) a.removeAttribute('aria-current');
  navLinks.get(m.step.id)?.setAttribute('aria-current', 'step');
}, { rootMargin: '-40% 0px -55% 0px' }).observe(m.section);

// Back and forward: the figures take the entry's values (entryValues); an entry of another step
// lands on it, and the entry before the first step link goes back to where the reader was. The page, not the browser, places the window: the browser's saved
// place was measured on a page of stand-ins.
history.scrollRestoration = 'manual';
addEventListener('popstate', () => {
  for (const m of mounted) m.apply(entryValues(m.step).values);
  const id = new URLSearchParams(location.search).get('step');
  const section = id !== urlStep && mounted.find((m) => m.step.id === id)?.section;
  if (section) land(section);
  else if (!id && urlStep && history.state?.y !== undefined) scrollTo(0, history.state.y);
  urlStep = id;
});
