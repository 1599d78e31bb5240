// Softmax: what it preserves, where the naive formula breaks, and what IEEE inputs give.
#include <catch2/catch.hpp>

#include <cstring>
#include <iterator>
#include <limits>

#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {
const float kInf = std::numeric_limits<float>::infinity();

std::vector<float> softmax_of(std::vector<float> x, void (*k)(Mat<float>, Mat<const float>) = softmax_rows) {
  std::vector<float> y(x.size());
  k(mmat(y, 1, x.size()), cmat(x, 1, x.size()));
  return y;
}
}  // namespace

TEST_CASE("softmax rows sum to 1", "[softmax][eq:softmax-saturation]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const double spread = GENERATE(0.1, 1.0, 8.0, 64.0);  // std of the logits: from flat to one-hot
  const auto p = softmax_of(normals(n, 20, spread));
  double s = 0;
  for (float v : p) { REQUIRE(v >= 0.f); REQUIRE(v <= 1.f); s += v; }
  // each p_j carries ≲ (n + 4)·u relative error (sum, exp, division); they add to 1·(1 ± that)
  CHECK(std::abs(s - 1) <= (n + 4) * kU);
}

TEST_CASE("softmax is unchanged by adding a constant to every logit", "[softmax][eq:shift-vs-scale]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const auto x = normals(n, 21, 3.0);
  const float c = GENERATE(-1000.f, -37.5f, 0.25f, 50.f, 1000.f);
  std::vector<float> shifted(x);
  for (float& v : shifted) v += c;
  const auto p = softmax_of(x), q = softmax_of(shifted);
  // Exactly equal in real arithmetic; in float, x + c rounds each logit by ≤ ½ulp(|x|+|c|), which
  // changes exp(x − m) by that much relative: |c| = 1000 gives ~6e-5·|Δ|.
  const double tol = (n + 4) * kU + 2 * kU * (std::abs(c) + 16);
  for (std::size_t j = 0; j < n; ++j) REQUIRE(std::abs(p[j] - q[j]) <= tol * std::max(p[j], q[j]) + 1e-38);
}

TEST_CASE("max subtraction keeps softmax finite for logits in [90, 100], where the naive one overflows",
          "[softmax][eq:shift-vs-scale]") {
  // exp(x) > FLT_MAX ≈ 3.4e38 for x > ln(FLT_MAX) ≈ 88.72, so the naive numerator is +inf.
  std::vector<float> x(17);
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = 90.f + 10.f * j / (x.size() - 1);
  const auto naive = softmax_of(x, softmax_naive_rows);
  const auto stable = softmax_of(x);
  bool naive_broke = false;
  for (float v : naive) naive_broke |= !std::isfinite(v);
  CHECK(naive_broke);
  double s = 0;
  for (float v : stable) { REQUIRE(std::isfinite(v)); s += v; }
  CHECK(std::abs(s - 1) <= 32 * kU);
  // the same logits shifted down by 90 are safe for both, and the stable one agrees with them
  std::vector<float> low(x);
  for (float& v : low) v -= 90.f;
  const auto naive_low = softmax_of(low, softmax_naive_rows);
  for (std::size_t j = 0; j < x.size(); ++j) CHECK(std::abs(stable[j] - naive_low[j]) <= 64 * kU * naive_low[j]);
}

