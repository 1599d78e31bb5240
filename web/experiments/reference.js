// Plain JavaScript in double: the references the engine's float32 results are held to (the
// self-test on load, the claims' and scaling-choices' precision checks, temperature's stalls).

// softmax(x) in double, max-subtracted: x any array-like of numbers (float32 logits included).
export function softmaxDouble(x) {
  const m = Math.max(...x);
  const e = Array.from(x, (v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

// The entropy −Σ p_j ln p_j of p = softmax(x), in double (weights that underflow to 0 add nothing).
export function softmaxEntropyDouble(x) {
  return softmaxDouble(x).reduce((h, p) => (p > 0 ? h - p * Math.log(p) : h), 0);
}

// ‖J‖_F of the softmax Jacobian J = diag(p) − ppᵀ at p = softmax(x), in double, entry by entry
// (the closed form Σ pᵢ² − 2 Σ pᵢ³ + (Σ pᵢ²)² cancels to 0 for a nearly one-hot p).
export function softmaxJacobianNormDouble(x) {
  const p = softmaxDouble(x);
  let sum = 0;
  p.forEach((pi, i) => p.forEach((pj, j) => { sum += ((i === j ? pi : 0) - pi * pj) ** 2; }));
  return Math.sqrt(sum);
}
