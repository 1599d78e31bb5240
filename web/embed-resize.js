// Auto-height for an embedded step: tells the host page the content's height whenever it changes,
// in the three shapes hosts listen for, and nothing else.
//   {type: 'attnlab:resize', height}                    a neutral message (docs/EMBEDDING.md)
//   '{"subject":"lti.frameResize","height":…}'          Canvas (a JSON string, which Canvas and
//                                                        older LTI listeners both parse)
//   {context: 'h5p', action: 'hello' | 'prepareResize' | 'resize', …}   H5P's resizer protocol:
//     hello → host answers hello; then per change prepareResize {scrollHeight, clientHeight} →
//     host answers resizePrepared → resize {scrollHeight}
// Messages are sent to `targetOrigin` ('*' unless the embed URL names the host's origin: a height
// is no secret). The only messages accepted are the host's two H5P answers, from the parent window
// (and from targetOrigin, when one is named); anything else is ignored.
export function startAutoHeight({ target = window.parent, targetOrigin = '*', protocols = ['attnlab', 'canvas', 'h5p'],
  measure = () => Math.ceil(document.documentElement.getBoundingClientRect().height) } = {}) {
  if (!target || target === window) return () => {};
  const on = new Set(protocols);
  let h5pReady = false, last = -1;
  const post = (message) => target.postMessage(message, targetOrigin);

  const send = (force = false) => {
    const height = measure();
    if (!force && height === last) return;
    last = height;
    if (on.has('attnlab')) post({ type: 'attnlab:resize', height });
    if (on.has('canvas')) post(JSON.stringify({ subject: 'lti.frameResize', height }));
    if (on.has('h5p') && h5pReady) post({ context: 'h5p', action: 'prepareResize', scrollHeight: height, clientHeight: window.innerHeight });
  };

  const onMessage = (event) => {
    if (event.source !== target) return;
    if (targetOrigin !== '*' && event.origin !== targetOrigin) return;
    const d = event.data;
    if (!on.has('h5p') || d === null || typeof d !== 'object' || d.context !== 'h5p') return;
    if (d.action === 'hello') { h5pReady = true; send(true); }
    else if (d.action === 'resizePrepared') post({ context: 'h5p', action: 'resize', scrollHeight: last });
  };
  addEventListener('message', onMessage);
  if (on.has('h5p')) post({ context: 'h5p', action: 'hello' });

  // every size change; and again once fonts and math have laid out
  const observer = new ResizeObserver(() => send());
  observer.observe(document.documentElement);
  document.fonts?.ready.then(() => send());
  send();
  return () => { observer.disconnect(); removeEventListener('message', onMessage); };
}