TEST_CASE("the naive softmax breaks only by overflow: logits all far below 0 still give finite weights that sum to 1",
          "[softmax][eq:shift-vs-scale]") {
  // every e^x_j is tiny (e^−95 ≈ 5.5e−42, a subnormal), but their quotients are not: the naive
  // formula divides one small number by a sum of them. (The SIMD kernel multiplied by 1/s, which
  // is +inf for s < 2⁻¹²⁸: it gave inf for [−90] and [−100, −100].)
  for (const std::vector<float>& x : std::vector<std::vector<float>>{
           {-90.f}, {-100.f, -100.f}, std::vector<float>(8, -95.f), std::vector<float>(13, -88.f),
           {-100.f, -99.f, -98.f, -97.f, -96.f, -95.f, -94.f, -93.f, -92.f}}) {
    const auto simd = softmax_of(x, softmax_naive_rows);
    std::vector<float> ref(x.size());
    softmax_naive_rows_ref<float>(mmat(ref, 1, x.size()), cmat(x, 1, x.size()));
    double s = 0, denominator = 0;
    for (float v : x) denominator += std::exp(double(v));
    // a subnormal numerator is rounded to a step of 2⁻¹⁴⁹, not relative to its size: each batch
    // and tail exp may land one step from std::exp's, a weight 2⁻¹⁴⁹/Σ e^x_k from the twin's
    const double step = std::numeric_limits<float>::denorm_min() / denominator;
    for (std::size_t j = 0; j < x.size(); ++j) {
      REQUIRE(std::isfinite(simd[j]));
      CHECK(std::abs(simd[j] - ref[j]) <= 8 * kU * ref[j] + 2 * step);
      s += simd[j];
    }
    CHECK(std::abs(s - 1) <= 8 * kU * x.size() + 2 * step * x.size());
  }
}

TEST_CASE("log-softmax stays finite where softmax underflows to 0", "[softmax][eq:shift-vs-scale]") {
  std::vector<float> x{0.f, -200.f}, y(2);
  log_softmax_rows(mmat(y, 1, 2), cmat(x, 1, 2));
  CHECK(softmax_of(x)[1] == 0.f);  // exp(−200) < the smallest float subnormal
  CHECK(y[1] == Approx(-200.0).margin(1e-4));
  CHECK(y[0] == Approx(0.0).margin(1e-6));
}

TEST_CASE("the row-wise softmax kernels may write over their input: in place equals out of place, bit for bit",
          "[softmax][eq:shift-vs-scale]") {
  // (rows_pipelined reads row i+1 while it writes row i; log-softmax reads row i again after its
  // sum, so its pass 2 stores nothing)
  for (const std::size_t n : sizes_around_width()) {
    const std::size_t rows = 3;
    const auto x = normals(rows * n, 500 + n, 4.0);
    using Kernel = void (*)(Mat<float>, Mat<const float>);
    const Kernel kernels[] = {
        [](Mat<float> o, Mat<const float> i) { softmax_rows(o, i); },
        [](Mat<float> o, Mat<const float> i) { log_softmax_rows(o, i); },
        [](Mat<float> o, Mat<const float> i) { softmax_scaled_rows(o, i, 0.125f); },
        [](Mat<float> o, Mat<const float> i) { softmax_scaled_rows(o, i, -2.f); }};
    for (std::size_t k = 0; k < std::size(kernels); ++k) {
      std::vector<float> apart(x.size()), inplace(x);
      kernels[k](mmat(apart, rows, n), cmat(x, rows, n));
      kernels[k](mmat(inplace, rows, n), cmat(inplace, rows, n));
      INFO("kernel " << k << ", n = " << n);
      CHECK(std::memcmp(apart.data(), inplace.data(), x.size() * sizeof(float)) == 0);
    }
  }
}

// The standalone softmax follows IEEE-754 with no special cases, like torch.softmax and the ONNX
// reference: these are documented results, and attention (not softmax) guards masked rows.
TEST_CASE("softmax follows IEEE for infinite and NaN logits", "[softmax][ieee]") {
  SECTION("−inf is a masked logit: weight exactly 0, the rest renormalised") {
    const auto p = softmax_of({1.f, -kInf, 1.f});
    CHECK(p[0] == 0.5f);
    CHECK(p[1] == 0.f);
    CHECK(p[2] == 0.5f);
  }
  SECTION("a row of all −inf is NaN: −inf − (−inf) is undefined") {
    for (float v : softmax_of({-kInf, -kInf, -kInf})) CHECK(std::isnan(v));
  }
  SECTION("a +inf logit makes the row NaN: inf − inf is undefined") {
    for (float v : softmax_of({kInf, 0.f, 1.f})) CHECK(std::isnan(v));
  }
  SECTION("a NaN logit makes the row NaN") {
    for (float v : softmax_of({0.f, std::nanf(""), 1.f, 2.f, 3.f, 4.f})) CHECK(std::isnan(v));
  }
  SECTION("±FLT_MAX: the difference overflows to −inf, exp gives 0, no NaN") {
    const float big = std::numeric_limits<float>::max();
    const auto p = softmax_of({big, -big});
    CHECK(p[0] == 1.f);
    CHECK(p[1] == 0.f);
  }
}

