// Every fast kernel against its `_ref` twin run in double, swept over sizes around the SIMD width.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>

#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("dot agrees with the double reference within the summation bound", "[kernels][eq:dot-variance]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const auto a = normals(n, 1), b = normals(n, 2);
  const float got = dot(Vec<const float>{a.data(), n}, Vec<const float>{b.data(), n});
  const auto ad = widen(a), bd = widen(b);
  const double want = dot_ref(Vec<const double>{ad.data(), n}, Vec<const double>{bd.data(), n});
  double abs_sum = 0;
  for (std::size_t i = 0; i < n; ++i) abs_sum += std::abs(ad[i] * bd[i]);
  // float products and sums, any order: |err| <= γ_(n+1)·Σ|a_i b_i| (one more rounding for ×)
  INFO("n = " << n);
  CHECK(std::abs(got - want) <= gamma(n + 1) * abs_sum);
}

TEST_CASE("Q·Kᵀ, P·V and Pᵀ·dO agree with the double reference entry by entry", "[kernels][eq:setup]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const std::size_t m = 3, r = 5;  // small outer sizes keep 1000-wide cases fast
  // Each output entry is a dot product of length `inner`; bound it as in the dot test.
  auto check = [](const std::vector<float>& got, const std::vector<double>& want,
                  const std::vector<double>& abs_sums, std::size_t inner) {
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("entry " << i << " inner " << inner);
      REQUIRE(std::abs(got[i] - want[i]) <= gamma(inner + 1) * abs_sums[i] + 1e-30);
    }
  };
  SECTION("matmul_nt: (m, n)·(r, n)ᵀ") {
    const auto a = normals(m * n, 3), b = normals(r * n, 4);
    std::vector<float> out(m * r);
    matmul_nt(mmat(out, m, r), cmat(a, m, n), cmat(b, r, n));
    const auto ad = widen(a), bd = widen(b);
    std::vector<double> want(m * r), abs_a(ad.size()), abs_b(bd.size()), sums(m * r);
    matmul_nt_ref(mmat(want, m, r), cmat(ad, m, n), cmat(bd, r, n));
    std::transform(ad.begin(), ad.end(), abs_a.begin(), [](double x) { return std::abs(x); });
    std::transform(bd.begin(), bd.end(), abs_b.begin(), [](double x) { return std::abs(x); });
    matmul_nt_ref(mmat(sums, m, r), cmat(abs_a, m, n), cmat(abs_b, r, n));
    check(out, want, sums, n);
  }
  SECTION("matmul_nn: (m, r)·(r, n)") {
    const auto a = normals(m * r, 5), b = normals(r * n, 6);
    std::vector<float> out(m * n);
    matmul_nn(mmat(out, m, n), cmat(a, m, r), cmat(b, r, n));
    const auto ad = widen(a), bd = widen(b);
    std::vector<double> want(m * n), abs_a(ad.size()), abs_b(bd.size()), sums(m * n);
    matmul_nn_ref(mmat(want, m, n), cmat(ad, m, r), cmat(bd, r, n));
    std::transform(ad.begin(), ad.end(), abs_a.begin(), [](double x) { return std::abs(x); });
    std::transform(bd.begin(), bd.end(), abs_b.begin(), [](double x) { return std::abs(x); });
    matmul_nn_ref(mmat(sums, m, n), cmat(abs_a, m, r), cmat(abs_b, r, n));
    check(out, want, sums, r);
  }
  SECTION("matmul_tn: (r, m)ᵀ·(r, n)") {
    const auto a = normals(r * m, 7), b = normals(r * n, 8);
    std::vector<float> out(m * n);
    matmul_tn(mmat(out, m, n), cmat(a, r, m), cmat(b, r, n));
    const auto ad = widen(a), bd = widen(b);
    std::vector<double> want(m * n), abs_a(ad.size()), abs_b(bd.size()), sums(m * n);
    matmul_tn_ref(mmat(want, m, n), cmat(ad, r, m), cmat(bd, r, n));
    std::transform(ad.begin(), ad.end(), abs_a.begin(), [](double x) { return std::abs(x); });
    std::transform(bd.begin(), bd.end(), abs_b.begin(), [](double x) { return std::abs(x); });
    matmul_tn_ref(mmat(sums, m, n), cmat(abs_a, r, m), cmat(abs_b, r, n));
    check(out, want, sums, r);
  }
}

