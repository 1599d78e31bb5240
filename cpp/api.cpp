#include "api.hpp"

#include <cmath>
#include <cstdio>

#include "attention.hpp"
#include "kernels.hpp"
#include "sampling.hpp"

namespace attnlab::api {
namespace {

// Integers print exactly (no "1.67772e+07 exceeds the limit of 1.67772e+07"), others with %g.
std::string num(double v) {
  char buf[40];
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e18) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

[[noreturn]] void raise(const char* code, const char* fn, const std::string& msg) {
  throw ApiError(code, std::string(fn) + ": " + msg);
}

// A multiplier that must be finite once rounded to float, the type the kernels use.
float scale_arg(const char* fn, double scale) {
  if (!std::isfinite(scale) || !std::isfinite(static_cast<float>(scale)))
    raise("BAD_VALUE", fn, "scale must be finite in float32 (|scale| <= 3.4e38), got " + num(scale));
  return static_cast<float>(scale);
}

// A size from JavaScript: a finite integer in [1, max].
std::size_t size_arg(const char* fn, const char* name, double v, std::size_t max) {
  if (!std::isfinite(v) || v != std::floor(v))
    raise("BAD_SIZE", fn, std::string(name) + " must be a positive integer, got " + num(v));
  if (v < 1) raise("BAD_SIZE", fn, std::string(name) + " must be at least 1, got " + num(v));
  if (v > static_cast<double>(max))
    raise("SIZE_LIMIT", fn, std::string(name) + " = " + num(v) + " exceeds the limit of " + num(double(max)));
  return static_cast<std::size_t>(v);
}

// a·b, checked against kMaxElements before it can overflow (a, b <= 2^16 or 2^24 each).
std::size_t product(const char* fn, const char* what, std::size_t a, std::size_t b) {
  if (b != 0 && a > kMaxElements / b)
    raise("SIZE_LIMIT", fn, std::string(what) + " = " + num(double(a) * double(b)) +
                                " exceeds the limit of " + num(double(kMaxElements)) + " elements");
  return a * b;
}

template <class T>
void expect_len(const char* fn, const char* name, Vec<const T> x, std::size_t n, const char* expr) {
  if (x.size != n)
    raise("SHAPE_MISMATCH", fn, std::string(name) + " has " + num(double(x.size)) +
                                    " elements, expected " + expr + " = " + num(double(n)));
}

struct Shape {
  std::size_t nq, nk, dk, dv;
  float scale;
};

Shape check_attention(const char* fn, const AttentionArgs& a) {
  Shape s{size_arg(fn, "nq", a.nq, kMaxDim), size_arg(fn, "nk", a.nk, kMaxDim),
          size_arg(fn, "dk", a.dk, kMaxDim), size_arg(fn, "dv", a.dv, kMaxDim), 0.f};
  const std::size_t nqk = product(fn, "nq*nk", s.nq, s.nk);
  expect_len(fn, "q", a.q, product(fn, "nq*dk", s.nq, s.dk), "nq*dk");
  expect_len(fn, "k", a.k, product(fn, "nk*dk", s.nk, s.dk), "nk*dk");
  expect_len(fn, "v", a.v, product(fn, "nk*dv", s.nk, s.dv), "nk*dv");
  product(fn, "nq*dv", s.nq, s.dv);
  if (a.has_mask) expect_len(fn, "mask", a.mask, nqk, "nq*nk");
  if (a.has_bias) expect_len(fn, "bias", a.bias, nqk, "nq*nk");
  s.scale = scale_arg(fn, a.has_scale ? a.scale : 1 / std::sqrt(double(s.dk)));
  return s;
}

Mask mask_of(const AttentionArgs& a, const Shape& s) {
  Mask m;
  m.causal = a.causal;
  if (a.has_mask) m.keep = {a.mask.data, s.nq, s.nk};
  return m;
}

Mat<const float> bias_of(const AttentionArgs& a, const Shape& s) {
  return a.has_bias ? Mat<const float>{a.bias.data, s.nq, s.nk} : Mat<const float>{};
}

}  // namespace

std::uint64_t seed_arg(const char* fn, const char* name, double v) {
  if (!std::isfinite(v) || v != std::floor(v) || v < 0 || v > 9007199254740991.0)
    raise("BAD_VALUE", fn, std::string(name) + " must be an integer in [0, 2^53), got " + num(v));
  return static_cast<std::uint64_t>(v);
}

Distribution distribution(const char* fn, double kind, double mean, double std, double df) {
  if (!(kind == 0 || kind == 1 || kind == 2 || kind == 3))
    raise("BAD_VALUE", fn, "distribution must be 'normal', 'uniform', 'rademacher' or 'student-t'");
  if (!std::isfinite(mean)) raise("BAD_VALUE", fn, "mean must be finite, got " + num(mean));
  if (!std::isfinite(std) || std < 0) raise("BAD_VALUE", fn, "std must be finite and >= 0, got " + num(std));
  if (kind == 3 && !(df >= 3 && df <= 100 && df == std::floor(df)))
    raise("BAD_VALUE", fn, "df must be an integer in [3, 100] (the variance is infinite for df <= 2), got " + num(df));
  return {static_cast<Dist>(static_cast<int>(kind)), mean, std, static_cast<int>(kind == 3 ? df : 5)};
}

void softmax(std::vector<float>& out, Vec<const float> x, double rows_d, double cols_d,
             SoftmaxKind kind) {
  const char* fn = kind == SoftmaxKind::log ? "logSoftmax" : kind == SoftmaxKind::naive ? "softmaxNaive" : "softmax";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements);
  const std::size_t cols = size_arg(fn, "cols", cols_d, kMaxElements);
  expect_len(fn, "x", x, product(fn, "rows*cols", rows, cols), "rows*cols");
  out.resize(x.size);
  const Mat<float> y{out.data(), rows, cols};
  const Mat<const float> xm{x.data, rows, cols};
  switch (kind) {
    case SoftmaxKind::stable: softmax_rows(y, xm); break;
    case SoftmaxKind::naive: softmax_naive_rows(y, xm); break;
    case SoftmaxKind::log: log_softmax_rows(y, xm); break;
  }
}

