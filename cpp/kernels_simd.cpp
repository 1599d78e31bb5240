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

// Register tiles for the two matrix products of attention's forward pass.
//
// Q·Kᵀ (matmul_nt) is a grid of dot products over the shared index p, both operands walking
// contiguous rows. Its micro-kernel takes NT_MR rows of a and W rows of b (W keys) and keeps
// NT_MR·W batch accumulators, acc[r][c] += a_r[p:p+W] ⊙ b_c[p:p+W]; at the end xsimd::haddp turns
// the W accumulators of row r into one batch of W dot products (out_r[j:j+W]), then the scalar
// tail adds the last k mod W terms. Keys are cache-blocked so that a block of b stays in L1/L2
// while every row block of a passes over it.
//   loads per tile step: NT_MR + W batches for NT_MR·W multiply-adds (2 rows: 6 loads, 8 mul+add;
//   2 rows measured faster than 1, 3 or 4 in V8: 4 rows need 16 accumulators + 5 operands, more
//   than the 16 xmm registers V8 allocates, and spill)
constexpr std::size_t NT_MR = 2;           // rows of a per tile (NT_MR·W accumulators)
constexpr std::size_t NT_BLOCK = 1 << 15;  // bytes of b per key block

// out[r][0:W] = a_r · b_c for r < MR rows of a and the W rows b_0 … b_(W−1)
template <std::size_t MR>
inline void nt_tile(float* out, std::size_t ldo, const float* a, const float* b, std::size_t k) {
  B acc[MR][W];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t c = 0; c < W; ++c) acc[r][c] = B(0.f);
  std::size_t p = 0;
  for (; p + W <= k; p += W) {
    B av[MR];
    for (std::size_t r = 0; r < MR; ++r) av[r] = B::load_unaligned(a + r * k + p);
    for (std::size_t c = 0; c < W; ++c) {
      const B bv = B::load_unaligned(b + c * k + p);
      for (std::size_t r = 0; r < MR; ++r) acc[r][c] = xsimd::fma(av[r], bv, acc[r][c]);
    }
  }
  for (std::size_t r = 0; r < MR; ++r) {
    B s = xsimd::haddp(acc[r]);  // lane c = Σ lanes of acc[r][c]
    if (p < k) {                 // the last k mod W terms, one lane per key
      alignas(64) float tail[W];
      for (std::size_t c = 0; c < W; ++c) {
        float t = 0.f;
        for (std::size_t q = p; q < k; ++q) t += a[r * k + q] * b[c * k + q];
        tail[c] = t;
      }
      s += B::load_aligned(tail);
    }
    s.store_unaligned(out + r * ldo);
  }
}

// out_ij = a_i · b_j, out (m, n), a (m, k), b (n, k): register tiles of NT_MR rows × W keys,
// keys cache-blocked. Summation order differs from the reference's (γ_k-bounded, as any order).
void matmul_nt(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_nt(out, a, b));
  const std::size_t m = a.rows, n = b.rows, k = a.cols;
  const std::size_t kb = std::max(W, NT_BLOCK / (sizeof(float) * std::max<std::size_t>(k, 1)) / W * W);
  const std::size_t n_full = n / W * W;  // keys in whole tiles
  for (std::size_t j0 = 0; j0 < n_full; j0 += kb) {
    const std::size_t j1 = std::min(n_full, j0 + kb);
    std::size_t i = 0;
    for (; i + NT_MR <= m; i += NT_MR)
      for (std::size_t j = j0; j < j1; j += W) nt_tile<NT_MR>(out.data + i * n + j, n, a.row(i), b.row(j), k);
    for (; i < m; ++i)
      for (std::size_t j = j0; j < j1; j += W) nt_tile<1>(out.data + i * n + j, n, a.row(i), b.row(j), k);
  }
  for (std::size_t i = 0; i < m; ++i)  // the last n mod W keys: one dot product each
    for (std::size_t j = n_full; j < n; ++j) out(i, j) = dot(a.row_vec(i), b.row_vec(j));
}

