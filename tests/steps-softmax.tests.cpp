// Catch2 claims of the steps-softmax steps of the derivation (see web/steps/order.js):
// softmax-saturation, vanishing-gradients, scaling-choices, temperature. The trends that
// tests/derivation.tests.cpp already checks on average (saturation and vanishing gradient as
// d_k grows, the three scales' variances at d_k = 64, 1/d_k's uniform limit, temperature
// sharpening on average, the Jacobian against central differences) are not repeated here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <vector>

#include "kernels.hpp"
#include "rng.hpp"
#include "sampling.hpp"
#include "stats.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// The engine's float softmax of one row.
std::vector<float> softmax_f(const std::vector<float>& x) {
  std::vector<float> p(x.size());
  softmax_rows(mmat(p, 1, x.size()), cmat(x, 1, x.size()));
  return p;
}

// The double reference on the same float inputs (widened exactly).
std::vector<double> softmax_d(const std::vector<float>& x) {
  std::vector<double> xd(x.begin(), x.end()), p(x.size());
  softmax_rows_ref(mmat(p, 1, x.size()), cmat(xd, 1, x.size()));
  return p;
}

struct Rows {
  std::vector<float> max_weight, entropy, jacobian, nonmax_grad, score_var;
  explicit Rows(std::size_t r) : max_weight(r), entropy(r), jacobian(r), nonmax_grad(r), score_var(r) {}
  SoftmaxRowStats views() {
    const std::size_t r = max_weight.size();
    return {{max_weight.data(), r}, {entropy.data(), r}, {jacobian.data(), r}, {nonmax_grad.data(), r}, {score_var.data(), r}};
  }
};

Rows softmax_rows_at(std::size_t dk, std::size_t n, float scale, std::size_t rows, std::uint64_t seed) {
  Rows r(rows);
  sample_softmax_rows(r.views(), dk, n, scale, seed);
  return r;
}

Summary summary_of(const std::vector<float>& v) { return summarize(moments_of(Vec<const float>{v.data(), v.size()})); }
double se_of_mean(const Summary& s) { return std::sqrt(s.variance / s.n); }

double frobenius(const std::vector<float>& jac) {
  double s = 0;
  for (float v : jac) s += double(v) * v;
  return std::sqrt(s);
}

std::vector<float> jacobian_f(const std::vector<float>& p) {
  std::vector<float> jac(p.size() * p.size());
  softmax_jacobian_ref(mmat(jac, p.size(), p.size()), Vec<const float>{p.data(), p.size()});
  return jac;
}

// Least-squares slope of log y against log x.
double log_slope(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) { mx += std::log(x[i]); my += std::log(y[i]); }
  mx /= x.size();
  my /= x.size();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (std::log(x[i]) - mx) * (std::log(y[i]) - my);
    sxx += (std::log(x[i]) - mx) * (std::log(x[i]) - mx);
  }
  return sxy / sxx;
}

}  // namespace

// ---------------------------------------------------------------- softmax-saturation

TEST_CASE("the course text's worked example: its unscaled weights are right, its scaled weights do not even sum to 1",
          "[eq:softmax-saturation]") {
  const std::vector<float> s{9.2f, -3.1f, 8.8f, -5.4f, 1.2f};
  std::vector<float> s8(s.size());
  std::transform(s.begin(), s.end(), s8.begin(), [](float v) { return v / 8; });
  const std::vector<double> claimed{0.599, 0.000, 0.401, 0.000, 0.000};
  const std::vector<double> claimed8{0.31, 0.07, 0.30, 0.05, 0.12};
  for (const auto& [x, text, decimals] : {std::tuple{s, claimed, 3}, std::tuple{s8, claimed8, 2}}) {
    const auto p = softmax_f(x);
    const auto ref = softmax_d(x);
    // float softmax: exp within a few ulps, a 5-term sum and one division: 16u relative is generous
    for (std::size_t j = 0; j < x.size(); ++j) REQUIRE(std::abs(p[j] - ref[j]) <= 16 * kU * ref[j]);
    double sum_claimed = 0, worst = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      sum_claimed += text[j];
      worst = std::max(worst, std::abs(text[j] - ref[j]));
    }
    const double rounding = 0.5 * std::pow(10.0, -decimals);  // the text's own last digit
    if (decimals == 3) {
      CHECK(worst <= rounding);
    } else {
      CHECK(worst > 10 * rounding);                 // off by far more than rounding: ref[0] ≈ 0.371, not 0.31
      CHECK(std::abs(sum_claimed - 1) > 0.1);       // the stated weights sum to 0.85
    }
  }
}