void softmax_backward(std::vector<float>& dx, Vec<const float> p, Vec<const float> dp,
                      double rows_d, double cols_d) {
  const char* fn = "softmaxBackward";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements);
  const std::size_t cols = size_arg(fn, "cols", cols_d, kMaxElements);
  const std::size_t n = product(fn, "rows*cols", rows, cols);
  expect_len(fn, "p", p, n, "rows*cols");
  expect_len(fn, "gradP", dp, n, "rows*cols");
  dx.resize(n);
  softmax_backward_rows(Mat<float>{dx.data(), rows, cols}, Mat<const float>{p.data, rows, cols},
                        Mat<const float>{dp.data, rows, cols});
}

void attention(std::vector<float>& out, std::vector<float>& weights, const AttentionArgs& a) {
  const Shape s = check_attention("attention", a);
  out.resize(s.nq * s.dv);
  weights.resize(s.nq * s.nk);
  attention_forward(Mat<float>{out.data(), s.nq, s.dv}, Mat<float>{weights.data(), s.nq, s.nk},
                    Mat<const float>{a.q.data, s.nq, s.dk}, Mat<const float>{a.k.data, s.nk, s.dk},
                    Mat<const float>{a.v.data, s.nk, s.dv}, s.scale, mask_of(a, s), bias_of(a, s));
}

void attention_backward(std::vector<float>& dq, std::vector<float>& dk, std::vector<float>& dv,
                        const AttentionArgs& a, Vec<const float> dout) {
  const char* fn = "attentionBackward";
  const Shape s = check_attention(fn, a);
  expect_len(fn, "gradOutput", dout, s.nq * s.dv, "nq*dv");
  std::vector<float> out(s.nq * s.dv), p(s.nq * s.nk), ds(s.nq * s.nk);
  const Mat<const float> q{a.q.data, s.nq, s.dk}, k{a.k.data, s.nk, s.dk}, v{a.v.data, s.nk, s.dv};
  attention_forward(Mat<float>{out.data(), s.nq, s.dv}, Mat<float>{p.data(), s.nq, s.nk}, q, k, v,
                    s.scale, mask_of(a, s), bias_of(a, s));
  dq.resize(s.nq * s.dk);
  dk.resize(s.nk * s.dk);
  dv.resize(s.nk * s.dv);
  attnlab::attention_backward(Mat<float>{dq.data(), s.nq, s.dk}, Mat<float>{dk.data(), s.nk, s.dk},
                              Mat<float>{dv.data(), s.nk, s.dv}, Mat<float>{ds.data(), s.nq, s.nk},
                              q, k, v, Mat<const float>{p.data(), s.nq, s.nk},
                              Mat<const float>{dout.data, s.nq, s.dv}, s.scale);
}

void row_stats(std::vector<float>& max, std::vector<float>& entropy, Vec<const float> p,
               double rows_d, double cols_d) {
  const char* fn = "rowStats";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements);
  const std::size_t cols = size_arg(fn, "cols", cols_d, kMaxElements);
  expect_len(fn, "p", p, product(fn, "rows*cols", rows, cols), "rows*cols");
  max.resize(rows);
  entropy.resize(rows);
  const Mat<const float> pm{p.data, rows, cols};
  row_max(Vec<float>{max.data(), rows}, pm);
  row_entropy(Vec<float>{entropy.data(), rows}, pm);
}

void sample_dot_products(std::vector<float>& out, double dk_d, double count_d, double seed_d,
                         const Distribution& d, double first_d, double rho, bool layernorm) {
  const char* fn = "sampleDotProducts";
  const std::size_t dk = size_arg(fn, "dk", dk_d, kMaxDim);
  const std::size_t count = size_arg(fn, "count", count_d, kMaxCount);
  const std::uint64_t seed = seed_arg(fn, "seed", seed_d);
  const std::uint64_t first = seed_arg(fn, "first", first_d);
  if (!(std::abs(rho) <= 1)) raise("BAD_VALUE", fn, "rho must be in [-1, 1], got " + num(rho));
  if (layernorm && dk < 2) raise("BAD_VALUE", fn, "layernorm needs dk >= 2 (one entry normalises to 0/0)");
  out.resize(count);
  attnlab::sample_dot_products(Vec<float>{out.data(), count}, dk, seed, d, first, PairOptions{rho, layernorm});
}

