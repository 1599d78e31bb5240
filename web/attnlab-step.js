// <attnlab-step>: one step of the derivation as a custom element, for course pages that allow a
// script. One script tag, then as many elements as you like:
//   <script type="module" src="…/attnlab-step.js"></script>
//   <attnlab-step step="dot-variance" dk="64" seed="7" hide="prose" theme="auto"></attnlab-step>
// Attributes: step; the step's parameters (as in the page's URL); hide = any of prose, controls,
// title, link (separated by spaces or commas); theme = light, dark, auto. Each is observed: changing one redraws the figure.
// Shadow DOM keeps the page's CSS and the step's apart, both ways. All elements on a page share one
// engine worker; each starts computing when it first comes into view. The element fires
// `attnlab-change` (detail: the parameters) when the reader moves a control.
import katexCss from 'katex/dist/katex.min.css?inline';
import pageCss from './style.css?inline';
import plotCss from './plots/plot.css?inline';
import elementCss from './attnlab-step.css?inline';
import { connectEngine } from './engine-client.js';
import { HIDE, parseList, parseParams } from './controls.js';
import { mountFigure } from './figure.js';
import { linkStepsOut } from './step-links.js';
import { steps } from './steps/index.js';
import { typesetStatic } from './tex.js';

const stepCss = Object.values(import.meta.glob('./steps/*.css', { query: '?inline', import: 'default', eager: true }));
const sections = import.meta.glob('./sections/*.html', { query: '?raw', import: 'default', eager: true });
const byId = new Map(steps.map((s) => [s.id, s]));

// The page's address, for the link to the whole derivation (Vite resolves the CSS's font URLs
// against this script the same way).
const here = new URL(/* @vite-ignore */ '.', import.meta.url);

let shared = null;  // the stylesheets and the engine, made when the first element connects
function setup() {
  if (shared) return shared;
  const sheet = (css) => { const s = new CSSStyleSheet(); s.replaceSync(css); return s; };
  // @font-face only works at document level: KaTeX's font faces go there (and nothing else does)
  const faces = [...katexCss.matchAll(/@font-face\s*{[^}]*}/g)].map((m) => m[0]);  // (not .match: Rollup 'folds' it into a string)
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet(faces.join('\n'))];
  shared = {
    sheets: [katexCss.replace(/@font-face\s*{[^}]*}/g, ''), pageCss, plotCss, ...stepCss, elementCss].map(sheet),
    client: connectEngine(),
  };
  return shared;
}

// HTML lowercases attribute names (seqLen= arrives as seqlen), and observedAttributes is compared
// with the lowercased name; getAttribute and hasAttribute lowercase their argument themselves.
const PARAMS = [...new Set(steps.flatMap((s) => Object.keys(s.params)))].map((name) => name.toLowerCase());

class AttnlabStep extends HTMLElement {
  // theme: the CSS follows it by itself (:host([theme])), the heatmaps' colour ramps on a redraw
  static observedAttributes = ['step', 'theme', 'hide', ...PARAMS];
  #figure = null;
  #step = null;

  connectedCallback() {
    if (!this.#step) this.#render();
  }

  // Taken out of the page: its runs stop (they held the shared worker), its watchers end; put back,
  // it renders again. Moved (taken out and put back in one task, as a course page reordering its
  // elements does), it keeps its figure: the disposal waits for the task's microtasks.
  disconnectedCallback() {
    queueMicrotask(() => {
      if (this.isConnected) return;
      this.#figure?.dispose();
      this.#figure = null;
      this.#step = null;
    });
  }

  attributeChangedCallback(name, before, after) {
    if (!this.#step || before === after) return;
    if (name === 'step') { this.#render(); return; }
    const { values, notes, hide } = this.#read();
    this.#root.dataset.hide = hide;
    this.#figure.apply(values, notes);
  }

  // the attributes as the step's parameters, the hide flags, and what was wrong with them
  #read() {
    const search = new URLSearchParams();
    for (const name of Object.keys(this.#step.params)) if (this.hasAttribute(name)) search.set(name, this.getAttribute(name));
    const { values, notes } = parseParams(this.#step.params, search);
    const unknown = [];
    const hide = parseList('hide', this.getAttribute('hide') ?? '', HIDE, unknown).join(' ');
    return { values, hide, notes: [...this.#notes, ...unknown, ...notes] };
  }

  #notes = [];
  #root = null;  // the shadow root's one child: the hide flags are its data-hide
  #render() {
    this.#figure?.dispose();  // a new step: the old one's runs stop
    const { sheets, client } = setup();
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = sheets;
    const asked = this.getAttribute('step');
    this.#step = byId.get(asked) ?? steps[0];
    this.#notes = byId.has(asked) ? [] : [`step: “${String(asked).slice(0, 40)}” is not a step of attnlab; showing “${this.#step.id}”`];
    // the step's own prose and figure, from the page's static section (never from an attribute)
    const template = document.createElement('template');
    template.innerHTML = sections[`./sections/${this.#step.id}.html`] ?? '';
    const section = template.content.querySelector('section');
    typesetStatic(section);
    // the link to the whole derivation is written as the prose's links to other steps, and goes
    // out as they do
    const link = Object.assign(document.createElement('p'), { className: 'embed-link' });
    const a = Object.assign(document.createElement('a'), { textContent: 'The whole derivation, step by step ↗' });
    a.setAttribute('href', `?step=${this.#step.id}`);
    link.append(a);
    this.#root = Object.assign(document.createElement('div'), { className: 'step-root' });
    this.#root.append(section, link);
    linkStepsOut(this.#root, here);
    root.replaceChildren(this.#root);
    const { values, notes, hide } = this.#read();
    this.#root.dataset.hide = hide;
    this.#figure = mountFigure({
      step: this.#step, fig: section.querySelector('figure.live'), client, values, notes,
      onChange: (current) => this.dispatchEvent(new CustomEvent('attnlab-change', { detail: { ...current }, bubbles: true })),
    });
  }
}

if (!customElements.get('attnlab-step')) customElements.define('attnlab-step', AttnlabStep);
