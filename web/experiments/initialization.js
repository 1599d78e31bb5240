// (eq:initialization) experiments: the variance of q = W_Qᵀx, k = W_Kᵀx' and q·k/√d_k when the
// projections are drawn from a given initialisation. See chunks.js for the generator contract.
import { borrowEntries } from './chunks.js';

// Weight variance σ_W² and entry distribution of each initialisation, for a projection from
// d_model inputs to d_k outputs of one head. Glorot's fan-out depends on how the matrix is stored:
// one head (d_k), every head in one d_model × d_model matrix, or Q, K and V packed into one
// 3·d_model × d_model matrix (PyTorch's nn.MultiheadAttention in_proj_weight).
export const INITS = {
  'glorot-uniform': { distribution: 'uniform', fans: (d, dk) => [d, dk] },
  'glorot-normal': { distribution: 'normal', fans: (d, dk) => [d, dk] },
  'glorot-heads': { distribution: 'uniform', fans: (d) => [d, d] },
  'glorot-packed': { distribution: 'uniform', fans: (d) => [d, 3 * d] },
  'lecun-normal': { distribution: 'normal', variance: (d) => 1 / d },
  'he-normal': { distribution: 'normal', variance: (d) => 2 / d },
  custom: { distribution: 'normal', variance: (d, dk, sigma) => sigma * sigma },
};

// σ_W² of `init`: Glorot 2/(fan_in + fan_out) (uniform U(±a) with a = √(6/(fan_in + fan_out)) has
// this variance, a²/3), LeCun 1/fan_in, He 2/fan_in, custom σ².
export function weightVariance(init, dmodel, dk, sigma) {
  const spec = INITS[init];
  if (!spec) throw new RangeError(`initVariance: unknown init ${JSON.stringify(init)}`);
  if (spec.fans) { const [fin, fout] = spec.fans(dmodel, dk); return 2 / (fin + fout); }
  return spec.variance(dmodel, dk, sigma);
}

// Multiply-adds per chunk of the projections when a run is heavy enough to report progress
// (about 5 ms of wasm SIMD); the default sizes (512 tokens, 512 → 64) run in one go.
const CHUNK_MACS = 1 << 24;
const LIGHT_MACS = 512 * 512 * 64;

// The request for initVariance at the page's values: σ only for the custom initialisation, the
// one that reads it, so that moving σ under another one asks for the same run, which the figure
// then reuses without the engine (web/figure.js).
export const initRequest = ({ init, sigma, dmodel, dk, seed }) =>
  ({ init, ...(init === 'custom' ? { sigma } : {}), dmodel, dk, seed });

// (eq:initialization) `tokens` tokens x_t ∈ R^{d_model} with N(0, 1) entries (RNG stream 0),
// W_Q and W_K (streams 1 and 2, drawn as W_Qᵀ and W_Kᵀ row-major) from `init`; Q = X W_Q, and
// K = X' W_K with x'_t = x_{t+1}, the next token, so q_t and k_t come from different tokens. Returns the summaries of x, q, k and
// q·k/√d_k, the formulas (averages over initialisations) and the values given this draw of the
// weights: Var(q_i | W) averaged over i is ‖W_Q‖²_F/d_k, and Var(q·k | W) = ‖W_Q W_Kᵀ‖²_F
// = tr(W_QᵀW_Q · W_KᵀW_K).
export function* initVariance(engine, { dmodel, dk, init, sigma = 0.02, seed, tokens = 512, bins = 41 }) {
  const varW = weightVariance(init, dmodel, dk, sigma);
  // the tokens depend on the seed and d_model only: a new d_k or initialisation reuses them; they
  // stay in engine memory, where the projections read them in place
  const x = borrowEntries(engine, { count: (tokens + 1) * dmodel, seed, stream: 0 });
  try {
    return yield* varianceOfTokens(engine, x, { dmodel, dk, init, sigma, seed, tokens, bins, varW });
  } finally {
    x.release();
  }
}

