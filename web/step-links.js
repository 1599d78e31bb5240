// Links from one step to another in a step's prose are written as the page's own (href="?step=<id>").
// In a step set alone (the embed page's iframe, an <attnlab-step> in a course page) they would
// navigate the course page, or the iframe without its flags: there they open the step in the whole
// derivation, in a new tab, as the embed's own link to it does.
export function linkStepsOut(root, base) {
  for (const a of root.querySelectorAll('a[href^="?step="]')) {
    a.href = new URL(`index.html${a.getAttribute('href')}`, base).href;
    a.target = '_blank';
    a.rel = 'noopener';
    a.title = 'Opens the whole derivation at this step, in a new tab';
  }
}
