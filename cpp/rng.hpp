// A seeded random number generator that gives the same stream natively and in WebAssembly.
//
// Generator: xoshiro256** (Blackman & Vigna, 2018): 256-bit state, period 2^256 − 1, passes
// BigCrush and PractRand. Uses only 64-bit integer operations, which are exact everywhere.
//
// Streams: Rng(seed, stream) fills the state with outputs 4·stream … 4·stream + 3 of SplitMix64
// started at `seed`, so each stream index is an independent, directly addressable generator. The
// sampling experiment gives pair i its own stream: raising `count` keeps the first samples, and a
// run split into chunks gives the same numbers as one call.
//
// Normals: the ziggurat method (Marsaglia & Tsang 2000) in Doornik's ZIGNOR form (2005): 128
// layers, the layer index from the low 7 bits of a draw and the uniform from its top 53 bits, so
// the two are independent. About 98.8% of normals take the fast path: one draw, one multiply,
// one compare. The tables and the rare wedge and tail tests use exp and log computed here from
// IEEE-exact operations (frexp, ldexp, +, ×, ÷, sqrt) rather than the C library's, whose last bit
// may differ between glibc and Emscripten's musl. The engine is built with -ffp-contract=off, so
// no compiler may fuse these operations differently on either target.
#pragma once

#include <cmath>
#include <cstdint>

#include "view.hpp"

namespace attnlab {

class Rng {
 public:
  // stream s: SplitMix64 jumped to its output 4·s (inline: experiments start a stream per sample)
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0) {
    std::uint64_t x = seed + 4 * stream * 0x9E3779B97F4A7C15ull;
    for (auto& w : s_) w = splitmix64(x);
  }
  static Rng from_state(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2, std::uint64_t s3);
  const std::uint64_t* state() const { return s_; }

  std::uint64_t next_u64() {  // inline: the normal sampler's fast path is one of these and a compare
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
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }  // [0, 1), 53 bits
  double normal() {  // N(0, 1), ziggurat: the fast path (about 98% of draws) inline, the rest not
    const std::uint64_t bits = next_u64();
    const int i = static_cast<int>(bits & 0x7F);
    // u in [−1, 1) from the top 53 bits (sign included), independent of the layer bits
    const double u = static_cast<double>(static_cast<std::int64_t>(bits) >> 11) * 0x1.0p-52;
    if (std::abs(u) < kZiggurat.ratio[i]) return u * kZiggurat.x[i];  // inside the layer's rectangle
    return normal_outside(i, u);
  }
  // Gamma(a, 1) for a >= 1 (Marsaglia & Tsang 2000): d = a − 1/3, c = 1/√(9d); x ~ N(0, 1) until
  // v = (1 + c·x)³ > 0, u ~ U(0, 1]; d·v is accepted if u < 1 − 0.0331·x⁴ (the squeeze, ~98%)
  // or ln u < x²/2 + d·(1 − v + ln v), else the draw starts over. About one normal and one
  // uniform a draw, whatever a. Throws Error for a < 1 or NaN (the method needs d >= 2/3).
  double gamma(double a);
  // χ²_k, the law of the sum of k squared N(0, 1): 2·Gamma(k/2) for k >= 2, z² for k = 1.
  double chi_square(std::size_t k) {
    if (k == 0) fail("chi_square", "k = 0: a chi-square needs at least one degree of freedom");
    if (k == 1) { const double z = normal(); return z * z; }
    return 2 * gamma(0.5 * double(k));
  }

  // ZIGNOR tables (Doornik 2005, 128 layers of equal area V under the N(0,1) density's kernel
  // f(x) = exp(−x²/2)): x[0] = V/f(R) is the base strip's virtual width, x[1] = R (the tail's
  // start), x[i+1] solves f(x[i+1]) = f(x[i]) + V/x[i], x[128] = 0; ratio[i] = x[i+1]/x[i] is
  // the fast-path bound and f[i] = f(x[i]) the wedge test's ends. Built at start-up.
  struct Ziggurat {
    Ziggurat();
    double x[129], ratio[128], f[129];
  };
  static const Ziggurat kZiggurat;

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  // SplitMix64 (Steele, Lea, Flood 2014), the seeding generator Vigna recommends for xoshiro.
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  Rng() = default;
  double normal_outside(int layer, double u);  // the wedge and the tail, then a new draw
  double normal_tail(bool negative);
  std::uint64_t s_[4] = {};
};

// ln x for finite x > 0, identical on every IEEE-754 platform; within 3 ulp of the correctly
// rounded value (worst case measured over 2·10^6 points, near x = 1). Determinism, not the last
// ulp, is what the normal sampler needs.
double portable_log(double x);
// e^x for x <= 0 (the sampler's range), identical on every IEEE-754 platform.
double portable_exp(double x);

enum class Dist : int { normal = 0, uniform = 1, rademacher = 2, student_t = 3 };

// Entries with mean `mean` and standard deviation `std`: mean + std·z, with z standardized
// (mean 0, variance 1):
//   normal     z ~ N(0, 1)
//   uniform    z ~ U(−√3, √3)
//   rademacher z = ±1, each with probability 1/2
//   student_t  z = t·√((ν−2)/ν), t = g / √(χ²_ν/ν) with g ~ N(0, 1) and χ²_ν drawn by chi_square;
//              integer ν = df >= 3 (the variance is infinite for ν <= 2); heavy tails: the
//              4th moment is infinite for ν <= 4, so sample variances converge slowly
struct Distribution {
  Dist kind = Dist::normal;
  double mean = 0;
  double std = 1;
  int df = 5;
};

void fill(Vec<float> out, Rng& rng, const Distribution& d);
// z only, as double (mean 0, variance 1), for code that transforms before rounding to float.
double standard_draw_slow(Rng& rng, const Distribution& d);  // any kind, not inline
inline double standard_draw(Rng& rng, const Distribution& d) {
  return d.kind == Dist::normal ? rng.normal() : standard_draw_slow(rng, d);
}

}  // namespace attnlab
