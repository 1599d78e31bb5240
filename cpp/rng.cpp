#include "rng.hpp"

#include <cmath>

namespace attnlab {
namespace {

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// SplitMix64 (Steele, Lea, Flood 2014), the seeding generator Vigna recommends for xoshiro.
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

Rng::Rng(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t x = seed + 4 * stream * 0x9E3779B97F4A7C15ull;  // jump SplitMix64 to output 4·stream
  for (auto& w : s_) w = splitmix64(x);
}

Rng Rng::from_state(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2, std::uint64_t s3) {
  Rng r;
  r.s_[0] = s0; r.s_[1] = s1; r.s_[2] = s2; r.s_[3] = s3;
  return r;
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

namespace {

// ZIGNOR tables (Doornik 2005, 128 layers of equal area V under the N(0,1) density's kernel
// f(x) = exp(−x²/2)): x[0] = V/f(R) is the base strip's virtual width, x[1] = R, x[i+1] solves
// f(x[i+1]) = f(x[i]) + V/x[i], x[128] = 0; ratio[i] = x[i+1]/x[i] is the fast-path bound.
constexpr int kLayers = 128;
constexpr double kR = 3.442619855899;        // start of the tail
constexpr double kV = 9.91256303526217e-3;   // area of each layer

struct Ziggurat {
  double x[kLayers + 1], ratio[kLayers];
  Ziggurat() {
    double f = portable_exp(-0.5 * kR * kR);
    x[0] = kV / f;
    x[1] = kR;
    x[kLayers] = 0;
    for (int i = 2; i < kLayers; ++i) {
      x[i] = std::sqrt(-2 * portable_log(kV / x[i - 1] + f));
      f = portable_exp(-0.5 * x[i] * x[i]);
    }
    for (int i = 0; i < kLayers; ++i) ratio[i] = x[i + 1] / x[i];
  }
};

// Built once at start-up, before main (natively) or at module instantiation (wasm).
const Ziggurat kZiggurat;

}  // namespace

double Rng::normal() {
  const Ziggurat& z = kZiggurat;
  for (;;) {
    const std::uint64_t bits = next_u64();
    const int i = static_cast<int>(bits & 0x7F);
    // u in [−1, 1) from the top 53 bits (sign included), independent of the layer bits
    const double u = static_cast<double>(static_cast<std::int64_t>(bits) >> 11) * 0x1.0p-52;
    if (std::abs(u) < z.ratio[i]) return u * z.x[i];  // inside the layer's rectangle
    if (i == 0) return normal_tail(u < 0);
    // the wedge between the rectangle and the curve: accept under the density
    const double x = u * z.x[i];
    const double f0 = portable_exp(-0.5 * (z.x[i] * z.x[i] - x * x));
    const double f1 = portable_exp(-0.5 * (z.x[i + 1] * z.x[i + 1] - x * x));
    if (f1 + uniform() * (f0 - f1) < 1) return x;
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

// x = k·ln2 + r with |r| <= ln2/2, e^r by its Taylor series to r¹³/13! (truncation < 1e-17),
// then the exact scaling by 2^k.
double portable_exp(double x) {
  if (std::isnan(x)) return x;          // (and never a NaN or a huge k cast to int below)
  if (x < -745.2) return 0;
  if (x > 709.8) return HUGE_VAL;
  constexpr double inv_ln2 = 1.44269504088896338700;
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double k = std::floor(x * inv_ln2 + 0.5);
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  double p = 1;  // 1 + r(1 + r/2(1 + r/3(… (1 + r/13))))
  for (int n = 13; n >= 1; --n) p = 1 + p * r / n;
  return std::ldexp(p, static_cast<int>(k));
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

double standard_draw(Rng& rng, const Distribution& d) {
  switch (d.kind) {
    case Dist::normal: return rng.normal();
    case Dist::uniform: return std::sqrt(3.0) * (2 * rng.uniform() - 1);
    case Dist::rademacher: return (rng.next_u64() >> 63) ? 1.0 : -1.0;
    case Dist::student_t: {
      const double g = rng.normal();
      double chi2 = 0;
      for (int i = 0; i < d.df; ++i) { const double z = rng.normal(); chi2 += z * z; }
      return g / std::sqrt(chi2 / d.df) * std::sqrt((d.df - 2.0) / d.df);
    }
  }
  return 0;
}

void fill(Vec<float> out, Rng& rng, const Distribution& d) {
  for (std::size_t i = 0; i < out.size; ++i) out[i] = static_cast<float>(d.mean + d.std * standard_draw(rng, d));
}

}  // namespace attnlab
