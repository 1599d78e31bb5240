// The generators: published known answers, the normals' law (the ziggurat's and the bulk
// Box–Muller normals'), and the portable log and exp.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "sampling.hpp"
#include "stats.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("xoshiro256** reproduces the reference implementation's outputs", "[rng]") {
  // Known answers of Blackman & Vigna's xoshiro256starstar.c from the state {1, 2, 3, 4}.
  Rng r = Rng::from_state(1, 2, 3, 4);
  CHECK(r.next_u64() == 11520u);
  CHECK(r.next_u64() == 0u);
  CHECK(r.next_u64() == 1509978240u);
  CHECK(r.next_u64() == 1215971899390074240u);
}

TEST_CASE("stream s is seeded with SplitMix64 outputs 4s … 4s+3", "[rng]") {
  // Known answers of Vigna's splitmix64.c seeded with 1234567.
  const Rng s0(1234567, 0), s1(1234567, 1);
  CHECK(s0.state()[0] == 6457827717110365317u);
  CHECK(s0.state()[1] == 3203168211198807973u);
  CHECK(s0.state()[2] == 9817491932198370423u);
  CHECK(s0.state()[3] == 4593380528125082431u);
  CHECK(s1.state()[0] == 16408922859458223821u);
}

TEST_CASE("the same seed and stream give the same stream, and another stream differs", "[rng]") {
  Rng a(42, 7), b(42, 7), c(42, 8), d(43, 7);
  int same_c = 0, same_d = 0;
  for (int i = 0; i < 1000; ++i) {
    const double x = a.normal();
    REQUIRE(x == b.normal());
    same_c += x == c.normal();
    same_d += x == d.normal();
  }
  CHECK(same_c == 0);
  CHECK(same_d == 0);
}

TEST_CASE("portable_log agrees with the C library's log to within 4 ulp", "[rng]") {
  Rng r(3);
  for (int i = 0; i < 100000; ++i) {
    // log-uniform over [2^-60, 2^60], plus the polar method's range (0, 1)
    const double x = i % 2 ? std::ldexp(1.0 + r.uniform(), int(r.next_u64() % 121) - 60) : r.uniform() + 1e-300;
    const double want = std::log(x), got = portable_log(x);
    const double ulp = std::abs(std::nextafter(want, 2 * want + 1) - want);
    INFO("x = " << x);
    REQUIRE(std::abs(got - want) <= 4 * ulp);
  }
  CHECK(portable_log(1.0) == 0.0);
}

TEST_CASE("entries have the requested mean and standard deviation", "[rng][eq:product-variance]") {
  const Dist kind = GENERATE(Dist::normal, Dist::uniform, Dist::rademacher);
  const Distribution d{kind, 0.5, 2.0};
  const std::size_t n = 200000;
  std::vector<float> x(n);
  Rng r(11);
  fill(Vec<float>{x.data(), n}, r, d);
  const Summary s = summarize(moments_of(Vec<const float>{x.data(), n}));
  // mean: SE = σ/√n; variance: SE from the sample's own 4th moment; assert within 5 SE
  CHECK(std::abs(s.mean - d.mean) < 5 * d.std / std::sqrt(double(n)));
  CHECK(std::abs(s.variance - d.std * d.std) < 5 * s.variance_se);
  if (kind == Dist::rademacher)
    for (float v : x) REQUIRE((v == 2.5f || v == -1.5f));
  if (kind == Dist::uniform)
    for (float v : x) REQUIRE(std::abs(v - 0.5) <= std::sqrt(3.0) * 2 + 1e-6);
}

TEST_CASE("portable_exp agrees with the C library's exp to within 4 ulp on the sampler's range", "[rng]") {
  Rng r(4);
  for (int i = 0; i < 100000; ++i) {
    const double x = -40 * r.uniform();
    const double want = std::exp(x), got = portable_exp(x);
    INFO("x = " << x);
    REQUIRE(std::abs(got - want) <= 4 * std::abs(std::nextafter(want, 1.0) - want));
  }
  CHECK(portable_exp(0.0) == 1.0);
}

