// Types of attnlab's JavaScript API (web/engine.js). Hand-written: Emscripten 3.1.6 cannot emit them.

export type Distribution = 'normal' | 'uniform' | 'rademacher' | 'student-t';

/** Errors carry a code: BAD_SIZE | SIZE_LIMIT | SHAPE_MISMATCH | BAD_VALUE | OUT_OF_MEMORY
 *  (| DISPOSED: a disposed trainer or workspace; DETACHED: a workspace view the memory's growth detached). */
export interface EngineError extends Error { code?: string }

/**
 * Float32Arrays of the engine's own memory, one per name given to engine.workspace, zeroed at first.
 * Every method reads a workspace array (or a subarray of one) in place as an input, with no copy;
 * the softmax family and attention(Backward) write one given as `out` in place, with no copy (when
 * it overlaps an input of the same call, the result is copied into it instead).
 *
 * Caveat: when the engine's memory grows (any call may grow it, including a workspace() call),
 * every view of it is detached: its length becomes 0. Read the arrays from the workspace again
 * after each engine call (`ws.q` returns a live view, the same object until the next growth),
 * or use the arrays a call returns, which are live views of the same memory. Passing a detached
 * view throws code DETACHED; a view of a disposed workspace throws code DISPOSED.
 */
export type Workspace<K extends string> = { readonly [P in K]: Float32Array } & {
  /** Frees the memory (a second call does nothing); reading an array afterwards throws code DISPOSED. */
  dispose(): void;
  readonly disposed: boolean;
};

/** The row-wise methods' options: `out`, a Float32Array of rows*cols filled with the result and returned. */
export interface RowsOutput { out?: Float32Array }

export interface AttentionOptions {
  /** (nq, dk) row-major */ q: Float32Array;
  /** (nk, dk) row-major */ k: Float32Array;
  /** (nk, dv) row-major */ v: Float32Array;
  nq: number; nk: number; dk: number; dv: number;
  /** Multiplier applied to q·k. Default 1/√dk. */
  scale?: number;
  /** Query i attends key j only if j <= i. Default false. */
  causal?: boolean;
  /** (nq, nk), nonzero = attend. A row with nothing to attend gives a zero output row. */
  mask?: Uint8Array;
  /** (nq, nk), added to the scaled scores before the mask and softmax (ONNX/PyTorch float masks). */
  bias?: Float32Array;
}

export interface SampleOptions {
  /** Integer in [0, 2^53). */
  seed: number;
  /** Entry distribution, default 'normal'. */
  distribution?: Distribution;
  /** Entry mean, default 0. */
  mean?: number;
  /** Entry standard deviation, default 1. */
  std?: number;
  /** Degrees of freedom of 'student-t' (integer 3…100, default 5); entries are scaled to variance std². */
  df?: number;
}

export interface Description {
  n: number; mean: number; variance: number; varianceSE: number;
  /** 95% intervals (normal approximation); NaN where the sample is too small to give one: the mean's
   *  below 2 values, the variance's (and varianceSE) below 4. The variance's ends at 0 or above. */
  meanCI: [number, number]; varianceCI: [number, number];
  /** The tails: E[x⁴] (the mean of x⁴) and the kurtosis m₄/m₂², with 95% intervals from the sample's
   *  8th moment (delta method for the kurtosis, the estimated mean's effect included); NaN for a
   *  constant sample's kurtosis. The intervals' lower ends are at least 0 (E[x⁴]) and 1 (kurtosis). */
  fourth: number; fourthCI: [number, number];
  kurtosis: number; kurtosisCI: [number, number]; kurtosisSE: number;
}

export interface Histogram {
  /** Counts of `bins` equal bins over [lo, hi] (x = hi in the last); values outside are left out. */
  counts: Uint32Array; lo: number; hi: number;
}

/** The four scalings trained side by side: α = 1/√dk, 1, 1/dk, and a learned 1/τ (τ starts at √dk). */
export type TrainVariant = 'invSqrtDk' | 'none' | 'invDk' | 'learned';

/** createTrainer's options (defaults in TRAIN_DEFAULTS). The task is key–value retrieval: seqLen tokens
 *  [key ~ N(0, I_dx) ; onehot(class)], a query [key_t + queryNoise·N(0, I) ; 0], the label class_t. */
