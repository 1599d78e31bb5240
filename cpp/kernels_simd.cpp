// xsimd implementations of kernels.hpp: dot, scale and the finiteness check. The softmax family,
// the matrix products and the normals are in kernels_simd_*.cpp (kernels_simd.hpp lists them).
#include <limits>

#include "kernels_simd.hpp"

namespace attnlab {

using simd::B;
using simd::W;

const char* simd_arch() { return xsimd::default_arch::name(); }
bool simd_enabled() { return true; }
std::size_t simd_width() { return W; }

float dot(Vec<const float> a, Vec<const float> b) {
  ATTN_CHECK(a.size == b.size);
  const std::size_t n = a.size;
  B acc(0.f);
  std::size_t i = 0;
  // a multiply, then an add, as in the products (kernels_simd_products.cpp): no fused rounding
  for (; i + W <= n; i += W) acc = acc + B::load_unaligned(a.data + i) * B::load_unaligned(b.data + i);
  float s = xsimd::hadd(acc);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// y = s·x, a product alone as in scale_ref (s·x + 0, an fma with b = 0, turned −0 into +0)
void scale(Mat<float> out, Mat<const float> x, float s) {
  ATTN_CHECK(same_shape(out, x));
  const B sb(s);
  const std::size_t n = x.size();
  std::size_t j = 0;
  for (; j + W <= n; j += W) (sb * B::load_unaligned(x.data + j)).store_unaligned(out.data + j);
  for (; j < n; ++j) out.data[j] = s * x.data[j];
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

}  // namespace attnlab
