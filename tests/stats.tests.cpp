// The statistical claims of the derivation, measured at fixed seeds, and the moment machinery.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rng.hpp"
#include "sampling.hpp"
#include "stats.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("the product of two independent N(0,1) variables has mean 0 and variance 1",
          "[stats][eq:product-variance]") {
  const std::size_t n = 200000;
  std::vector<float> xy(n);
  sample_dot_products(Vec<float>{xy.data(), n}, 1, 2024, {});
  const Summary s = summarize(moments_of(Vec<const float>{xy.data(), n}));
  // E[X²Y²] = E[X²]E[Y²] = 1 and E[X⁴Y⁴] = 9, so Var(s²) ≈ (9 − 1)/n
  CHECK(std::abs(s.mean) < 5 * std::sqrt(1.0 / n));
  CHECK(std::abs(s.variance - 1) < 5 * std::sqrt(8.0 / n));
}

TEST_CASE("q·k of unit-variance vectors has variance d_k, and q·k/√d_k has variance 1",
          "[stats][eq:dot-variance]") {
  const std::size_t dk = GENERATE(1, 16, 64, 512);
  const std::size_t n = 20000;
  std::vector<float> s(n);
  sample_dot_products(Vec<float>{s.data(), n}, dk, 7 + dk, {});
  const double d = double(dk);
  // q·k = Σ_i q_i k_i: Var = d, 4th central moment 3d² + 6d, so SE(s²) ≈ d·√((2 + 6/d)/n)
  const double se = d * std::sqrt((2 + 6 / d) / n);
  const Summary raw = summarize(moments_of(Vec<const float>{s.data(), n}));
  INFO("d_k = " << dk << ", s² = " << raw.variance << ", SE = " << se);
  CHECK(std::abs(raw.variance - d) < 5 * se);
  CHECK(std::abs(raw.mean) < 5 * std::sqrt(d / n));
  for (float& v : s) v /= float(std::sqrt(d));
  const Summary scaled = summarize(moments_of(Vec<const float>{s.data(), n}));
  CHECK(std::abs(scaled.variance - 1) < 5 * se / d);
}

TEST_CASE("the sampled q·k values do not depend on how the run is split", "[stats][eq:dot-variance]") {
  std::vector<float> whole(100), parts(100);
  sample_dot_products(Vec<float>{whole.data(), 100}, 33, 5, {});
  sample_dot_products(Vec<float>{parts.data(), 37}, 33, 5, {}, 0);
  sample_dot_products(Vec<float>{parts.data() + 37, 63}, 33, 5, {}, 37);
  CHECK(whole == parts);
}

TEST_CASE("the 95% interval for the variance covers d_k in about 95% of repeated experiments",
          "[stats][eq:dot-variance]") {
  const std::size_t dk = 8, n = 2000, runs = 400;
  std::size_t covered = 0;
  std::vector<float> s(n);
  for (std::size_t r = 0; r < runs; ++r) {
    sample_dot_products(Vec<float>{s.data(), n}, dk, 100 + r, {});
    const Summary m = summarize(moments_of(Vec<const float>{s.data(), n}));
    covered += m.variance_lo <= dk && dk <= m.variance_hi;
  }
  // Binomial(400, 0.95): SD = √(400·0.95·0.05) ≈ 4.4 runs; allow 4 SD either side
  CHECK(covered >= 380 - 18);
  CHECK(covered <= 380 + 18);
}

TEST_CASE("the kurtosis interval of a skewed sample covers the true kurtosis 95% of the time", "[stats]") {
  // 0/1 entries with P(1) = 0.2: skewness 1.5 and kurtosis 3.25. The kurtosis estimate moves with
  // the estimated mean here; a delta method that leaves that out gives an SE 2.8× too small
  // (and the interval covers about half the time)
  constexpr double p = 0.2, kappa = (1 - 3 * p * (1 - p)) / (p * (1 - p));
  constexpr std::size_t n = 400, runs = 400;
  Rng rng(2024);
  std::size_t covered = 0;
  std::vector<float> x(n);
  for (std::size_t r = 0; r < runs; ++r) {
    for (float& v : x) v = rng.uniform() < p ? 1.f : 0.f;
    const Tails t = tails_of(Vec<const float>{x.data(), n});
    covered += t.kurtosis_lo <= kappa && kappa <= t.kurtosis_hi;
  }
  // Binomial(400, 0.95): SD ≈ 4.4 runs; allow 4 SD either side
  CHECK(covered >= 380 - 18);
  CHECK(covered <= 380 + 18);
}