// The register-tiled products (kernels_simd_products.cpp) work on tiles of 2 rows × W keys (Q·Kᵀ) and
// 2 rows × 4W columns (P·V) and block the keys / the inner index for the cache: the row counts
// below leave every tile remainder (0, 1 row) and the sizes cross the blocks (k or n = 1000).
// out = a bᵀ (m, n), a (m, k), b (n, k), against the double reference: each entry a dot product
// of length k in some order, |err| <= γ_(k+1)·Σ_p |a_ip b_jp|
static void require_nt_within_bound(const std::vector<float>& out, const std::vector<float>& a,
                                    const std::vector<float>& b, std::size_t m, std::size_t n, std::size_t k) {
  const auto ad = widen(a), bd = widen(b);
  std::vector<double> want(m * n), abs_a(ad.size()), abs_b(bd.size()), sums(m * n);
  matmul_nt_ref(mmat(want, m, n), cmat(ad, m, k), cmat(bd, n, k));
  std::transform(ad.begin(), ad.end(), abs_a.begin(), [](double x) { return std::abs(x); });
  std::transform(bd.begin(), bd.end(), abs_b.begin(), [](double x) { return std::abs(x); });
  matmul_nt_ref(mmat(sums, m, n), cmat(abs_a, m, k), cmat(abs_b, n, k));
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("m " << m << " n " << n << " k " << k << " entry " << i);
    REQUIRE(std::abs(out[i] - want[i]) <= gamma(k + 1) * sums[i] + 1e-30);
  }
}

TEST_CASE("register-tiled Q·Kᵀ agrees with the double reference for every tile remainder", "[kernels][eq:setup]") {
  const std::size_t k = GENERATE(from_range(sizes_around_width()));  // d_k, the summed index
  const std::size_t n = GENERATE(from_range(sizes_around_width()));  // keys
  const std::size_t m = GENERATE(1, 2, 3, 5);                        // queries
  const auto a = normals(m * k, 21), b = normals(n * k, 22);
  std::vector<float> out(m * n);
  matmul_nt(mmat(out, m, n), cmat(a, m, k), cmat(b, n, k));
  require_nt_within_bound(out, a, b, m, n, k);
}

TEST_CASE("register-tiled P·V sums each output in the order of p: bit-identical to the float reference", "[kernels][eq:full-attention]") {
  const std::size_t k = GENERATE(from_range(sizes_around_width()));  // keys, the summed index
  const std::size_t n = GENERATE(from_range(sizes_around_width()));  // d_v
  const std::size_t m = GENERATE(1, 2, 3, 5);                        // queries
  const auto a = normals(m * k, 23), b = normals(k * n, 24);
  std::vector<float> out(m * n), same(m * n);
  matmul_nn(mmat(out, m, n), cmat(a, m, k), cmat(b, k, n));
  // the training ablation's determinism (cpp/train.hpp) needs exactly the reference's float result
  matmul_nn_ref(mmat(same, m, n), cmat(a, m, k), cmat(b, k, n));
  const auto ad = widen(a), bd = widen(b);
  std::vector<double> want(m * n), abs_a(ad.size()), abs_b(bd.size()), sums(m * n);
  matmul_nn_ref(mmat(want, m, n), cmat(ad, m, k), cmat(bd, k, n));
  std::transform(ad.begin(), ad.end(), abs_a.begin(), [](double x) { return std::abs(x); });
  std::transform(bd.begin(), bd.end(), abs_b.begin(), [](double x) { return std::abs(x); });
  matmul_nn_ref(mmat(sums, m, n), cmat(abs_a, m, k), cmat(abs_b, k, n));
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("m " << m << " n " << n << " k " << k << " entry " << i);
    REQUIRE(out[i] == same[i]);
    REQUIRE(std::abs(out[i] - want[i]) <= gamma(k + 1) * sums[i] + 1e-30);  // as any order would
  }
}

