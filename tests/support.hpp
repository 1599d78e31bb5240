// Test support: seeded inputs, float→double copies, and tolerances stated where they are used.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels.hpp"
#include "rng.hpp"

namespace attnlab::test {

constexpr double kU = 0x1.0p-24;  // unit roundoff of float

inline std::vector<float> normals(std::size_t n, std::uint64_t seed, double std = 1, double mean = 0) {
  std::vector<float> v(n);
  Rng rng(seed);
  fill(Vec<float>{v.data(), n}, rng, {Dist::normal, mean, std});
  return v;
}

inline std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

template <class T>
Mat<const T> cmat(const std::vector<T>& v, std::size_t r, std::size_t c) { return {v.data(), r, c}; }
template <class T>
Mat<T> mmat(std::vector<T>& v, std::size_t r, std::size_t c) { return {v.data(), r, c}; }

// The sizes every kernel is swept over: around the SIMD width W, and two that are not multiples.
inline std::vector<std::size_t> sizes_around_width() {
  const std::size_t w = simd_width();
  std::vector<std::size_t> s{1, 3, w > 1 ? w - 1 : 1, w, w + 1, 2 * w + 3, 257, 1000};
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

// Floating-point summation of n terms in any order errs by at most γ_n·Σ|terms|,
// γ_n = n·u/(1 − n·u) (Higham, Accuracy and Stability, §3.1).
inline double gamma(std::size_t n) { return n * kU / (1 - n * kU); }

}  // namespace attnlab::test