TEST_CASE("scores [8.5, −2.1, 7.9, …] cannot give weights [0.99, 0.00, 0.01, …]: the first two stand in the ratio e^0.6 whatever follows",
          "[eq:softmax-saturation]") {
  const auto rest = normals(13, 21, 4.0);  // any further scores
  std::vector<float> x{8.5f, -2.1f, 7.9f};
  x.insert(x.end(), rest.begin(), rest.end());
  const auto p = softmax_f(x);
  const double ratio = double(p[0]) / p[2];
  CHECK(ratio == Approx(std::exp(double(x[0]) - double(x[2]))).epsilon(1e-6));
  CHECK(ratio < 2);              // the text's 0.99/0.01 would be 99
  CHECK(p[2] > 0.05);            // the third weight is nowhere near 0.01 unless the "…" swamps both
}

TEST_CASE("the forum's row [−20, 3, 25, −15] is one-hot to 3·10⁻¹⁰, and its scaled row [−2.5, 0.4, 3.1, −1.9] still puts over 90% on one key",
          "[eq:softmax-saturation]") {
  const auto p = softmax_f({-20, 3, 25, -15});
  CHECK(1 - double(p[2]) < 3e-10 + 4 * kU);    // e^(3−25) = 2.8·10⁻¹⁰, float rounds p₃ to 1
  CHECK(double(p[1]) == Approx(std::exp(-22.0)).epsilon(1e-5));
  const auto q = softmax_f({-2.5f, 0.4f, 3.1f, -1.9f});
  CHECK(q[2] > 0.9f);
}

TEST_CASE("scaled by 1/√d_k, the mean largest of 16 weights is the same at d_k = 16, 64, 256, 1024, and equals softmax of 16 standard normals",
          "[stats][eq:softmax-saturation]") {
  const std::size_t n = 16, rows = 1000, limit_rows = 4000;
  // the limit: scores i.i.d. N(0, 1), drawn directly
  std::vector<float> ref(limit_rows);
  for (std::size_t r = 0; r < limit_rows; ++r) {
    const auto s = normals(n, 5000 + r);
    const auto p = softmax_f(s);
    ref[r] = *std::max_element(p.begin(), p.end());
  }
  const Summary lim = summary_of(ref);
  for (std::size_t dk : {16, 64, 256, 1024}) {
    const Summary m = summary_of(softmax_rows_at(dk, n, float(1 / std::sqrt(double(dk))), rows, 31).max_weight);
    // two independent means: |difference| < 5 SE of the difference (SE ≈ 0.004 with 1000 and 4000 rows)
    const double se = std::hypot(se_of_mean(m), se_of_mean(lim));
    INFO("d_k = " << dk << ": mean largest weight " << m.mean << ", limit " << lim.mean << ", SE " << se);
    CHECK(std::abs(m.mean - lim.mean) < 5 * se);
  }
  // not at d_k = 1: there the scale is ‖q‖/√d_k = |q₁|, far from 1, and the weights are flatter on
  // average, by about 0.03 (as many rows as the limit: 5 SE of the difference is then 0.015)
  const Summary one = summary_of(softmax_rows_at(1, n, 1.f, limit_rows, 31).max_weight);
  CHECK(lim.mean - one.mean > 5 * std::hypot(se_of_mean(one), se_of_mean(lim)));
}