TEST_CASE("register-tiled Pᵀ·dO sums each output in the order of p: bit-identical to the float reference", "[kernels][eq:vanishing-gradients]") {
  // matmul_tn reuses P·V's tiles (2 rows × 4W columns of a packed panel of b) with
  // a read transposed; the trainer (cpp/train.hpp "Determinism") needs its exact float result too
  const std::size_t k = GENERATE(from_range(sizes_around_width()));  // the summed index (rows of a and b)
  const std::size_t n = GENERATE(from_range(sizes_around_width()));  // columns of b and out
  const std::size_t m = GENERATE(1, 2, 3, 5);                        // columns of a, rows of out
  const auto a = normals(k * m, 25), b = normals(k * n, 26);
  std::vector<float> out(m * n), same(m * n);
  matmul_tn(mmat(out, m, n), cmat(a, k, m), cmat(b, k, n));
  matmul_tn_ref(mmat(same, m, n), cmat(a, k, m), cmat(b, k, n));
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("m " << m << " n " << n << " k " << k << " entry " << i);
    REQUIRE(out[i] == same[i]);
  }
}

// The products are blocked for the cache (kernels_simd_products.cpp): 256 columns of b × PANEL_KC = 1024/W
// of the inner index per block, 128 rows of A per pass. The sizes below cross every block boundary:
// in wasm (W = 4), 535 columns are two blocks of 256, a last block of one 16-column and one
// 4-column panel, and 3 single columns; 300 of the inner index are blocks of 256 and 44; 263 rows
// are passes of 128, 128 and 7, the last with an odd row.
TEST_CASE("blocked Q·Kᵀ, P·V and Pᵀ·dO over many rows and columns: P·V and Pᵀ·dO bit-identical to the float reference, Q·Kᵀ within its bound", "[kernels][eq:full-attention]") {
  const std::size_t m = 263, k = 300, n = 535;
  const auto a = normals(m * k, 27), b = normals(k * n, 28), bt = normals(n * k, 29), at = normals(k * m, 30);
  std::vector<float> out(m * n), same(m * n);
  matmul_nn(mmat(out, m, n), cmat(a, m, k), cmat(b, k, n));
  matmul_nn_ref(mmat(same, m, n), cmat(a, m, k), cmat(b, k, n));
  REQUIRE(out == same);
  matmul_tn(mmat(out, m, n), cmat(at, k, m), cmat(b, k, n));
  matmul_tn_ref(mmat(same, m, n), cmat(at, k, m), cmat(b, k, n));
  REQUIRE(out == same);
  matmul_nt(mmat(out, m, n), cmat(a, m, k), cmat(bt, n, k));
  require_nt_within_bound(out, a, bt, m, n, k);
}

TEST_CASE("scaling multiplies every entry, exactly as in double then rounded", "[kernels][eq:scaling-choices]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const auto x = normals(n, 9, 8.0);
  std::vector<float> out(n);
  const float s = 0.125f;  // a power of two: the product is exact
  scale(mmat(out, 1, n), cmat(x, 1, n), s);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == x[i] * s);
  // and the signed zeros and subnormal products as scale_ref gives them, in the batches and the
  // tail alike (s·x + 0 turned −0 into +0)
  std::vector<float> z(n), ref(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = i % 3 == 0 ? -0.f : i % 3 == 1 ? -1e-30f : 1e-30f;
  for (const float t : {0.5f, 1e-30f, -1e-30f}) {
    scale(mmat(out, 1, n), cmat(z, 1, n), t);
    scale_ref<float>(mmat(ref, 1, n), cmat(z, 1, n), t);
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(out[i] == ref[i]);
      REQUIRE(std::signbit(out[i]) == std::signbit(ref[i]));
    }
  }
}

