// Catch2 claims of the steps-attention steps of the derivation (see web/steps/order.js):
// full-attention, exercises and claims.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "attention.hpp"
#include "sampling.hpp"
#include "stats.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// Double-precision softmax of one row: the reference for the float engine.
std::vector<double> softmax_double(const std::vector<double>& x) {
  const double m = *std::max_element(x.begin(), x.end());
  std::vector<double> p(x.size());
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += p[i] = std::exp(x[i] - m);
  for (double& v : p) v /= s;
  return p;
}

std::vector<float> softmax_float(const std::vector<double>& x) {
  std::vector<float> xf(x.begin(), x.end()), p(x.size());
  softmax_rows(mmat(p, 1, x.size()), cmat(xf, 1, x.size()));
  return p;
}

// ‖J‖_F of J = diag(p) − ppᵀ, entry by entry, in double.
double jacobian_norm(const std::vector<double>& p) {
  const std::size_t n = p.size();
  std::vector<double> jac(n * n);
  softmax_jacobian_ref(mmat(jac, n, n), Vec<const double>{p.data(), n});
  double s = 0;
  for (double v : jac) s += v * v;
  return std::sqrt(s);
}

// Float softmax rounding: exp to a few ulps, n additions, one division. 16 unit roundoffs of
// the largest weight bounds it with room to spare for n <= 8.
constexpr double kSoftmaxTol = 16 * kU;

}  // namespace

// ---------------------------------------------------------------------------- full-attention

TEST_CASE("causal attention: output rows 1…i never see keys or values after i, and row 1 is v₁ at every scale",
          "[attention][eq:full-attention]") {
  const std::size_t n = 8, dv = 3;
  const std::size_t dk = GENERATE(4, 64);
  const float scale = GENERATE(1.f, 0.f);  // 0 stands for 1/√d_k
  const float s = scale == 0.f ? 1 / std::sqrt(float(dk)) : scale;
  const auto q = normals(n * dk, 80), k = normals(n * dk, 81), v = normals(n * dv, 82);
  Mask causal;
  causal.causal = true;
  std::vector<float> out(n * dv), w(n * n);
  attention_forward(mmat(out, n, dv), mmat(w, n, n), cmat(q, n, dk), cmat(k, n, dk), cmat(v, n, dv), s, causal);
  for (std::size_t c = 0; c < dv; ++c) CHECK(out[c] == v[c]);  // exactly: weight e^s/e^s = 1
  // Redraw keys and values m…n−1: rows 0…m−1 must not move by a single bit, and later rows do.
  const std::size_t m = 3;
  auto k2 = k, v2 = v;
  const auto fresh_k = normals(n * dk, 83), fresh_v = normals(n * dv, 84);
  std::copy(fresh_k.begin() + m * dk, fresh_k.end(), k2.begin() + m * dk);
  std::copy(fresh_v.begin() + m * dv, fresh_v.end(), v2.begin() + m * dv);
  std::vector<float> out2(n * dv), w2(n * n);
  attention_forward(mmat(out2, n, dv), mmat(w2, n, n), cmat(q, n, dk), cmat(k2, n, dk), cmat(v2, n, dv), s, causal);
  for (std::size_t i = 0; i < m * dv; ++i) REQUIRE(out2[i] == out[i]);
  for (std::size_t i = 0; i < m * n; ++i) REQUIRE(w2[i] == w[i]);
  double moved = 0;
  for (std::size_t i = m * dv; i < n * dv; ++i) moved = std::max(moved, double(std::abs(out2[i] - out[i])));
  CHECK(moved > 1e-3);  // the later rows do depend on what was redrawn
}

