// Reference kernels: plain loops, templated on the scalar type so tests can run them in double.
//
// Each `_ref` is the specification of its fast twin in kernels.hpp and the engine's fallback when
// no SIMD architecture is compiled in. They read as the math: no tricks, one pass per line of
// the derivation. `out` may alias `x` in the row-wise kernels (each row is read before written).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "rng.hpp"
#include "view.hpp"

namespace attnlab {

template <class T> struct type_identity { using type = T; };
template <class T> using no_deduce = typename type_identity<T>::type;

// s = Σ_i a_i b_i                                                          (eq:dot-variance)
template <class A, class B>
std::remove_const_t<A> dot_ref(Vec<A> a, Vec<B> b) {
  ATTN_CHECK(a.size == b.size);
  std::remove_const_t<A> s = 0;
  for (std::size_t i = 0; i < a.size; ++i) s += a[i] * b[i];
  return s;
}

// out = s · x
template <class T>
void scale_ref(Mat<T> out, Mat<const no_deduce<T>> x, T s) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.size(); ++i) out.data[i] = s * x.data[i];
}

// out (m, n) = a (m, k) · bᵀ        (n, k) = b's shape; this is Q·Kᵀ      (eq:setup)
template <class T>
void matmul_nt_ref(Mat<T> out, Mat<const no_deduce<T>> a, Mat<const no_deduce<T>> b) {
  ATTN_CHECK(can_matmul_nt(out, a, b));
  for (std::size_t i = 0; i < out.rows; ++i)
    for (std::size_t j = 0; j < out.cols; ++j) {
      T s = 0;
      for (std::size_t p = 0; p < a.cols; ++p) s += a(i, p) * b(j, p);
      out(i, j) = s;
    }
}

// out (m, n) = a (m, k) · b (k, n)                                     this is P·V
template <class T>
void matmul_nn_ref(Mat<T> out, Mat<const no_deduce<T>> a, Mat<const no_deduce<T>> b) {
  ATTN_CHECK(can_matmul_nn(out, a, b));
  for (std::size_t i = 0; i < out.rows; ++i)
    for (std::size_t j = 0; j < out.cols; ++j) {
      T s = 0;
      for (std::size_t p = 0; p < a.cols; ++p) s += a(i, p) * b(p, j);
      out(i, j) = s;
    }
}

// out (m, n) = aᵀ · b, a (k, m), b (k, n)                   this is Pᵀ·dO and dSᵀ·Q
template <class T>
void matmul_tn_ref(Mat<T> out, Mat<const no_deduce<T>> a, Mat<const no_deduce<T>> b) {
  ATTN_CHECK(can_matmul_tn(out, a, b));
  for (std::size_t i = 0; i < out.rows; ++i)
    for (std::size_t j = 0; j < out.cols; ++j) {
      T s = 0;
      for (std::size_t p = 0; p < a.rows; ++p) s += a(p, i) * b(p, j);
      out(i, j) = s;
    }
}

// Row softmax with max subtraction.                                    (eq:shift-vs-scale)
// pass 1: m = max_j x_j
// pass 2: e_j = exp(x_j − m); x_j − m <= 0, so e_j in [0, 1] and e_argmax = 1: no overflow, s >= 1
// pass 3: y_j = e_j / s
// IEEE, no special cases: a row of all −inf gives m = −inf, x − m = NaN, so NaN (as torch.softmax
// and the ONNX reference); any NaN in a row makes the row NaN; a +inf makes the row NaN.
// A row's sum, one term at a time, in double: in float a sum of n terms drifts by up to n·2⁻²⁴ of
// itself, and a row may hold 2²⁴ weights (api.cpp's limit), whose float sum came out 3% off.
template <class T>
using RowSum = std::conditional_t<(sizeof(T) < sizeof(double)), double, T>;

template <class T>
void softmax_rows_ref(Mat<T> out, Mat<const no_deduce<T>> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    const T* xi = x.row(i);
    T* yi = out.row(i);
    T m = -std::numeric_limits<T>::infinity();
    for (std::size_t j = 0; j < x.cols; ++j) m = std::max(m, xi[j]);
    RowSum<T> s = 0;
    for (std::size_t j = 0; j < x.cols; ++j) s += (yi[j] = std::exp(xi[j] - m));
    for (std::size_t j = 0; j < x.cols; ++j) yi[j] = static_cast<T>(yi[j] / s);
  }
}

