// (eq:setup) experiments. See chunks.js for the generator contract.

// (eq:setup) A tiny worked example: Q (nq, d_k) and K (nk, d_k) with i.i.d. entries of mean 0 and
// variance 1, and the unscaled score matrix S = QKᵀ. Each row has an RNG stream of its own (query
// i stream i, key j stream nq + j), and a stream's first d values are the same whatever count is
// drawn: so a larger d_k appends entries to every vector and keeps those shown, and the reader
// watches the score gain terms rather than every entry change.
export function* setupScores(engine, { dk, seed, nq = 3, nk = 4, distribution = 'normal' }) {
  const rows = (n, first) => {  // (the engine checks d_k, as count, before anything is allocated)
    const each = Array.from({ length: n }, (_, i) => engine.sampleEntries({ count: dk, seed, stream: first + i, distribution }));
    const out = new Float32Array(n * dk);
    each.forEach((row, i) => out.set(row, i * dk));
    return out;
  };
  const q = rows(nq, 0), k = rows(nk, nq);
  const s = engine.scores({ q, k, nq, nk, dk, scale: 1 });
  return { dk, seed, nq, nk, q, k, s };
}

export const experiments = { setupScores };