TEST_CASE("a row's entropy is log Z + Σ p_j (s_max − s_j), exact to float precision even where the largest weight rounds to 1",
          "[eq:softmax-saturation]") {
  // −Σ p log p over the float weights loses the −p_max log p_max term once p_max rounds to 1: in
  // the first row (p_max = 1 − 2.8·10⁻⁹) that term is 5% of H. The engine takes log Z = −log1p(−A)
  // from A = Σ_{j≠max} p_j, which stays accurate.
  const std::size_t n = 4;
  std::vector<float> scores{0, -20, -21, -25};
  for (std::size_t r = 0; r < 63; ++r)
    for (float z : normals(n, 500 + r, 1 + double(r % 8))) scores.push_back(z);
  const std::size_t rows = scores.size() / n;
  Rows got(rows);
  softmax_row_stats(got.views(), cmat(scores, rows, n));
  for (std::size_t r = 0; r < rows; ++r) {
    const float* s = scores.data() + r * n;
    const long double top = *std::max_element(s, s + n);
    long double z = 0, h = 0;
    for (std::size_t j = 0; j < n; ++j) z += std::exp((long double)s[j] - top);
    for (std::size_t j = 0; j < n; ++j) {
      const long double lp = (long double)s[j] - top - std::log(z);
      h -= std::exp(lp) * lp;
    }
    INFO("row " << r << ": engine " << got.entropy[r] << ", long double " << double(h));
    CHECK(std::abs(got.entropy[r] - h) <= 1e-6 * h + 1e-12);
  }
  CHECK(got.max_weight[0] == 1.f);  // the case the per-entry formula gets wrong

  // and a near-uniform row of 65 536 (the fuzzer's finding): log Z from p_max, not from 1 − A,
  // whose float error there was 7% of p_max and put H above log n
  const std::size_t wide = 65536;
  std::vector<float> row = normals(wide, 77, 0.0625);
  Rows one(1);
  softmax_row_stats(one.views(), cmat(row, 1, wide));
  const long double top = *std::max_element(row.begin(), row.end());
  long double z = 0, h = 0;
  for (float x : row) z += std::exp((long double)x - top);
  for (float x : row) {
    const long double lp = (long double)x - top - std::log(z);
    h -= std::exp(lp) * lp;
  }
  INFO("n = 65536: engine " << one.entropy[0] << ", long double " << double(h) << ", log n " << std::log(double(wide)));
  CHECK(std::abs(one.entropy[0] - h) <= 1e-5 * h);
  CHECK(one.entropy[0] <= std::log(double(wide)));
}

TEST_CASE("drawing a row's scores as ‖q‖·z gives what keys drawn in full give: the same mean largest weight, entropy and score variance",
          "[stats][eq:softmax-saturation]") {
  // Given q, the scores q·k_j of keys k_j ~ N(0, I) are i.i.d. N(0, ‖q‖²); sample_scores draws
  // them so. Here the keys are drawn in full, scored by the engine's Q·Kᵀ and scale passes, and
  // both sets of rows go through softmax_row_stats.
  const std::size_t dk = 64, n = 8, rows = 4000;
  const float scale = 1.f / 8;
  std::vector<float> full(rows * n), q(dk), keys(n * dk);
  for (std::size_t r = 0; r < rows; ++r) {
    Rng rng(4242, r);
    fill(Vec<float>{q.data(), dk}, rng, {});
    fill(Vec<float>{keys.data(), n * dk}, rng, {});
    const Mat<float> s{full.data() + r * n, 1, n};
    matmul_nt(s, cmat(q, 1, dk), cmat(keys, n, dk));
    attnlab::scale(s, Mat<const float>(s), scale);
  }
  Rows a(rows);
  softmax_row_stats(a.views(), cmat(full, rows, n));
  const Rows b = softmax_rows_at(dk, n, scale, rows, 4243);
  for (auto [name, x, y] : {std::tuple{"largest weight", &a.max_weight, &b.max_weight}, {"entropy", &a.entropy, &b.entropy},
                            {"score variance", &a.score_var, &b.score_var}}) {
    const Summary sa = summary_of(*x), sb = summary_of(*y);
    const double se = std::hypot(se_of_mean(sa), se_of_mean(sb));
    INFO(name << ": keys in full " << sa.mean << ", ‖q‖·z " << sb.mean << ", SE " << se);
    CHECK(std::abs(sa.mean - sb.mean) < 5 * se);
  }
}

