// xsimd implementations of kernels.hpp. Built when an xsimd architecture is compiled in:
// natively (SSE2 … AVX-512) and in WebAssembly, where -msimd128 -msse4.1 makes xsimd pick its
// SSE4.1 path and Emscripten lowers each intrinsic to a SIMD128 instruction (f32x4.*).
//
// Every loop has the same shape: a body on whole batches of W = B::size floats, a horizontal
// reduction where one is needed, and a scalar tail for the last n mod W elements. The one math
// function, exp_batch, is written here in the same idiom rather than taken from xsimd (below).
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels.hpp"

namespace attnlab {
namespace {

using B = xsimd::batch<float>;
constexpr std::size_t W = B::size;

// e^x on a batch, with IEEE edges matching the scalar tail's std::exp: +inf exactly above
// ln(FLT_MAX) ≈ 88.7228, correctly rounded subnormals down to e^−103.97, 0 below, NaN kept.
// (xsimd 8.1's exp saturates to +inf at 88.376 and to 0 at −88.376, so a batch and its scalar
// tail disagreed near both ends.)
//   k = round(x·log2 e), r = x − k·ln2 in two parts (Cody–Waite), |r| <= ln2/2
//   e^r = 1 + r + r²·p(r), p of degree 5 (Cephes expf, ≈ 1 ulp)
//   e^x = e^r · 2^⌊k/2⌋ · 2^(k − ⌊k/2⌋): both factors are normal floats for k in [−150, 129], so
//   the only rounding past the polynomial is the last product's, into the subnormals if need be.
B exp_batch(B x) {
  using I = xsimd::batch<std::int32_t>;
  const B xc = xsimd::min(xsimd::max(x, B(-104.f)), B(89.f));  // beyond: 0 and +inf anyway
  // round(x·log2 e) by the shifter trick: adding 1.5·2²³ leaves k in the low mantissa bits,
  // rounded to nearest. (A float→int conversion would cost more: wasm has no rounding one, and
  // Emscripten emulates _mm_cvtps_epi32 lane by lane.)
  const B shifter(12582912.f);
  const B kf = xc * B(1.44269504088896341f) + shifter;
  const B k = kf - shifter;
  const B r = (xc - k * B(0.693359375f)) - k * B(-2.12194440e-4f);
  B p(1.9875691500e-4f);
  p = p * r + B(1.3981999507e-3f);
  p = p * r + B(8.3334519073e-3f);
  p = p * r + B(4.1665795894e-2f);
  p = p * r + B(1.6666665459e-1f);
  p = p * r + B(5.0000001201e-1f);
  const B er = (r * r) * p + r + B(1.f);
  const I ki = xsimd::bitwise_cast<I>(kf) - xsimd::bitwise_cast<I>(shifter), k1 = ki >> 1, k2 = ki - k1;
  const B s1 = xsimd::bitwise_cast<B>((k1 + I(127)) << 23), s2 = xsimd::bitwise_cast<B>((k2 + I(127)) << 23);
  return xsimd::select(x != x, x, (er * s1) * s2);
}

// max_j x_j
float max_of(const float* x, std::size_t n) {
  float m = -std::numeric_limits<float>::infinity();
  std::size_t j = 0;
  if (n >= W) {
    B acc = B::load_unaligned(x);
    for (j = W; j + W <= n; j += W) acc = xsimd::max(acc, B::load_unaligned(x + j));
    alignas(64) float lanes[W];
    acc.store_aligned(lanes);
    for (float v : lanes) m = std::max(m, v);
  }
  for (; j < n; ++j) m = std::max(m, x[j]);
  return m;
}

// y_j = exp(x_j − m), returns Σ_j y_j
float exp_sub_sum(float* y, const float* x, std::size_t n, float m) {
  const B mb(m);
  B acc(0.f);
  std::size_t j = 0;
  for (; j + W <= n; j += W) {
    const B e = exp_batch(B::load_unaligned(x + j) - mb);
    e.store_unaligned(y + j);
    acc += e;
  }
  float s = xsimd::hadd(acc);
  for (; j < n; ++j) s += (y[j] = std::exp(x[j] - m));
  return s;
}

// y_j = exp(x_j), returns Σ_j y_j                         (the naive softmax's only pass)
float exp_sum(float* y, const float* x, std::size_t n) {
  B acc(0.f);
  std::size_t j = 0;
  for (; j + W <= n; j += W) {
    const B e = exp_batch(B::load_unaligned(x + j));
    e.store_unaligned(y + j);
    acc += e;
  }
  float s = xsimd::hadd(acc);
  for (; j < n; ++j) s += (y[j] = std::exp(x[j]));
  return s;
}

// y_j = a · x_j + b
void affine(float* y, const float* x, std::size_t n, float a, float b) {
  const B ab(a), bb(b);
  std::size_t j = 0;
  for (; j + W <= n; j += W) xsimd::fma(ab, B::load_unaligned(x + j), bb).store_unaligned(y + j);
  for (; j < n; ++j) y[j] = a * x[j] + b;
}

// y += a · x
void axpy(float* y, float a, const float* x, std::size_t n) {
  const B ab(a);
  std::size_t j = 0;
  for (; j + W <= n; j += W)
    xsimd::fma(ab, B::load_unaligned(x + j), B::load_unaligned(y + j)).store_unaligned(y + j);
  for (; j < n; ++j) y[j] += a * x[j];
}

}  // namespace

const char* simd_arch() { return xsimd::default_arch::name(); }
bool simd_enabled() { return true; }
std::size_t simd_width() { return W; }

float dot(Vec<const float> a, Vec<const float> b) {
  ATTN_CHECK(a.size == b.size);
  const std::size_t n = a.size;
  B acc(0.f);
  std::size_t i = 0;
  for (; i + W <= n; i += W) acc = xsimd::fma(B::load_unaligned(a.data + i), B::load_unaligned(b.data + i), acc);
  float s = xsimd::hadd(acc);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

void scale(Mat<float> out, Mat<const float> x, float s) {
  ATTN_CHECK(same_shape(out, x));
  affine(out.data, x.data, x.size(), s, 0.f);
}

// out_ij = a_i · b_j: every entry is one dot product of two contiguous rows.
void matmul_nt(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_nt(out, a, b));
  for (std::size_t i = 0; i < out.rows; ++i)
    for (std::size_t j = 0; j < out.cols; ++j) out(i, j) = dot(a.row_vec(i), b.row_vec(j));
}

// out_i = Σ_p a_ip b_p: row i of the output accumulates rows of b (contiguous axpy).
void matmul_nn(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_nn(out, a, b));
  std::fill(out.data, out.data + out.size(), 0.f);
  for (std::size_t i = 0; i < out.rows; ++i)
    for (std::size_t p = 0; p < a.cols; ++p) axpy(out.row(i), a(i, p), b.row(p), b.cols);
}