export interface TrainOptions {
  /** Query/key width (integer >= 1), default 64. */ dk?: number;
  /** Value width, default 16. */ dv?: number;
  /** Key part of a token, default 16. */ dx?: number;
  /** Number of classes (>= 2), default 8. */ classes?: number;
  /** Tokens per example, default 8. */ seqLen?: number;
  /** Examples per step, default 16. */ batch?: number;
  /** 'sgd' (with momentum) or 'adam' (default). */ optimizer?: 'sgd' | 'adam';
  /** Learning rate (> 0), default 1e-2. */ lr?: number;
  /** SGD momentum in [0, 1), default 0.9. */ momentum?: number;
  /** Adam's β1, β2 in [0, 1) and ε > 0: 0.9, 0.999, 1e-8. */ beta1?: number; beta2?: number; eps?: number;
  /** Initialisation of every weight matrix (fan_in, fan_out), default 'xavier-uniform'; 'custom' is N(0, sigma²). */
  init?: 'xavier-uniform' | 'xavier-normal' | 'lecun' | 'custom';
  /** σ of init 'custom' (> 0), default 0.02. */ sigma?: number;
  /** Std of the noise added to the query's key (>= 0), default 0. */ queryNoise?: number;
  /** Integer in [0, 2^53), default 1: the initial weights and the batch stream. */ seed?: number;
  /** Ignored by the trainer: the page's default run length. */ steps?: number;
}

/** One variant's curves, one entry per step, recorded on the step's batch before its update. */
export interface TrainCurve {
  /** Mean cross-entropy. */ loss: Float32Array;
  /** Fraction of the batch whose argmax is the label. */ accuracy: Float32Array;
  /** Mean attention entropy −Σ p ln p (ln seqLen when uniform, 0 when one-hot). */ entropy: Float32Array;
  /** Mean over the batch of ‖∂ℓ/∂s‖ at the attention logits s = α·q·k. */ gradNorm: Float32Array;
  /** The scale α in force. */ scale: Float32Array;
}

/** Curves from step `from` up to `step` (exclusive), for every variant. */
export interface TrainProgress { step: number; from: number; variants: Record<TrainVariant, TrainCurve> }

export interface Trainer {
  readonly config: Readonly<Required<TrainOptions>>;
  readonly variants: readonly TrainVariant[];
  readonly steps: number;
  readonly disposed: boolean;
  /** Runs every variant n (default 1) more steps; returns the n new points. Same seed, same curves,
   *  in one call or in chunks, natively and in wasm (SIMD or scalar), bit for bit. */
  step(n?: number): TrainProgress;
  /** Every curve from step `from` (default 0). */
  curves(from?: number): TrainProgress;
  /** Back to the initial weights and the start of the batch stream. */
  reset(): void;
  /** Frees the engine's copy (at most 64 trainers live at once). Further calls throw code DISPOSED. */
  dispose(): void;
}