TEST_CASE("softmax, log-softmax and softmax backward agree with the double reference", "[kernels][softmax]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const std::size_t rows = 3;
  const auto x = normals(rows * n, 10, 4.0);
  const auto xd = widen(x);
  // the SIMD exp is within 2.3 ulp (kernels_simd_softmax.cpp), and the max's term e^0 = 1 is exact; the
  // row sum errs by γ_n relative, the division by 1 ulp; and x_j − m rounds in float by up to
  // u·|x_j − m|, which exp turns into that relative error. (Over seeds 1–3000 the worst entry
  // uses 80% of this tolerance; with the previous 1-ulp exp, 75%.)
  const double rel = gamma(n) + 4 * kU;
  std::vector<double> shift(rows * n);  // |x_j − max_row|
  for (std::size_t r = 0; r < rows; ++r) {
    const double m = *std::max_element(xd.begin() + r * n, xd.begin() + (r + 1) * n);
    for (std::size_t j = 0; j < n; ++j) shift[r * n + j] = m - xd[r * n + j];
  }

  std::vector<float> y(rows * n), ly(rows * n);
  std::vector<double> yd(rows * n), lyd(rows * n);
  softmax_rows(mmat(y, rows, n), cmat(x, rows, n));
  softmax_rows_ref(mmat(yd, rows, n), cmat(xd, rows, n));
  for (std::size_t i = 0; i < y.size(); ++i) REQUIRE(std::abs(y[i] - yd[i]) <= (rel + kU * shift[i]) * yd[i] + 1e-38);

  log_softmax_rows(mmat(ly, rows, n), cmat(x, rows, n));
  log_softmax_rows_ref(mmat(lyd, rows, n), cmat(xd, rows, n));
  // log-softmax = x − lse: absolute error of lse ≈ relative error of the sum, plus x's rounding
  for (std::size_t i = 0; i < ly.size(); ++i) REQUIRE(std::abs(ly[i] - lyd[i]) <= rel + 2 * kU * std::abs(lyd[i]));

  const auto dp = normals(rows * n, 11);
  const auto dpd = widen(dp);
  std::vector<float> dx(rows * n);
  std::vector<double> dxd(rows * n);
  softmax_backward_rows(mmat(dx, rows, n), cmat(y, rows, n), cmat(dp, rows, n));
  softmax_backward_rows_ref(mmat(dxd, rows, n), cmat(widen(y), rows, n), cmat(dpd, rows, n));
  // dx_j = p_j (dp_j − c): c is a dot of length n, bounded by γ_n Σ|p dp| <= γ_n max|dp|
  double max_dp = 0;
  for (double v : dpd) max_dp = std::max(max_dp, std::abs(v));
  for (std::size_t i = 0; i < dx.size(); ++i)
    REQUIRE(std::abs(dx[i] - dxd[i]) <= (gamma(n + 2) * (max_dp + std::abs(dpd[i])) * y[i]) + 1e-38);
}

TEST_CASE("the fused scale-and-softmax pass gives exactly a scale pass followed by softmax", "[kernels][softmax][eq:scaling-choices]") {
  // max_j s·x_j is s·max_j x_j for s >= 0 and s·min_j x_j for s < 0 (rounding is monotone), and
  // every other operation is the composition's, so the float results are equal, not just close
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const float s = GENERATE(0.125f, 0.35355339f, 1.f, -0.5f, 0.f);
  const std::size_t rows = 3;
  const auto x = normals(rows * n, 13, 6.0);
  std::vector<float> fused(rows * n), scaled(rows * n), composed(rows * n);
  softmax_scaled_rows(mmat(fused, rows, n), cmat(x, rows, n), s);
  scale(mmat(scaled, rows, n), cmat(x, rows, n), s);
  softmax_rows(mmat(composed, rows, n), cmat(scaled, rows, n));
  for (std::size_t i = 0; i < fused.size(); ++i) {
    INFO("n " << n << " scale " << s << " entry " << i);
    REQUIRE(fused[i] == composed[i]);
  }
  // in place, as attention runs it
  softmax_scaled_rows(mmat(scaled, rows, n), cmat(x, rows, n), 1.f);
  std::vector<float> y(x);
  softmax_scaled_rows(mmat(y, rows, n), cmat(y, rows, n), 1.f);
  CHECK(y == scaled);
}