// ---------------------------------------------------------------- vanishing-gradients

TEST_CASE("the Jacobian of a uniform softmax is (I − 11ᵀ/n)/n, with Frobenius norm √(n−1)/n", "[eq:vanishing-gradients]") {
  for (std::size_t n : {2, 3, 16, 100}) {
    const auto p = softmax_f(std::vector<float>(n, 0.5f));
    const auto jac = jacobian_f(p);
    const double nn = double(n);
    // entries within a few float roundings of (δ_ij − 1/n)/n
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) REQUIRE(std::abs(jac[i * n + j] - ((i == j) - 1 / nn) / nn) <= 4 * kU / nn);
    CHECK(frobenius(jac) == Approx(std::sqrt(nn - 1) / nn).epsilon(8 * kU));
  }
}

TEST_CASE("with scale 0 every sampled row is uniform: largest weight 1/n, entropy log n, ‖J‖_F = √(n−1)/n",
          "[eq:vanishing-gradients]") {
  const std::size_t n = 16, rows = 8;
  Rows r = softmax_rows_at(64, n, 0.f, rows, 3);
  const double nn = double(n);
  for (std::size_t i = 0; i < rows; ++i) {
    CHECK(r.max_weight[i] == Approx(1 / nn).epsilon(4 * kU));
    CHECK(r.entropy[i] == Approx(std::log(nn)).epsilon(16 * kU));
    CHECK(r.jacobian[i] == Approx(std::sqrt(nn - 1) / nn).epsilon(1e-6));
    CHECK(r.nonmax_grad[i] == Approx(std::sqrt((nn - 1) / nn) / nn).epsilon(1e-6));
    CHECK(r.score_var[i] == 0);
  }
}

TEST_CASE("a one-hot softmax has a zero Jacobian and passes no gradient, exactly", "[eq:vanishing-gradients]") {
  // e^(−150) is below the smallest float: softmax rounds this row to exactly (1, 0, 0, 0)
  const auto p = softmax_f({0, -200, -300, -150});
  REQUIRE(p == std::vector<float>{1, 0, 0, 0});
  const auto jac = jacobian_f(p);
  CHECK(std::all_of(jac.begin(), jac.end(), [](float v) { return v == 0; }));
  const auto dp = normals(4, 41, 10.0);  // any upstream gradient
  std::vector<float> dx(4, 1.f);
  softmax_backward_rows(mmat(dx, 1, 4), cmat(p, 1, 4), cmat(dp, 1, 4));
  CHECK(std::all_of(dx.begin(), dx.end(), [](float v) { return v == 0; }));
}

TEST_CASE("the course text's 'gradients' [0.21, 0.21, 0.16, 0.16] for p = [0.3, 0.3, 0.2, 0.2] are J's diagonal, not a gradient",
          "[eq:vanishing-gradients]") {
  const std::vector<float> p{0.3f, 0.3f, 0.2f, 0.2f};
  const auto jac = jacobian_f(p);
  const std::vector<double> text{0.21, 0.21, 0.16, 0.16};
  for (std::size_t i = 0; i < 4; ++i) CHECK(jac[i * 4 + i] == Approx(text[i]).margin(1e-6));
  // the gradient of p₁ with respect to the scores: softmaxBackward with upstream e₁ = J's first column
  std::vector<float> e1{1, 0, 0, 0}, g(4);
  softmax_backward_rows(mmat(g, 1, 4), cmat(p, 1, 4), cmat(e1, 1, 4));
  const std::vector<double> column{0.21, -0.09, -0.06, -0.06};
  double sum = 0;
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(g[j] == Approx(column[j]).margin(1e-6));
    CHECK(g[j] == Approx(jac[j * 4]).margin(1e-7));
    sum += g[j];
  }
  CHECK(std::abs(sum) < 1e-6);  // it moves weight between keys; a shift of all scores does nothing
}

