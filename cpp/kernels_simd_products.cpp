// xsimd matrix products of kernels.hpp: matmul_nn, matmul_tn, matmul_nt.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels_simd.hpp"

namespace attnlab {

using simd::B;
using simd::W;

// Register tiles for the matrix products of attention (forward: Q·Kᵀ, P·V; backward: Pᵀ·dO, dSᵀ·Q,
// dS·K, dO·Vᵀ), all on one micro-kernel over packed panels of the right operand.
//
// out = A b, A (m, k), b (k, n). Three levels, each sized for a level of the cache:
//   block   up to BLOCK_COLS = 256 columns of b × PANEL_KC = 1024/W of the inner index (256 in
//           wasm), packed into panels in a per-thread buffer (256 KiB in wasm, L2); every row of A
//           passes over the block's panels, BLOCK_ROWS = 128 rows at a time, so those rows (128
//           KiB, L2) serve every panel of the block before the next rows come in;
//   panel   NN_NR·W columns (16 in wasm) × up to PANEL_KC of the inner index, (p, column)
//           row-major: 16 KiB, in L1 while a block's rows pass over it;
//   tile    NN_MR × NN_NR = 2 × 4 batches of out in registers:
//             acc[r][c] += broadcast(A_(i+r)p) ⊙ panel_p[cW : (c+1)W]   for p = p0, p0 + 1, …
//           per step NN_NR batch loads + NN_MR broadcasts for 8 mul+add (measured in V8 against
//           4×2, 3×3, 4×3 and 6×2).
// Without the blocks (one panel, then every row of A over it) A was read from memory once per
// panel: at 1024×512 P·V streamed the 4 MiB of P 32 times from L3 (wasm in Node: 34 → 37
// GFLOP/s with the blocks, kernel level).
// Between blocks of the inner index the partial sums wait in out, stored and reloaded exactly.
// Every output accumulates A_i0 b_0j + A_i1 b_1j + … in the order of p, with one multiply and one
// add per term starting from 0, exactly as matmul_nn_ref does: packing, blocking and tiling change
// which outputs are computed together and where b is read from, not any output's operations, so
// the result is bit-identical to the reference in float (the training ablation relies on it,
// cpp/train.hpp "Determinism").
// Packed, a panel's rows are contiguous whatever b's row stride: read in place, a panel of
// 1024×512 V's columns was 16 × 64 B lines 2 KiB apart, which share a few of L1's sets.
// Pᵀ·dO and dSᵀ·Q (matmul_tn, out = aᵀ b) are the same product with a read transposed: the
// broadcast A_rp is a(p, i + r), MR neighbours in row p of a instead of a column; TransA says so.
// Q·Kᵀ (matmul_nt, out_ij = a_i · b_j) is the same again on bᵀ: its panels are 16 keys transposed.

namespace {

constexpr std::size_t NN_MR = 2;            // rows of out per tile
constexpr std::size_t NN_NR = 4;            // batches of the panel's columns per tile
constexpr std::size_t PANEL_COLS = NN_NR * W;
constexpr std::size_t PANEL_KC = 1024 / W;  // rows of a panel: PANEL_KC·PANEL_COLS floats = 16 KiB
constexpr std::size_t BLOCK_COLS = 256;     // columns of b per block, a multiple of PANEL_COLS
constexpr std::size_t BLOCK_ROWS = 128;     // rows of A per pass over a block's panels, even

// The (m, k) left operand A of out = A b: a itself (a is (m, k)), or aᵀ (TransA: a is (k, m)).
template <bool TransA>
struct Left {
  Mat<const float> a;
  std::size_t rows() const { return TransA ? a.cols : a.rows; }
  std::size_t inner() const { return TransA ? a.rows : a.cols; }
  float operator()(std::size_t i, std::size_t p) const { return TransA ? a(p, i) : a(i, p); }
};

// out[r][0 : NR·W] (+)= Σ_p A_(i+r)p panel_(p−p0)[0 : NR·W] for r < MR, p in [p0, p1), in the
// order of p; from 0 if `fresh` (the first block of p), else from the partial sums in out
template <std::size_t MR, std::size_t NR, bool TransA>
inline void tile(float* out, std::size_t ldo, Left<TransA> a, std::size_t i, std::size_t p0,
                 std::size_t p1, const float* panel, std::size_t ldp, bool fresh) {
  B acc[MR][NR];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t c = 0; c < NR; ++c) acc[r][c] = fresh ? B(0.f) : B::load_unaligned(out + r * ldo + c * W);
  const std::size_t lda = a.a.cols;
  const float* ap = TransA ? a.a.row(p0) + i : a.a.row(i) + p0;  // A_ip0
  const float* bp = panel;
  for (std::size_t p = p0; p < p1; ++p, bp += ldp, ap += TransA ? lda : 1) {
    B bv[NR];
    for (std::size_t c = 0; c < NR; ++c) bv[c] = B::load_unaligned(bp + c * W);
    for (std::size_t r = 0; r < MR; ++r) {
      const B ar(ap[TransA ? r : r * lda]);  // A_(i+r)p
      // a multiply, then an add: not xsimd::fma, which fuses them on FMA hardware (a -march=native
      // build) and so rounds once where the reference rounds twice
      for (std::size_t c = 0; c < NR; ++c) acc[r][c] = acc[r][c] + ar * bv[c];
    }
  }
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t c = 0; c < NR; ++c) acc[r][c].store_unaligned(out + r * ldo + c * W);
}

