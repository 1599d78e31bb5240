// Landing on a step: a link (?step=…), the step list, the previous/next links and back/forward
// all bring the step's section to the top of the window, and keep it there while the page above
// it settles.
//
// Why a hold: each section far from the window is a 2,400 px stand-in until it is first laid out
// (content-visibility: auto), and a figure grows its section when it draws. The browser's scroll
// anchoring did not follow every such change: ?step=vanishing-gradients ended 1,633 px below its
// section's top when softmax-saturation's figure drew, and a click in the step list on a step
// 10,000 px away ended ~2,200 px short after a smooth scroll.
//
// The hold: for up to 300 frames, a frame in which the step has moved in the page scrolls it back
// into place. A smooth scroll (to a neighbouring step) glides until the step reaches the top of
// the window, aimed again at each move and finished instantly if it stops short; then the hold
// goes on as for a jump. The reader's first wheel, touch, key or click, or a scroll from
// elsewhere (the step moved in the window but not in the page), ends it. One hold at a time: a
// new landing ends the last one.

const INPUTS = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
const FRAMES = 300;
let releaseLast = () => {};

// Brings `section` to the top of the window; `smooth` glides there (unless the reader asked for
// reduced motion).
export function land(section, { smooth = false } = {}) {
  releaseLast();
  const glide = smooth && !matchMedia('(prefers-reduced-motion: reduce)').matches;
  section.scrollIntoView({ behavior: glide ? 'smooth' : 'auto' });
  releaseLast = holdInView(section, glide);
}

// Returns the hold's release.
function holdInView(section, gliding) {
  const inPage = () => section.getBoundingClientRect().top + scrollY;
  // where the window can bring it: its top, or as far as the page's end allows
  const target = (y) => Math.min(y, document.documentElement.scrollHeight - innerHeight);
  let last = inPage(), lastScroll = scrollY, still = 0, frames = 0, held = true;
  const release = () => {
    held = false;
    for (const e of INPUTS) removeEventListener(e, release, { capture: true });
  };
  for (const e of INPUTS) addEventListener(e, release, { capture: true, passive: true });
  const check = () => {
    if (!held) return;
    const y = inPage(), arrived = Math.abs(target(y) - scrollY) <= 1;
    still = scrollY === lastScroll ? still + 1 : 0;
    lastScroll = scrollY;
    if (Math.abs(y - last) > 1) {
      last = y;
      section.scrollIntoView({ behavior: gliding ? 'smooth' : 'auto' });
    } else if (gliding) {
      // arrived, or stopped short (the page's end, an interrupted glide): hold from here
      if (!arrived && still >= 10) section.scrollIntoView();
      if (arrived || still >= 10) gliding = false;
    } else if (!arrived) return release();
    if (++frames < FRAMES) requestAnimationFrame(check);
    else release();
  };
  requestAnimationFrame(check);
  return release;
}