// P·V (matmul_nn) is tiled the other way: NN_MR rows of a × NN_NR batches of b's columns, with
// NN_MR·NN_NR accumulators, acc[r][c] += broadcast(a_rp) ⊙ b_p[j + cW : j + (c+1)W] for p = 0, 1, …
// Every output still accumulates a_i0 b_0j + a_i1 b_1j + … in the order of p, with one multiply
// and one add per term starting from 0, exactly as the row-axpy form did and as matmul_nn_ref
// does: tiling changes which outputs are computed together, not any output's operations, so the
// result is bit-identical to the reference in float (the training ablation relies on it,
// cpp/train.hpp "Determinism"). The inner index is cache-blocked: a block of whole rows of b
// (contiguous, so free of the set conflicts a column panel with a power-of-two stride has) stays
// in L2 while every row block of a passes over it; between blocks the partial sums wait in out,
// stored and reloaded exactly, so the order of p is kept.
//   loads per tile step: NN_NR batches + NN_MR broadcasts for NN_MR·NN_NR multiply-adds (2 × 4:
//   6 loads for 8 mul+add, 8 accumulators; measured in V8 against 4×2, 3×3, 4×3 and 6×2)
constexpr std::size_t NN_MR = 2;           // rows of a per tile
constexpr std::size_t NN_NR = 4;           // batches of b's columns per tile (NN_NR·W columns)
constexpr std::size_t NN_BLOCK = 1 << 17;  // bytes of b per block of the inner index

// out[r][0 : NR·W] (+)= Σ_p a_rp b_p[0 : NR·W] for r < MR, p in [p0, p1), in the order of p;
// the first block (p0 = 0) starts from 0, the others from the partial sums in out
template <std::size_t MR, std::size_t NR>
inline void nn_tile(float* out, std::size_t ldo, const float* a, std::size_t lda, const float* b,
                    std::size_t ldb, std::size_t p0, std::size_t p1) {
  B acc[MR][NR];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t c = 0; c < NR; ++c) acc[r][c] = p0 == 0 ? B(0.f) : B::load_unaligned(out + r * ldo + c * W);
  const float* bp = b + p0 * ldb;
  for (std::size_t p = p0; p < p1; ++p, bp += ldb) {
    B bv[NR];
    for (std::size_t c = 0; c < NR; ++c) bv[c] = B::load_unaligned(bp + c * W);
    for (std::size_t r = 0; r < MR; ++r) {
      const B ar(a[r * lda + p]);
      for (std::size_t c = 0; c < NR; ++c) acc[r][c] = xsimd::fma(ar, bv[c], acc[r][c]);
    }
  }
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t c = 0; c < NR; ++c) acc[r][c].store_unaligned(out + r * ldo + c * W);
}

// MR rows of out from row i, the inner block [p0, p1): whole tiles, then single batches
template <std::size_t MR>
inline void nn_rows(Mat<float> out, Mat<const float> a, Mat<const float> b, std::size_t i,
                    std::size_t n_full, std::size_t p0, std::size_t p1) {
  const std::size_t k = a.cols, n = b.cols;
  std::size_t j = 0;
  for (; j + NN_NR * W <= n_full; j += NN_NR * W) nn_tile<MR, NN_NR>(out.row(i) + j, n, a.row(i), k, b.data + j, n, p0, p1);
  for (; j < n_full; j += W) nn_tile<MR, 1>(out.row(i) + j, n, a.row(i), k, b.data + j, n, p0, p1);
}

// out_i = Σ_p a_ip b_p, out (m, n), a (m, k), b (k, n): register tiles, the inner index in L2
// blocks; each output summed in the order of p, bit-identical to matmul_nn_ref (above).
void matmul_nn(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_nn(out, a, b));
  const std::size_t m = a.rows, n = b.cols, k = a.cols;
  const std::size_t kc = std::max<std::size_t>(16, NN_BLOCK / (sizeof(float) * std::max<std::size_t>(n, 1)));
  const std::size_t n_full = n / W * W;  // columns in whole batches
  if (k == 0) std::fill(out.data, out.data + out.size(), 0.f);
  for (std::size_t p0 = 0; p0 < k; p0 += kc) {
    const std::size_t p1 = std::min(k, p0 + kc);
    std::size_t i = 0;
    for (; i + NN_MR <= m; i += NN_MR) nn_rows<NN_MR>(out, a, b, i, n_full, p0, p1);
    for (; i < m; ++i) nn_rows<1>(out, a, b, i, n_full, p0, p1);
  }
  for (std::size_t i = 0; i < m; ++i)  // the last n mod W columns, scalar, in the order of p
    for (std::size_t j = n_full; j < n; ++j) {
      float s = 0.f;
      for (std::size_t p = 0; p < k; ++p) s += a(i, p) * b(p, j);
      out(i, j) = s;
    }
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
