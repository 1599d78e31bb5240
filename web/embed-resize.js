// Auto-height for an embedded step: tells the host page the content's height whenever it changes,
// in the three shapes hosts listen for, and nothing else (docs/EMBEDDING.md lists them).
//   {type: 'attnlab:resize', height}                    a neutral message
//   '{"subject":"lti.frameResize","height":…}'          Canvas (a JSON string, which Canvas and
//                                                        older LTI listeners both parse)
//   {context: 'h5p', action: 'hello' | 'prepareResize' | 'resize', …}   H5P's resizer protocol
//     (h5p-resizer.js on the host): we say hello, the host answers hello; then per change
//     prepareResize {scrollHeight, clientHeight} → host answers resizePrepared → resize {scrollHeight}.
//     Until the host has answered, each change says hello again (the host's script may load after
//     ours), and the host's own {action: 'ready'} is answered with hello, as H5P content does.
//     A hello back starts the prepareResize rounds. A height already asked for is not asked for
//     again, so the host's answers to the other hellos (one per change before it answered) and the
//     resize observer's report of a height a hello's answer measured first change nothing: each
//     used to ask for room again at the same height. Only the host's
//     own 'resize' (its window changed) asks again at one height. A 'ready' is a new host: its
//     hello is awaited, and every height is new to it.
// Messages go to `targetOrigin` ('*' unless the embed URL names the host's origin: a height is no
// secret). The only messages accepted are the host's H5P answers (ready, hello, resizePrepared,
// resize), from the parent window (and from targetOrigin, when one is named); all else is ignored.
export function startAutoHeight({ target = window.parent, targetOrigin = '*', protocols = ['attnlab', 'canvas', 'h5p'],
  measure = () => Math.ceil(document.documentElement.getBoundingClientRect().height) } = {}) {
  if (!target || target === window) return () => {};
  const on = new Set(protocols);
  let h5pFriendly = false, last = -1, lastAsked = -1;
  const post = (message) => target.postMessage(message, targetOrigin);
  const h5p = (action, data = {}) => post({ context: 'h5p', action, ...data });
  // H5P: ask the host to make room for a height not asked for yet (any, `again`), or, until it has
  // answered, say hello
  const h5pChanged = (again = false) => {
    if (!h5pFriendly) { h5p('hello'); return; }
    const scrollHeight = measure();
    if (scrollHeight === lastAsked && !again) return;
    lastAsked = scrollHeight;
    h5p('prepareResize', { scrollHeight, clientHeight: window.innerHeight });
  };

  const send = () => {
    const height = measure();
    if (height === last) return;
    last = height;
    if (on.has('attnlab')) post({ type: 'attnlab:resize', height });
    if (on.has('canvas')) post(JSON.stringify({ subject: 'lti.frameResize', height }));
    if (on.has('h5p')) h5pChanged();
  };

  const onMessage = (event) => {
    if (!on.has('h5p') || event.source !== target) return;
    if (targetOrigin !== '*' && event.origin !== targetOrigin) return;
    const d = event.data;
    if (d === null || typeof d !== 'object' || d.context !== 'h5p') return;
    if (d.action === 'ready') { h5pFriendly = false; lastAsked = -1; h5p('hello'); }  // the host's resizer loaded late
    else if (d.action === 'hello') { h5pFriendly = true; h5pChanged(); }  // a height asked for already is not asked again
    else if (d.action === 'resize' && h5pFriendly) h5pChanged(true);  // the host's window was resized
    else if (d.action === 'resizePrepared' && h5pFriendly) h5p('resize', { scrollHeight: measure() });
  };
  addEventListener('message', onMessage);

  // every size change; and again once fonts and math have laid out
  const observer = new ResizeObserver(() => send());
  observer.observe(document.documentElement);
  document.fonts?.ready.then(() => send());
  send();
  return () => { observer.disconnect(); removeEventListener('message', onMessage); };
}
