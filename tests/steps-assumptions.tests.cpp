// Catch2 claims of the steps-assumptions steps of the derivation (see web/steps/order.js):
// shift-vs-scale, initialization, breaking-assumptions.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "rng.hpp"
#include "sampling.hpp"
#include "stats.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

const float kFltMax = std::numeric_limits<float>::max();

// float32 bit patterns as integers in the order of the values; ulps(a, b) counts the floats
// between a and b (0 when equal).
std::int64_t ordered(float x) {
  std::int32_t i;
  std::memcpy(&i, &x, sizeof i);
  return i >= 0 ? std::int64_t(i) : -std::int64_t(0x80000000LL) - i;
}
std::int64_t ulps(float a, float b) { return std::llabs(ordered(a) - ordered(b)); }

using RowKernel = void (*)(Mat<float>, Mat<const float>);

std::vector<float> rowwise(RowKernel k, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  k(mmat(y, 1, x.size()), cmat(x, 1, x.size()));
  return y;
}

void naive_ref(Mat<float> o, Mat<const float> x) { softmax_naive_rows_ref<float>(o, x); }

bool all_finite(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

// The largest float32 in [lo, hi] for which ok() holds (ok(lo) true, ok(hi) false), by bisection
// over the ordered bit patterns of positive floats.
template <class F>
float largest_float_where(F ok, float lo, float hi) {
  std::int32_t a, b;
  std::memcpy(&a, &lo, 4);
  std::memcpy(&b, &hi, 4);
  while (b - a > 1) {
    const std::int32_t m = a + (b - a) / 2;
    float x;
    std::memcpy(&x, &m, 4);
    (ok(x) ? a : b) = m;
  }
  float x;
  std::memcpy(&x, &a, 4);
  return x;
}

Summary summary_of(const std::vector<float>& v) { return summarize(moments_of(Vec<const float>{v.data(), v.size()})); }

Summary dots_summary(std::size_t dk, std::size_t n, std::uint64_t seed, const Distribution& d, const PairOptions& pair = {}) {
  std::vector<float> s(n);
  sample_dot_products(Vec<float>{s.data(), n}, dk, seed, d, 0, pair);
  return summary_of(s);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// (eq:shift-vs-scale)

TEST_CASE("softmax of a row minus its max equals softmax of the row within 2 ulp", "[softmax][eq:shift-vs-scale]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const double spread = GENERATE(0.5, 3.0, 20.0);
  const float offset = GENERATE(0.f, 95.f, -300.f, 1.0e4f);
  std::vector<float> x = normals(n, 31 + n, spread);
  for (float& v : x) v += offset;
  float m = x[0];
  for (float v : x) m = std::max(m, v);
  std::vector<float> shifted(x);
  for (float& v : shifted) v -= m;
  const auto p = rowwise(softmax_rows, x), q = rowwise(softmax_rows, shifted);
  // Equal in exact arithmetic. In float the engine subtracts the row max itself, so both calls
  // exponentiate the same rounded differences fl(x_j − m): in practice bit for bit.
  for (std::size_t j = 0; j < n; ++j) REQUIRE(ulps(p[j], q[j]) <= 2);
}

TEST_CASE("the naive softmax overflows exactly above ln(FLT_MAX): finite on the largest float below, NaN on the next",
          "[softmax][eq:shift-vs-scale]") {
  const double t = std::log(double(kFltMax));   // ln FLT_MAX, between two floats
  float below = float(t);
  if (double(below) > t) below = std::nextafter(below, 0.f);
  const float above = std::nextafter(below, kFltMax);
  REQUIRE(double(below) < t);
  REQUIRE(double(above) > t);
  // the scalar reference twin (std::exp), and a lone logit in the SIMD kernel (its scalar tail)
  for (RowKernel k : {naive_ref, softmax_naive_rows}) {
    CHECK(rowwise(k, {below})[0] == Approx(1.0).epsilon(4 * kU));
    CHECK(std::isnan(rowwise(k, {above})[0]));
  }
  // the stable softmax does not care
  CHECK(rowwise(softmax_rows, {above})[0] == 1.f);
}

TEST_CASE("inside a SIMD batch the naive softmax fails exactly where exp leaves float32, just above ln(FLT_MAX)",
          "[softmax][eq:shift-vs-scale]") {
  // A row of one full batch: x in lane 0, e^−1000 = 0 in the others, so the sum is e^x alone.
  const std::size_t w = std::max<std::size_t>(simd_width(), 2);
  auto ok = [&](float x) {
    std::vector<float> row(2 * w, -1000.f);
    row[0] = x;
    return all_finite(rowwise(softmax_naive_rows, row));
  };
  const float largest = largest_float_where(ok, 64.f, 128.f);
  // t: the largest float whose e^t rounds to a finite float. The engine's batch exp overflows
  // exactly there, as std::exp does (xsimd 8.1's own exp saturated at 88.376, 0.35 early, and a
  // batch and the scalar tail then disagreed on the logits between)
  float t = std::log(kFltMax);
  while (!std::isfinite(float(std::exp(double(t))))) t = std::nextafter(t, 0.f);
  while (std::isfinite(float(std::exp(double(std::nextafter(t, 100.f)))))) t = std::nextafter(t, 100.f);
  INFO("largest finite logit in a batch: " << largest << ", in float: " << t);
  CHECK(largest == t);
  CHECK(double(largest) < std::log(double(kFltMax)) + 1e-5);
  CHECK(!ok(std::nextafter(largest, kFltMax)));
}

TEST_CASE("the naive softmax also fails when only the sum overflows: every weight becomes 0",
          "[softmax][eq:shift-vs-scale]") {
  // 8 logits at ln FLT_MAX − 1: each e^x ≈ FLT_MAX/e is finite, their sum ≈ 2.9·FLT_MAX is not.
  const float x = float(std::log(double(kFltMax)) - 1);
  const std::vector<float> row(8, x);
  const auto naive = rowwise(softmax_naive_rows, row);
  for (float v : naive) CHECK(v == 0.f);
  for (float v : rowwise(softmax_rows, row)) CHECK(v == Approx(0.125).epsilon(4 * kU));
}

TEST_CASE("rows with equal differences have equal softmax, rows with equal ratios do not", "[softmax][eq:shift-vs-scale]") {
  const std::vector<float> row{100, 102, 103};
  const auto p = rowwise(softmax_rows, row);
  // same gaps (2, 1), unrelated ratios: the same weights (every value here is exact in float)
  for (const std::vector<float>& same_gaps : {std::vector<float>{3, 5, 6}, {-3, -1, 0}, {1000, 1002, 1003}}) {
    const auto q = rowwise(softmax_rows, same_gaps);
    for (std::size_t j = 0; j < 3; ++j) CHECK(ulps(p[j], q[j]) <= 2);
  }
  // same ratios (102/100 = 10.2/10), gaps divided by 10: other weights, by far more than rounding
  const auto r = rowwise(softmax_rows, {10.f, 10.2f, 10.3f});
  CHECK(r[0] > p[0] + 0.2);   // e^−3/Σ ≈ 0.035 against e^−0.3/Σ ≈ 0.28
  CHECK(r[2] < p[2] - 0.2);
  // and in general: scaling a random row changes its weights, shifting it does not
  const auto x = normals(16, 33, 2.0);
  std::vector<float> scaled(x), shifted(x);
  for (float& v : scaled) v *= 0.5f;
  for (float& v : shifted) v += 7.f;
  const auto px = rowwise(softmax_rows, x), ps = rowwise(softmax_rows, scaled), pt = rowwise(softmax_rows, shifted);
  double moved = 0;
  for (std::size_t j = 0; j < x.size(); ++j) {
    moved = std::max(moved, double(std::abs(px[j] - ps[j])));
    // x + 7 rounds each logit by ≤ ½ulp(|x| + 7) ≤ 2⁻²¹, which moves e^(x − m) by that much relative
    CHECK(std::abs(px[j] - pt[j]) <= (2 * 0x1.0p-21 + 20 * kU) * px[j]);
  }
  CHECK(moved > 0.01);
}

TEST_CASE("the blog post's weights are the softmax of [101, 102, 103] and [10.1, 10.2, 10.3], not of the rows it names",
          "[softmax][eq:shift-vs-scale]") {
  auto rounded = [](std::vector<float> p) {
    for (float& v : p) v = float(std::round(v * 100) / 100);
    return p;
  };
  const std::vector<float> first{0.09f, 0.24f, 0.67f}, second{0.30f, 0.33f, 0.37f};  // as the post states them
  CHECK(rounded(rowwise(softmax_rows, {101, 102, 103})) == first);
  CHECK(rounded(rowwise(softmax_rows, {10.1f, 10.2f, 10.3f})) == second);
  CHECK(rounded(rowwise(softmax_rows, {100, 102, 103})) != first);
  CHECK(rounded(rowwise(softmax_rows, {10.f, 10.2f, 10.3f})) != second);
}

// ---------------------------------------------------------------------------------------------
// (eq:initialization)

namespace {

struct Projected { Summary q, score; };

// n tokens with N(0, 1) entries, W_Q and W_K (d_model × d_k) with entries of variance var_w from
// `kind`; q_t = W_Qᵀx_t, k_t = W_Kᵀx_{t+1}; returns the summaries of q and q·k/√d_k.
Projected project(std::size_t dmodel, std::size_t dk, double var_w, Dist kind, std::size_t n, std::uint64_t seed) {
  std::vector<float> x((n + 1) * dmodel), wq(dmodel * dk), wk(dmodel * dk), q(n * dk), k(n * dk), s(n);
  Rng rx(seed, 0), rq(seed, 1), rk(seed, 2);
  fill(Vec<float>{x.data(), x.size()}, rx, {});
  fill(Vec<float>{wq.data(), wq.size()}, rq, {kind, 0, std::sqrt(var_w)});
  fill(Vec<float>{wk.data(), wk.size()}, rk, {kind, 0, std::sqrt(var_w)});
  matmul_nn(mmat(q, n, dk), Mat<const float>{x.data(), n, dmodel}, cmat(wq, dmodel, dk));
  matmul_nn(mmat(k, n, dk), Mat<const float>{x.data() + dmodel, n, dmodel}, cmat(wk, dmodel, dk));
  const Mat<const float> Q{q.data(), n, dk}, K{k.data(), n, dk};
  for (std::size_t t = 0; t < n; ++t) s[t] = dot(Q.row_vec(t), K.row_vec(t)) / std::sqrt(float(dk));
  return {summary_of(q), summary_of(s)};
}

}  // namespace

TEST_CASE("every rule gives Var(q·k/√d_k) = (d_model·σ_W²)²: Glorot on 512→64 (2·512/576)², not 1, and LeCun 1",
          "[stats][eq:initialization]") {
  struct Case { const char* name; std::size_t dk; double var_w; Dist kind; };
  const std::size_t d = 512;
  const Case c = GENERATE_COPY(
      Case{"Glorot uniform, one head", 64, 2.0 / (512 + 64), Dist::uniform},
      Case{"Glorot uniform, all heads (fan-out d_model)", 64, 2.0 / (512 + 512), Dist::uniform},
      Case{"Glorot uniform, packed Q, K, V (fan-out 3·d_model)", 64, 2.0 / (512 + 3 * 512), Dist::uniform},
      Case{"Glorot normal, one head", 64, 2.0 / (512 + 64), Dist::normal},
      Case{"LeCun normal", 64, 1.0 / 512, Dist::normal},
      Case{"He normal", 64, 2.0 / 512, Dist::normal},
      Case{"custom σ = 0.02 (GPT-2's): Var(q·k/√d_k) = (512·0.02²)² ≈ 0.042", 64, 0.02 * 0.02, Dist::normal},
      Case{"Glorot uniform at d_k = 128", 128, 2.0 / (512 + 128), Dist::uniform});
  INFO(c.name);
  const std::size_t n = 3000;
  const Projected r = project(d, c.dk, c.var_w, c.kind, n, 41);
  const double sq = d * c.var_w;  // σ_q² = d_model·σ_W²
  // Tolerance: 5 standard errors of the sample variance over tokens, plus 5 SDs of the weights'
  // own draw: given W, Var(q_i) = ‖W_:i‖², whose mean over the d_k columns has relative SD
  // √(r/(d_model·d_k)), r = Var(w²)/E[w²]² (2 normal, 4/5 uniform); Var(q·k) twice that.
  const double r_w = c.kind == Dist::normal ? 2.0 : 0.8;
  const double rel_w = std::sqrt(r_w / double(d * c.dk));
  CHECK(std::abs(r.q.variance - sq) < 5 * std::hypot(r.q.variance_se, sq * rel_w));
  CHECK(std::abs(r.score.variance - sq * sq) < 5 * std::hypot(r.score.variance_se, sq * sq * 2 * rel_w));
  if (c.var_w == 2.0 / (512 + 64)) {
    CHECK(sq * sq == Approx(std::pow(2.0 * 512 / 576, 2)));
    CHECK(r.score.variance - 1 > 10 * r.score.variance_se);  // far from unit variance
  }
}

// ---------------------------------------------------------------------------------------------
// (eq:breaking-assumptions): the formulas at several d_k (tests/derivation.tests.cpp checks
// them at one d_k). Each check: |measured − formula| < 5 SE, the SE from the sample's 4th moment.

TEST_CASE("with entry mean μ, Var(q·k)/d_k = 1 + 2μ² at every d_k and E[q·k/√d_k] = √d_k·μ² grows",
          "[stats][eq:breaking-assumptions]") {
  const std::size_t dk = GENERATE(4, 128, 512);
  const double mu = 0.75, n = 20000;
  const Summary s = dots_summary(dk, std::size_t(n), 51 + dk, {Dist::normal, mu, 1.0});
  const double d = double(dk);
  CHECK(std::abs(s.mean - d * mu * mu) < 5 * std::sqrt(s.variance / n));
  CHECK(std::abs(s.variance - d * (1 + 2 * mu * mu)) < 5 * s.variance_se);
  CHECK(s.variance / d - 1 > 5 * s.variance_se / d);  // 1/√d_k does not normalise
}

TEST_CASE("with correlation ρ between q_i and k_i, Var(q·k)/d_k = 1 + ρ² at every d_k and the mean is d_k·ρ",
          "[stats][eq:breaking-assumptions]") {
  const std::size_t dk = GENERATE(4, 128, 512);
  const double rho = 0.5, n = 20000;
  const Summary s = dots_summary(dk, std::size_t(n), 52 + dk, {}, {rho, false});
  const double d = double(dk);
  CHECK(std::abs(s.mean - d * rho) < 5 * std::sqrt(s.variance / n));
  CHECK(std::abs(s.variance - d * (1 + rho * rho)) < 5 * s.variance_se);
  CHECK(s.variance / d - 1 > 5 * s.variance_se / d);
}

TEST_CASE("LayerNorm'd q and k have Var(q·k) = d_k²/(d_k − 1) at every d_k", "[stats][eq:breaking-assumptions]") {
  const std::size_t dk = GENERATE(3, 16, 256);
  const std::size_t n = 20000;
  const Summary s = dots_summary(dk, n, 53 + dk, {}, {0, true});
  const double d = double(dk);
  CHECK(std::abs(s.mean) < 5 * std::sqrt(s.variance / n));
  CHECK(std::abs(s.variance - d * d / (d - 1)) < 5 * s.variance_se);
}

TEST_CASE("LayerNorm of a constant vector is 0, not 0/0: Rademacher pairs at d_k = 2 give finite dot products",
          "[stats][eq:breaking-assumptions]") {
  // at d_k = 2 half the Rademacher vectors are constant ((1, 1) or (−1, −1)): std 0
  std::vector<float> out(400);
  sample_dot_products(Vec<float>{out.data(), out.size()}, 2, 9, Distribution{Dist::rademacher, 0, 1}, 0, {0, true});
  std::size_t zeros = 0;
  for (float v : out) {
    REQUIRE(std::isfinite(v));
    zeros += v == 0;
  }
  // q·k is 0 whenever q or k is constant: probability 1 − 1/4 = 3/4; else ±2
  CHECK(zeros > out.size() / 2);
}

TEST_CASE("Student-t entries keep Var(q·k) = d_k at every d_k, with an interval as wide as the kurtosis 3 + (m₄² − 3)/d_k predicts",
          "[stats][eq:breaking-assumptions]") {
  const std::size_t dk = GENERATE(4, 64, 256);
  const int df = 10;
  const std::size_t n = dk == 4 ? 40000 : dk == 64 ? 10000 : 4000;
  const Summary s = dots_summary(dk, n, 54 + dk, {Dist::student_t, 0, 1, df});
  const double d = double(dk);
  CHECK(std::abs(s.variance - d) < 5 * s.variance_se);
  // SE(s²) = σ²·√((κ − 1)/n). Over 12 seeds at d_k = 4 and n = 40000 the measured/normal ratio
  // was 1.23 ± 0.03, the formula 1.22, so 0.15 is five of those SDs; at d_k = 64 it was
  // 1.02 ± 0.01 (twice that at the n used here), and both ratios approach 1 as d_k grows.
  const double m4 = 3.0 * (df - 2) / (df - 4);
  const double se_t = d * std::sqrt((2 + (m4 * m4 - 3) / d) / n), se_normal = d * std::sqrt((2 + 6 / d) / n);
  CHECK(s.variance_se / se_normal == Approx(se_t / se_normal).margin(0.15));
  if (dk == 4) CHECK(s.variance_se > 1.1 * se_normal);
}