// out[i0 : i1, j : j + NR·W] (+)= A[i0 : i1, p0 : p1] · panel, the panel holding b's block
// (p0 … p1, j … j + NR·W)
template <std::size_t NR, bool TransA>
void panel_rows(Mat<float> out, Left<TransA> a, std::size_t i0, std::size_t i1, std::size_t j,
                std::size_t p0, std::size_t p1, const float* panel, std::size_t ldp) {
  std::size_t i = i0;
  for (; i + NN_MR <= i1; i += NN_MR) tile<NN_MR, NR>(out.row(i) + j, out.cols, a, i, p0, p1, panel, ldp, p0 == 0);
  for (; i < i1; ++i) tile<1, NR>(out.row(i) + j, out.cols, a, i, p0, p1, panel, ldp, p0 == 0);
}

// The blocks' packed panels, per thread: grown on a thread's first product, then reused.
float* block_buffer() {
  thread_local std::vector<float> buffer(PANEL_KC * BLOCK_COLS);
  return buffer.data();
}

// f(j, cols) for the panels of columns j0 … j1 (a multiple of W apart): whole panels of
// PANEL_COLS columns, then panels of W. `cols` is a compile-time constant (std::integral_constant),
// so a panel row's copy is a few batch moves, not a call to memcpy (with one, the trainer's
// products of 8–24 rows ran about 20% slower), and the tile's width follows from it.
template <class F>
void for_each_panel(std::size_t j0, std::size_t j1, F f) {
  std::size_t j = j0;
  for (; j + PANEL_COLS <= j1; j += PANEL_COLS) f(j, std::integral_constant<std::size_t, PANEL_COLS>{});
  for (; j < j1; j += W) f(j, std::integral_constant<std::size_t, W>{});
}

// out[:, 0 : n'] = A b' for the first n' = n − n mod W columns of b', block by block, where
// pack(panel, j, cols, p0, p1) writes b's block (p0 … p1, j … j + cols) as a panel, (p, column)
// row-major.
template <bool TransA, class Pack>
void blocked_product(Mat<float> out, Left<TransA> a, std::size_t n, Pack pack) {
  const std::size_t m = a.rows(), k = a.inner(), whole = n - n % W;
  float* const packed = block_buffer();
  for (std::size_t j0 = 0; j0 < whole; j0 += BLOCK_COLS) {
    const std::size_t j1 = std::min(whole, j0 + BLOCK_COLS);
    for (std::size_t p0 = 0; p0 < k; p0 += PANEL_KC) {
      const std::size_t p1 = std::min(k, p0 + PANEL_KC), kc = p1 - p0;
      for_each_panel(j0, j1, [&](std::size_t j, auto cols) { pack(packed + (j - j0) * kc, j, cols, p0, p1); });
      for (std::size_t i0 = 0; i0 < m; i0 += BLOCK_ROWS) {
        const std::size_t i1 = std::min(m, i0 + BLOCK_ROWS);
        for_each_panel(j0, j1, [&](std::size_t j, auto cols) {
          panel_rows<decltype(cols)::value / W>(out, a, i0, i1, j, p0, p1, packed + (j - j0) * kc, cols);
        });
      }
    }
  }
}

