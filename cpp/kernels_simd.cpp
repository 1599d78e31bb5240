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
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels.hpp"

namespace attnlab {
namespace {

using B = xsimd::batch<float>;
constexpr std::size_t W = B::size;

// e^x in two parts shared by the two batch exps below.
//   k = round(x·log2 e) by the shifter trick: t = x·log2 e + (1.5·2²³ + b) holds k + b in its low
//   mantissa bits, rounded to nearest, and −k = (1.5·2²³ + b) − t exactly (a float→int
//   conversion would cost more: wasm has no rounding one, and Emscripten emulates _mm_cvtps_epi32
//   lane by lane; shifter − t, not t − shifter, which the compiler turns into t + (−shifter): one
//   constant more for V8 to keep in its 15 vector registers, where the softmax loop's constants
//   already spill)
//   r = x − k·ln2 in two parts (Cody–Waite: k·0.693359375 is exact for |k| < 2¹⁵), |r| <= ln2/2
//   e^r − 1 = r + r²·q(r), q of degree 3: a Remez fit of e^r's relative error on [−ln2/2, ln2/2]
//   (1.76·2⁻²⁴), in Estrin's form q = (c2 + c3·r) + r²·(c4 + c5·r): Horner's operations (r² is
//   needed anyway) in 2 dependent steps instead of 3. Measured against double exp over
//   [−104, 88.7], both batch exps are within 2.3 ulp (Cephes expf's degree-5 q gave 1 ulp, with
//   two multiply-adds more: 5% of the softmax's time in Node).
// Returns e^r − 1 (the caller adds the 1, rounding as e^r would, or multiplies it into a power of
// two) and leaves t for the caller to build 2^k from.
inline B expm1_reduced(B x, B shifter, B& t) {
  t = x * B(1.44269504088896341f) + shifter;
  const B minus_k = shifter - t;
  const B r = (x + minus_k * B(0.693359375f)) + minus_k * B(-2.12194440e-4f), r2 = r * r;
  const B q = (B(0x1.fffdfcp-2f) + B(0x1.5557aep-3f) * r) +
              r2 * (B(0x1.572a06p-5f) + B(0x1.10627ap-7f) * r);
  return r2 * q + r;
}

// e^x for any x, with IEEE edges matching the scalar tail's std::exp: +inf exactly above
// ln(FLT_MAX) ≈ 88.7228, correctly rounded subnormals down to e^−103.97, 0 below, NaN kept.
// (xsimd 8.1's exp saturates to +inf at 88.376 and to 0 at −88.376, so a batch and its scalar
// tail disagreed near both ends.)
//   x clamped to [−104, 89] (beyond: 0 and +inf anyway); x goes second to max and min, whose
//   SSE form (and wasm's lowering of it) returns the second operand when either is NaN: NaN stays
//   NaN through every step below
//   e^x = e^r · 2^⌊k/2⌋ · 2^(k − ⌊k/2⌋): both factors are normal floats for k in [−150, 129], so
//   the only rounding past the polynomial is the last product's, into the subnormals if need be.
B exp_batch(B x) {
  using I = xsimd::batch<std::int32_t>;
  const B shifter(12582912.f);  // 1.5·2²³: b = 0
  B t;
  const B er = expm1_reduced(xsimd::min(B(89.f), xsimd::max(B(-104.f), x)), shifter, t) + B(1.f);
  const I ki = xsimd::bitwise_cast<I>(t) - xsimd::bitwise_cast<I>(shifter), k1 = ki >> 1, k2 = ki - k1;
  const B s1 = xsimd::bitwise_cast<B>((k1 + I(127)) << 23), s2 = xsimd::bitwise_cast<B>((k2 + I(127)) << 23);
  return (er * s1) * s2;
}

// 2⁶⁴·e^z for z <= 0 (or NaN): the softmax's arguments z = x − max, whose normalisation cancels
// the 2⁶⁴ (softmax_rows_of), so one power of two will do and no product rounds past the polynomial.
//   for z >= −104, k in [−150, 0]; with b = 127 + 64, t's bits shifted left by 23 are exactly the
//   float 2^(k+64) = p, a normal one, and 2⁶⁴·e^z = (e^r − 1)·p + p: the product is exact, so the
//   sum rounds as 1 + (e^r − 1) would, and no constant 1 is needed; the softmax's last product
//   y = 2⁶⁴·e^z · (1 / Σ 2⁶⁴·e^z) is then the only rounding into the subnormals
//   z < −104, −inf included: 0 (e^−104 is below half the least subnormal, so 0 in any result),
//   by a mask applied last, off the dependency chain (a clamp before the reduction costs the same
//   compare and select, but on it); NaN compares false and stays NaN through every step.
//   Masked false: the caller knows that no z is below −104 (rows_pipelined), and skips the mask.
template <bool Masked>
B exp_nonpositive_2p64(B z) {
  using I = xsimd::batch<std::int32_t>;
  B t;
  const B em1 = expm1_reduced(z, B(12582912.f + 191.f), t);
  const B p = xsimd::bitwise_cast<B>(xsimd::bitwise_cast<I>(t) << 23);
  if constexpr (Masked) return xsimd::select(z < B(-104.f), B(0.f), em1 * p + p);
  else return em1 * p + p;
}

// max_j (Max) or min_j of a batch's lanes
template <bool Max>
float pick_lanes(B v) {
  alignas(64) float lanes[W];
  v.store_aligned(lanes);
  float m = lanes[0];
  for (float l : lanes) m = Max ? std::max(m, l) : std::min(m, l);
  return m;
}

// max_j x_j (Max) or min_j x_j, with four accumulators so that successive compare-selects overlap
template <bool Max>
float extreme_of(const float* x, std::size_t n) {
  auto pick = [](B a, B b) { return Max ? xsimd::max(a, b) : xsimd::min(a, b); };
  auto pick1 = [](float a, float b) { return Max ? std::max(a, b) : std::min(a, b); };
  float m = Max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  std::size_t j = 0;
  if (n >= 4 * W) {
    B a0 = B::load_unaligned(x), a1 = B::load_unaligned(x + W), a2 = B::load_unaligned(x + 2 * W),
      a3 = B::load_unaligned(x + 3 * W);
    for (j = 4 * W; j + 4 * W <= n; j += 4 * W) {
      a0 = pick(a0, B::load_unaligned(x + j));
      a1 = pick(a1, B::load_unaligned(x + j + W));
      a2 = pick(a2, B::load_unaligned(x + j + 2 * W));
      a3 = pick(a3, B::load_unaligned(x + j + 3 * W));
    }
    m = pick_lanes<Max>(pick(pick(a0, a1), pick(a2, a3)));
  }
  for (; j < n; ++j) m = pick1(m, x[j]);
  return m;
}
float max_of(const float* x, std::size_t n) { return extreme_of<true>(x, n); }

// Pass 1 of a row, fed two batches at a time (from inside another row's pass 2: rows_pipelined).
// Max: the maximum, and a lower bound of the minimum, from the bit patterns as integers:
//   for floats >= +0 the order of their patterns as int32 is the floats' order (a positive NaN
//   above +inf), and all of them are above the negative floats, whose patterns are negative int32:
//   so when the row holds an x >= +0, the int32 max of the patterns is the float max (or a NaN, and
//   a NaN logit makes the row NaN anyway); a row of negatives only runs pass 1 again, comparing
//   floats. As uint32 the negative floats are above the others, in the order of their magnitudes
//   (−0, …, −inf, then a negative NaN): the uint32 max, when its sign bit is set, is min_j x_j (or
//   a NaN), else min_j x_j >= +0. One instruction a batch each (i32x4.max_s, i32x4.max_u), where
//   V8 lowers a float max to a compare and a three-instruction select.
// !Max (the min, for a negative scale) compares floats, and gives no bound: the mask stays.
template <bool Max>
struct RowExtremes {
  using I = xsimd::batch<std::int32_t>;
  using U = xsimd::batch<std::uint32_t>;
  I top = I(std::numeric_limits<std::int32_t>::min());
  U neg = U(0u);
  B least = B(std::numeric_limits<float>::infinity());
  float extreme = 0.f, lowest = 0.f;  // lowest: Max only