TEST_CASE("unscaled, the mean ‖J‖_F falls like d_k^(−1/2) while the median falls far faster: near ties carry the mean",
          "[stats][eq:vanishing-gradients]") {
  const std::size_t n = 16, rows = 300;
  std::vector<double> dks, means;
  std::vector<float> med_g;
  for (std::size_t dk : {64, 256, 1024}) {
    const Rows r = softmax_rows_at(dk, n, 1.f, rows, 7);
    dks.push_back(double(dk));
    means.push_back(summary_of(r.jacobian).mean);
    auto g = r.nonmax_grad;
    std::nth_element(g.begin(), g.begin() + rows / 2, g.end());
    med_g.push_back(g[rows / 2]);
  }
  // P(gap of the top two < ε) ∝ ε/σ with σ = √d_k: slope −1/2. Each mean has a relative SE of
  // about 0.15 here (a skewed sample of 300); over a 16-fold range of d_k that allows ±0.25.
  CHECK(std::abs(log_slope(dks, means) + 0.5) < 0.25);
  // the median non-max gradient shrinks by far more than the 4× of the mean ∝ d_k^(−1/2) law
  CHECK(med_g[2] < 1e-2 * med_g[0]);
}

// ---------------------------------------------------------------- scaling-choices

TEST_CASE("the scores' variance has log–log slope 1 − 2a under the multiplier d_k^(−a): 1, 0 and −1",
          "[stats][eq:scaling-choices]") {
  const std::size_t n = 16, rows = 200;
  const std::vector<std::size_t> dks{4, 16, 64, 256, 1024};
  for (double a : {0.0, 0.5, 1.0}) {
    std::vector<double> x, v;
    for (std::size_t dk : dks) {
      x.push_back(double(dk));
      v.push_back(summary_of(softmax_rows_at(dk, n, float(std::pow(double(dk), -a)), rows, 9).score_var).mean);
    }
    // each mean within-row variance has relative SE ≈ √(2/(n−1))/√rows ≈ 0.026; over log d_k
    // spread Σ(Δ log d_k)² ≈ 19, the slope's SE ≈ 0.006: ±0.04 is about 7 SE
    INFO("a = " << a);
    CHECK(log_slope(x, v) == Approx(1 - 2 * a).margin(0.04));
  }
}

TEST_CASE("dividing by d_k costs no floating-point accuracy: float softmax of tiny logits is as exact as of unit ones",
          "[eq:scaling-choices]") {
  const std::size_t n = 16, dk = 4096;
  double worst_dk = 0, worst_sqrt = 0, worst_dev = 0;
  for (std::uint64_t r = 0; r < 32; ++r) {
    const auto q = normals(dk, 600 + r), keys = normals(n * dk, 700 + r);
    std::vector<float> s(n);
    matmul_nt(mmat(s, n, 1), cmat(keys, n, dk), cmat(q, 1, dk));
    for (auto [c, worst] : {std::pair{1.f / dk, &worst_dk}, std::pair{1.f / 64, &worst_sqrt}}) {
      std::vector<float> x(n);
      std::transform(s.begin(), s.end(), x.begin(), [c = c](float v) { return v * c; });
      const auto p = softmax_f(x);
      const auto ref = softmax_d(x);
      double dev = 0, err = 0;
      for (std::size_t j = 0; j < n; ++j) {
        *worst = std::max(*worst, std::abs(p[j] - ref[j]) / ref[j]);
        err = std::max(err, std::abs(p[j] - ref[j]));
        dev = std::max(dev, std::abs(ref[j] - 1.0 / n));
      }
      if (c == 1.f / dk) worst_dev = std::max(worst_dev, err / dev);
    }
  }
  CHECK(worst_dk <= 16 * kU);    // a few roundings, like the 1/√d_k logits
  CHECK(worst_sqrt <= 16 * kU);
  CHECK(worst_dev < 1e-4);       // the departures from 1/n, which carry the information, are resolved too
}

