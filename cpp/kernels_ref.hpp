// Reference kernels: plain loops, templated on the scalar type so tests can run them in double.
//
// Each `_ref` is the specification of its fast twin in kernels.hpp and the engine's fallback when
// no SIMD architecture is compiled in. They read as the math: no tricks, one pass per line of
// the derivation. `out` may alias `x` in the row-wise kernels (each row is read before written).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

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
template <class T>
void softmax_rows_ref(Mat<T> out, Mat<const no_deduce<T>> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    const T* xi = x.row(i);
    T* yi = out.row(i);
    T m = -std::numeric_limits<T>::infinity();
    for (std::size_t j = 0; j < x.cols; ++j) m = std::max(m, xi[j]);
    T s = 0;
    for (std::size_t j = 0; j < x.cols; ++j) s += (yi[j] = std::exp(xi[j] - m));
    for (std::size_t j = 0; j < x.cols; ++j) yi[j] /= s;
  }
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
    T s = 0;
    for (std::size_t j = 0; j < x.cols; ++j) s += std::exp(xi[j] - m);
    const T ls = std::log(s);
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
    T h = 0;
    for (std::size_t j = 0; j < p.cols; ++j)
      if (p(i, j) > 0) h -= p(i, j) * std::log(p(i, j));
    out[i] = h;
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

}  // namespace attnlab
