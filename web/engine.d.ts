// Types of attnlab's JavaScript API (web/engine.js). Hand-written: Emscripten 3.1.6 cannot emit them.

export type Distribution = 'normal' | 'uniform' | 'rademacher' | 'student-t';

/** Errors carry a code: BAD_SIZE | SIZE_LIMIT | SHAPE_MISMATCH | BAD_VALUE | OUT_OF_MEMORY. */
export interface EngineError extends Error { code?: string }

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
  /** 95% intervals (normal approximation). */
  meanCI: [number, number]; varianceCI: [number, number];
  /** Histogram of `bins` equal bins over [lo, hi]. */
  counts: Uint32Array; lo: number; hi: number;
}

export interface Engine {
  readonly simd: boolean;
  readonly arch: string;
  /** Row softmax with max subtraction; IEEE for ±inf and NaN (an all −inf row gives NaN). */
  softmax(x: Float32Array, rows: number, cols: number): Float32Array;
  /** exp(x)/Σexp(x) without max subtraction: overflows in float32 for logits above ln(FLT_MAX) ≈ 88.72. */
  softmaxNaive(x: Float32Array, rows: number, cols: number): Float32Array;
  logSoftmax(x: Float32Array, rows: number, cols: number): Float32Array;
  /** dx = p ⊙ (dp − Σ p·dp), row by row. */
  softmaxBackward(p: Float32Array, gradP: Float32Array, rows: number, cols: number): Float32Array;
  attention(o: AttentionOptions): { output: Float32Array; weights: Float32Array };
  attentionBackward(o: AttentionOptions & { gradOutput: Float32Array }):
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
  /** S = scale·Q Kᵀ (nq, nk); scale defaults to 1/√dk. */
  scores(o: { q: Float32Array; k: Float32Array; nq: number; nk: number; dk: number; scale?: number }): Float32Array;
  /** C = A B for a (m, k) and b (k, n), row-major. */
  matmul(a: Float32Array, b: Float32Array, m: number, k: number, n: number): Float32Array;
  /** out_i = a_i · b_i for a, b of shape (rows, cols), row-major. */
  rowDots(a: Float32Array, b: Float32Array, rows: number, cols: number): Float32Array;
  /** J = diag(p) − p pᵀ, (n, n) row-major, for a probability vector p of length n. */
  softmaxJacobian(p: Float32Array): Float32Array;
  /** `count` entries from one RNG stream. */
  sampleEntries(o: SampleOptions & { count: number; stream?: number }): Float32Array;
  describe(x: Float32Array, o: { bins: number; lo: number; hi: number }): Description;
  memoryBytes(): number;
}

/** Loads the engine. simd: 'auto' (default) picks SIMD128 where supported. */
export function createEngine(options?: { simd?: boolean | 'auto'; wasmBinary?: ArrayBuffer | Uint8Array }): Promise<Engine>;
export function simdSupported(): boolean;