TEST_CASE("on the same draws every attention row gets flatter as the temperature grows: τ = 1, ½√d_k, √d_k, 2√d_k",
          "[attention][eq:full-attention][eq:exercises]") {
  // For fixed scores s, max softmax(s/τ) falls and its entropy rises with τ (dH/d(1/τ) = −Var_p(s)/τ ≤ 0),
  // row by row; τ = 1 is the unscaled layer, τ = √d_k the scaled one.
  const std::size_t n = 8, dk = 64, dv = 2, rows = 500;
  const double root = std::sqrt(double(dk));
  const auto q = normals(rows * dk, 90), k = normals(n * dk, 91), v = normals(n * dv, 92);
  std::vector<std::vector<float>> max(4, std::vector<float>(rows)), entropy(4, std::vector<float>(rows));
  const double taus[] = {1, 0.5 * root, root, 2 * root};
  for (int t = 0; t < 4; ++t) {
    std::vector<float> out(rows * dv), w(rows * n);
    attention_forward(mmat(out, rows, dv), mmat(w, rows, n), cmat(q, rows, dk), cmat(k, n, dk), cmat(v, n, dv),
                      float(1 / taus[t]));
    row_max(Vec<float>{max[t].data(), rows}, cmat(w, rows, n));
    row_entropy(Vec<float>{entropy[t].data(), rows}, cmat(w, rows, n));
  }
  // float rounding of weights and of p·log p: well below 1e-5 for n = 8
  for (int t = 1; t < 4; ++t)
    for (std::size_t r = 0; r < rows; ++r) {
      INFO("τ index " << t << ", row " << r);
      REQUIRE(max[t][r] <= max[t - 1][r] + 1e-6f);
      REQUIRE(entropy[t][r] >= entropy[t - 1][r] - 1e-5f);
    }
  // and not by a hair: the unscaled rows are far more peaked on average (500 rows: SE of each mean < 0.01)
  const auto mean = [&](const std::vector<float>& x) { return std::accumulate(x.begin(), x.end(), 0.0) / rows; };
  CHECK(mean(max[0]) - mean(max[2]) > 0.3);
  CHECK(mean(entropy[2]) - mean(entropy[0]) > 1.0);
}

// ---------------------------------------------------------------------------- exercises

TEST_CASE("exercise 2: softmax(x, 0, 0, 0) puts e^x/(e^x + 3) on x and first exceeds t at x = ln(3t/(1 − t))",
          "[softmax][eq:exercises]") {
  for (double x : {0.0, 0.5, 1.0, 2.0, 3.3, 5.0, 5.7, 8.0, 10.0, 20.0, 50.0}) {
    const auto p = softmax_float({x, 0, 0, 0});
    const double top = std::exp(x) / (std::exp(x) + 3), rest = 1 / (std::exp(x) + 3);
    INFO("x = " << x);
    CHECK(std::abs(p[0] - top) <= kSoftmaxTol);
    for (int j = 1; j < 4; ++j) CHECK(std::abs(p[j] - rest) <= kSoftmaxTol * rest + 1e-45);  // relative: rest is tiny at x = 50
  }
  // the saturation point on the page's grid (step 0.01) is the closed form rounded up to the grid
  const double step = 0.01;
  std::vector<float> logits(4 * 1001, 0.f), p(4 * 1001);
  for (int i = 0; i <= 1000; ++i) logits[4 * i] = float(i * step);
  softmax_rows(mmat(p, 1001, 4), cmat(logits, 1001, 4));
  for (double t : {0.5, 0.9, 0.99, 0.999}) {
    int first = 0;
    while (first <= 1000 && !(p[4 * first] > t)) ++first;
    const double closed = std::log(3 * t / (1 - t));
    INFO("t = " << t);
    REQUIRE(first <= 1000);
    CHECK(first * step >= closed - 1e-4);   // not before the closed form (float rounding of p)
    CHECK(first * step < closed + step);    // and within one grid step after it
  }
}

TEST_CASE("exercise 1: the std of unscaled q·k at d_k = 512 is √512, not the variance 512 nor √64",
          "[stats][eq:exercises]") {
  const std::size_t dk = 512, n = 4000;
  std::vector<float> s(n);
  sample_dot_products(Vec<float>{s.data(), n}, dk, 512, {});
  const Summary m = summarize(moments_of(Vec<const float>{s.data(), n}));
  const double sd = std::sqrt(m.variance), se = m.variance_se / (2 * sd);  // delta method
  INFO("std = " << sd << ", SE = " << se);
  CHECK(std::abs(sd - std::sqrt(512.0)) < 5 * se);
  CHECK(std::abs(sd - 512) > 100 * se);
  CHECK(std::abs(sd - 8) > 20 * se);
}

TEST_CASE("exercise 5: the uniform softmax Jacobian has ‖J‖_F = √(n − 1)/n, and a peaked one is far smaller and shrinks with the peak",
          "[kernels][eq:exercises][eq:vanishing-gradients]") {
  for (std::size_t n : {2, 4, 16}) {
    const std::vector<double> uniform(n, 1.0 / n);
    CHECK(jacobian_norm(uniform) == Approx(std::sqrt(n - 1.0) / n).epsilon(1e-12));
  }
  // p = softmax(x, 0, 0, 0): the closed form the page shows, ‖J‖² = Σp² − 2Σp³ + (Σp²)²
  double last = jacobian_norm({0.25, 0.25, 0.25, 0.25});
  for (int x = 1; x <= 10; ++x) {
    const auto p = softmax_double({double(x), 0, 0, 0});
    double s2 = 0, s3 = 0;
    for (double v : p) { s2 += v * v; s3 += v * v * v; }
    const double norm = jacobian_norm(p);
    INFO("x = " << x);
    // Σp² ≈ 1 here, so the closed form cancels: its absolute error is a few ε on ‖J‖², not relative
    CHECK(norm * norm == Approx(s2 - 2 * s3 + s2 * s2).margin(16 * 0x1.0p-52));
    CHECK(norm < last);
    last = norm;
  }
  CHECK(jacobian_norm(softmax_double({6, 0, 0, 0})) < 0.05 * std::sqrt(3.0) / 4);
}