// out_i = Σ_p A_ip b_p, out (m, n), A (m, k), b (k, n): each output summed in the order of p,
// bit-identical to matmul_nn_ref / matmul_tn_ref. Packed when A has rows enough to repay the
// copy; else (a row or two: a vector–matrix product) b is read in place.
template <bool TransA>
void matmul_xn(Mat<float> out, Left<TransA> a, Mat<const float> b) {
  const std::size_t m = a.rows(), n = b.cols, k = a.inner(), whole = n - n % W;
  if (k == 0) std::fill(out.data, out.data + out.size(), 0.f);
  if (m > 2 * NN_MR) {
    blocked_product(out, a, n, [&](float* panel, std::size_t j, auto cols, std::size_t p0, std::size_t p1) {
      for (std::size_t p = p0; p < p1; ++p) std::memcpy(panel + (p - p0) * cols, b.row(p) + j, cols * sizeof(float));
    });
  } else {
    for (std::size_t p0 = 0; p0 < k; p0 += PANEL_KC) {
      const std::size_t p1 = std::min(k, p0 + PANEL_KC);
      for_each_panel(0, whole, [&](std::size_t j, auto cols) {
        panel_rows<decltype(cols)::value / W>(out, a, 0, m, j, p0, p1, b.row(p0) + j, b.cols);
      });
    }
  }
  for (std::size_t i = 0; i < m; ++i)  // the last n mod W columns, scalar, in the order of p
    for (std::size_t jj = whole; jj < n; ++jj) {
      float s = 0.f;
      for (std::size_t p = 0; p < k; ++p) s += a(i, p) * b(p, jj);
      out(i, jj) = s;
    }
}

}  // namespace

void matmul_nn(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_nn(out, a, b));
  matmul_xn(out, Left<false>{a}, b);
}

void matmul_tn(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_tn(out, a, b));
  matmul_xn(out, Left<true>{a}, b);
}

// Q·Kᵀ: the panels are bᵀ's, (p, key) row-major: 16 keys (or W) × up to PANEL_KC of the shared
// index, transposed on packing; the last n mod W keys as single dot products. Summation order
// differs from the reference's (γ_k-bounded, as any order).
// The transposing copy walks pointers, four elements to a step at constant offsets: Emscripten
// compiles with LLVM's loop strength reduction off (-disable-lsr), and written as
// panel[(p − p0)·keys + c] = b(j + c, p) each element cost a multiply-add of indices or two.
// Walked, Q·Kᵀ at 512×64 took 1–4% less time (wasm in Node, A/B medians).
void matmul_nt(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_nt(out, a, b));
  const std::size_t m = a.rows, n = b.rows;
  if (a.cols == 0) std::fill(out.data, out.data + out.size(), 0.f);
  blocked_product(out, Left<false>{a}, n, [&](float* panel, std::size_t j, auto keys, std::size_t p0, std::size_t p1) {
    for (std::size_t c = 0; c < keys; ++c) {  // panel[p − p0][c] = b(j + c, p)
      const float* from = b.row(j + c) + p0;
      float* to = panel + c;
      const float* const end = from + (p1 - p0);
      for (; end - from >= 4; from += 4, to += 4 * keys) {  // four at a time: constant offsets
        to[0] = from[0];
        to[keys] = from[1];
        to[2 * keys] = from[2];
        to[3 * keys] = from[3];
      }
      for (; from != end; ++from, to += keys) *to = *from;
    }
  });
  const std::size_t j = n - n % W;
  for (std::size_t i = 0; i < m; ++i)  // the last n mod W keys: one dot product each
    for (std::size_t jj = j; jj < n; ++jj) out(i, jj) = dot(a.row_vec(i), b.row_vec(jj));
}

}  // namespace attnlab
