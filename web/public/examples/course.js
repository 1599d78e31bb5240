// The host side of auto-height, as a course page would write it: size each attnlab iframe to the
// height it reports. Only messages from one of our iframes, in the documented shape, are used.
addEventListener('message', (event) => {
  const d = event.data;
  if (!d || typeof d !== 'object' || d.type !== 'attnlab:resize' || !Number.isFinite(d.height)) return;
  for (const frame of document.querySelectorAll('iframe.attnlab')) {
    if (frame.contentWindow === event.source) frame.style.height = `${Math.min(Math.max(d.height, 100), 20000)}px`;
  }
});