TEST_CASE("softmax drops its exp's underflow mask only for rows whose logits all lie within 104 of the max", "[kernels][softmax][ieee]") {
  // The SIMD exp masks z = s·x − m < −104 to 0 (below that its power of two is no longer exact).
  // Pass 1 bounds min_j x_j, and a row whose s·(max − min) stays within 104 skips the mask: here
  // spreads 50 and 103 at scales 1 and 0.5, and 105 at 0.5; the others, a row with a −inf and
  // every negative scale keep it (at scale −0.5, max 100 and spread 300, m = 100 would pass a
  // test of m alone while z reaches −150). Either way: exactly the composition's floats, exactly 0
  // where z < −104, and the double reference within the main test's tolerance (plus the least
  // subnormal: results below e^−87 round to the subnormal grid).
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const float spread = GENERATE(50.f, 103.f, 105.f, 300.f);
  const float top = GENERATE(-20.f, 0.f, 40.f, 100.f);  // the max: a row of negatives, then >= 0
  const float s = GENERATE(1.f, 0.5f, -0.5f);
  const bool masked_logit = GENERATE(false, true);
  std::vector<float> x(n);
  for (std::size_t j = 0; j < n; ++j)  // spread over [top − spread, top] by the golden ratio's steps
    x[j] = top - spread * float(std::fmod(0.6180339887 * double(j), 1.0));
  if (masked_logit && n > 1) x[1] = -std::numeric_limits<float>::infinity();
  std::vector<float> fused(n), scaled(n), composed(n);
  softmax_scaled_rows(mmat(fused, 1, n), cmat(x, 1, n), s);
  scale(mmat(scaled, 1, n), cmat(x, 1, n), s);
  softmax_rows(mmat(composed, 1, n), cmat(scaled, 1, n));
  std::vector<double> ref(n);
  softmax_rows_ref(mmat(ref, 1, n), cmat(widen(scaled), 1, n));
  const double m = *std::max_element(scaled.begin(), scaled.end());
  for (std::size_t j = 0; j < n; ++j) {
    INFO("n " << n << " spread " << spread << " top " << top << " scale " << s << " entry " << j
               << " x " << x[j]);
    if (std::isnan(ref[j])) {  // a negative scale turns −inf into +inf: the row is NaN (IEEE)
      REQUIRE(std::isnan(fused[j]));
      REQUIRE(std::isnan(composed[j]));
      continue;
    }
    REQUIRE(fused[j] == composed[j]);
    const double z = double(scaled[j]) - m;
    if (z < -104) {
      REQUIRE(fused[j] == 0.f);
    } else {
      const double tol =
          (gamma(n) + 4 * kU + kU * -z) * ref[j] + std::numeric_limits<float>::denorm_min();
      REQUIRE(std::abs(fused[j] - ref[j]) <= tol);
    }
  }
}

TEST_CASE("row max and row entropy agree with the double reference", "[kernels][eq:softmax-saturation]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const std::size_t rows = 4;
  std::vector<float> p(rows * n);
  softmax_rows(mmat(p, rows, n), cmat(normals(rows * n, 12, 3.0), rows, n));
  std::vector<float> mx(rows), h(rows);
  std::vector<double> mxd(rows), hd(rows);
  row_max(Vec<float>{mx.data(), rows}, cmat(p, rows, n));
  row_entropy(Vec<float>{h.data(), rows}, cmat(p, rows, n));
  const auto pd = widen(p);
  row_max_ref(Vec<double>{mxd.data(), rows}, cmat(pd, rows, n));
  row_entropy_ref(Vec<double>{hd.data(), rows}, cmat(pd, rows, n));
  for (std::size_t i = 0; i < rows; ++i) {
    CHECK(mx[i] == mxd[i]);  // max is exact
    CHECK(std::abs(h[i] - hd[i]) <= gamma(n + 2) * std::log(double(n) + 1) + 1e-6);
  }
}

