// Fast float kernels: the same contracts as their `_ref` twins in kernels_ref.hpp.
//
// kernels_simd*.cpp implement them with xsimd batches (one loop idiom: a width-agnostic body on
// batch<float>, a horizontal reduction, a scalar tail); kernels_scalar.cpp forwards them to the
// `_ref` twins when no SIMD architecture is compiled in. The float results differ from the
// double reference only by summation order and xsimd::exp's error (≤ a few ulp per element).
//
// For any other scalar type the generic overloads below run the reference, so code composed
// from kernels (attention.hpp) is written once and runs in float (fast) and in double (reference).
#pragma once

#include "kernels_ref.hpp"

namespace attnlab {

// "sse4.1", "avx2", … as xsimd names the compiled architecture, or "scalar".
const char* simd_arch();
bool simd_enabled();
std::size_t simd_width();  // floats per batch (4 for SSE and wasm SIMD128), 1 when scalar

float dot(Vec<const float> a, Vec<const float> b);
void scale(Mat<float> out, Mat<const float> x, float s);
void matmul_nt(Mat<float> out, Mat<const float> a, Mat<const float> b);
void matmul_nn(Mat<float> out, Mat<const float> a, Mat<const float> b);
void matmul_tn(Mat<float> out, Mat<const float> a, Mat<const float> b);
void softmax_rows(Mat<float> out, Mat<const float> x);
std::size_t softmax_rows_checked(Mat<float> out, Mat<const float> x);
void softmax_scaled_rows(Mat<float> out, Mat<const float> x, float scale);
void softmax_naive_rows(Mat<float> out, Mat<const float> x);
void log_softmax_rows(Mat<float> out, Mat<const float> x);
void softmax_backward_rows(Mat<float> dx, Mat<const float> p, Mat<const float> dp);
void row_entropy(Vec<float> out, Mat<const float> p);
void row_max(Vec<float> out, Mat<const float> p);
bool all_finite(Vec<const float> x, bool minus_inf_ok);
// N(0, 1) floats from g, a group of eight at a time (rng.hpp: NormalStream); g is advanced
void normals(Vec<float> out, NormalStream& g);
// Student-t entries with ν = df in [3, kMaxStudentDf] degrees of freedom, scaled to variance 1,
// from g (rng.hpp), four at a time
void student_t(Vec<float> out, NormalStream& g, int df);
// z1[i], z2[i] = the first two normals of NormalStream(seed, first + i): the d_k = 1 pairs
void first_normal_pairs(Vec<float> z1, Vec<float> z2, std::uint64_t seed, std::uint64_t first);

template <class T> T dot(Vec<const T> a, Vec<const T> b) { return dot_ref(a, b); }
template <class T> void scale(Mat<T> o, Mat<const T> x, T s) { scale_ref(o, x, s); }
template <class T> void matmul_nt(Mat<T> o, Mat<const T> a, Mat<const T> b) { matmul_nt_ref(o, a, b); }
template <class T> void matmul_nn(Mat<T> o, Mat<const T> a, Mat<const T> b) { matmul_nn_ref(o, a, b); }
template <class T> void matmul_tn(Mat<T> o, Mat<const T> a, Mat<const T> b) { matmul_tn_ref(o, a, b); }
template <class T> void softmax_rows(Mat<T> o, Mat<const T> x) { softmax_rows_ref(o, x); }
template <class T> void softmax_scaled_rows(Mat<T> o, Mat<const T> x, T s) { softmax_scaled_rows_ref(o, x, s); }
template <class T> void softmax_backward_rows(Mat<T> dx, Mat<const T> p, Mat<const T> dp) {
  softmax_backward_rows_ref(dx, p, dp);
}

}  // namespace attnlab
