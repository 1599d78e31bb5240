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

// Polar method: (u, v) uniform in the unit disc, s = u² + v²; then u·f and v·f with
// f = sqrt(−2 ln s / s) are independent N(0, 1). Acceptance rate π/4.
double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  do {
    u = 2 * uniform() - 1;
    v = 2 * uniform() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  const double f = std::sqrt(-2 * portable_log(s) / s);
  spare_ = v * f;
  has_spare_ = true;
  return u * f;
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
