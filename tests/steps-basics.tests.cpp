// Catch2 claims of the steps-basics steps of the derivation (see web/steps/order.js):
// setup, product-variance, dot-variance. The claims that tests/stats.tests.cpp already makes
// (Var(XY) = 1 for normal factors; Var(q·k) = d_k at four d_k) are not repeated here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "api.hpp"
#include "sampling.hpp"
#include "stats.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

std::vector<float> products(std::size_t dk, std::size_t n, std::uint64_t seed, const Distribution& d = {}) {
  std::vector<float> z(n);
  sample_dot_products(Vec<float>{z.data(), n}, dk, seed, d);
  return z;
}

Moments moments(const std::vector<float>& z) { return moments_of(Vec<const float>{z.data(), z.size()}); }

// Sample kurtosis κ̂ = m₄/m₂² and its delta-method SE from the sample itself (the engine's
// tails_of, checked against a long-double computation in stats.tests.cpp).
struct Kurtosis { double value, se; };
Kurtosis kurtosis(const std::vector<float>& z) {
  const Tails t = tails_of(Vec<const float>{z.data(), z.size()});
  return {t.kurtosis, t.kurtosis_se};
}

// E[X^p] of the standardized entry distributions, p = 4, 6, 8:
//   normal       (p−1)!!:       3, 15, 105
//   uniform      U(−√3, √3): 3^(p/2)/(p+1):  9/5, 27/7, 9
//   rademacher   1, 1, 1
struct EvenMoments { double m4, m6, m8; };
EvenMoments even_moments(Dist kind) {
  switch (kind) {
    case Dist::uniform: return {9.0 / 5, 27.0 / 7, 9};
    case Dist::rademacher: return {1, 1, 1};
    default: return {3, 15, 105};
  }
}

// The page's sweep schedule (web/experiments/dot-variance.js, dotVarianceSweep): n(d) pairs at d_k = d,
// n(d) = clamp(2¹⁵/d, 64, 4096): 2¹⁶ normals per point from d_k = 8 to 512, more at the ends.
std::size_t sweep_pairs(std::size_t dk) { return std::clamp<std::size_t>((1u << 15) / dk, 64, 4096); }

}  // namespace

// ------------------------------------------------------------------------------------ setup

TEST_CASE("the unscaled score matrix S = QKᵀ holds q_i·k_j at row i, column j, for n_q ≠ n_k", "[api][eq:setup]") {
  // The call the setup figure makes: scores(Q, K) with scale 1, Q (3, d_k), K (4, d_k).
  const std::size_t nq = 3, nk = 4, dk = 5;
  const auto q = normals(nq * dk, 31), k = normals(nk * dk, 32);
  std::vector<float> s;
  api::scores(s, {q.data(), q.size()}, {k.data(), k.size()}, nq, nk, dk, 1.0);
  REQUIRE(s.size() == nq * nk);
  for (std::size_t i = 0; i < nq; ++i)
    for (std::size_t j = 0; j < nk; ++j) {
      double dot = 0, abs = 0;
      for (std::size_t l = 0; l < dk; ++l) {
        dot += double(q[i * dk + l]) * k[j * dk + l];
        abs += std::abs(double(q[i * dk + l]) * k[j * dk + l]);
      }
      INFO("i = " << i << ", j = " << j);
      CHECK(std::abs(s[i * nk + j] - dot) <= gamma(dk + 1) * abs);  // float sum of dk products, then rounded
    }
  // not the transpose: S₁₂ is q₁·k₂, and q₂·k₁ is a different number
  CHECK(s[0 * nk + 1] != s[1 * nk + 0]);
}

// ------------------------------------------------------------------------- product-variance