TEST_CASE("unscaled softmax saturates as d_k grows, scaled softmax does not", "[softmax][eq:softmax-saturation]") {
  // One query against n = 16 keys; logits q·k_j with entries N(0, 1). Mean max weight over 200
  // rows: unscaled it climbs toward 1 with d_k, scaled by 1/√d_k it stays put.
  auto mean_max_weight = [](std::size_t dk, bool scaled) {
    const std::size_t n = 16, rows = 200;
    double total = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const auto q = normals(dk, 1000 + r), k = normals(n * dk, 5000 + r);
      std::vector<float> s(n), p(n), mx(1);
      matmul_nt(mmat(s, 1, n), cmat(q, 1, dk), cmat(k, n, dk));
      if (scaled) scale(mmat(s, 1, n), cmat(s, 1, n), 1.f / std::sqrt(float(dk)));
      softmax_rows(mmat(p, 1, n), cmat(s, 1, n));
      row_max(Vec<float>{mx.data(), 1}, cmat(p, 1, n));
      total += mx[0];
    }
    return total / rows;
  };
  const double u4 = mean_max_weight(4, false), u64 = mean_max_weight(64, false), u512 = mean_max_weight(512, false);
  const double s4 = mean_max_weight(4, true), s512 = mean_max_weight(512, true);
  CHECK(u4 < u64);
  CHECK(u64 < u512);
  CHECK(u512 > 0.85);                  // near one-hot
  CHECK(s512 < 0.5);                   // still spread over several keys
  CHECK(std::abs(s512 - s4) < 0.08);   // and independent of d_k (200 rows: SE ≈ 0.01)
}

TEST_CASE("the SIMD exp and the scalar tail overflow at the same logit and agree on subnormals", "[softmax][eq:shift-vs-scale]") {
  // t: the largest float whose exp is finite in float (just below ln FLT_MAX ≈ 88.7228)
  float t = std::log(std::numeric_limits<float>::max());
  while (!std::isfinite(float(std::exp(double(t))))) t = std::nextafter(t, 0.f);
  while (std::isfinite(float(std::exp(double(std::nextafter(t, 100.f)))))) t = std::nextafter(t, 100.f);
  const float above = std::nextafter(t, 100.f);
  auto naive_finite = [](std::vector<float> row) {
    bool ok = true;
    for (float v : softmax_of(row, softmax_naive_rows)) ok &= std::isfinite(v);
    return ok;
  };
  // 8 logits: the first sits in a SIMD batch; 5 logits: the last is the scalar tail (W <= 4)
  CHECK(naive_finite({t, -1000.f, -1000.f, -1000.f, -1000.f, -1000.f, -1000.f, -1000.f}));
  CHECK(naive_finite({-1000.f, -1000.f, -1000.f, -1000.f, t}));
  CHECK_FALSE(naive_finite({above, -1000.f, -1000.f, -1000.f, -1000.f, -1000.f, -1000.f, -1000.f}));
  CHECK_FALSE(naive_finite({-1000.f, -1000.f, -1000.f, -1000.f, above}));
  // e^−100 / (e^−100 + 3) is a subnormal float: the batch and the tail round it alike
  const auto lane = softmax_of({-100.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f});
  const auto tail = softmax_of({0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, -100.f});
  CHECK(lane[0] == tail[7]);
  CHECK(lane[0] > 0.f);
  CHECK(std::abs(lane[0] - std::exp(-100.0) / 7) <= std::numeric_limits<float>::denorm_min());
}
