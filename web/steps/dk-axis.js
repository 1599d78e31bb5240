// The d_k axis that every sweep over d_k shares (dot-variance and the softmax steps): the powers
// of two swept, the ticks labelled, and the marker of the d_k the controls have selected.
export const DK_POW2 = Array.from({ length: 13 }, (_, i) => 2 ** i);
export const DK_TICKS = [1, 4, 16, 64, 256, 1024, 4096];
export const marker = (x, label = `dₖ = ${x}`) => ({ x, label });
