// (eq:full-attention) experiments. See chunks.js for the generator contract.

// One draw of Q (n, dk), K (n, dk), V (n, dv) with N(0, 1) entries from three RNG streams of
// `seed`, and the same attention computed twice: unscaled (scale 1) and scaled (1/√dk, the
// engine's default), with or without the causal mask. Everything here is a few hundred floats.
export function* attentionCompare(engine, { n, dk, dv, seed, causal }) {
  const q = engine.sampleEntries({ count: n * dk, seed, stream: 0 });
  const k = engine.sampleEntries({ count: n * dk, seed, stream: 1 });
  const v = engine.sampleEntries({ count: n * dv, seed, stream: 2 });
  const shape = { q, k, v, nq: n, nk: n, dk, dv, causal };
  const run = (scale) => {
    const { output, weights } = engine.attention(scale === undefined ? shape : { ...shape, scale });
    const { max, entropy } = engine.rowStats(weights, n, n);
    // How far output row 1 is from value row 1: exactly 0 under the causal mask, where query 1
    // sees key 1 only.
    let firstRowGap = 0;
    for (let c = 0; c < dv; c++) firstRowGap = Math.max(firstRowGap, Math.abs(output[c] - v[c]));
    return { weights, output, max, entropy, firstRowGap };
  };
  // The raw scores q_i·k_j (scale 1), for the live formula.
  const scores = engine.scores({ q, k, nq: n, nk: n, dk, scale: 1 });
  return { n, dk, dv, seed, causal, v, scores, unscaled: run(1), scaled: run(undefined), rootDk: Math.sqrt(dk) };
}

export const experiments = { attentionCompare };