namespace {

// The edges of `bins` equiprobable bins of N(0, 1): the quantiles Φ⁻¹(b/bins), b = 1 … bins − 1,
// found by bisection on Φ(x) = erfc(−x/√2)/2.
std::vector<double> normal_bin_edges(int bins) {
  std::vector<double> edges(bins - 1);
  for (int b = 1; b < bins; ++b) {
    double lo = -10, hi = 10;
    for (int it = 0; it < 100; ++it) {
      const double mid = (lo + hi) / 2;
      (0.5 * std::erfc(-mid / std::sqrt(2.0)) < double(b) / bins ? lo : hi) = mid;
    }
    edges[b - 1] = lo;
  }
  return edges;
}

}  // namespace

TEST_CASE("the ziggurat's normals follow N(0,1): chi-square over 64 equiprobable bins", "[rng]") {
  const int bins = 64;
  const std::vector<double> edges = normal_bin_edges(bins);
  const std::size_t n = 640000;
  std::vector<double> counts(bins, 0);
  Rng rng(2718);
  std::size_t tail = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double z = rng.normal();
    counts[std::upper_bound(edges.begin(), edges.end(), z) - edges.begin()] += 1;
    tail += std::abs(z) > 3.442619855899;  // beyond the ziggurat's base: the tail path
  }
  double chi2 = 0;
  for (double c : counts) chi2 += (c - double(n) / bins) * (c - double(n) / bins) / (double(n) / bins);
  // 63 degrees of freedom: the 99.9% point is 103.4 (a fixed seed makes this deterministic)
  CHECK(chi2 < 103.4);
  // P(|Z| > 3.4426) = 5.76e-4: the tail is sampled at its rate (Poisson SD √369 ≈ 19)
  CHECK(std::abs(double(tail) - 5.76e-4 * n) < 5 * std::sqrt(5.76e-4 * n));
}

TEST_CASE("chi_square(k) draws the law of a sum of k squared normals: mean k, variance 2k, third central moment 8k",
          "[rng][eq:softmax-saturation]") {
  // (the squared norm of a query with k N(0, 1) entries; Marsaglia–Tsang's gamma for k >= 2)
  for (const std::size_t k : {1, 2, 3, 7, 64, 4096}) {
    const std::size_t n = 200000;
    Rng rng(1234, k);
    std::vector<double> x(n);
    for (double& v : x) v = rng.chi_square(k);
    double mean = 0;
    for (double v : x) mean += v;
    mean /= n;
    double m2 = 0, m3 = 0;
    for (double v : x) { const double d = v - mean; m2 += d * d; m3 += d * d * d; }
    m2 /= n - 1;
    m3 /= n;
    const double K = double(k);
    // SEs: Var(x̄) = 2k/n; Var(s²) ≈ (μ4 − σ⁴)/n with μ4 = 12k² + 48k; Var(m3) ≈ (μ6 − μ3²)/n, μ6 ≈ 120k³ + …
    const double se_mean = std::sqrt(2 * K / n), se_var = std::sqrt((12 * K * K + 48 * K - 4 * K * K) / n);
    const double se_m3 = std::sqrt((120 * K * K * K + 2400 * K * K + 6000 * K) / n);
    INFO("k = " << k << ": mean " << mean << ", variance " << m2 << ", m3 " << m3);
    CHECK(std::abs(mean - K) < 5 * se_mean);
    CHECK(std::abs(m2 - 2 * K) < 5 * se_var);
    CHECK(std::abs(m3 - 8 * K) < 5 * se_m3);
    for (double v : x) REQUIRE(v >= 0);
  }
}

