// Scaled dot-product attention, forward and backward, composed from the kernels.
//
// Written once as a template: in float it runs the fast kernels, in double the `_ref` twins
// (kernels.hpp's overloads decide), so the tests check the float engine against the same
// composition in double and the backward pass against central differences of the forward.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kernels.hpp"

namespace attnlab {

// Which keys each query may attend. Both parts are optional and combine with AND.
struct Mask {
  bool causal = false;             // query i attends key j iff j <= i (upper-left, as ONNX, PyTorch)
  Mat<const std::uint8_t> keep{};  // (nq, nk), nonzero = attend; empty (data == nullptr) = all
  bool allows(std::size_t i, std::size_t j) const {
    return (!causal || j <= i) && (keep.data == nullptr || keep(i, j) != 0);
  }
  bool any() const { return causal || keep.data != nullptr; }
};

// Forward                                                              (eq:full-attention)
//   q (nq, dk), k (nk, dk), v (nk, dv) → weights P (nq, nk), out O (nq, dv)
// pass 1: S = scale · Q Kᵀ (+ bias, an optional additive (nq, nk) mask as in ONNX and PyTorch);
//         S_ij = −inf where the mask forbids j
// pass 2: P_i = softmax(S_i) over allowed keys; a row with no allowed key is P_i = 0
//         (ONNX opset 24, PyTorch SDPA): its output row and all its gradients are then 0
// pass 3: O = P V
// The scale (and bias, and mask) is applied row by row inside pass 2, while the row is in cache,
// with the same roundings as a separate pass: scale·(QKᵀ)_ij, then + bias_ij.
template <class T>
void attention_forward(Mat<T> out, Mat<T> weights, Mat<const T> q, Mat<const T> k,
                       Mat<const T> v, T scale, const Mask& mask = {}, Mat<const T> bias = {}) {
  ATTN_CHECK(can_matmul_nt(weights, q, k) && can_matmul_nn(out, Mat<const T>(weights), v));
  ATTN_CHECK(mask.keep.data == nullptr || same_shape(mask.keep, weights));
  ATTN_CHECK(bias.data == nullptr || same_shape(bias, weights));
  matmul_nt(weights, q, k);                                            // Q Kᵀ
  const bool causal_only = mask.causal && mask.keep.data == nullptr && bias.data == nullptr;
  if (!mask.any() && bias.data == nullptr) {
    softmax_scaled_rows(weights, Mat<const T>(weights), scale);        // P = softmax(scale·Q Kᵀ)
  } else if (causal_only) {
    // row i attends keys 0 … i: the softmax of that prefix, and exp(−inf) = 0 beyond it
    for (std::size_t i = 0; i < weights.rows; ++i) {
      const std::size_t allowed = std::min(i + 1, weights.cols);
      const Mat<T> prefix{weights.row(i), 1, allowed};
      softmax_scaled_rows(prefix, Mat<const T>(prefix), scale);
      std::fill(weights.row(i) + allowed, weights.row(i) + weights.cols, T(0));
    }
  } else {
    for (std::size_t i = 0; i < weights.rows; ++i) {
      Mat<T> row = weights.row_block(i, 1);
      bool any_allowed = false;
      for (std::size_t j = 0; j < row.cols; ++j) {
        row(0, j) = scale * row(0, j);
        if (bias.data) row(0, j) += bias(i, j);
        if (mask.allows(i, j)) any_allowed = true;
        else row(0, j) = -std::numeric_limits<T>::infinity();
      }
      if (any_allowed) softmax_rows(row, Mat<const T>(row));
      else std::fill(row.data, row.data + row.cols, T(0));
    }
  }
  matmul_nn(out, Mat<const T>(weights), v);                          // O = P V
}

// Backward: the forward passes in reverse, given dO = ∂L/∂O (nq, dv) and the forward's P.
// (An additive bias is a constant: it shapes P but has no gradient of its own here.)
//   pass 3 was O = P V      → dV = Pᵀ dO (nk, dv),  dP = dO Vᵀ (nq, nk)
//   pass 2 was P = softmax(S) → dS_ij = P_ij (dP_ij − Σ_l P_il dP_il)   (0 where P_ij = 0)
//   pass 1 was S = scale·QKᵀ → dQ = scale · dS K (nq, dk),  dK = scale · dSᵀ Q (nk, dk)
// `ds` is caller-provided scratch of shape (nq, nk); no allocation here.
template <class T>
void attention_backward(Mat<T> dq, Mat<T> dk, Mat<T> dv, Mat<T> ds, Mat<const T> q,
                        Mat<const T> k, Mat<const T> v, Mat<const T> weights, Mat<const T> dout,
                        T scale) {
  ATTN_CHECK(same_shape(dq, q) && same_shape(dk, k) && same_shape(dv, v));
  ATTN_CHECK(can_matmul_nt(weights, q, k) && same_shape(ds, weights));
  ATTN_CHECK(can_matmul_nn(dout, weights, v));
  matmul_tn(dv, weights, dout);                                   // dV = Pᵀ dO
  matmul_nt(ds, dout, v);                                         // dP = dO Vᵀ (in ds)
  softmax_backward_rows(ds, weights, Mat<const T>(ds));           // dS, in place
  attnlab::scale(ds, Mat<const T>(ds), scale);                    // scale · dS
  matmul_nn(dq, Mat<const T>(ds), k);                             // dQ = scale·dS K
  matmul_tn(dk, Mat<const T>(ds), q);                             // dK = scale·dSᵀ Q
}

}  // namespace attnlab