TEST_CASE("an interval ends where its statistic can: a variance and E[x⁴] at 0 or above, a kurtosis at 1 or above",
          "[stats]") {
  // five values, one far out: the normal intervals' lower ends fall below 0 and below 1
  const std::vector<float> x{0.f, 0.f, 0.f, 0.f, 10.f};
  const Moments m = moments_of(Vec<const float>{x.data(), x.size()});
  const Summary s = summarize(m);
  CHECK(s.variance - 1.959963984540054 * s.variance_se < 0);
  CHECK(s.variance_lo == 0);
  CHECK(s.variance_hi > s.variance);
  const Tails t = tails_of(Vec<const float>{x.data(), x.size()});
  CHECK(t.kurtosis - 1.959963984540054 * t.kurtosis_se < 1);
  CHECK(t.kurtosis_lo == 1);
  CHECK(t.fourth_hi - t.fourth > t.fourth);  // the normal interval would reach below 0
  CHECK(t.fourth_lo == 0);
  // two values have kurtosis 1, which κ̂ can round to just below: the interval still holds it
  const std::vector<float> two{0.1f, 0.7f};
  const Tails k2 = tails_of(Vec<const float>{two.data(), two.size()});
  CHECK(k2.kurtosis < 1);
  CHECK(k2.kurtosis_lo <= k2.kurtosis);
  CHECK(k2.kurtosis <= k2.kurtosis_hi);
}

TEST_CASE("moments of a whole, merged across chunks, or streamed value by value equal the two-pass moments", "[stats]") {
  const auto x = normals(10001, 90, 3.0, 1e4);  // a large mean: the naive Σx² formula would lose digits
  Moments all = moments_of(Vec<const float>{x.data(), x.size()});
  Moments a = moments_of(Vec<const float>{x.data(), 4000});
  a.merge(moments_of(Vec<const float>{x.data() + 4000, x.size() - 4000}));
  Moments streamed;
  for (float v : x) streamed.push(v);
  double mean = 0, m2 = 0, m3 = 0, m4 = 0;
  for (float v : x) mean += v;
  mean /= x.size();
  for (float v : x) { const double d = v - mean; m2 += d * d; m3 += d * d * d; m4 += d * d * d * d; }
  for (const Moments& m : {all, a, streamed}) {
    CHECK(m.n == x.size());
    CHECK(m.mean == Approx(mean).epsilon(1e-13));
    CHECK(m.m2 == Approx(m2).epsilon(1e-10));
    CHECK(m.m3 == Approx(m3).margin(1e-10 * std::pow(m2, 1.5)));  // near 0 for a symmetric sample
    CHECK(m.m4 == Approx(m4).epsilon(1e-9));
  }
}

