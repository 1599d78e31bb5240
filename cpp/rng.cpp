#include "rng.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace attnlab {
namespace {

double bits_to_double(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

}  // namespace

Rng Rng::from_state(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2, std::uint64_t s3) {
  Rng r;
  r.s_[0] = s0; r.s_[1] = s1; r.s_[2] = s2; r.s_[3] = s3;
  return r;
}

namespace {

constexpr int kLayers = 128;
constexpr double kR = 3.442619855899;        // start of the tail
constexpr double kV = 9.91256303526217e-3;   // area of each layer

}  // namespace

Rng::Ziggurat::Ziggurat() {
  double fi = portable_exp(-0.5 * kR * kR);
  x[0] = kV / fi;
  x[1] = kR;
  x[kLayers] = 0;
  for (int i = 2; i < kLayers; ++i) {
    x[i] = std::sqrt(-2 * portable_log(kV / x[i - 1] + fi));
    fi = portable_exp(-0.5 * x[i] * x[i]);
  }
  for (int i = 0; i < kLayers; ++i) ratio[i] = x[i + 1] / x[i];
  for (int i = 0; i <= kLayers; ++i) f[i] = portable_exp(-0.5 * x[i] * x[i]);
}

// Built once at start-up, before main (natively) or at module instantiation (wasm).
const Rng::Ziggurat Rng::kZiggurat;

// A draw (layer, u) outside its layer's rectangle: the base layer's tail, or the wedge between
// the rectangle and the curve, accepted under the density (f(x[i]) <= f(x) < f(x[i+1]) there);
// a rejected draw starts over with a fresh one.
double Rng::normal_outside(int i, double u) {
  const Ziggurat& z = kZiggurat;
  if (i == 0) return normal_tail(u < 0);
  const double x = u * z.x[i];
  if (z.f[i + 1] + uniform() * (z.f[i] - z.f[i + 1]) < portable_exp(-0.5 * x * x)) return x;
  return normal();
}

double Rng::gamma(double a) {
  if (!(a >= 1)) {
    char text[32];  // 17 digits, which round-trip (std::to_string printed 1e-7 as 0.000000)
    std::snprintf(text, sizeof text, "%.17g", a);
    fail("gamma", std::string("a = ") + text + ": Marsaglia–Tsang needs a >= 1");
  }
  const double d = a - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x, v;
    do {
      x = normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1 - uniform();  // (0, 1]: ln u is finite
    const double x2 = x * x;
    if (u < 1 - 0.0331 * x2 * x2) return d * v;
    if (portable_log(u) < 0.5 * x2 + d * (1 - v + portable_log(v))) return d * v;
  }
}

// Beyond R: Marsaglia's tail method, x = R − ln(U₁)/R accepted when −2 ln U₂ >= (ln(U₁)/R)².
double Rng::normal_tail(bool negative) {
  double x, y;
  do {
    x = portable_log(1 - uniform()) / kR;  // 1 − U in (0, 1]: log is finite
    y = portable_log(1 - uniform());
  } while (-2 * y < x * x);
  return negative ? x - kR : kR - x;
}

// x = k·ln2 + r with |r| <= ln2/2, e^r by its Taylor series to r¹³/13! (truncation < 1e-17) in
// Horner form with the coefficients 1/n! as constants (no division), then the exact scaling by 2^k,
// built from its bits while the result stays normal.
double portable_exp(double x) {
  if (std::isnan(x)) return x;          // (and never a NaN or a huge k cast to int below)
  if (x < -745.2) return 0;
  if (x > 709.8) return HUGE_VAL;
  constexpr double inv_ln2 = 1.44269504088896338700;
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double k = std::floor(x * inv_ln2 + 0.5);
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  constexpr double c[14] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
                            1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800,
                            1.0 / 479001600, 1.0 / 6227020800.0};
  double p = c[13];
  for (int n = 12; n >= 0; --n) p = c[n] + r * p;
  const int e = static_cast<int>(k);
  if (e < -1021 || e > 1023) return std::ldexp(p, e);  // p·2^e may leave the normal range
  return p * bits_to_double(static_cast<std::uint64_t>(e + 1023) << 52);
}

// x = m·2^e with m in [√½, √2); ln m = 2·atanh(t) = 2(t + t³/3 + t⁵/5 + …), t = (m−1)/(m+1),
// |t| <= 0.1716, so t² <= 0.0295 and eleven terms leave a truncation error below 1e-17.
// ln 2 is split in a high part with trailing zero bits (exact e·ln2_hi) and a low part.
double portable_log(double x) {
  int e;
  double m = std::frexp(x, &e);  // exact
  if (m < 0.70710678118654752440) {
    m *= 2;
    e -= 1;
  }
  const double t = (m - 1) / (m + 1), t2 = t * t;
  double poly = 1.0 / 21;
  for (int k = 9; k >= 0; --k) poly = 1.0 / (2 * k + 1) + t2 * poly;
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // 0x3FE62E42FEE00000
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  return e * ln2_hi + (2 * t * poly + e * ln2_lo);
}

double standard_draw_slow(Rng& rng, const Distribution& d) {
  switch (d.kind) {
    case Dist::normal: return rng.normal();
    case Dist::uniform: return std::sqrt(3.0) * (2 * rng.uniform() - 1);
    case Dist::rademacher: return (rng.next_u64() >> 63) ? 1.0 : -1.0;
    case Dist::student_t: break;  // in bulk only (kernels.hpp student_t)
  }
  fail("standard_draw", "Student-t entries are drawn in bulk from a NormalStream");
}

void fill(Vec<float> out, Rng& rng, const Distribution& d) {
  for (std::size_t i = 0; i < out.size; ++i) out[i] = static_cast<float>(d.mean + d.std * standard_draw(rng, d));
}

}  // namespace attnlab