TEST_CASE("a uniform row of 2^16 to 2^22 weights has entropy ln n, and the scalar softmax of one sums to 1", "[kernels][eq:softmax-saturation]") {
  // rows as long as the API allows (2²⁴ columns): a row's sum is kept in double (in float, 2²⁰
  // uniform weights gave an entropy above ln n, and the scalar softmax of 2²⁴ logits summed to 1.03)
  const std::size_t n = GENERATE(std::size_t(1) << 16, std::size_t(1) << 20, std::size_t(1) << 22);
  INFO("n " << n);
  std::vector<float> p(n, 1.f / float(n)), h(1);  // 1/n is exact: n is a power of 2
  row_entropy(Vec<float>{h.data(), 1}, cmat(p, 1, n));
  CHECK(std::abs(h[0] - std::log(double(n))) <= 4 * kU * std::log(double(n)));
  std::vector<float> y(n);
  softmax_rows_ref(mmat(y, 1, n), cmat(normals(n, 21, 1.0), 1, n));
  CHECK(std::abs(std::accumulate(y.begin(), y.end(), 0.0) - 1) <= 1e-5);
}

TEST_CASE("the checked softmax stops before the first row holding a NaN or +inf, which it names and leaves unwritten", "[kernels][softmax][ieee]") {
  // Its max pass reads the logits' bit patterns (kernels_simd_softmax.cpp): +inf and a positive
  // NaN from their int32 max, a negative NaN from their uint32 max; −inf masks a logit and passes.
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const std::size_t rows = 4;
  const float inf = std::numeric_limits<float>::infinity();
  const float negative_nan = -std::nanf("");
  const auto x = normals(rows * n, 15, 3.0);
  std::vector<float> expected(rows * n);
  softmax_rows(mmat(expected, rows, n), cmat(x, rows, n));
  std::vector<float> y(rows * n);
  CHECK(softmax_rows_checked(mmat(y, rows, n), cmat(x, rows, n)) == rows);
  CHECK(y == expected);
  std::vector<std::size_t> cols;  // every column of the small sizes; spread, and the last, of the large
  for (std::size_t j = 0; j < n; j += (n > 40 ? 37 : 1)) cols.push_back(j);
  cols.push_back(n - 1);
  for (const std::size_t r : {std::size_t(0), std::size_t(2), rows - 1})
    for (const std::size_t j : cols)
      for (const float bad : {std::nanf(""), negative_nan, inf, -inf}) {
        INFO("n " << n << " row " << r << " column " << j << " value " << bad << " sign " << std::signbit(bad));
        auto xb = x;
        xb[r * n + j] = bad;
        const bool masks = bad == -inf;
        std::vector<float> yb(rows * n, 7.f), yd(rows * n, 7.f);
        std::vector<double> yref(rows * n, 7.0);
        const std::size_t stop = masks ? rows : r;
        REQUIRE(softmax_rows_checked(mmat(yb, rows, n), cmat(xb, rows, n)) == stop);
        REQUIRE(softmax_rows_checked_ref(mmat(yref, rows, n), cmat(widen(xb), rows, n)) == stop);
        softmax_rows(mmat(yd, rows, n), cmat(xb, rows, n));
        for (std::size_t i = 0; i < rows * n; ++i) {
          if (i < stop * n) REQUIRE(std::memcmp(&yb[i], &yd[i], sizeof(float)) == 0);  // NaN too
          else REQUIRE((yb[i] == 7.f && yref[i] == 7.0));
        }
        // in place: the rows before the bad one transformed, the bad one still as it came
        auto inplace = xb;
        REQUIRE(softmax_rows_checked(mmat(inplace, rows, n), cmat(inplace, rows, n)) == stop);
        for (std::size_t i = stop * n; i < rows * n; ++i) REQUIRE(std::memcmp(&inplace[i], &xb[i], sizeof(float)) == 0);
        for (std::size_t i = 0; i < stop * n; ++i) REQUIRE(std::memcmp(&inplace[i], &yd[i], sizeof(float)) == 0);
      }
}