  void add(B a, B b) {
    if constexpr (Max) {
      top = xsimd::max(top, xsimd::max(xsimd::bitwise_cast<I>(a), xsimd::bitwise_cast<I>(b)));
      neg = xsimd::max(neg, xsimd::max(xsimd::bitwise_cast<U>(a), xsimd::bitwise_cast<U>(b)));
    } else {
      least = xsimd::min(least, xsimd::min(a, b));
    }
  }
  // row[0, n), of which [0, added) went through add: the scalar tail, then the lanes
  void finish(const float* row, std::size_t added, std::size_t n) {
    if constexpr (Max) {
      alignas(64) std::int32_t t[W];
      alignas(64) std::uint32_t u[W];
      top.store_aligned(t);
      neg.store_aligned(u);
      std::int32_t t1 = t[0];
      std::uint32_t u1 = u[0];
      for (std::size_t l = 0; l < W; ++l) t1 = std::max(t1, t[l]), u1 = std::max(u1, u[l]);
      for (std::size_t k = added; k < n; ++k) {
        std::int32_t b;
        std::memcpy(&b, row + k, sizeof b);
        t1 = std::max(t1, b);
        u1 = std::max(u1, static_cast<std::uint32_t>(b));
      }
      std::memcpy(&extreme, &t1, sizeof extreme);
      if (t1 < 0) extreme = extreme_of<true>(row, n);
      lowest = 0.f;
      if (u1 >> 31) std::memcpy(&lowest, &u1, sizeof lowest);
    } else {
      extreme = pick_lanes<false>(least);
      for (std::size_t k = added; k < n; ++k) extreme = std::min(extreme, row[k]);
    }
  }
};

// pass 1 of one row on its own
template <bool Max>
RowExtremes<Max> row_extremes(const float* row, std::size_t n) {
  RowExtremes<Max> e;
  std::size_t j = 0;
  for (; j + 2 * W <= n; j += 2 * W)
    e.add(B::load_unaligned(row + j), B::load_unaligned(row + j + W));
  e.finish(row, j, n);
  return e;
}

// The row passes of softmax(s·x) (Scaled false: s = 1), pipelined: one loop runs pass 2 of row i
// and pass 1 of row i+1, whose loads from memory then overlap pass 2's arithmetic (on its own,
// pass 1 waits on memory: a 1024² matrix is 4 MiB, more than L2). finish(i, m, Σ) completes row i.
// pass 1: m = max_j s·x_j = s·max_j x_j for s >= 0 (float rounding is monotone), s·min_j x_j for
//         s < 0 (Max false), so the pass needs no multiplication
// pass 2: y_j = 2⁶⁴·e^(s·x_j − m); s·x_j − m <= 0, so y_j in [0, 2⁶⁴] and y_argmax = 2⁶⁴: no
//         overflow; Σ_j y_j in [2⁶⁴, n·2⁶⁴]. Two batches a step: two independent exps for V8 to
//         overlap (each a chain of ~20 dependent operations). The scalar tail rounds a subnormal
//         e^(s·x_j − m) before the exact scaling by 2⁶⁴.
//         Without the mask of z < −104 when pass 1 bounds such z out: s·x_j − m >= s·lowest − m
//         >= −104 (rounding is monotone) for lowest <= min_j x_j; false for a NaN, an infinity or
//         a spread over 104, which keep the mask. The mask would change no such row; dropping it
//         saves 4 of V8's instructions a batch and 2 of the loop's constants.
// out may alias x: row i+1 is read before it is written (the last row reads itself as its "next",
// for nothing). Store false: pass 2 only sums (log-softmax needs Σ_j y_j, not the y_j), so out is
// not written at all and finish may read row i of x even when out aliases it.
template <bool Scaled, bool Max, bool Store = true, class Finish>
void rows_pipelined(Mat<float> out, Mat<const float> x, float s, Finish finish) {
  if (x.rows == 0) return;
  const std::size_t n = x.cols;
  const B sb(s);
  RowExtremes<Max> e = row_extremes<Max>(x.row(0), n);
  for (std::size_t i = 0; i < x.rows; ++i) {
    const float* xi = x.row(i);
    const float* next = x.row(i + 1 < x.rows ? i + 1 : i);
    float* y = out.row(i);
    const float m = Scaled ? s * e.extreme : e.extreme;
    const B mb(m);
    RowExtremes<Max> ahead;  // pass 1 of row i+1
    // pass 2 of row i, with (std::true_type) or without the mask; returns Σ_j y_j
    auto pass2 = [&](auto masked) {
      auto exp_at = [&](const float* p) {
        const B xj = B::load_unaligned(p);
        return exp_nonpositive_2p64<decltype(masked)::value>((Scaled ? sb * xj : xj) - mb);
      };
      B acc(0.f);
      // pointers rather than an index: V8 then addresses each access as memory + pointer + offset,
      // where an index costs a shift and an addition first (6 fewer of V8's instructions a step)
      const float *xp = xi, *np = next, *const end = xi + n / (2 * W) * (2 * W);
      float* yp = y;
      for (; xp != end; xp += 2 * W, np += 2 * W, yp += 2 * W) {
        const B e0 = exp_at(xp), e1 = exp_at(xp + W);
        if constexpr (Store) {
          e0.store_unaligned(yp);
          e1.store_unaligned(yp + W);
        }
        acc += e0 + e1;
        ahead.add(B::load_unaligned(np), B::load_unaligned(np + W));
      }
      std::size_t j = xp - xi;
      ahead.finish(next, j, n);
      if (j + W <= n) {
        const B e0 = exp_at(xp);
        if constexpr (Store) e0.store_unaligned(yp);
        acc += e0;
        j += W;
      }
      float sum = xsimd::hadd(acc);
      for (; j < n; ++j) {
        const float e = std::exp((Scaled ? s * xi[j] : xi[j]) - m) * 0x1p64f;
        if constexpr (Store) y[j] = e;
        sum += e;
      }
      return sum;
    };
    const bool masked = !Max || !((Scaled ? s * e.lowest : e.lowest) - m >= -104.f);
    const float sum = masked ? pass2(std::true_type{}) : pass2(std::false_type{});
    e = ahead;
    finish(i, m, sum);
  }
}

// softmax(s·x), as softmax_scaled_rows_ref computes it (Scaled false: s = 1)
// passes 1 and 2: rows_pipelined
// pass 3: y_j *= 1 / Σ_k y_k, where the 2⁶⁴ cancels exactly (a power of two)
template <bool Scaled, bool Max>
void softmax_rows_of(Mat<float> out, Mat<const float> x, float s) {
  rows_pipelined<Scaled, Max>(out, x, s, [&](std::size_t i, float, float sum) {
    const float inv = 1.f / sum;
    const B invb(inv);
    float* y = out.row(i);
    float* const end = y + x.cols / W * W;  // a pointer, as in pass 2
    for (float* p = y; p != end; p += W) (B::load_unaligned(p) * invb).store_unaligned(p);
    for (std::size_t j = x.cols / W * W; j < x.cols; ++j) y[j] *= inv;
  });
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
      for (std::size_t c = 0; c < NR; ++c) acc[r][c] = xsimd::fma(ar, bv[c], acc[r][c]);
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
void matmul_nt(Mat<float> out, Mat<const float> a, Mat<const float> b) {
  ATTN_CHECK(can_matmul_nt(out, a, b));
  const std::size_t m = a.rows, n = b.rows;
  if (a.cols == 0) std::fill(out.data, out.data + out.size(), 0.f);
  blocked_product(out, Left<false>{a}, n, [&](float* panel, std::size_t j, auto keys, std::size_t p0, std::size_t p1) {
    for (std::size_t c = 0; c < keys; ++c)  // panel[p − p0][c] = b(j + c, p)
      for (std::size_t p = p0; p < p1; ++p) panel[(p - p0) * keys + c] = b(j + c, p);
  });
  const std::size_t j = n - n % W;
  for (std::size_t i = 0; i < m; ++i)  // the last n mod W keys: one dot product each
    for (std::size_t jj = j; jj < n; ++jj) out(i, jj) = dot(a.row_vec(i), b.row_vec(jj));
}

// Softmax composed from row passes (softmax_rows_of above): max, exp-subtract-sum, scale.
void softmax_rows(Mat<float> out, Mat<const float> x) {
  ATTN_CHECK(same_shape(out, x));
  softmax_rows_of<false, true>(out, x, 1.f);
}

// softmax(scale·x): attention's scale pass fused into the row passes, one read of x per pass
void softmax_scaled_rows(Mat<float> out, Mat<const float> x, float scale) {
  ATTN_CHECK(same_shape(out, x));
  if (scale >= 0) softmax_rows_of<true, true>(out, x, scale);
  else softmax_rows_of<true, false>(out, x, scale);
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
  // pass 2 only sums (nothing stored: out may alias x); Σ_j e^(x_j − m) = 2⁻⁶⁴·Σ_j y_j exactly
  rows_pipelined<false, true, false>(out, x, 1.f, [&](std::size_t i, float m, float sum) {
    const float ls = std::log(sum * 0x1p-64f);
    // (x − m) − log s, not x − (m + log s): x − m is exact near the max, and m + log s would round
    // to the ulp of m (2⁻¹⁰ at m = 10⁴)
    const float* xi = x.row(i);
    float* yi = out.row(i);
    const B mb(m), lb(ls);
    std::size_t j = 0;
    for (; j + W <= x.cols; j += W) ((B::load_unaligned(xi + j) - mb) - lb).store_unaligned(yi + j);
    for (; j < x.cols; ++j) yi[j] = (xi[j] - m) - ls;
  });
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

// y − y is 0 for a finite y and NaN for ±inf and NaN, and NaN stays NaN through the sums: one
// subtraction and one addition a batch. With MinusInfOk, the sums start at −inf and add x itself:
// −inf + x is −inf for a finite x or −inf, and NaN for +inf and NaN, so the sums stay −inf
// exactly when every x is finite or −inf (one addition a batch; max(−FLT_MAX, x) before the
// subtraction cost a compare and a select more).
// The four quarters of x are read in lock-step, one sum each: four streams of cache misses in
// flight rather than one. A check reads its input once, usually from memory (the API checks x
// just before a kernel reads it), where one sequential stream is bound by the latency of each
// miss: 4 MiB in Node, 0.41 ms as one stream, 0.26 ms as four.
namespace {

template <bool MinusInfOk>
bool all_finite_quarters(Vec<const float> x) {
  const float ok = MinusInfOk ? -std::numeric_limits<float>::infinity() : 0.f;
  auto term = [](B v) { return MinusInfOk ? v : v - v; };
  const std::size_t quarter = x.size / (4 * W) * W;  // whole batches
  const float* q0 = x.data;
  const float* q1 = q0 + quarter;
  const float* q2 = q1 + quarter;
  const float* q3 = q2 + quarter;
  B acc0(ok), acc1(ok), acc2(ok), acc3(ok);
  for (std::size_t i = 0; i < quarter; i += W) {
    acc0 += term(B::load_unaligned(q0 + i));
    acc1 += term(B::load_unaligned(q1 + i));
    acc2 += term(B::load_unaligned(q2 + i));
    acc3 += term(B::load_unaligned(q3 + i));
  }
  if (xsimd::hadd((acc0 + acc1) + (acc2 + acc3)) != ok) return false;
  return all_finite_ref(Vec<const float>{x.data + 4 * quarter, x.size - 4 * quarter}, MinusInfOk);
}

}  // namespace

bool all_finite(Vec<const float> x, bool minus_inf_ok) {
  return minus_inf_ok ? all_finite_quarters<true>(x) : all_finite_quarters<false>(x);
}

// (rng.hpp) Box–Muller normals, the four lanes of a NormalStream as one batch of four whatever the
// native width (the stream is defined over four lanes), with normals_ref's float operations in its
// order. Per group of eight: two xoshiro128** steps (shifts, xors and adds: ×5 and ×9 as shifts),
// ln u₁ and its square root, sin and cos of 2πu₂, no table and no branch.
namespace {

using F4 = xsimd::make_sized_batch_t<float, 4>;
using U4 = xsimd::make_sized_batch_t<std::uint32_t, 4>;
using I4 = xsimd::make_sized_batch_t<std::int32_t, 4>;

inline U4 rotl(U4 x, int k) { return (x << k) | (x >> (32 - k)); }

struct Lanes {
  U4 s0, s1, s2, s3;
  U4 next() {
    const U4 x5 = s1 + (s1 << 2), r7 = rotl(x5, 7), r = r7 + (r7 << 3), t = s1 << 9;
    s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11);
    return r;
  }
};

// x's bits flipped where `mask` is all ones: a blend without select
inline F4 flip(F4 x, I4 mask) { return xsimd::bitwise_cast<F4>(xsimd::bitwise_cast<I4>(x) ^ mask); }

// z₁ = r·cos 2πu₂ and z₂ = r·sin 2πu₂ from the lanes' outputs a, b (normals_detail::box_muller)
void box_muller(U4 a, U4 b, F4& z1, F4& z2) {
  using C = BoxMuller;
  // −2 ln u₁
  const F4 u1 = (xsimd::to_float(xsimd::bitwise_cast<I4>(a >> 1)) + F4(0.5f)) * F4(0x1p-31f);
  const I4 bits = xsimd::bitwise_cast<I4>(u1);
  const F4 m = xsimd::bitwise_cast<F4>((bits & I4(0x007fffff)) | I4(0x3f000000));
  const auto small = m < F4(C::sqrt_half);
  const F4 f = xsimd::select(small, m + m - F4(1.f), m - F4(1.f));
  const F4 e = xsimd::to_float((bits >> 23) - I4(126)) - xsimd::select(small, F4(1.f), F4(0.f));
  const F4 f2 = f * f;
  F4 p(C::log_p[0]);
  for (int k = 1; k < 9; ++k) p = p * f + F4(C::log_p[k]);
  F4 y = p * f * f2;
  y = y + F4(C::ln2_lo) * e;
  y = y + F4(-0.5f) * f2;
  const F4 ln_u1 = (f + y) + F4(C::ln2_hi) * e;
  const F4 r = xsimd::sqrt(F4(-2.f) * ln_u1);
  // sin and cos of 2πu₂
  const F4 v = xsimd::to_float(xsimd::bitwise_cast<I4>(b >> 8)) * F4(0x1p-22f);
  const F4 t = v + F4(C::shifter);
  const F4 x = (v - (t - F4(C::shifter))) * F4(C::half_pi), x2 = x * x;
  const F4 sn = x + x * x2 * (F4(C::sin_p[0]) + x2 * (F4(C::sin_p[1]) + x2 * F4(C::sin_p[2])));
  const F4 cs = (F4(1.f) - F4(0.5f) * x2) + x2 * x2 * (F4(C::cos_p[0]) + x2 * (F4(C::cos_p[1]) + x2 * F4(C::cos_p[2])));
  const I4 q = xsimd::bitwise_cast<I4>(t);
  const I4 swap = (xsimd::bitwise_cast<I4>(sn) ^ xsimd::bitwise_cast<I4>(cs)) & (I4(0) - (q & I4(1)));
  z1 = r * flip(flip(cs, swap), ((q + I4(1)) & I4(2)) << 30);
  z2 = r * flip(flip(sn, swap), (q & I4(2)) << 30);
}

}  // namespace

void normals(Vec<float> out, NormalStream& g) {
  Lanes st{U4::load_unaligned(g.s[0]), U4::load_unaligned(g.s[1]), U4::load_unaligned(g.s[2]),
           U4::load_unaligned(g.s[3])};
  for (std::size_t i = 0; i < out.size; i += 8) {
    const U4 a = st.next(), b = st.next();
    F4 z1, z2;
    box_muller(a, b, z1, z2);
    // lane by lane: z₁, z₂ of lane 0, then of lanes 1, 2, 3
    if (out.size - i >= 8) {
      xsimd::zip_lo(z1, z2).store_unaligned(out.data + i);
      xsimd::zip_hi(z1, z2).store_unaligned(out.data + i + 4);
    } else {
      alignas(16) float z[8];
      xsimd::zip_lo(z1, z2).store_aligned(z);
      xsimd::zip_hi(z1, z2).store_aligned(z + 4);
      std::memcpy(out.data + i, z, sizeof(float) * (out.size - i));
    }
  }
  st.s0.store_unaligned(g.s[0]); st.s1.store_unaligned(g.s[1]);
  st.s2.store_unaligned(g.s[2]); st.s3.store_unaligned(g.s[3]);
}

// Four streams at a time, lane 0 of stream first + i + j in lane j: each pair alone is one long
// chain of dependent operations (the ln's polynomial, then the square root), which four lanes share.
void first_normal_pairs(Vec<float> z1, Vec<float> z2, std::uint64_t seed, std::uint64_t first) {
  ATTN_CHECK(z1.size == z2.size);
  std::size_t i = 0;
  for (; i + 4 <= z1.size; i += 4) {
    alignas(16) std::uint32_t w[4][4];
    for (int j = 0; j < 4; ++j) {
      const NormalStream g(seed, first + i + j, 1);
      for (int k = 0; k < 4; ++k) w[k][j] = g.s[k][0];
    }
    Lanes st{U4::load_aligned(w[0]), U4::load_aligned(w[1]), U4::load_aligned(w[2]), U4::load_aligned(w[3])};
    const U4 a = st.next(), b = st.next();
    F4 a1, a2;
    box_muller(a, b, a1, a2);
    a1.store_unaligned(z1.data + i);
    a2.store_unaligned(z2.data + i);
  }
  for (; i < z1.size; ++i) first_two_normals(seed, first + i, z1[i], z2[i]);
}

}  // namespace attnlab