TEST_CASE("gamma(a) outside a >= 1 and chi_square(0) are refused with an error, not a NaN or a hang",
          "[rng][eq:softmax-saturation]") {
  // (the message read in a catch of our own: Catch2's CHECK_THROWS_WITH translates the exception
  // through std::rethrow_exception, which escapes under Emscripten 3.1.6's wasm exceptions)
  const auto error_of = [](auto&& f) -> std::string {
    try { f(); } catch (const Error& e) { return e.what(); }
    return "(no error)";
  };
  Rng rng(7, 0);
  CHECK_THAT(error_of([&] { rng.gamma(0.5); }), Catch::Contains("a >= 1"));
  CHECK_THAT(error_of([&] { rng.gamma(1e-7); }), Catch::Contains("a = 9.9999999999999995e-08:"));
  CHECK_THAT(error_of([&] { rng.gamma(std::nan("")); }), Catch::Contains("a >= 1"));
  CHECK_THAT(error_of([&] { rng.gamma(-1); }), Catch::Contains("a >= 1"));
  CHECK_THAT(error_of([&] { rng.chi_square(0); }), Catch::Contains("k = 0"));
  CHECK(rng.gamma(1) >= 0);  // the edge is in the method's range (d = 2/3)
}

// ---------------------------------------------------------------- bulk normals (NormalStream)

namespace {

// the first n normals of stream `stream` of `seed`, from the engine's kernel
std::vector<float> bulk_normals(std::size_t n, std::uint64_t seed, std::uint64_t stream = 0) {
  std::vector<float> z(n);
  NormalStream g(seed, stream);
  normals(Vec<float>{z.data(), n}, g);
  return z;
}

}  // namespace

TEST_CASE("a normal stream's lanes are xoshiro128**: the reference implementation's outputs", "[rng]") {
  // Known answers of Blackman & Vigna's xoshiro128starstar.c from the state {1, 2, 3, 4}.
  NormalStream g(0, 0);
  for (int w = 0; w < 4; ++w) g.s[w][2] = std::uint32_t(w + 1);
  CHECK(normals_detail::next(g, 2) == 11520u);
  CHECK(normals_detail::next(g, 2) == 0u);
  CHECK(normals_detail::next(g, 2) == 5927040u);
  CHECK(normals_detail::next(g, 2) == 70819200u);
}

TEST_CASE("each bulk normal is the Box–Muller transform of its lane's two outputs, within 4 ulp of it in double", "[rng]") {
  // Group k, lane l: a, b = lane l's outputs 2k and 2k+1; normals 8k + 2l and 8k + 2l + 1 are
  // √(−2 ln u₁)·(cos, sin)(2πu₂).
  // Float ln, cos and sin as polynomials: checked here against the C library's in double.
  const std::size_t groups = 20000;
  NormalStream g(99, 3), ref = g;
  std::vector<float> z(8 * groups);
  normals(Vec<float>{z.data(), z.size()}, g);
  double worst = 0;
  for (std::size_t k = 0; k < groups; ++k) {
    std::uint32_t a[4], b[4];
    for (int l = 0; l < 4; ++l) a[l] = normals_detail::next(ref, l);
    for (int l = 0; l < 4; ++l) b[l] = normals_detail::next(ref, l);
    for (int l = 0; l < 4; ++l) {
      const double u1 = (float(std::int32_t(a[l] >> 1)) + 0.5f) * 0x1p-31f, u2 = double(b[l] >> 8) * 0x1p-24;  // u₁ as defined, in float
      const double r = std::sqrt(-2 * std::log(u1)), t = 2 * M_PI * u2;
      for (auto [got, want] : {std::pair{z[8 * k + 2 * l], r * std::cos(t)}, std::pair{z[8 * k + 2 * l + 1], r * std::sin(t)}})
        worst = std::max(worst, std::abs(got - want) / (std::max(std::abs(want), 1e-3) * kU));
    }
  }
  INFO("worst error " << worst << " units of float roundoff");
  CHECK(worst < 8);  // 4 ulp = 8 u
}

