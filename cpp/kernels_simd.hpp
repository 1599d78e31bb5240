// The SIMD build's shared idiom, for kernels_simd*.cpp only (kernels.hpp is the interface).
//
// Built when an xsimd architecture is compiled in: natively (SSE2 … AVX-512) and in WebAssembly,
// where -msimd128 -msse4.1 makes xsimd pick its SSE4.1 path and Emscripten lowers each intrinsic
// to a SIMD128 instruction (f32x4.*). Every loop has the same shape: a body on whole batches of
// W = B::size floats, a horizontal reduction where one is needed, and a scalar tail for the last
// n mod W elements.
//   kernels_simd.cpp           dot, scale, the finiteness check
//   kernels_simd_softmax.cpp   the batch exp and the row-wise softmax family
//   kernels_simd_products.cpp  the register-tiled, cache-blocked matrix products
//   kernels_simd_normals.cpp   Box–Muller normals in SIMD lanes
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstddef>

#include "kernels.hpp"

namespace attnlab::simd {

using B = xsimd::batch<float>;
constexpr std::size_t W = B::size;

}  // namespace attnlab::simd
