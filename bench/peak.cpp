// The wasm SIMD128 peak probe for bench/peers*.mjs: the best f32x4 mul+add rate this core reaches.
// Built by bench/build-peak.sh (em++ -O3 -msimd128 -msse4.1, xsimd's sse4.1 lowered to SIMD128,
// the engine's own toolchain and idiom) into build/peak/peak.wasm, a module with no imports.
//
// peakN runs N independent chains acc_j = acc_j·a + b (one f32x4.mul and one f32x4.add each,
// 2 flops × 4 lanes), `iters` times: 8·N·iters flops. N chains hide the mul→add latency.
// splitN runs N chains x_j = x_j·a and N chains y_j = y_j + b instead (the same 8·N flops an
// iteration, shorter dependences). The JS side tries each and keeps the fastest. With a ≤ 1 and
// iters·(1 − a) ≲ 10 the values stay far from overflow and denormals; the sum is returned so
// nothing can be optimised away.
#include <xsimd/xsimd.hpp>

namespace {
using batch = xsimd::batch<float>;

template <int N>
float probe(int iters, float a, float b) {
  const batch va(a), vb(b);
  batch acc[N];
  for (int j = 0; j < N; ++j) acc[j] = batch(1.0f + 0.001f * j);
  for (int i = 0; i < iters; ++i) {
#pragma clang loop unroll(full)
    for (int j = 0; j < N; ++j) acc[j] = acc[j] * va + vb;
  }
  batch s(0.0f);
  for (int j = 0; j < N; ++j) s += acc[j];
  return xsimd::hadd(s);
}

template <int N>
float split(int iters, float a, float b) {
  const batch va(a), vb(b);
  batch x[N], y[N];
  for (int j = 0; j < N; ++j) x[j] = y[j] = batch(1.0f + 0.001f * j);
  for (int i = 0; i < iters; ++i) {
#pragma clang loop unroll(full)
    for (int j = 0; j < N; ++j) { x[j] = x[j] * va; y[j] = y[j] + vb; }
  }
  batch s(0.0f);
  for (int j = 0; j < N; ++j) s += x[j] + y[j];
  return xsimd::hadd(s);
}
}  // namespace

extern "C" {
__attribute__((export_name("peak8"))) float peak8(int n, float a, float b) { return probe<8>(n, a, b); }
__attribute__((export_name("peak10"))) float peak10(int n, float a, float b) { return probe<10>(n, a, b); }
__attribute__((export_name("peak12"))) float peak12(int n, float a, float b) { return probe<12>(n, a, b); }
__attribute__((export_name("peak14"))) float peak14(int n, float a, float b) { return probe<14>(n, a, b); }
__attribute__((export_name("split5"))) float split5(int n, float a, float b) { return split<5>(n, a, b); }
__attribute__((export_name("split6"))) float split6(int n, float a, float b) { return split<6>(n, a, b); }
__attribute__((export_name("split7"))) float split7(int n, float a, float b) { return split<7>(n, a, b); }
}