// softmax_rows_ref of x's rows up to the first that holds a NaN or +inf, the logits no softmax can
// take (−inf masks one); returns that row's index, x.rows if there is none. That row and the rows
// after it are not written: the checked API finds the culprit in x even when out aliases x, and
// checks its logits in the softmax's own passes rather than in a pass of their own.
template <class T>
std::size_t softmax_rows_checked_ref(Mat<T> out, Mat<const no_deduce<T>> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    for (std::size_t j = 0; j < x.cols; ++j)
      if (std::isnan(x(i, j)) || x(i, j) == std::numeric_limits<T>::infinity()) return i;
    softmax_rows_ref(out.row_block(i, 1), x.row_block(i, 1));
  }
  return x.rows;
}

// Softmax of scale·x, row by row: attention's scale pass fused into its softmax.
// pass 1: w_j = scale · x_j, rounded as a separate scale pass rounds it (eq:scaling-choices)
// then softmax_rows_ref of w, so the result is exactly the composition's
template <class T>
void softmax_scaled_rows_ref(Mat<T> out, Mat<const no_deduce<T>> x, T scale) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.size(); ++i) out.data[i] = scale * x.data[i];
  softmax_rows_ref(out, Mat<const T>(out));
}

// The naive softmax, kept on purpose: y_j = exp(x_j) / Σ_k exp(x_k). In float, exp overflows to
// +inf above ln(FLT_MAX) ≈ 88.72, and inf/inf = NaN. Only the page's overflow demo calls it.
template <class T>
void softmax_naive_rows_ref(Mat<T> out, Mat<const no_deduce<T>> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    const T* xi = x.row(i);
    T* yi = out.row(i);
    T s = 0;
    for (std::size_t j = 0; j < x.cols; ++j) s += (yi[j] = std::exp(xi[j]));
    for (std::size_t j = 0; j < x.cols; ++j) yi[j] /= s;
  }
}

// log softmax: y_j = (x_j − m) − log Σ_k exp(x_k − m). Never log(softmax): that gives −inf where
// softmax underflows to 0, while this stays finite. And never x_j − (m + log s): m + log s rounds
// to the ulp of m, which is 2⁻¹⁰ in float32 at m = 10⁴, while x_j − m is exact near the max.
template <class T>
void log_softmax_rows_ref(Mat<T> out, Mat<const no_deduce<T>> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    const T* xi = x.row(i);
    T* yi = out.row(i);
    T m = -std::numeric_limits<T>::infinity();
    for (std::size_t j = 0; j < x.cols; ++j) m = std::max(m, xi[j]);
    RowSum<T> s = 0;
    for (std::size_t j = 0; j < x.cols; ++j) s += std::exp(xi[j] - m);
    const T ls = static_cast<T>(std::log(s));
    for (std::size_t j = 0; j < x.cols; ++j) yi[j] = (xi[j] - m) - ls;
  }
}

// Softmax backward, row by row.                                    (eq:vanishing-gradients)
// forward: p = softmax(x);  Jacobian J = diag(p) − p pᵀ, so
// dx_j = Σ_k J_jk dp_k = p_j (dp_j − Σ_k p_k dp_k)
// A one-hot p gives dx = 0 for every dp: the gradient vanishes when softmax saturates.
template <class T>
void softmax_backward_rows_ref(Mat<T> dx, Mat<const no_deduce<T>> p, Mat<const no_deduce<T>> dp) {
  ATTN_CHECK(same_shape(dx, p) && same_shape(p, dp));
  for (std::size_t i = 0; i < p.rows; ++i) {
    const T* pi = p.row(i);
    const T* gi = dp.row(i);
    T c = 0;
    for (std::size_t j = 0; j < p.cols; ++j) c += pi[j] * gi[j];
    for (std::size_t j = 0; j < p.cols; ++j) dx(i, j) = pi[j] * (gi[j] - c);
  }
}

