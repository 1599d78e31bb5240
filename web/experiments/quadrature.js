// Numerical integration for the theory the experiments are checked against.

// Simpson's rule for f on [a, b] with m (even) intervals.
export function simpson(f, a, b, m) {
  const h = (b - a) / m;
  let s = f(a) + f(b);
  for (let i = 1; i < m; i++) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}
