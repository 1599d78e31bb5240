// Wires the page: typesets the math, starts the engine worker, mounts each step's figure when
// it scrolls into view, and keeps the focused step's parameters in the URL.
//   control → URL state → worker request → engine → result → plot
import katex from 'katex';
import 'katex/dist/katex.min.css';
import { connectEngine } from './engine-client.js';
import { parseParams, renderControls, toSearch } from './controls.js';
import { steps } from './steps/index.js';

function typeset(root = document) {
  for (const el of root.querySelectorAll('.math')) {
    katex.render(el.textContent, el, { displayMode: el.classList.contains('display'), throwOnError: false });
  }
}

function buildNav() {
  const list = document.getElementById('steps-nav');
  for (const step of steps) {
    const section = document.getElementById(step.id);
    if (!section) continue;
    const a = document.createElement('a');
    a.href = `?step=${step.id}`;
    a.textContent = section.dataset.title;
    a.addEventListener('click', (e) => {
      e.preventDefault();
      history.pushState(null, '', `?step=${step.id}`);
      section.scrollIntoView({ behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
      section.querySelector('h2')?.focus({ preventScroll: true });
    });
    const li = document.createElement('li');
    li.append(a);
    list.append(li);
  }
}

const client = connectEngine();
const status = document.getElementById('engine-status');
client.ready.then(
  ({ simd, arch }) => {
    status.textContent = simd
      ? `Engine ready: WebAssembly SIMD128 build (xsimd ${arch} kernels lowered to f32x4).`
      : 'Engine ready: scalar WebAssembly build (this browser has no SIMD128).';
    status.dataset.simd = String(simd);
    status.dataset.state = 'ready';
  },
  (err) => {
    status.textContent = `The engine could not start: ${err.message}`;
    status.dataset.state = 'error';
  },
);

function urlValues(step) {
  const search = new URLSearchParams(location.search);
  if (search.get('step') !== step.id) return { values: parseParams(step.params, new URLSearchParams()).values, notes: [] };
  return parseParams(step.params, search);
}

function setupStep(step) {
  const section = document.getElementById(step.id);
  const fig = section?.querySelector('figure.live');
  if (!fig) return null;
  section.querySelector('h2')?.setAttribute('tabindex', '-1');
  const controlsEl = document.createElement('div');
  controlsEl.className = 'controls';
  const body = document.createElement('div');
  body.className = 'figure-body';
  const note = document.createElement('p');
  note.className = 'note';
  note.hidden = true;
  const bar = document.createElement('progress');
  bar.className = 'progress';
  bar.max = 1;
  bar.hidden = true;
  fig.prepend(controlsEl, note, bar, body);

  const { values, notes } = urlValues(step);
  if (notes.length) { note.hidden = false; note.textContent = notes.join('; '); }
  let current = values;
  let view = null;

  const figure = {
    body,
    progress: (p) => { bar.hidden = false; bar.value = p; },
    done: () => { bar.hidden = true; fig.dataset.state = 'ready'; fig.dataset.updates = String(+(fig.dataset.updates || 0) + 1); },
  };
  const ctx = {
    run: (name, params, opts = {}) => client.run(name, params, { channel: step.id, ...opts }),
  };

  const update = async () => {
    fig.dataset.state = 'computing';
    try {
      await view.update(current);
    } catch (err) {
      fig.dataset.state = 'error';
      note.hidden = false;
      note.textContent = `The engine reported an error: ${err.message}`;
    }
  };

  const controls = renderControls(controlsEl, step.params, current, (next) => {
    current = next;
    history.replaceState(null, '', `?${toSearch(step.id, step.params, current)}`);
    if (view) update();
  });

  const mountNow = () => {
    if (view) return;
    view = step.mount(figure, ctx);
    update();
  };
  new IntersectionObserver((entries, obs) => {
    if (entries.some((e) => e.isIntersecting)) { obs.disconnect(); mountNow(); }
  }, { rootMargin: '200px' }).observe(fig);

  return {
    step,
    section,
    apply(next) { current = next; controls.set(next); if (view) update(); },
  };
}

typeset();
buildNav();
const mounted = steps.map(setupStep).filter(Boolean);

const focusStep = new URLSearchParams(location.search).get('step');
mounted.find((m) => m.step.id === focusStep)?.section.scrollIntoView();

addEventListener('popstate', () => {
  for (const m of mounted) m.apply(urlValues(m.step).values);
  const id = new URLSearchParams(location.search).get('step');
  mounted.find((m) => m.step.id === id)?.section.scrollIntoView();
});
