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
// Normals one at a time (Rng::normal): the ziggurat method (Marsaglia & Tsang 2000) in Doornik's
// ZIGNOR form (2005): 128 layers, the layer index from the low 7 bits of a draw and the uniform
// from its top 53 bits, so the two are independent. About 98.8% of normals take the fast path:
// one draw, one multiply, one compare. The tables and the rare wedge and tail tests use exp and
// log computed here from IEEE-exact operations (frexp, ldexp, +, ×, ÷, sqrt) rather than the C
// library's, whose last bit may differ between glibc and Emscripten's musl. The engine is built
// with -ffp-contract=off, so no compiler may fuse these operations differently on either target.
// Normals in bulk (the sampling experiments' vectors): NormalStream, below.
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

  // SplitMix64 (Steele, Lea, Flood 2014), the seeding generator Vigna recommends for xoshiro.
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  Rng() = default;
  double normal_outside(int layer, double u);  // the wedge and the tail, then a new draw
  double normal_tail(bool negative);
  std::uint64_t s_[4] = {};
};

// Bulk normals, for the sampling experiments' vectors (q, k, tokens): four xoshiro128** generators
// (Blackman & Vigna, 2018; 32-bit words) in lanes, and the Box–Muller transform in float
//   u₁ = (⌊a/2⌋ + ½)·2⁻³¹ ∈ (0, 1],  u₂ = ⌊b/2⁸⌋·2⁻²⁴ ∈ [0, 1)     (a, b: a lane's next two outputs)
//   z₁ = r·cos 2πu₂,  z₂ = r·sin 2πu₂,  r = √(−2 ln u₁)               (|z| <= √(64 ln 2) ≈ 6.66)
// so a lane gives two independent N(0, 1) floats per two outputs, and a step of the four lanes
// gives a group of eight: z₁, z₂ of lane 0, then of lanes 1, 2 and 3. ln and cos/sin are polynomials
// in + and × only (BoxMuller below: Cephes' logf on [√½, √2), and sin/cos on [−π/4, π/4] after an
// exact reduction of 4u₂ to its nearest quadrant), so the SIMD kernel (normals in kernels.hpp) and
// its scalar twin normals_ref give the same bits, natively and in wasm. With no table and no
// rejection, every lane does the same work (docs/PERFORMANCE-LOG.md: 1.5–2× the ziggurat's rate at
// d_k = 512 in wasm).
//   Stream s of a seed: lane l's four words are SplitMix64 outputs 8s + 2l and 8s + 2l + 1, started
// at seed ^ kDomain, each split low half first (a lane of four zero words, chance 2⁻¹²⁸, gets a 1).
// A call of normals() starts at a group: it draws ⌈n/8⌉ groups and drops the rest of the last, so
// fewer normals from a fresh stream are a prefix of more.
struct NormalStream {
  // lanes: how many lanes to seed (the rest stay zero): 1 for the d_k = 1 pairs (lane 0 alone)
  NormalStream(std::uint64_t seed, std::uint64_t stream, int lanes = 4) : s{} {
    std::uint64_t x = (seed ^ kDomain) + 8 * stream * 0x9E3779B97F4A7C15ull;
    for (int l = 0; l < lanes; ++l) {
      for (int w = 0; w < 4; w += 2) {
        const std::uint64_t z = Rng::splitmix64(x);
        s[w][l] = static_cast<std::uint32_t>(z);
        s[w + 1][l] = static_cast<std::uint32_t>(z >> 32);
      }
      if ((s[0][l] | s[1][l] | s[2][l] | s[3][l]) == 0) s[0][l] = 1;
    }
  }
  static constexpr std::uint64_t kDomain = 0x6E6F726D616C7321ull;  // "normals!": apart from Rng's
  std::uint32_t s[4][4];                                           // s[w][l]: word w of lane l
};

// The transform's constants, shared by the SIMD kernel and its scalar twin.
struct BoxMuller {
  // ln(m·2ᵉ) = e·ln 2 + ln m: m ∈ [½, 1) from the bits, moved to [√½, √2) by m ← 2m, e ← e − 1
  // below √½; f = m − 1, ln(1 + f) = f − f²/2 + f³·P(f) with P of degree 8 (Cephes logf), ln 2 in
  // two parts (0.693359375 is exact in 9 bits).
  static constexpr float sqrt_half = 0.707106781186547524f;
  static constexpr float log_p[9] = {7.0376836292E-2f, -1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f,
                                     1.4249322787E-1f, -1.6668057665E-1f, 2.0000714765E-1f, -2.4999993993E-1f,
                                     3.3333331174E-1f};
  static constexpr float ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f;
  // sin and cos of x = (π/2)·(4u₂ − q) ∈ [−π/4, π/4], q = round(4u₂) by the 1.5·2²³ shifter (whose
  // low mantissa bits are then q: exact, as 4u₂ has 24 bits); the quadrant q mod 4 swaps them and
  // sets their signs. Cephes sinf/cosf polynomials.
  static constexpr float shifter = 12582912.f, half_pi = 1.57079632679489662f;
  static constexpr float sin_p[3] = {-1.6666654611E-1f, 8.3321608736E-3f, -1.9515295891E-4f};
  static constexpr float cos_p[3] = {4.166664568298827E-2f, -1.388731625493765E-3f, 2.443315711809948E-5f};
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
//   student_t  z = t·√((ν−2)/ν) = g·√((ν−2)/χ²_ν), t = g / √(χ²_ν/ν) with g ~ N(0, 1) and
//              χ²_ν independent; integer ν = df in [3, kMaxStudentDf] (the variance is infinite for ν <= 2); heavy
//              tails: the 4th moment is infinite for ν <= 4, so sample variances converge slowly.
//              Drawn in bulk from a NormalStream (kernels.hpp student_t), each entry from one
//              lane: a Box–Muller pair gives g = z₁ (and z₂², a χ²₁, for odd ν), and ⌊ν/2⌋
//              uniforms u give the rest as χ²₂'s, −2 ln u each (the squared radius of a
//              Box–Muller pair): χ²_ν = [ν odd]·z₂² − 2 ln(u₁⋯u_⌊ν/2⌋), one ln per three u's
constexpr int kMaxStudentDf = 100;  // ν's bound: the bulk kernel keeps ⌈⌊ν/2⌋/3⌉ products a lane
struct Distribution {
  Dist kind = Dist::normal;
  double mean = 0;
  double std = 1;
  int df = 5;
};

// The laws drawn one at a time from an Rng (not student_t, drawn in bulk from a NormalStream).
void fill(Vec<float> out, Rng& rng, const Distribution& d);
// z only, as double (mean 0, variance 1), for code that transforms before rounding to float.
double standard_draw_slow(Rng& rng, const Distribution& d);  // not inline
inline double standard_draw(Rng& rng, const Distribution& d) {
  return d.kind == Dist::normal ? rng.normal() : standard_draw_slow(rng, d);
}

}  // namespace attnlab
