// The no-SIMD build of kernels.hpp: every fast kernel is its `_ref` twin in float. Built instead
// of kernels_simd*.cpp when ATTNLAB_SIMD is OFF (the scalar wasm build the benchmarks compare to).
#include "kernels.hpp"

namespace attnlab {

const char* simd_arch() { return "scalar"; }
bool simd_enabled() { return false; }
std::size_t simd_width() { return 1; }

float dot(Vec<const float> a, Vec<const float> b) { return dot_ref(a, b); }
void scale(Mat<float> o, Mat<const float> x, float s) { scale_ref(o, x, s); }
void matmul_nt(Mat<float> o, Mat<const float> a, Mat<const float> b) { matmul_nt_ref(o, a, b); }
void matmul_nn(Mat<float> o, Mat<const float> a, Mat<const float> b) { matmul_nn_ref(o, a, b); }
void matmul_tn(Mat<float> o, Mat<const float> a, Mat<const float> b) { matmul_tn_ref(o, a, b); }
void softmax_rows(Mat<float> o, Mat<const float> x) { softmax_rows_ref(o, x); }
std::size_t softmax_rows_checked(Mat<float> o, Mat<const float> x) { return softmax_rows_checked_ref(o, x); }
void softmax_scaled_rows(Mat<float> o, Mat<const float> x, float s) { softmax_scaled_rows_ref(o, x, s); }
void softmax_naive_rows(Mat<float> o, Mat<const float> x) { softmax_naive_rows_ref(o, x); }
void log_softmax_rows(Mat<float> o, Mat<const float> x) { log_softmax_rows_ref(o, x); }
void softmax_backward_rows(Mat<float> dx, Mat<const float> p, Mat<const float> dp) {
  softmax_backward_rows_ref(dx, p, dp);
}
void row_entropy(Vec<float> o, Mat<const float> p) { row_entropy_ref(o, p); }
void row_max(Vec<float> o, Mat<const float> p) { row_max_ref(o, p); }
bool all_finite(Vec<const float> x, bool minus_inf_ok) { return all_finite_ref(x, minus_inf_ok); }
void normals(Vec<float> out, NormalStream& g) { normals_ref(out, g); }
void student_t(Vec<float> out, NormalStream& g, int df) { student_t_ref(out, g, df); }
void first_normal_pairs(Vec<float> z1, Vec<float> z2, std::uint64_t seed, std::uint64_t first) {
  first_normal_pairs_ref(z1, z2, seed, first);
}

}  // namespace attnlab