// J = diag(p) − p pᵀ (n, n), the Jacobian ∂p/∂x of p = softmax(x).       (eq:vanishing-gradients)
// J_ij = p_i (δ_ij − p_j): a one-hot p gives J = 0, a uniform p gives (1/n)(I − 11ᵀ/n).
template <class T>
void softmax_jacobian_ref(Mat<T> jac, Vec<const no_deduce<T>> p) {
  ATTN_CHECK(jac.rows == p.size && jac.cols == p.size);
  for (std::size_t i = 0; i < p.size; ++i)
    for (std::size_t j = 0; j < p.size; ++j) jac(i, j) = p[i] * ((i == j ? T(1) : T(0)) - p[j]);
}

// H_i = −Σ_j p_ij log p_ij, with 0 log 0 = 0. Uniform over n gives log n; one-hot gives 0.
template <class T>
void row_entropy_ref(Vec<T> out, Mat<const no_deduce<T>> p) {
  ATTN_CHECK(out.size == p.rows);
  for (std::size_t i = 0; i < p.rows; ++i) {
    RowSum<T> h = 0;  // (in float, a uniform row of 2²⁰ weights summed to more than ln 2²⁰)
    for (std::size_t j = 0; j < p.cols; ++j)
      if (p(i, j) > 0) h -= RowSum<T>(p(i, j)) * std::log(RowSum<T>(p(i, j)));
    out[i] = static_cast<T>(h);
  }
}

// True when every x_i is finite, or −inf where minus_inf_ok: the checked API's value checks.
template <class T>
bool all_finite_ref(Vec<const T> x, bool minus_inf_ok) {
  for (std::size_t i = 0; i < x.size; ++i)
    if (!std::isfinite(x[i]) && !(minus_inf_ok && x[i] == -std::numeric_limits<T>::infinity())) return false;
  return true;
}

// out_i = max_j p_ij
template <class T>
void row_max_ref(Vec<T> out, Mat<const no_deduce<T>> p) {
  ATTN_CHECK(out.size == p.rows);
  for (std::size_t i = 0; i < p.rows; ++i) {
    T m = -std::numeric_limits<T>::infinity();
    for (std::size_t j = 0; j < p.cols; ++j) m = std::max(m, p(i, j));
    out[i] = m;
  }
}