// initVariance with its tokens x (borrowEntries) at hand. Every array of the run lives in one
// workspace of engine memory (W_Qᵀ, W_Kᵀ, Q, K, the scores and the Gram matrices): the engine
// writes and reads them in place, and no run touches fresh JavaScript memory for them.
function* varianceOfTokens(engine, x, { dmodel, dk, init, sigma, seed, tokens, bins, varW }) {
  const ws = engine.workspace({ wqT: dmodel * dk, wkT: dmodel * dk, q: tokens * dk, k: tokens * dk, score: tokens, gq: dk * dk, gk: dk * dk });
  try {
    return yield* varianceIn(engine, x, ws, { dmodel, dk, init, sigma, seed, tokens, bins, varW });
  } finally {
    ws.dispose();
  }
}

// (views of ws and x are read again after each engine call: memory growth detaches older ones)
function* varianceIn(engine, x, ws, { dmodel, dk, init, sigma, seed, tokens, bins, varW }) {
  const { distribution } = INITS[init];
  const std = Math.sqrt(varW);
  // W_Qᵀ and W_Kᵀ, (d_k, d_model) row-major: every product below pairs rows with rows
  // (engine.scores, A Bᵀ), so nothing is transposed or copied here
  engine.sampleEntries({ count: dmodel * dk, seed, stream: 1, distribution, std, out: ws.wqT });
  engine.sampleEntries({ count: dmodel * dk, seed, stream: 2, distribution, std, out: ws.wkT });
  const heavy = tokens * dmodel * dk > LIGHT_MACS;
  if (heavy) yield { progress: 0.1 };

  // the projections q_t = W_Qᵀx_t and k_t = W_Kᵀx_{t+1}: Q = X (W_Qᵀ)ᵀ, in blocks of tokens when
  // heavy (a light run is one block)
  const project = (w, into, t, m, from) => engine.scores({
    q: x.view().subarray((t + from) * dmodel, (t + from + m) * dmodel), k: ws[w],
    nq: m, nk: dk, dk: dmodel, scale: 1, out: ws[into].subarray(t * dk, (t + m) * dk),
  });
  const block = heavy ? Math.max(1, Math.floor(CHUNK_MACS / (dmodel * dk))) : tokens;
  for (let t = 0; t < tokens; t += block) {
    const m = Math.min(block, tokens - t);
    project('wqT', 'q', t, m, 0);
    project('wkT', 'k', t, m, 1);
    if (heavy) yield { progress: 0.1 + (0.75 * (t + m)) / tokens };
  }
  const scores = engine.rowDots(ws.q, ws.k, tokens, dk, { out: ws.score });
  const root = Math.sqrt(dk);
  for (let i = 0; i < tokens; i++) scores[i] /= root;

  // given this draw of W: ‖W‖²_F as one long dot product, and the Gram matrices W_QᵀW_Q, W_KᵀW_K
  const normSq = (w) => engine.rowDots(ws[w], ws[w], 1, dmodel * dk)[0];
  const gram = (w, into) => engine.scores({ q: ws[w], k: ws[w], nq: dk, nk: dk, dk: dmodel, scale: 1, out: ws[into] });
  gram('wqT', 'gq');
  gram('wkT', 'gk');
  const trace = engine.rowDots(ws.gq, ws.gk, 1, dk * dk)[0];   // Σ_ij (G_Q)_ij (G_K)_ij = tr(G_Q G_K), both symmetric

  const sigmaQ2 = dmodel * varW;
  const formula = { weight: varW, q: sigmaQ2, k: sigmaQ2, score: sigmaQ2 * sigmaQ2 };
  const given = { q: normSq('wqT') / dk, k: normSq('wkT') / dk, score: trace / dk };
  // the histogram's range: at least ±4 standard deviations of the scores given these weights, and
  // the same for every draw whose given variance is within 1.25× the formula's (most seeds), so a
  // new seed redraws the bars on the same axes
  const spread = 4 * Math.sqrt(Math.max(1.25 * formula.score, given.score, 1e-12));
  return {
    dmodel, dk, init, sigma, seed, tokens, distribution, formula, given,
    x: engine.describe(x.view().subarray(0, tokens * dk)),   // as many entries as q has: a check of the premise
    q: engine.describe(ws.q),
    k: engine.describe(ws.k),
    score: engine.describe(ws.score, { bins, lo: -spread, hi: spread }),
    weights: engine.describe(ws.wqT),
  };
}

export const experiments = { initVariance };