TEST_CASE("the tails of a sample: E[x⁴] and the kurtosis m₄/m₂², with delta-method intervals, as a long-double "
          "computation gives them, whatever the scale",
          "[stats][eq:product-variance]") {
  // a skewed, heavy-ish sample: exponentials (kurtosis 9) shifted off 0
  std::vector<float> x(5001);
  Rng rng(77);
  for (float& v : x) v = static_cast<float>(2 - std::log(1 - rng.uniform()));
  // the reference, straight from the definitions, in long double
  using ld = long double;
  const ld n = x.size();
  ld mean = 0, m2 = 0, m3 = 0, m4 = 0, r4 = 0;
  for (float v : x) mean += v;
  mean /= n;
  for (float v : x) { const ld d = v - mean; m2 += d * d; m3 += d * d * d; m4 += d * d * d * d; r4 += ld(v) * v * v * v; }
  m2 /= n; m3 /= n; m4 /= n; r4 /= n;
  const ld k = m4 / (m2 * m2);
  ld su = 0, suu = 0, sw = 0;
  for (float v : x) {
    // κ̂'s influence: m₄'s, m₄ moving by −4m₃ with the mean, and m₂'s through 1/m₂²
    const ld d = v - mean, d2 = d * d, u = (d2 * d2 - 4 * m3 * d - 2 * k * m2 * d2) / (m2 * m2), w = ld(v) * v * v * v - r4;
    su += u; suu += u * u; sw += w * w;
  }
  const ld se_k = std::sqrt((suu - su * su / n) / (n - 1) / n), se_4 = std::sqrt(sw / (n - 1) / n);
  const Tails t = tails_of(Vec<const float>{x.data(), x.size()});
  CHECK(t.kurtosis == Approx(double(k)).epsilon(1e-12));
  CHECK(t.kurtosis_se == Approx(double(se_k)).epsilon(1e-9));
  CHECK(t.kurtosis_lo == Approx(double(k - 1.959963984540054L * se_k)).epsilon(1e-9));
  CHECK(t.kurtosis_hi == Approx(double(k + 1.959963984540054L * se_k)).epsilon(1e-9));
  CHECK(t.fourth == Approx(double(r4)).epsilon(1e-12));
  CHECK(t.fourth_hi - t.fourth_lo == Approx(double(2 * 1.959963984540054L * se_4)).epsilon(1e-9));
  CHECK(std::abs(t.kurtosis - 9) < 5 * t.kurtosis_se);  // an exponential's kurtosis

  // the kurtosis does not depend on the scale, even where x⁴ would leave float range or underflow
  for (const float c : {1e-20f, 1e20f}) {
    std::vector<float> y(x);
    for (float& v : y) v *= c;
    const Tails s = tails_of(Vec<const float>{y.data(), y.size()});
    CHECK(s.kurtosis == Approx(t.kurtosis).epsilon(1e-6));
    CHECK(s.kurtosis_se == Approx(t.kurtosis_se).epsilon(1e-5));
  }
  // E[x⁴]'s interval scales as x⁴ does, where (x⁴ − E[x⁴])² alone would overflow double: a third
  // of the values at 3e38 gave [−inf, inf] (its relative width is the same at any scale)
  std::vector<float> big(999, 1e30f);
  for (std::size_t i = 0; i < big.size(); i += 3) big[i] = 3e38f;
  const Tails b = tails_of(Vec<const float>{big.data(), big.size()});
  REQUIRE(std::isfinite(b.fourth_lo));
  REQUIRE(std::isfinite(b.fourth_hi));
  std::vector<float> small(big);
  for (float& v : small) v *= 1e-37f;  // 30 and 1e-7: x⁴ well inside double
  const Tails sm = tails_of(Vec<const float>{small.data(), small.size()});
  CHECK((b.fourth_hi - b.fourth_lo) / b.fourth == Approx((sm.fourth_hi - sm.fourth_lo) / sm.fourth).epsilon(1e-6));
  CHECK(b.fourth_lo < b.fourth);
  CHECK(b.fourth < b.fourth_hi);

  // a constant sample has no kurtosis; one value has no interval
  const std::vector<float> same(10, 3.f), one{2.f};
  const Tails c = tails_of(Vec<const float>{same.data(), same.size()});
  CHECK(std::isnan(c.kurtosis));
  CHECK(std::isnan(c.kurtosis_se));
  CHECK(c.fourth == 81);
  const Tails o = tails_of(Vec<const float>{one.data(), 1});
  CHECK(o.fourth == 16);
  CHECK(std::isnan(o.fourth_lo));
}

TEST_CASE("the histogram counts every value in range exactly once", "[stats]") {
  std::vector<float> x{-1.f, 0.f, 0.24f, 0.25f, 0.99f, 1.f, 2.f, std::nanf("")};
  std::vector<std::uint32_t> counts(4);
  const std::size_t left_out = histogram(Vec<std::uint32_t>{counts.data(), 4}, Vec<const float>{x.data(), x.size()}, 0, 1);
  CHECK(counts == std::vector<std::uint32_t>{2, 1, 0, 2});  // [0,.25) [.25,.5) [.5,.75) [.75,1]
  CHECK(left_out == 3);
}

TEST_CASE("the histogram of many values equals a count of each value's bin, whatever the count mod 4", "[stats]") {
  // the counts are kept in four parts, one per value index mod 4 (stats.cpp): every remainder
  const std::size_t n = GENERATE(1, 2, 3, 4, 5, 1001, 1002, 1003, 1004);
  const std::size_t bins = GENERATE(1, 7, 41);
  std::vector<float> x(n);
  Rng rng(5);
  for (auto& v : x) v = static_cast<float>(1.5 * rng.normal());  // some beyond [−3, 3]
  std::vector<std::uint32_t> counts(bins), want(bins);
  const double lo = -3, hi = 3;
  std::size_t want_out = 0;
  for (const float v : x) {
    if (!(v >= lo && v <= hi)) { ++want_out; continue; }
    ++want[std::min(bins - 1, static_cast<std::size_t>((v - lo) * (double(bins) / (hi - lo))))];
  }
  INFO("n " << n << " bins " << bins);
  CHECK(histogram(Vec<std::uint32_t>{counts.data(), bins}, Vec<const float>{x.data(), n}, lo, hi) == want_out);
  CHECK(counts == want);
}