TEST_CASE("bulk normals follow N(0,1): chi-square over 64 equiprobable bins, moments and the tail beyond 4", "[rng]") {
  const int bins = 64;
  const std::vector<double> edges = normal_bin_edges(bins);
  const std::size_t n = 640000;
  std::vector<double> counts(bins, 0);
  double m1 = 0, m2 = 0, m4 = 0, pair = 0;
  std::size_t tail = 0;
  for (std::uint64_t stream = 0; stream < 100; ++stream) {  // many streams, as the experiments use them
    const auto z = bulk_normals(n / 100, 2718, stream);
    for (std::size_t i = 0; i < z.size(); ++i) {
      const double x = z[i];
      counts[std::upper_bound(edges.begin(), edges.end(), x) - edges.begin()] += 1;
      m1 += x; m2 += x * x; m4 += x * x * x * x;
      tail += std::abs(x) > 4;
      if (i % 2 == 0) pair += (x * x - 1) * (double(z[i + 1]) * z[i + 1] - 1);  // a cos with its sin
    }
  }
  double chi2 = 0;
  for (double c : counts) chi2 += (c - double(n) / bins) * (c - double(n) / bins) / (double(n) / bins);
  CHECK(chi2 < 103.4);  // 63 degrees of freedom: the 99.9% point (the seed is fixed)
  // mean 0 (SE 1/√n), variance 1 (SE √(2/n)), E z⁴ = 3 (SE √(96/n))
  CHECK(std::abs(m1 / n) < 5 / std::sqrt(double(n)));
  CHECK(std::abs(m2 / n - 1) < 5 * std::sqrt(2.0 / n));
  CHECK(std::abs(m4 / n - 3) < 5 * std::sqrt(96.0 / n));
  // the two normals of one pair are independent: E[(z₁² − 1)(z₂² − 1)] = 0 (SE √(4/(n/2)))
  CHECK(std::abs(pair / (n / 2)) < 5 * std::sqrt(4.0 / (n / 2)));
  // P(|Z| > 4) = 6.334e-5 (Poisson SD √40.5 ≈ 6.4): the tails are sampled at their rate
  CHECK(std::abs(double(tail) - 6.334e-5 * n) < 5 * std::sqrt(6.334e-5 * n));
}

TEST_CASE("first_two_normals, seeding lane 0 alone, gives a stream's first two bulk normals", "[rng]") {
  for (std::uint64_t stream = 0; stream < 1000; ++stream) {
    const auto z = bulk_normals(2, 11, stream);
    float z1, z2;
    first_two_normals(11, stream, z1, z2);
    REQUIRE(z1 == z[0]);
    REQUIRE(z2 == z[1]);
  }
}

TEST_CASE("a stream's bulk normals do not depend on how many are asked for: fewer are a prefix of more", "[rng]") {
  const auto all = bulk_normals(1000, 5, 17);
  for (std::size_t n : {1, 7, 8, 9, 333}) {
    const auto some = bulk_normals(n, 5, 17);
    REQUIRE(std::equal(some.begin(), some.end(), all.begin()));
  }
  const auto other = bulk_normals(1000, 5, 18), seed = bulk_normals(1000, 6, 17);
  CHECK(std::mismatch(all.begin(), all.end(), other.begin()).first == all.begin());
  CHECK(std::mismatch(all.begin(), all.end(), seed.begin()).first == all.begin());
}

namespace {

// P(|T| < t) for Student's t with ν >= 3 degrees of freedom, θ = atan(t/√ν) (Abramowitz & Stegun
// 26.7.3 and 26.7.4): odd ν (2/π)(θ + sin θ·(cos θ + ⅔cos³θ + … + (2·4⋯(ν−3))/(3·5⋯(ν−2))·cos^(ν−2)θ)),
// even ν sin θ·(1 + ½cos²θ + … + (1·3⋯(ν−3))/(2·4⋯(ν−2))·cos^(ν−2)θ)
double t_abs_cdf(double t, int nu) {
  const double th = std::atan(t / std::sqrt(double(nu))), c = std::cos(th);
  double term = nu % 2 ? c : 1, sum = term;
  for (int k = nu % 2 ? 3 : 2; k <= nu - 2; k += 2) sum += (term *= c * c * (k - 1) / k);
  return nu % 2 ? 2 / M_PI * (th + std::sin(th) * sum) : std::sin(th) * sum;
}

}  // namespace