export interface Engine {
  readonly simd: boolean;
  readonly arch: string;
  /** Row softmax with max subtraction. Logits must be finite or −Infinity (masked); an all −Infinity row gives NaN.
   *  With `out`, the result goes there and `out` is returned (a workspace view: a live view of the same memory). */
  softmax(x: Float32Array, rows: number, cols: number, o?: RowsOutput): Float32Array;
  /** exp(x)/Σexp(x) without max subtraction: overflows in float32 for logits above ln(FLT_MAX) ≈ 88.72. */
  softmaxNaive(x: Float32Array, rows: number, cols: number, o?: RowsOutput): Float32Array;
  logSoftmax(x: Float32Array, rows: number, cols: number, o?: RowsOutput): Float32Array;
  /** dx = p ⊙ (dp − Σ p·dp), row by row. */
  softmaxBackward(p: Float32Array, gradP: Float32Array, rows: number, cols: number, o?: RowsOutput): Float32Array;
  /** `out` names arrays to fill (each optional, of the result's length); the others come back fresh.
   *  `weights: false` returns O alone: the n² weights are not copied out (nor may `out.weights` be given). */
  attention(o: AttentionOptions & { weights?: true; out?: { output?: Float32Array; weights?: Float32Array } }):
    { output: Float32Array; weights: Float32Array };
  attention(o: AttentionOptions & { weights: false; out?: { output?: Float32Array } }): { output: Float32Array };
  attentionBackward(o: AttentionOptions & { gradOutput: Float32Array;
    out?: { gradQ?: Float32Array; gradK?: Float32Array; gradV?: Float32Array } }):
    { gradQ: Float32Array; gradK: Float32Array; gradV: Float32Array };
  rowStats(p: Float32Array, rows: number, cols: number): { max: Float32Array; entropy: Float32Array };
  /** q·k for `count` independent pairs in R^dk; pair i uses RNG stream first + i.
   *  rho: correlation of q_i and k_i (default 0); layernorm: normalise q and k to mean 0, variance 1 (dk >= 2). */
  sampleDotProducts(o: SampleOptions & { dk: number; count: number; first?: number; rho?: number; layernorm?: boolean }): Float32Array;
  /** Per-row statistics of softmax(scale·K q) for `rows` random queries against n random N(0,1) keys each
   *  (scale defaults to 1/√dk); row r uses RNG stream first + r. */
  sampleSoftmaxRows(o: { dk: number; n: number; rows: number; seed: number; scale?: number; first?: number }): {
    maxWeight: Float32Array; entropy: Float32Array; jacobianNorm: Float32Array; nonmaxGrad: Float32Array; scoreVariance: Float32Array;
  };
  /** The same statistics of softmax(scale·scores) for given scores (rows, n), row-major (scale defaults to 1):
   *  sampleSoftmaxRows(o) equals scoreStats(sampleScores({ ...o, scale: 1 }), o.rows, o.n, o.scale), bit for bit. */
  scoreStats(scores: Float32Array, rows: number, n: number, scale?: number): {
    maxWeight: Float32Array; entropy: Float32Array; jacobianNorm: Float32Array; nonmaxGrad: Float32Array; scoreVariance: Float32Array;
  };
  /** Scores (rows, n), row-major: row r is scale·K q for one random query against n random N(0,1) keys, drawn as
   *  ‖q‖·z with ‖q‖² ~ χ²_dk (the same distribution: given q the scores are i.i.d. N(0, ‖q‖²)) from RNG stream first + r; the rows
   *  behind sampleSoftmaxRows. scale defaults to 1/√dk. */
  sampleScores(o: { dk: number; n: number; rows: number; seed: number; scale?: number; first?: number }): Float32Array;
  /** S = scale·Q Kᵀ (nq, nk); scale defaults to 1/√dk; with `out` (nq*nk floats), S goes there and `out` is returned. */
  scores(o: { q: Float32Array; k: Float32Array; nq: number; nk: number; dk: number; scale?: number; out?: Float32Array }): Float32Array;
  /** C = A B for a (m, k) and b (k, n), row-major; with `out` (m*n floats), C goes there and `out` is returned. */
  matmul(a: Float32Array, b: Float32Array, m: number, k: number, n: number, o?: { out?: Float32Array }): Float32Array;
  /** d_i = a_i · b_i for a, b of shape (rows, cols), row-major; with `out` (rows floats), d goes there and `out` is returned. */
  rowDots(a: Float32Array, b: Float32Array, rows: number, cols: number, o?: { out?: Float32Array }): Float32Array;
  /** J = diag(p) − p pᵀ, (n, n) row-major, for a probability vector p of length n. */
  softmaxJacobian(p: Float32Array): Float32Array;
  /** `count` entries from one RNG stream. */
  /** With `out` (count floats), the entries go there and `out` is returned (a workspace view: written in place). */
  sampleEntries(o: SampleOptions & { count: number; stream?: number; out?: Float32Array }): Float32Array;
  /** Per row of x (rows, cols), row-major: its mean with the mean's 95% interval (as describe gives them) and its
   *  median (the middle value, or the mean of the middle two), each a Float64Array of `rows` values. */
  rowSummaries(x: Float32Array, rows: number, cols: number): { mean: Float64Array; meanLo: Float64Array; meanHi: Float64Array; median: Float64Array };
  /** The moments of x with their intervals, and with a range, a histogram too (which costs about as much as the
   *  moments: leave it out when only they are wanted). bins, lo and hi come together or not at all. */
  describe(x: Float32Array): Description;
  describe(x: Float32Array, o: { bins: number; lo: number; hi: number }): Description & Histogram;
  /** Four variants of one attention layer trained side by side (scaling ablation). */
  createTrainer(o?: TrainOptions): Trainer;
  readonly trainDefaults: Readonly<Required<TrainOptions>>;
  memoryBytes(): number;
  /** Engine-owned arrays by name and length (each 1 … 2^24 floats), read and written in place: see Workspace.
   *  e.g. `const ws = engine.workspace({ q: n*d, k: n*d, v: n*d, output: n*d, weights: n*n })`. */
  workspace<K extends string>(sizes: Record<K, number>): Workspace<K>;
}

/** Loads the engine. simd: 'auto' (default) picks SIMD128 where supported. */
export function createEngine(options?: { simd?: boolean | 'auto'; wasmBinary?: ArrayBuffer | Uint8Array }): Promise<Engine>;
export function simdSupported(): boolean;
export const TRAIN_DEFAULTS: Readonly<Required<TrainOptions>>;
export const TRAIN_VARIANTS: readonly TrainVariant[];