TEST_CASE("all_finite finds a NaN or an infinity at any position, in a batch or in the tail", "[kernels][ieee]") {
  const std::size_t n = GENERATE(from_range(sizes_around_width()));
  const float inf = std::numeric_limits<float>::infinity();
  auto x = normals(n, 14, 1e30);  // large but finite: their differences and sums stay finite
  CHECK(all_finite(Vec<const float>{x.data(), n}, false));
  std::vector<std::size_t> at;  // every index of the small sizes; spread, and the last, of the large
  for (std::size_t i = 0; i < n; i += (n > 40 ? 37 : 1)) at.push_back(i);
  at.push_back(n - 1);
  for (const std::size_t i : at) {
    for (const float bad : {std::nanf(""), inf, -inf}) {
      const float keep = x[i];
      x[i] = bad;
      INFO("n " << n << " index " << i << " value " << bad);
      CHECK_FALSE(all_finite(Vec<const float>{x.data(), n}, false));
      CHECK(all_finite(Vec<const float>{x.data(), n}, true) == (bad == -inf));  // −inf masks a logit
      x[i] = keep;
    }
  }
}

TEST_CASE("bulk normals in SIMD lanes are the scalar twin's, bit for bit, for every length and across calls", "[kernels][rng]") {
  for (std::uint64_t stream = 0; stream < 50; ++stream)
    for (std::size_t n : {1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 100, 1027}) {  // 32 a step, then 8
      NormalStream g(stream * 7 + 1, stream), h = g;
      std::vector<float> a(n), b(n);
      normals(Vec<float>{a.data(), n}, g);
      normals_ref(Vec<float>{b.data(), n}, h);
      REQUIRE(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
      normals(Vec<float>{a.data(), n}, g);  // the state moved on alike
      normals_ref(Vec<float>{b.data(), n}, h);
      REQUIRE(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
    }
}

TEST_CASE("Student-t entries in SIMD lanes are the scalar twin's, bit for bit, for odd and even ν, every length and across calls",
          "[kernels][rng][eq:breaking-assumptions]") {
  for (int df : {3, 4, 5, 6, 7, 8, 9, 20, 100})  // ⌊ν/2⌋ uniforms: 1, 2 and 3 to a product, and many products
    for (std::size_t n : {1, 3, 4, 5, 8, 13, 64, 1027}) {
      NormalStream g(df * 31 + 1, n), h = g;
      std::vector<float> a(n), b(n);
      student_t(Vec<float>{a.data(), n}, g, df);
      student_t_ref(Vec<float>{b.data(), n}, h, df);
      INFO("ν = " << df << ", n = " << n);
      REQUIRE(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
      student_t(Vec<float>{a.data(), n}, g, df);  // the state moved on alike
      student_t_ref(Vec<float>{b.data(), n}, h, df);
      REQUIRE(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
    }
}

TEST_CASE("d_k = 1 pairs, four streams in SIMD lanes, are each stream's first two normals", "[kernels][rng][eq:product-variance]") {
  for (std::size_t n : {1, 3, 4, 5, 8, 15, 16, 17, 20, 259}) {  // 16 a step, then one
    std::vector<float> a(n), b(n);
    first_normal_pairs(Vec<float>{a.data(), n}, Vec<float>{b.data(), n}, 77, 1000);
    for (std::size_t i = 0; i < n; ++i) {
      float z[2];
      NormalStream g(77, 1000 + i);
      normals_ref(Vec<float>{z, 2}, g);
      REQUIRE(a[i] == z[0]);
      REQUIRE(b[i] == z[1]);
    }
  }
}

TEST_CASE("the engine reports which SIMD architecture its kernels use", "[kernels]") {
  const std::string arch = simd_arch();
  CHECK(simd_enabled() == (arch != "scalar"));
  CHECK(simd_width() >= (simd_enabled() ? 4u : 1u));
#ifdef __EMSCRIPTEN__
  CHECK(arch == "sse4.1");  // xsimd's SSE4.1 path, lowered to wasm SIMD128: 4 floats a batch
  CHECK(simd_width() == 4);
#endif
}