void sample_softmax_rows(std::vector<float> (&out)[5], double dk_d, double n_d, double rows_d, double scale,
                         double seed_d, double first_d) {
  const char* fn = "sampleSoftmaxRows";
  const std::size_t dk = size_arg(fn, "dk", dk_d, kMaxDim);
  const std::size_t n = size_arg(fn, "n", n_d, kMaxDim);
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxCount);
  product(fn, "n*dk", n, dk);
  const float sc = scale_arg(fn, scale);
  const std::uint64_t seed = seed_arg(fn, "seed", seed_d), first = seed_arg(fn, "first", first_d);
  for (auto& v : out) v.resize(rows);
  attnlab::sample_softmax_rows({{out[0].data(), rows}, {out[1].data(), rows}, {out[2].data(), rows},
                                {out[3].data(), rows}, {out[4].data(), rows}},
                               dk, n, sc, seed, first);
}

void scores(std::vector<float>& out, Vec<const float> q, Vec<const float> k, double nq_d, double nk_d,
            double dk_d, double scale) {
  const char* fn = "scores";
  const std::size_t nq = size_arg(fn, "nq", nq_d, kMaxDim), nk = size_arg(fn, "nk", nk_d, kMaxDim),
                    dk = size_arg(fn, "dk", dk_d, kMaxDim);
  expect_len(fn, "q", q, product(fn, "nq*dk", nq, dk), "nq*dk");
  expect_len(fn, "k", k, product(fn, "nk*dk", nk, dk), "nk*dk");
  const std::size_t n = product(fn, "nq*nk", nq, nk);
  const float sc = scale_arg(fn, scale);
  out.resize(n);
  const Mat<float> s{out.data(), nq, nk};
  matmul_nt(s, Mat<const float>{q.data, nq, dk}, Mat<const float>{k.data, nk, dk});
  attnlab::scale(s, Mat<const float>(s), sc);
}

void matmul(std::vector<float>& out, Vec<const float> a, Vec<const float> b, double m_d, double k_d,
            double n_d) {
  const char* fn = "matmul";
  const std::size_t m = size_arg(fn, "m", m_d, kMaxElements), k = size_arg(fn, "k", k_d, kMaxElements),
                    n = size_arg(fn, "n", n_d, kMaxElements);
  expect_len(fn, "a", a, product(fn, "m*k", m, k), "m*k");
  expect_len(fn, "b", b, product(fn, "k*n", k, n), "k*n");
  out.resize(product(fn, "m*n", m, n));
  matmul_nn(Mat<float>{out.data(), m, n}, Mat<const float>{a.data, m, k}, Mat<const float>{b.data, k, n});
}

void row_dots(std::vector<float>& out, Vec<const float> a, Vec<const float> b, double rows_d, double cols_d) {
  const char* fn = "rowDots";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements), cols = size_arg(fn, "cols", cols_d, kMaxElements);
  const std::size_t n = product(fn, "rows*cols", rows, cols);
  expect_len(fn, "a", a, n, "rows*cols");
  expect_len(fn, "b", b, n, "rows*cols");
  out.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) out[i] = dot(Vec<const float>{a.data + i * cols, cols}, Vec<const float>{b.data + i * cols, cols});
}

void softmax_jacobian(std::vector<float>& out, Vec<const float> p) {
  const char* fn = "softmaxJacobian";
  if (p.size == 0) raise("BAD_SIZE", fn, "p must hold at least one value");
  const std::size_t n = p.size;
  out.resize(product(fn, "n*n", n, n));
  softmax_jacobian_ref(Mat<float>{out.data(), n, n}, p);
}

void sample_entries(std::vector<float>& out, double count_d, double seed_d, const Distribution& d,
                    double stream_d) {
  const char* fn = "sampleEntries";
  const std::size_t count = size_arg(fn, "count", count_d, kMaxElements);
  Rng rng(seed_arg(fn, "seed", seed_d), seed_arg(fn, "stream", stream_d));
  out.resize(count);
  fill(Vec<float>{out.data(), count}, rng, d);
}

Summary describe(std::vector<std::uint32_t>& counts, Vec<const float> x, double bins_d, double lo,
                 double hi) {
  const char* fn = "describe";
  const std::size_t bins = size_arg(fn, "bins", bins_d, kMaxBins);
  if (x.size == 0) raise("BAD_SIZE", fn, "x must hold at least one value");
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo))
    raise("BAD_VALUE", fn, "the range [lo, hi] must be finite with lo < hi, got [" + num(lo) + ", " + num(hi) + "]");
  counts.resize(bins);
  histogram(Vec<std::uint32_t>{counts.data(), bins}, x, lo, hi);
  return summarize(moments_of(x));
}

}  // namespace attnlab::api
