// xsimd Box–Muller normals and Student-t entries (kernels.hpp, rng.hpp: NormalStream), bit for
// bit normals_ref's and student_t_ref's.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels_simd.hpp"

namespace attnlab {

// (rng.hpp) Box–Muller normals, the four lanes of a NormalStream as one batch of four whatever the
// native width (the stream is defined over four lanes), with normals_ref's float operations in its
// order. Per group of eight normals: two xoshiro128** steps (shifts, xors and adds: ×5 and ×9 as shifts),
// ln u₁ and its square root, sin and cos of 2πu₂, no table and no branch.
namespace {

using F4 = xsimd::make_sized_batch_t<float, 4>;
using U4 = xsimd::make_sized_batch_t<std::uint32_t, 4>;
using I4 = xsimd::make_sized_batch_t<std::int32_t, 4>;

inline U4 rotl(U4 x, int k) { return (x << k) | (x >> (32 - k)); }

// Groups transformed side by side a step. Measured in Node, 2²⁰ normals: 1 group 3.6 ms, 2: 2.9,
// 3: 2.8, 4: 2.6, 8: 2.7 (V8 has 16 SIMD registers; eight groups' chains no longer fit).
constexpr int kGroups = 4;

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

// u = (⌊a/2⌋ + ½)·2⁻³¹ ∈ (0, 1] from the lanes' outputs a
inline F4 unit(U4 a) { return (xsimd::to_float(xsimd::bitwise_cast<I4>(a >> 1)) + F4(0.5f)) * F4(0x1p-31f); }

// ln u for G batches of positive normal floats at once (normals_detail::ln), G chains side by side
template <int G>
[[gnu::always_inline]] inline void ln(const F4 (&u)[G], F4 (&out)[G]) {
  using C = BoxMuller;
  F4 f[G], e[G], f2[G], p[G];
  for (int g = 0; g < G; ++g) {
    const I4 bits = xsimd::bitwise_cast<I4>(u[g]);
    const F4 m = xsimd::bitwise_cast<F4>((bits & I4(0x007fffff)) | I4(0x3f000000));
    const auto small = m < F4(C::sqrt_half);
    f[g] = xsimd::select(small, m + m - F4(1.f), m - F4(1.f));
    e[g] = xsimd::to_float((bits >> 23) - I4(126)) - xsimd::select(small, F4(1.f), F4(0.f));
    f2[g] = f[g] * f[g];
    p[g] = F4(C::log_p[0]);
  }
  for (int k = 1; k < 9; ++k)
    for (int g = 0; g < G; ++g) p[g] = p[g] * f[g] + F4(C::log_p[k]);
  for (int g = 0; g < G; ++g) {
    F4 y = p[g] * f[g] * f2[g];
    y = y + F4(C::ln2_lo) * e[g];
    y = y + F4(-0.5f) * f2[g];
    out[g] = (f[g] + y) + F4(C::ln2_hi) * e[g];
  }
}

// z₁ = r·cos 2πu₂ and z₂ = r·sin 2πu₂ from the lanes' outputs a, b (normals_detail::box_muller),
// for G groups at once: each is one long chain of dependent operations (the ln's polynomial, then
// the square root), so every line is written for all G, which puts G independent chains side by
// side in the instruction stream (neither clang's wasm backend nor V8 reorders them much).
template <int G>
[[gnu::always_inline]] inline void box_muller(const U4 (&a)[G], const U4 (&b)[G], F4 (&z1)[G], F4 (&z2)[G]) {
  using C = BoxMuller;
  F4 u1[G], ln_u1[G], r[G];
  // √(−2 ln u₁)
  for (int g = 0; g < G; ++g) u1[g] = unit(a[g]);
  ln<G>(u1, ln_u1);
  for (int g = 0; g < G; ++g) r[g] = xsimd::sqrt(F4(-2.f) * ln_u1[g]);
  // sin and cos of 2πu₂
  for (int g = 0; g < G; ++g) {
    const F4 v = xsimd::to_float(xsimd::bitwise_cast<I4>(b[g] >> 8)) * F4(0x1p-22f);
    const F4 t = v + F4(C::shifter);
    const F4 x = (v - (t - F4(C::shifter))) * F4(C::half_pi), x2 = x * x;
    const F4 sn = x + x * x2 * (F4(C::sin_p[0]) + x2 * (F4(C::sin_p[1]) + x2 * F4(C::sin_p[2])));
    const F4 cs = (F4(1.f) - F4(0.5f) * x2) + x2 * x2 * (F4(C::cos_p[0]) + x2 * (F4(C::cos_p[1]) + x2 * F4(C::cos_p[2])));
    const I4 q = xsimd::bitwise_cast<I4>(t);
    const I4 swap = (xsimd::bitwise_cast<I4>(sn) ^ xsimd::bitwise_cast<I4>(cs)) & (I4(0) - (q & I4(1)));
    z1[g] = r[g] * flip(flip(cs, swap), ((q + I4(1)) & I4(2)) << 30);
    z2[g] = r[g] * flip(flip(sn, swap), (q & I4(2)) << 30);
  }
}

// lane by lane: z₁, z₂ of lane 0, then of lanes 1, 2, 3; the first `n` (< 8) of them only
inline void store_group(float* out, F4 z1, F4 z2, std::size_t n = 8) {
  if (n >= 8) {
    xsimd::zip_lo(z1, z2).store_unaligned(out);
    xsimd::zip_hi(z1, z2).store_unaligned(out + 4);
    return;
  }
  alignas(16) float z[8];
  xsimd::zip_lo(z1, z2).store_aligned(z);
  xsimd::zip_hi(z1, z2).store_aligned(z + 4);
  std::memcpy(out, z, sizeof(float) * n);
}

}  // namespace

void normals(Vec<float> out, NormalStream& g) {
  Lanes st{U4::load_unaligned(g.s[0]), U4::load_unaligned(g.s[1]), U4::load_unaligned(g.s[2]),
           U4::load_unaligned(g.s[3])};
  // kGroups groups of eight a step (the lanes' outputs in the stream's order), then one at a time
  constexpr int K = kGroups;
  std::size_t i = 0;
  for (; i + 8 * K <= out.size; i += 8 * K) {
    U4 a[K], b[K];
    for (int j = 0; j < K; ++j) { a[j] = st.next(); b[j] = st.next(); }
    F4 z1[K], z2[K];
    box_muller<K>(a, b, z1, z2);
    for (int j = 0; j < K; ++j) store_group(out.data + i + 8 * j, z1[j], z2[j]);
  }
  for (; i < out.size; i += 8) {
    const U4 a = st.next(), b = st.next();
    F4 z1[1], z2[1];
    box_muller<1>({a}, {b}, z1, z2);
    store_group(out.data + i, z1[0], z2[0], out.size - i);
  }
  st.s0.store_unaligned(g.s[0]); st.s1.store_unaligned(g.s[1]);
  st.s2.store_unaligned(g.s[2]); st.s3.store_unaligned(g.s[3]);
}

// (rng.hpp) Student-t entries, entry 4k + l from lane l, with normals_detail::student_t_entry's
// float operations in its order. A lane's outputs for G groups of four entries are drawn first, in
// stream order (per group a Box–Muller pair, then ⌊ν/2⌋ uniforms, three to a product); then the
// G groups' transforms and ln's run side by side, as in normals.
namespace {

constexpr int kMaxProducts = (kMaxStudentDf / 2 + 2) / 3;  // of three uniforms, a lane and entry

template <int G>
[[gnu::always_inline]] inline void student_t_groups(Lanes& st, int df, float* out, std::size_t n) {
  const int h = df / 2;
  U4 a[G], b[G];
  F4 p[kMaxProducts][G];
  for (int g = 0; g < G; ++g) {
    a[g] = st.next();
    b[g] = st.next();
    for (int k = 0, c = 0; k < h; k += 3, ++c) {
      p[c][g] = unit(st.next());
      for (int j = k + 1; j < std::min(k + 3, h); ++j) p[c][g] = p[c][g] * unit(st.next());
    }
  }
  F4 z1[G], z2[G], chi2[G];
  box_muller<G>(a, b, z1, z2);
  for (int g = 0; g < G; ++g) chi2[g] = df % 2 ? z2[g] * z2[g] : F4(0.f);
  for (int c = 0; c < (h + 2) / 3; ++c) {
    F4 lp[G];
    ln<G>(p[c], lp);
    for (int g = 0; g < G; ++g) chi2[g] = chi2[g] + F4(-2.f) * lp[g];
  }
  const F4 top(float(df - 2));
  for (int g = 0; g < G; ++g) {
    const F4 z = z1[g] * xsimd::sqrt(top / chi2[g]);
    if (std::size_t(4 * g + 4) <= n) { z.store_unaligned(out + 4 * g); continue; }
    alignas(16) float t[4];
    z.store_aligned(t);
    std::memcpy(out + 4 * g, t, sizeof(float) * (n - std::size_t(4 * g)));
  }
}

}  // namespace

void student_t(Vec<float> out, NormalStream& g, int df) {
  ATTN_CHECK(df >= 3 && df <= kMaxStudentDf);
  Lanes st{U4::load_unaligned(g.s[0]), U4::load_unaligned(g.s[1]), U4::load_unaligned(g.s[2]),
           U4::load_unaligned(g.s[3])};
  constexpr int K = kGroups;
  std::size_t i = 0;
  for (; i + 4 * K <= out.size; i += 4 * K) student_t_groups<K>(st, df, out.data + i, 4 * K);
  for (; i < out.size; i += 4) student_t_groups<1>(st, df, out.data + i, out.size - i);
  st.s0.store_unaligned(g.s[0]); st.s1.store_unaligned(g.s[1]);
  st.s2.store_unaligned(g.s[2]); st.s3.store_unaligned(g.s[3]);
}

// 4·kGroups streams a step, lane 0 of stream first + i + 4g + j in lane j of group g: each pair
// alone is one long chain of dependent operations, which the lanes and groups share.
void first_normal_pairs(Vec<float> z1, Vec<float> z2, std::uint64_t seed, std::uint64_t first) {
  ATTN_CHECK(z1.size == z2.size);
  constexpr int K = kGroups;
  std::size_t i = 0;
  for (; i + 4 * K <= z1.size; i += 4 * K) {
    U4 a[K], b[K];
    for (int g = 0; g < K; ++g) {
      alignas(16) std::uint32_t w[4][4];
      for (int j = 0; j < 4; ++j) {
        const NormalStream stream(seed, first + i + 4 * g + j, 1);
        for (int k = 0; k < 4; ++k) w[k][j] = stream.s[k][0];
      }
      Lanes st{U4::load_aligned(w[0]), U4::load_aligned(w[1]), U4::load_aligned(w[2]), U4::load_aligned(w[3])};
      a[g] = st.next();
      b[g] = st.next();
    }
    F4 x1[K], x2[K];
    box_muller<K>(a, b, x1, x2);
    for (int g = 0; g < K; ++g) {
      x1[g].store_unaligned(z1.data + i + 4 * g);
      x2[g].store_unaligned(z2.data + i + 4 * g);
    }
  }
  for (; i < z1.size; ++i) first_two_normals(seed, first + i, z1[i], z2[i]);
}

}  // namespace attnlab
