// Small non-owning views over row-major float arrays, and the shape checks kernels ask at entry.
//
// A kernel never allocates and never owns memory: it reads and writes through these views, whose
// sizes travel with the pointer. Shapes are written (rows, cols), as in the comments of llm.c.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace attnlab {

// Every precondition failure in the engine is an Error whose message starts with the function name.
struct Error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

[[noreturn]] inline void fail(const char* fn, const std::string& what) {
  throw Error(std::string(fn) + ": " + what);
}

// ATTN_CHECK(can_matmul_nt(out, a, b)): the condition reads as the question it asks.
#define ATTN_CHECK(cond) \
  do { if (!(cond)) ::attnlab::fail(__func__, "shape check failed: " #cond); } while (0)

// Vec<T>: n contiguous T.
template <class T>
struct Vec {
  T* data = nullptr;
  std::size_t size = 0;
  T& operator[](std::size_t i) const { return data[i]; }
  operator Vec<const T>() const { return {data, size}; }
};

// Mat<T>: (rows, cols) row-major, rows contiguous.
template <class T>
struct Mat {
  T* data = nullptr;
  std::size_t rows = 0, cols = 0;
  T* row(std::size_t i) const { return data + i * cols; }
  T& operator()(std::size_t i, std::size_t j) const { return data[i * cols + j]; }
  std::size_t size() const { return rows * cols; }
  Vec<T> row_vec(std::size_t i) const { return {row(i), cols}; }
  Mat<T> row_block(std::size_t first, std::size_t n) const { return {row(first), n, cols}; }
  operator Mat<const T>() const { return {data, rows, cols}; }
};

template <class T> Vec<T> vec(T* p, std::size_t n) { return {p, n}; }
template <class T> Mat<T> mat(T* p, std::size_t rows, std::size_t cols) { return {p, rows, cols}; }

// Shape questions.
template <class A, class B>
bool same_shape(const Mat<A>& a, const Mat<B>& b) { return a.rows == b.rows && a.cols == b.cols; }

// out (m, n) = a (m, k) · bᵀ, b is (n, k)
template <class O, class A, class B>
bool can_matmul_nt(const Mat<O>& out, const Mat<A>& a, const Mat<B>& b) {
  return out.rows == a.rows && out.cols == b.rows && a.cols == b.cols;
}
// out (m, n) = a (m, k) · b (k, n)
template <class O, class A, class B>
bool can_matmul_nn(const Mat<O>& out, const Mat<A>& a, const Mat<B>& b) {
  return out.rows == a.rows && out.cols == b.cols && a.cols == b.rows;
}
// out (m, n) = aᵀ · b, a is (k, m), b is (k, n)
template <class O, class A, class B>
bool can_matmul_tn(const Mat<O>& out, const Mat<A>& a, const Mat<B>& b) {
  return out.rows == a.cols && out.cols == b.cols && a.rows == b.rows;
}

}  // namespace attnlab