// ---------------------------------------------------------------- temperature

TEST_CASE("at fixed draws, entropy rises strictly with τ for every row, and the largest weight never rises",
          "[stats][eq:temperature]") {
  const std::size_t dk = 64, n = 16, rows = 500;
  const double root = std::sqrt(double(dk));
  std::vector<Rows> at;
  for (int k = -8; k <= 8; ++k) at.push_back(softmax_rows_at(dk, n, float(1 / (std::pow(2.0, k / 4.0) * root)), rows, 13));
  std::size_t strict = 0, monotone = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    bool s = true, m = true;
    for (std::size_t t = 1; t < at.size(); ++t) {
      s = s && at[t].entropy[r] > at[t - 1].entropy[r];
      m = m && at[t].max_weight[r] <= at[t - 1].max_weight[r];
    }
    strict += s;
    monotone += m;
  }
  CHECK(strict == rows);    // dH/dτ = Var_p(s)/τ³ > 0 unless every score is equal
  CHECK(monotone == rows);  // p_max = 1/Σ e^((s_j − s_max)/τ), every exponent ≤ 0
}

TEST_CASE("the entropy's slope in the temperature is Var_p(s)/τ³, the page's formula, at τ = ½√d_k, √d_k and 2√d_k",
          "[stats][eq:temperature]") {
  // dH/dτ for p = softmax(s/τ): H = log Z − Σ p_j s_j/τ, d(s_j/τ)/dτ = −s_j/τ², so
  // dH/dτ = (Σ p_j s_j² − (Σ p_j s_j)²)/τ³. Against a central difference of the engine's float
  // softmax (entropies summed in double), h = τ/50: truncation O(h²) ≈ 10⁻⁴ relative, rounding
  // ≈ 10⁻⁷/h: within 1%.
  const std::size_t dk = 64, n = 16;
  const double root = std::sqrt(double(dk));
  for (std::uint64_t seed : {3, 4, 5}) {
    const std::vector<float> q = normals(dk, seed), k = normals(n * dk, seed + 100);
    std::vector<double> s(n);
    for (std::size_t j = 0; j < n; ++j)
      s[j] = dot(Vec<const float>{q.data(), dk}, Vec<const float>{k.data() + j * dk, dk});
    const auto entropy = [&](double tau) {
      std::vector<float> x(n);
      for (std::size_t j = 0; j < n; ++j) x[j] = float(s[j] / tau);
      double h = 0;
      for (float p : softmax_f(x)) if (p > 0) h -= double(p) * std::log(double(p));
      return h;
    };
    for (double f : {0.5, 1.0, 2.0}) {
      const double tau = f * root, h = tau / 50;
      std::vector<double> p(n);
      double z = 0, top = *std::max_element(s.begin(), s.end());
      for (std::size_t j = 0; j < n; ++j) z += p[j] = std::exp((s[j] - top) / tau);
      double m1 = 0, m2 = 0;
      for (std::size_t j = 0; j < n; ++j) { p[j] /= z; m1 += p[j] * s[j]; m2 += p[j] * s[j] * s[j]; }
      const double formula = (m2 - m1 * m1) / (tau * tau * tau);
      const double measured = (entropy(tau + h) - entropy(tau - h)) / (2 * h);
      INFO("seed " << seed << ", τ = " << f << "√d_k: measured " << measured << ", Var_p(s)/τ³ " << formula);
      CHECK(formula > 0);
      CHECK(measured == Approx(formula).epsilon(0.01));
    }
  }
}
