// libFuzzer harness: attention forward and the products beside it in the checked API (api.hpp):
// attention (with and without mask, bias, causal, scale), scores, matmul and rowDots.
//   Every call returns or throws ApiError (fuzz_input.hpp: call). When it returns:
//   - attention: out is (nq, dv) and weights (nq, nk), all finite; a weight is 0 where the mask,
//     causality or a -Infinity bias forbids the key; a row with an allowed key is in [0, 1] and
//     sums to 1 (sum_tolerance); a row with none is 0, and so is its output row; each output is
//     within the range of v's column over the allowed keys (a convex combination);
//   - scores, matmul, rowDots: the promised length, finite, and each checked entry within a
//     rounding bound of the same sum in double (all entries for small shapes, else two).
// Run: bash tools/fuzz.sh 60 attention
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"

using namespace attnlab;
using fuzz::str;

namespace {

void check_attention(const fuzz::AttentionInput& A, const std::vector<float>& out, const std::vector<float>& w) {
  const auto nq = std::size_t(A.a.nq), nk = std::size_t(A.a.nk), dv = std::size_t(A.a.dv);
  FUZZ_CHECK(out.size() == nq * dv && w.size() == nq * nk,
             "attention returned " + str(double(out.size())) + " outputs and " + str(double(w.size())) + " weights");
  FUZZ_CHECK(fuzz::all_finite(out) && fuzz::all_finite(w), "attention returned a non-finite value");
  std::vector<double> lo(dv), hi(dv), vmax(dv);
  for (std::size_t i = 0; i < nq; ++i) {
    const std::string row = "row " + str(double(i)) + " of (" + str(double(nq)) + ", " + str(double(nk)) + ")";
    bool any = false;
    double sum = 0;
    for (std::size_t c = 0; c < dv; ++c) lo[c] = INFINITY, hi[c] = -INFINITY, vmax[c] = 0;
    for (std::size_t j = 0; j < nk; ++j) {
      const float p = w[i * nk + j];
      if (!A.allows(i, j)) {
        FUZZ_CHECK(p == 0, "a forbidden key has weight " + str(p) + " at column " + str(double(j)) + ", " + row);
        continue;
      }
      any = true;
      FUZZ_CHECK(p >= 0 && p <= 1, "weight " + str(p) + " at column " + str(double(j)) + ", " + row);
      sum += p;
      for (std::size_t c = 0; c < dv; ++c) {
        const double x = A.v[j * dv + c];
        lo[c] = std::min(lo[c], x), hi[c] = std::max(hi[c], x), vmax[c] = std::max(vmax[c], std::abs(x));
      }
    }
    if (!any) {
      for (std::size_t c = 0; c < dv; ++c)
        FUZZ_CHECK(out[i * dv + c] == 0, "a fully masked " + row + " has output " + str(out[i * dv + c]));
      continue;
    }
    FUZZ_CHECK(std::abs(sum - 1) <= fuzz::sum_tolerance(nk), "the weights sum to " + str(sum) + " in " + row);
    // o = Σ p_j v_j with Σ p_j = 1 ± δ, each term rounded: within δ·max|v| + nk·2^-23·max|v|.
    for (std::size_t c = 0; c < dv; ++c) {
      const double o = out[i * dv + c];
      const double tol = (fuzz::sum_tolerance(nk) + double(nk) * 0x1p-23) * vmax[c] + 1e-37;
      FUZZ_CHECK(o >= lo[c] - tol && o <= hi[c] + tol,
                 "output " + str(o) + " outside v's range [" + str(lo[c]) + ", " + str(hi[c]) + "] at column " + str(double(c)) + ", " + row);
    }
  }
}

// Σ_t a[t*sa] b[t*sb] for t < n in double, and the bound on the float kernel's error: 2n·2^-24
// relative to Σ|a b| (any summation order, with or without FMA), plus underflow in each product.
struct Dot {
  double value, bound;
};
Dot dot_ref(const float* a, std::size_t sa, const float* b, std::size_t sb, std::size_t n) {
  double s = 0, m = 0;
  for (std::size_t t = 0; t < n; ++t) {
    const double x = double(a[t * sa]) * double(b[t * sb]);
    s += x, m += std::abs(x);
  }
  return {s, 2 * double(n) * 0x1p-24 * m + double(n) * 1e-44};
}

void check_near(const char* fn, double got, Dot ref, double extra_rel, std::size_t i, std::size_t j) {
  const double tol = ref.bound + extra_rel * std::abs(ref.value) + 1e-44;  // (+ one denormal rounding)
  FUZZ_CHECK(std::abs(got - ref.value) <= tol, std::string(fn) + "(" + str(double(i)) + ", " + str(double(j)) + ") = " + str(got) +
                                                   ", the sum in double is " + str(ref.value) + " (tolerance " + str(tol) + ")");
}

// Entries (i, j) of an (r, c) result to check: all when r·c·depth is small, else the corners.
template <class F>
void for_checked(std::size_t r, std::size_t c, std::size_t depth, F&& f) {
  if (double(r) * double(c) * double(depth) <= 65536) {
    for (std::size_t i = 0; i < r; ++i)
      for (std::size_t j = 0; j < c; ++j) f(i, j);
  } else {
    f(0, 0), f(r - 1, c - 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  static std::vector<float> out, weights;
  for (int call = 0; call < 3 && (call == 0 || !in.empty()); ++call) {
    switch (in.byte() % 4) {
      case 0: {
        const fuzz::AttentionInput A(in);
        if (fuzz::call("attention", [&] { api::attention(out, weights, A.a); })) check_attention(A, out, weights);
        break;
      }
      case 1: {  // scores: S = scale · Q Kᵀ
        const double nq = in.size(), nk = in.size(), dk = in.size(), scale = in.real();
        const std::vector<float> q = in.floats(nq * dk), k = in.floats(nk * dk);
        if (!fuzz::call("scores", [&] { api::scores(out, {q.data(), q.size()}, {k.data(), k.size()}, nq, nk, dk, scale); })) break;
        const auto r = std::size_t(nq), c = std::size_t(nk), d = std::size_t(dk);
        FUZZ_CHECK(out.size() == r * c, "scores length " + str(double(out.size())));
        FUZZ_CHECK(fuzz::all_finite(out), "scores returned a non-finite value");
        const float s = float(scale);
        for_checked(r, c, d, [&](std::size_t i, std::size_t j) {
          Dot ref = dot_ref(q.data() + i * d, 1, k.data() + j * d, 1, d);
          ref.value *= s, ref.bound *= std::abs(s);  // then one more rounding: 2^-24 relative
          check_near("scores", out[i * c + j], ref, 0x1p-23, i, j);
        });
        break;
      }
      case 2: {  // matmul: C = A B
        const double m = in.size(), kk = in.size(), n = in.size();
        const std::vector<float> a = in.floats(m * kk), b = in.floats(kk * n);
        if (!fuzz::call("matmul", [&] { api::matmul(out, {a.data(), a.size()}, {b.data(), b.size()}, m, kk, n); })) break;
        const auto M = std::size_t(m), K = std::size_t(kk), N = std::size_t(n);
        FUZZ_CHECK(out.size() == M * N, "matmul length " + str(double(out.size())));
        FUZZ_CHECK(fuzz::all_finite(out), "matmul returned a non-finite value");
        for_checked(M, N, K, [&](std::size_t i, std::size_t j) {
          check_near("matmul", out[i * N + j], dot_ref(a.data() + i * K, 1, b.data() + j, N, K), 0, i, j);
        });
        break;
      }
      case 3: {  // rowDots: out_i = a_i · b_i
        const double rows = in.size(), cols = in.size();
        const std::vector<float> a = in.floats(rows * cols), b = in.floats(rows * cols);
        if (!fuzz::call("rowDots", [&] { api::row_dots(out, {a.data(), a.size()}, {b.data(), b.size()}, rows, cols); })) break;
        const auto R = std::size_t(rows), C = std::size_t(cols);
        FUZZ_CHECK(out.size() == R, "rowDots length " + str(double(out.size())));
        FUZZ_CHECK(fuzz::all_finite(out), "rowDots returned a non-finite value");
        for (std::size_t i = 0; i < R; ++i)
          check_near("rowDots", out[i], dot_ref(a.data() + i * C, 1, b.data() + i * C, 1, C), 0, i, 0);
        break;
      }
    }
  }
  // The API stays usable after any error: a small valid call succeeds.
  const float q[2] = {1, 0}, k[4] = {1, 0, 0, 1}, v[4] = {1, 2, 3, 4};
  api::AttentionArgs a;
  a.q = {q, 2}, a.k = {k, 4}, a.v = {v, 4}, a.nq = 1, a.nk = 2, a.dk = 2, a.dv = 2;
  api::attention(out, weights, a);
  FUZZ_CHECK(out.size() == 2 && weights.size() == 2 && weights[0] > weights[1], "attention after the input");
  return 0;
}