// Box–Muller normals from a NormalStream (rng.hpp), one lane at a time, with the SIMD kernel's
// float operations in its order: the two give the same bits.
namespace normals_detail {
inline std::uint32_t rotl(std::uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
inline std::uint32_t f2u(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float u2f(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
// xoshiro128** on lane l of the state: the output, then the state advanced
inline std::uint32_t next(NormalStream& g, int l) {
  std::uint32_t& s0 = g.s[0][l]; std::uint32_t& s1 = g.s[1][l];
  std::uint32_t& s2 = g.s[2][l]; std::uint32_t& s3 = g.s[3][l];
  const std::uint32_t r = rotl(s1 * 5, 7) * 9, t = s1 << 9;
  s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11);
  return r;
}
// u = (⌊a/2⌋ + ½)·2⁻³¹ ∈ (0, 1] from an output a
inline float unit(std::uint32_t a) { return (float(std::int32_t(a >> 1)) + 0.5f) * 0x1p-31f; }
// ln u for a positive normal float u (BoxMuller's polynomial)
inline float ln(float u) {
  using C = BoxMuller;
  const std::int32_t bits = std::int32_t(f2u(u));
  const float m = u2f(std::uint32_t((bits & 0x007fffff) | 0x3f000000));  // [½, 1)
  const bool small = m < C::sqrt_half;
  const float f = small ? m + m - 1.f : m - 1.f;
  const float e = float((bits >> 23) - 126) - (small ? 1.f : 0.f);
  const float f2 = f * f;
  float p = C::log_p[0];
  for (int k = 1; k < 9; ++k) p = p * f + C::log_p[k];
  float y = p * f * f2;
  y = y + C::ln2_lo * e;
  y = y + -0.5f * f2;
  return (f + y) + C::ln2_hi * e;
}
// z₁ = r·cos 2πu₂ and z₂ = r·sin 2πu₂ from a lane's outputs a, b
inline void box_muller(std::uint32_t a, std::uint32_t b, float& z1, float& z2) {
  using C = BoxMuller;
  const float r = std::sqrt(-2.f * ln(unit(a)));
  // sin and cos of 2πu₂
  const float v = float(std::int32_t(b >> 8)) * 0x1p-22f;  // 4u₂
  const float t = v + C::shifter;
  const float x = (v - (t - C::shifter)) * C::half_pi, x2 = x * x;
  const float sn = x + x * x2 * (C::sin_p[0] + x2 * (C::sin_p[1] + x2 * C::sin_p[2]));
  const float cs = (1.f - 0.5f * x2) + x2 * x2 * (C::cos_p[0] + x2 * (C::cos_p[1] + x2 * C::cos_p[2]));
  const std::uint32_t q = f2u(t);
  const bool odd = q & 1;
  z1 = r * u2f(f2u(odd ? sn : cs) ^ (((q + 1) & 2) << 30));
  z2 = r * u2f(f2u(odd ? cs : sn) ^ ((q & 2) << 30));
}

// One Student-t entry of lane l (rng.hpp: student_t on a NormalStream): its Box–Muller pair
// (z₁, z₂), then ⌊ν/2⌋ uniforms, multiplied three at a time (no product leaves float's normal
// range: u >= 2⁻³²) before each ln.
inline float student_t_entry(NormalStream& g, int l, int df) {
  const std::uint32_t a = next(g, l);
  float z1, z2;
  box_muller(a, next(g, l), z1, z2);
  float chi2 = df % 2 ? z2 * z2 : 0.f;
  for (int k = 0; k < df / 2; k += 3) {
    float p = unit(next(g, l));
    for (int j = k + 1; j < std::min(k + 3, df / 2); ++j) p = p * unit(next(g, l));
    chi2 = chi2 + -2.f * ln(p);
  }
  return z1 * std::sqrt(float(df - 2) / chi2);
}
}  // namespace normals_detail

inline void normals_ref(Vec<float> out, NormalStream& g) {
  for (std::size_t i = 0; i < out.size; i += 8) {
    float z[8];
    std::uint32_t a[4], b[4];
    for (int l = 0; l < 4; ++l) a[l] = normals_detail::next(g, l);
    for (int l = 0; l < 4; ++l) b[l] = normals_detail::next(g, l);
    for (int l = 0; l < 4; ++l) normals_detail::box_muller(a[l], b[l], z[2 * l], z[2 * l + 1]);
    std::memcpy(out.data + i, z, sizeof(float) * std::min<std::size_t>(8, out.size - i));
  }
}

// Student-t entries standardized to variance 1 from a NormalStream, four at a time (entry 4k + l
// from lane l), with the SIMD kernel's float operations in its order: the two give the same bits.
inline void student_t_ref(Vec<float> out, NormalStream& g, int df) {
  ATTN_CHECK(df >= 3 && df <= kMaxStudentDf);
  for (std::size_t i = 0; i < out.size; i += 4) {
    float z[4];
    for (int l = 0; l < 4; ++l) z[l] = normals_detail::student_t_entry(g, l, df);
    std::memcpy(out.data + i, z, sizeof(float) * std::min<std::size_t>(4, out.size - i));
  }
}

// The first two normals of NormalStream(seed, stream), lane 0's first pair, without seeding the
// other lanes: the product experiment's one pair (d_k = 1) at a quarter of the seeding.
inline void first_two_normals(std::uint64_t seed, std::uint64_t stream, float& z1, float& z2) {
  NormalStream g(seed, stream, 1);
  const std::uint32_t a = normals_detail::next(g, 0);
  normals_detail::box_muller(a, normals_detail::next(g, 0), z1, z2);
}

inline void first_normal_pairs_ref(Vec<float> z1, Vec<float> z2, std::uint64_t seed, std::uint64_t first) {
  ATTN_CHECK(z1.size == z2.size);
  for (std::size_t i = 0; i < z1.size; ++i) first_two_normals(seed, first + i, z1[i], z2[i]);
}

}  // namespace attnlab
