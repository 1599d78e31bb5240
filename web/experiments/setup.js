// (eq:setup) experiments. See chunks.js for the generator contract.

// (eq:setup) A tiny worked example: Q (nq, d_k) and K (nk, d_k) with i.i.d. entries of mean 0 and
// variance 1 (Q from RNG stream 0, K from stream 1), and the unscaled score matrix S = QKᵀ.
export function* setupScores(engine, { dk, seed, nq = 3, nk = 4, distribution = 'normal' }) {
  const q = engine.sampleEntries({ count: nq * dk, seed, stream: 0, distribution });
  const k = engine.sampleEntries({ count: nk * dk, seed, stream: 1, distribution });
  const s = engine.scores({ q, k, nq, nk, dk, scale: 1 });
  return { dk, seed, nq, nk, q, k, s };
}

export const experiments = { setupScores };
