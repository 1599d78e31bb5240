// The embed page (embed.html): one step of the derivation alone, for an <iframe> in a course page.
//   embed.html?step=<id>&<the step's parameters>&hide=prose,controls,title,link&theme=light|dark|auto
//            &resize=attnlab,canvas,h5p|none&origin=<the host's origin, to restrict postMessage>
// The step's parameters are the full page's (a link copied from it works here); the flags are
// checked like every other URL value: what cannot be used is ignored and said so, never inserted
// as markup.
import 'katex/dist/katex.min.css';
import 'virtual:prerendered-math.css';  // the build's typeset math: its positioning rules
import { connectEngine } from './engine-client.js';
import { loadLocalEngine } from './local-engine.js';
import { HIDE, parseList, parseParams, toSearch } from './controls.js';
import { mountFigure } from './figure.js';
import { startAutoHeight } from './embed-resize.js';
import { linkStepsOut } from './step-links.js';
import { steps } from './steps/index.js';
import { typesetStatic } from './tex.js';

const THEMES = ['light', 'dark', 'auto'];
const PROTOCOLS = ['attnlab', 'canvas', 'h5p'];

export function parseFlags(search) {
  const notes = [];
  const list = (name, allowed) => (search.has(name) ? parseList(name, search.get(name), allowed, notes) : null);
  const hide = list('hide', HIDE) ?? [];
  const [theme = 'auto'] = list('theme', THEMES) ?? [];
  const resize = search.get('resize') === 'none' ? [] : (list('resize', PROTOCOLS) ?? PROTOCOLS);
  let origin = '*';
  const rawOrigin = search.get('origin');
  if (rawOrigin !== null) {
    try {
      const o = new URL(rawOrigin).origin;
      if (o === 'null') throw new Error('opaque');
      origin = o;
    } catch { notes.push(`origin: “${rawOrigin.slice(0, 40)}” is not an origin such as https://course.example.org; posting to any parent`); }
  }
  return { hide, theme, resize, origin, notes };
}

const search = new URLSearchParams(location.search);
const flags = parseFlags(search);
const byId = new Map(steps.map((s) => [s.id, s]));
const stepNotes = [...flags.notes];
let step = byId.get(search.get('step'));
if (!step) {
  const asked = search.get('step');
  step = steps.find((s) => document.getElementById(s.id)?.querySelector('figure.live'));
  stepNotes.push(asked === null ? `no step named; showing “${step.id}” (add ?step=<id>)`
    : `step: “${asked.slice(0, 40)}” is not a step of this page; showing “${step.id}”`);
}

if (flags.theme !== 'auto') document.documentElement.dataset.theme = flags.theme;
document.body.dataset.hide = flags.hide.join(' ');

// only the step asked for stays in the document
const section = document.getElementById(step.id);
for (const other of document.querySelectorAll('main > section')) if (other !== section) other.remove();
section.dataset.embedded = '';
document.title = `${section.dataset.title} — attnlab`;
typesetStatic(section);
linkStepsOut(section, location.href);
const link = document.querySelector('.embed-link a');
link.href = `./index.html?step=${step.id}`;

// the flags stay in the URL as the reader changes the parameters
const keep = ['hide', 'theme', 'resize', 'origin'].filter((k) => search.has(k));
const { values, notes } = parseParams(step.params, search);
mountFigure({
  step, fig: section.querySelector('figure.live'), client: connectEngine({ local: loadLocalEngine }), values, notes: [...stepNotes, ...notes],
  onChange: (current) => {
    const s = toSearch(step.id, step.params, current);
    for (const k of keep) s.set(k, search.get(k));
    history.replaceState(null, '', `?${s}`);
  },
});

startAutoHeight({ protocols: flags.resize, targetOrigin: flags.origin });