TEST_CASE("bulk Student-t entries follow Student's t law with ν degrees of freedom, scaled to variance 1: Kolmogorov–Smirnov against its CDF",
          "[rng][eq:breaking-assumptions]") {
  // the closed form itself, at points with known values: t₃ at √3 (θ = π/4) and t₄ at 2 (θ = π/4)
  CHECK(t_abs_cdf(std::sqrt(3.0), 3) == Approx(2 / M_PI * (M_PI / 4 + 0.5)));
  CHECK(t_abs_cdf(2, 4) == Approx(std::sqrt(0.5) * 1.25));
  for (int df : {3, 4, 5, 6, 9, 20}) {
    const std::size_t per = 1000, streams = 200, n = per * streams;
    std::vector<double> t;
    t.reserve(n);
    std::vector<float> z(per);
    for (std::uint64_t stream = 0; stream < streams; ++stream) {  // many streams, as the pairs use them
      NormalStream g(404, stream);
      student_t(Vec<float>{z.data(), per}, g, df);
      for (float v : z) t.push_back(std::abs(double(v)) * std::sqrt(df / (df - 2.0)));  // |t| = |z|·√(ν/(ν−2))
    }
    std::sort(t.begin(), t.end());
    double d = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double f = t_abs_cdf(t[i], df);
      d = std::max({d, std::abs(f - double(i) / n), std::abs(f - double(i + 1) / n)});
    }
    INFO("ν = " << df << ": D = " << d);
    CHECK(d < 1.95 / std::sqrt(double(n)));  // the 99.9% point of D (the seed is fixed); ν ± 1 fails it up to ν = 9
  }
}

TEST_CASE("a normal pair takes q from its stream's first d_k normals and k from the next d_k, at d_k = 1 too, and entries are the stream's normals", "[rng][eq:dot-variance]") {
  // the documented layout (sampling.hpp), against the stream itself: pair i of a run that starts at
  // `first` is NormalStream(seed, first + i)
  const std::uint64_t seed = 21, first = 1000;
  for (std::size_t dk : {1, 5, 16}) {
    std::vector<float> out(300);  // more than one d_k = 1 block of 256
    sample_dot_products(Vec<float>{out.data(), out.size()}, dk, seed, {}, first);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const auto z = bulk_normals(2 * dk, seed, first + i);
      const float want = dk == 1 ? z[0] * z[1] : dot(Vec<const float>{z.data(), dk}, Vec<const float>{z.data() + dk, dk});
      INFO("d_k = " << dk << ", pair " << i);
      REQUIRE(out[i] == want);
    }
  }
  // a Student-t pair likewise, from its stream's Student-t entries
  for (std::size_t dk : {1, 6}) {
    std::vector<float> out(20);
    sample_dot_products(Vec<float>{out.data(), out.size()}, dk, seed, {Dist::student_t, 0, 1, 7}, first);
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::vector<float> z(2 * dk);
      NormalStream g(seed, first + i);
      student_t(Vec<float>{z.data(), z.size()}, g, 7);
      REQUIRE(out[i] == (dk == 1 ? z[0] * z[1] : dot(Vec<const float>{z.data(), dk}, Vec<const float>{z.data() + dk, dk})));
    }
  }
  // entries mean + std·z of one stream
  std::vector<float> x(37);
  sample_entries(Vec<float>{x.data(), x.size()}, seed, 4, {Dist::normal, 0.5, 2});
  const auto z = bulk_normals(x.size(), seed, 4);
  for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(x[i] == static_cast<float>(0.5 + 2 * double(z[i])));
}