TEST_CASE("the product of two independent unit-variance variables has variance 1 whatever their distribution",
          "[stats][eq:product-variance]") {
  // (The normal case is in stats.tests.cpp.) Var(XY) = E[X²]E[Y²] − (E[X]E[Y])² = 1 needs only
  // independence, mean 0 and variance 1. The SE of s² is √((E[(XY)⁴] − 1)/n) = √((E[X⁴]² − 1)/n);
  // for Rademacher factors XY = ±1, E[X⁴]² − 1 = 0 and s² = n/(n−1)·(1 − z̄²) exactly, which is
  // within 1/(n−1) + 25/n of 1 when |z̄| < 5/√n: hence the extra 30/n.
  const Dist kind = GENERATE(Dist::uniform, Dist::rademacher);
  const std::size_t n = 200000;
  const auto z = products(1, n, 41, {kind});
  const Summary s = summarize(moments(z));
  const double m4 = even_moments(kind).m4;
  const double se = std::sqrt((m4 * m4 - 1) / n);
  INFO("distribution " << int(kind) << ": s² = " << s.variance << ", SE = " << se);
  CHECK(std::abs(s.mean) < 5 / std::sqrt(double(n)));
  CHECK(std::abs(s.variance - 1) < 5 * se + 30.0 / n);
  // the laws differ even though the variances agree: |XY| <= 3 for uniform, XY = ±1 for Rademacher
  const float top = *std::max_element(z.begin(), z.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
  if (kind == Dist::uniform) CHECK(std::abs(top) <= 3.f);
  if (kind == Dist::rademacher) for (float v : z) REQUIRE(std::abs(v) == 1.f);
}

TEST_CASE("the product of two standard normals has kurtosis E[X⁴]·E[Y⁴] = 9, three times a normal's",
          "[stats][eq:product-variance]") {
  // Z = XY, E[Z^p] = E[X^p]² for even p. κ̂ = m₄/m₂²; to first order (σ² = 1, odd moments 0)
  //   κ̂ − κ ≈ mean of (Z⁴ − 2κZ²) − (κ − 2κ),
  //   Var(Z⁴ − 2κZ²) = E[Z⁸] − 4κ·E[Z⁶] + 4κ²·E[Z⁴] − κ² = E[Z⁸] − 4κE[Z⁶] + 4κ³ − κ²,
  // for normal factors 105² − 36·15² + 4·9³ − 9² = 5760, so SE(κ̂) = √(5760/n) ≈ 0.12 at n = 400 000.
  // The same formula gives the SE for the other factor laws (0 for Rademacher: XY² = 1).
  const Dist kind = GENERATE(Dist::normal, Dist::uniform, Dist::rademacher);
  const std::size_t n = 400000;
  const auto z = products(1, n, 42, {kind});
  const EvenMoments x = even_moments(kind);
  const double k = x.m4 * x.m4, z6 = x.m6 * x.m6, z8 = x.m8 * x.m8;
  const double se = std::sqrt((z8 - 4 * k * z6 + 4 * k * k * k - k * k) / n);
  const Kurtosis measured = kurtosis(z);
  INFO("distribution " << int(kind) << ": kurtosis " << measured.value << ", theory " << k << ", SE " << se
                       << " (from the sample: " << measured.se << ")");
  CHECK(std::abs(measured.value - k) < 5 * se + 30.0 / n);  // 30/n: the O(1/n) effect of centring on z̄
  if (kind == Dist::normal) {
    CHECK(measured.value - 3 > 40 * se);  // nowhere near a normal variable's 3
    // the sample's own SE agrees with the derived one (it is an estimate: within 25%)
    CHECK(measured.se == Approx(se).epsilon(0.25));
  }
}

TEST_CASE("a sum of d_k products has excess kurtosis 6/d_k, so q·k tends to a normal variable as d_k grows",
          "[stats][eq:product-variance][eq:dot-variance]") {
  // Cumulants of independent terms add: κ₄(q·k) = d_k·κ₄(XY) = d_k·(9 − 3) and σ⁴ = d_k², so the
  // excess kurtosis κ₄/σ⁴ is 6/d_k. SE from the sample's own 8th moment (see kurtosis()).
  const std::size_t dk = GENERATE(4, 16);
  const std::size_t n = dk == 4 ? 200000 : 100000;
  const Kurtosis k = kurtosis(products(dk, n, 43 + dk, {}));
  INFO("d_k = " << dk << ": excess kurtosis " << k.value - 3 << " ± " << k.se);
  CHECK(std::abs((k.value - 3) - 6.0 / dk) < 5 * k.se);
  if (dk == 4) CHECK(k.value - 3 > 5 * k.se);  // measurably not normal yet
}

// ------------------------------------------------------------------------------ dot-variance

TEST_CASE("the measured Var(q·k) tracks d_k across d_k = 1, 2, 4, …, 4096 within 5 SE at each point, slope 1 on log–log",
          "[stats][eq:dot-variance]") {
  // The page's sweep: n(d) pairs per point, few at large d_k. q·k has 4th central moment 3d² + 6d,
  // so SE(s²) = d·√((2 + 6/d)/n) (to first order; even at n = 64, where s² is close to a scaled
  // χ²₆₃/63 and skewed, a miss by 5 SE has probability below 10⁻⁴).
  std::vector<double> x, y, var_y;
  for (std::size_t dk = 1; dk <= 4096; dk *= 2) {
    const std::size_t n = sweep_pairs(dk);
    const Summary s = summarize(moments(products(dk, n, 44)));
    const double d = double(dk), rel_se = std::sqrt((2 + 6 / d) / n);
    INFO("d_k = " << dk << ", n = " << n << ": s² = " << s.variance << ", SE = " << d * rel_se);
    CHECK(std::abs(s.variance - d) < 5 * d * rel_se);
    x.push_back(std::log2(d));
    y.push_back(std::log2(s.variance));
    var_y.push_back(rel_se * rel_se / (std::log(2.0) * std::log(2.0)));  // Var(log₂ s²) ≈ (SE/σ²)²/ln²2
  }
  // Least-squares slope of log₂ s² on log₂ d_k: 1 if Var ∝ d_k (½ for √d_k, 2 for d_k²).
  const double xm = std::accumulate(x.begin(), x.end(), 0.0) / x.size();
  const double ym = std::accumulate(y.begin(), y.end(), 0.0) / y.size();
  double sxx = 0, sxy = 0, var_num = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - xm) * (x[i] - xm);
    sxy += (x[i] - xm) * (y[i] - ym);
    var_num += (x[i] - xm) * (x[i] - xm) * var_y[i];
  }
  const double slope = sxy / sxx, slope_se = std::sqrt(var_num) / sxx;
  INFO("slope " << slope << " ± " << slope_se);
  CHECK(std::abs(slope - 1) < 5 * slope_se);
  CHECK(5 * slope_se < 0.1);  // and the test is sharp enough to tell slope 1 from 0.9 or 1.1
}
