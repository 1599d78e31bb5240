// xsimd softmax family (kernels.hpp): the batch exp, the row passes (max, exp-subtract-sum, scale)
// pipelined across rows, and the naive, log and backward softmaxes. The one math function,
// exp_batch, is written here in the same idiom as the loops rather than taken from xsimd (below).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels_simd.hpp"

namespace attnlab {

using simd::B;
using simd::W;

namespace {

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
// The same two maxima say whether the row holds a NaN or +inf, the logits no softmax can take: an
// int32 max at or above +inf's pattern (a positive NaN or +inf), or a uint32 max above −inf's
// (a negative NaN; −inf itself masks a logit). So softmax_rows_checked checks its logits for free.
// !Max (the min, for a negative scale) compares floats, and gives no bound: the mask stays.
template <bool Max>
struct RowExtremes {
  using I = xsimd::batch<std::int32_t>;
  using U = xsimd::batch<std::uint32_t>;
  I top = I(std::numeric_limits<std::int32_t>::min());
  U neg = U(0u);
  B least = B(std::numeric_limits<float>::infinity());
  float extreme = 0.f, lowest = 0.f;  // lowest: Max only
  bool invalid = false;               // a NaN or +inf in the row: Max only

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
      invalid = t1 >= 0x7f800000 || u1 > 0xff800000u;
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
// Checked: stops before the first row holding a NaN or +inf (pass 1 has seen it before pass 2
// writes the row) and returns its index; x.rows when every row was done.
template <bool Scaled, bool Max, bool Store = true, bool Checked = false, bool Normalize = false,
          class Finish>
std::size_t rows_pipelined(Mat<float> out, Mat<const float> x, float s, Finish finish) {
  static_assert(!Checked || Max, "only the max pass sees NaN and +inf");
  static_assert(!Normalize || Store, "only stored rows can be normalised");
  if (x.rows == 0) return 0;
  const std::size_t n = x.cols;
  const B sb(s);
  // Normalize: pass 3 of row i−1 (y_j *= 1 / Σ_k y_k) runs inside row i's pass 2, its loads and
  // stores between the exps' dependent operations; the last row's (or, Checked, the last
  // row done's) runs on its own.
  // Row 0 has no row before it: its pass 2 multiplies its own batches by 1 right after storing
  // them, and its tail before computing it, both exact (y·1 = y), so the loop needs no branch.
  float* pending = out.row(0);
  float pending_inv = 1.f;
  auto normalized = [&](std::size_t rows_done) {
    if constexpr (Normalize) {
      if (rows_done == 0) return rows_done;
      const B inv(pending_inv);
      std::size_t j = 0;
      for (; j + W <= n; j += W) (B::load_unaligned(pending + j) * inv).store_unaligned(pending + j);
      for (; j < n; ++j) pending[j] *= pending_inv;
    }
    return rows_done;
  };
  RowExtremes<Max> e = row_extremes<Max>(x.row(0), n);
  for (std::size_t i = 0; i < x.rows; ++i) {
    if (Checked && e.invalid) return normalized(i);
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
      const B inv(pending_inv);
      // pointers rather than an index: V8 then addresses each access as memory + pointer + offset,
      // where an index costs a shift and an addition first (6 fewer of V8's instructions a step)
      const float *xp = xi, *np = next, *const end = xi + n / (2 * W) * (2 * W);
      float *yp = y, *pp = pending;
      for (; xp != end; xp += 2 * W, np += 2 * W, yp += 2 * W, pp += 2 * W) {
        const B e0 = exp_at(xp), e1 = exp_at(xp + W);
        if constexpr (Store) {
          e0.store_unaligned(yp);
          e1.store_unaligned(yp + W);
        }
        if constexpr (Normalize) {
          (B::load_unaligned(pp) * inv).store_unaligned(pp);
          (B::load_unaligned(pp + W) * inv).store_unaligned(pp + W);
        }
        acc += e0 + e1;
        ahead.add(B::load_unaligned(np), B::load_unaligned(np + W));
      }
      std::size_t j = xp - xi;
      if constexpr (Normalize) for (std::size_t t = j; t < n; ++t) pending[t] *= pending_inv;
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
    pending = y;
    pending_inv = 1.f / sum;
    finish(i, m, sum);
  }
  return normalized(x.rows);
}

// softmax(s·x), as softmax_scaled_rows_ref computes it (Scaled false: s = 1)
// passes 1, 2 and 3 (y_j *= 1 / Σ_k y_k, where the 2⁶⁴ cancels exactly: a power of two), each
// row's inside the next row's loop: rows_pipelined
template <bool Scaled, bool Max, bool Checked = false>
std::size_t softmax_rows_of(Mat<float> out, Mat<const float> x, float s) {
  return rows_pipelined<Scaled, Max, true, Checked, true>(out, x, s, [](std::size_t, float, float) {});
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

}  // namespace

// Softmax composed from row passes (softmax_rows_of above): max, exp-subtract-sum, scale.
void softmax_rows(Mat<float> out, Mat<const float> x) {
  ATTN_CHECK(same_shape(out, x));
  softmax_rows_of<false, true>(out, x, 1.f);
}

// softmax_rows up to the first row holding a NaN or +inf (pass 1's maxima say so), as
// softmax_rows_checked_ref
std::size_t softmax_rows_checked(Mat<float> out, Mat<const float> x) {
  ATTN_CHECK(same_shape(out, x));
  return softmax_rows_of<false, true, true>(out, x, 1.f);
}

// softmax(scale·x): attention's scale pass fused into the row passes, one read of x per pass
void softmax_scaled_rows(Mat<float> out, Mat<const float> x, float scale) {
  ATTN_CHECK(same_shape(out, x));
  if (scale >= 0) softmax_rows_of<true, true>(out, x, scale);
  else softmax_rows_of<true, false>(out, x, scale);
}

// y_j = e^x_j / s, a division as in the _ref twin: the product with 1/s that a stable softmax can
// use (s >= 1 there) overflows to +inf here when every logit is below about −88.7 (s < 2⁻¹²⁸),
// where the quotients are finite
void softmax_naive_rows(Mat<float> out, Mat<const float> x) {
  ATTN_CHECK(same_shape(out, x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    float* yi = out.row(i);
    const float s = exp_sum(yi, x.row(i), x.cols);
    const B sb(s);
    std::size_t j = 0;
    for (; j + W <= x.cols; j += W) (B::load_unaligned(yi + j) / sb).store_unaligned(yi + j);
    for (; j < x.cols; ++j) yi[j] /= s;
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

}  // namespace attnlab