// ---------------------------------------------------------------------------- claims

TEST_CASE("001's [0.09, 0.24, 0.67] is softmax(0, 1, 2), not softmax(100, 102, 103), and its [0.30, 0.33, 0.37] is softmax(0, 0.1, 0.2)",
          "[softmax][eq:claims]") {
  const auto big = softmax_float({100, 102, 103});
  const auto ref = softmax_double({0, 2, 3});
  for (int i = 0; i < 3; ++i) CHECK(std::abs(big[i] - ref[i]) <= kSoftmaxTol);
  const double stated[] = {0.09, 0.24, 0.67};
  const auto alt = softmax_double({0, 1, 2});
  for (int i = 0; i < 3; ++i) CHECK(std::abs(alt[i] - stated[i]) <= 0.005);  // rounds to the stated figures
  CHECK(std::abs(big[0] - stated[0]) > 0.05);
  const double balanced[] = {0.30, 0.33, 0.37};
  const auto tenth = softmax_double({0, 0.1, 0.2}), actual = softmax_double({10.0, 10.2, 10.3});
  for (int i = 0; i < 3; ++i) CHECK(std::abs(tenth[i] - balanced[i]) <= 0.005);
  CHECK(std::abs(actual[0] - balanced[0]) > 0.015);
}

TEST_CASE("002's saturated example cannot be [0.99, …, 0.01]: the weights of 8.5 and 7.9 stay in the ratio e^0.6",
          "[softmax][eq:claims]") {
  // whatever the hidden entries "..." are
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto extra = widen(normals(5, 100 + seed, 4.0));
    std::vector<double> x{8.5, -2.1, 7.9};
    x.insert(x.end(), extra.begin(), extra.end());
    const auto p = softmax_float(x);
    CHECK(double(p[0]) / p[2] == Approx(std::exp(0.6)).epsilon(1e-5));
    CHECK(p[0] <= std::exp(0.6) / (1 + std::exp(0.6)) + 1e-6);  // its ceiling when the rest vanish
  }
  CHECK(std::exp(0.6) / (1 + std::exp(0.6)) < 0.99);
}

TEST_CASE("002's unscaled five-score example is right to three decimals, and its scaled one is not a softmax",
          "[softmax][eq:claims]") {
  const auto p = softmax_float({9.2, -3.1, 8.8, -5.4, 1.2});
  const double stated[] = {0.599, 0.000, 0.401, 0.000, 0.000};
  for (int i = 0; i < 5; ++i) CHECK(std::abs(p[i] - stated[i]) <= 0.0005);
  const auto q = softmax_float({1.15, -0.39, 1.10, -0.68, 0.15});
  const double scaled[] = {0.31, 0.07, 0.30, 0.05, 0.12};
  CHECK(std::accumulate(std::begin(scaled), std::end(scaled), 0.0) < 0.9);  // the stated weights miss 1
  CHECK(std::accumulate(q.begin(), q.end(), 0.0) == Approx(1).epsilon(1e-6));
  CHECK(std::abs(q[0] - scaled[0]) > 0.05);
}

TEST_CASE("003's worry is unfounded: float softmax of q·k/d_k is as accurate as of q·k/√d_k",
          "[softmax][eq:claims]") {
  const std::size_t dk = 64, n = 8, rows = 64;
  const auto q = normals(rows * dk, 110), k = normals(n * dk, 111);
  auto worst = [&](float scale) {
    std::vector<float> s(rows * n), p(rows * n);
    matmul_nt(mmat(s, rows, n), cmat(q, rows, dk), cmat(k, n, dk));
    attnlab::scale(mmat(s, rows, n), cmat(s, rows, n), scale);
    softmax_rows(mmat(p, rows, n), cmat(s, rows, n));
    double e = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const auto ref = softmax_double(std::vector<double>(s.begin() + r * n, s.begin() + (r + 1) * n));
      for (std::size_t j = 0; j < n; ++j) e = std::max(e, std::abs(p[r * n + j] - ref[j]) / ref[j]);
    }
    return e;
  };
  CHECK(worst(1.f / dk) <= kSoftmaxTol);
  CHECK(worst(1.f / 8) <= kSoftmaxTol);
}
