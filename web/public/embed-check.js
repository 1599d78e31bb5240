// The embed page's one classic script (embed.html, deferred). It needs no CORS, so it runs where
// the page's modules may not, and says why the step shows no figure rather than leave a reader
// the whole derivation's prose, unstyled. In an iframe with sandbox="allow-scripts" but not
// allow-same-origin the page's origin is opaque ('null'), and its module scripts and style sheets
// load only if their server sends Access-Control-Allow-Origin (docs/EMBEDDING.md §5). embed.js
// marks its step's section data-embedded as it starts; at the load event, after every module has
// run or failed, no such section means embed.js never ran.
addEventListener('load', function () {
  if (document.querySelector('section[data-embedded]')) return;
  var p = document.createElement('p');
  p.setAttribute('role', 'alert');
  p.className = 'load-failed';
  p.textContent = self.origin === 'null'
    ? 'This step could not load its scripts and styles. It is in a sandboxed iframe (sandbox without ' +
      'allow-same-origin), where they load only if their server sends Access-Control-Allow-Origin. ' +
      'Send that header, add allow-same-origin to the sandbox, or embed attnlab-offline.html instead.'
    : 'This step could not load its scripts, so its figure cannot compute. Check that the server ' +
      'sends the files under assets/, the .js ones as text/javascript.';
  // styled through the CSSOM, which a Content-Security-Policy allows: the style sheets may be missing too
  var s = p.style;
  s.margin = '1rem'; s.padding = '0.75rem 1rem'; s.border = '2px solid #b3261e'; s.borderRadius = '6px';
  s.background = '#fff'; s.color = '#8c1d18'; s.font = '16px/1.45 system-ui, sans-serif';
  document.body.prepend(p);
});