// out_i = Σ_p a_pi b_p: each row p of a and b adds a rank-1 update.
void matmul_tn(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_tn(out, a, b));
  std::fill(out.data, out.data + out.size(), 0.f);
  for (std::size_t p = 0; p < a.rows; ++p)
    for (std::size_t i = 0; i < a.cols; ++i) axpy(out.row(i), a(p, i), b.row(p), b.cols);
}

// Softmax composed from row primitives: max, exp-subtract-sum, scale (see softmax_rows_ref).
void softmax_rows(Mat<float> out, Mat<const float> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    const float m = max_of(x.row(i), x.cols);
    const float s = exp_sub_sum(out.row(i), x.row(i), x.cols, m);
    affine(out.row(i), out.row(i), x.cols, 1.f / s, 0.f);
  }
}

void softmax_naive_rows(Mat<float> out, Mat<const float> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    const float s = exp_sum(out.row(i), x.row(i), x.cols);
    affine(out.row(i), out.row(i), x.cols, 1.f / s, 0.f);
  }
}

void log_softmax_rows(Mat<float> out, Mat<const float> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    const float m = max_of(x.row(i), x.cols);
    const float ls = std::log(exp_sub_sum(out.row(i), x.row(i), x.cols, m));  // out used as scratch
    // (x − m) − log s, not x − (m + log s): x − m is exact near the max, and m + log s would round
    // to the ulp of m (2⁻¹⁰ at m = 10⁴)
    const float* xi = x.row(i);
    float* yi = out.row(i);
    const B mb(m), lb(ls);
    std::size_t j = 0;
    for (; j + W <= x.cols; j += W) ((B::load_unaligned(xi + j) - mb) - lb).store_unaligned(yi + j);
    for (; j < x.cols; ++j) yi[j] = (xi[j] - m) - ls;
  }
}

// dx_j = p_j (dp_j − c), c = p · dp
void softmax_backward_rows(Mat<float> dx, Mat<const float> p, Mat<const float> dp) {
  ATTN_CHECK(same_shape(dx, p) && same_shape(p, dp));
  for (std::size_t i = 0; i < p.rows; ++i) {
    const float c = dot(p.row_vec(i), dp.row_vec(i));
    const B cb(c);
    const float* pi = p.row(i);
    const float* gi = dp.row(i);
    float* di = dx.row(i);
    std::size_t j = 0;
    for (; j + W <= p.cols; j += W)
      (B::load_unaligned(pi + j) * (B::load_unaligned(gi + j) - cb)).store_unaligned(di + j);
    for (; j < p.cols; ++j) di[j] = pi[j] * (gi[j] - c);
  }
}

// Entropy and row max are reductions over at most a few thousand weights per row and are not
// on a hot path: the reference is fast enough and exact about 0 log 0.
void row_entropy(Vec<float> out, Mat<const float> p) { row_entropy_ref(out, p); }

void row_max(Vec<float> out, Mat<const float> p) {
  ATTN_CHECK(out.size == p.rows);
  for (std::size_t i = 0; i < p.rows; ++i) out[i] = max_of(p.row(i), p.cols);
}

}  // namespace attnlab
