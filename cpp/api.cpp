// The checked entry points (api.hpp), but the trainer's (api_train.cpp).
#include "api.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "api_args.hpp"
#include "attention.hpp"
#include "kernels.hpp"
#include "sampling.hpp"

namespace attnlab::api {
using namespace detail;
namespace {

// A multiplier that must be finite once rounded to float, the type the kernels use.
float scale_arg(const char* fn, double scale) {
  if (!std::isfinite(scale) || !std::isfinite(static_cast<float>(scale)))
    raise("BAD_VALUE", fn, "scale must be finite in float32 (|scale| <= 3.4e38), got " + num(scale));
  return static_cast<float>(scale);
}

template <class T>
void expect_len(const char* fn, const char* name, Vec<const T> x, std::size_t n, const char* expr) {
  if (x.size != n)
    raise("SHAPE_MISMATCH", fn, std::string(name) + " has " + num(double(x.size)) +
                                    " elements, expected " + expr + " = " + num(double(n)));
}

// "x[5] (row 1, column 2)": where a value of x (size/cols, cols) sits, for messages; the row and
// column only when x has more than one row.
std::string at(const char* name, std::size_t i, std::size_t cols, std::size_t size) {
  std::string s = std::string(name) + "[" + num(double(i)) + "]";
  if (size > cols) s += " (row " + num(double(i / cols)) + ", column " + num(double(i % cols)) + ")";
  return s;
}

// Values. Each array argument says what it accepts, and its first value outside that is a
// BAD_VALUE naming it (edge cases softmax_nan_input, softmax_plus_inf, sdpa_nan_in_masked_key,
// sdpa_inf_value_at_masked_key, sdpa_float_mask_contains_nan). -Infinity is accepted where it
// means "masked" (logits, biases); +Infinity never is: softmax of it is Infinity/Infinity = NaN.
// (`from`: the first index to look at, when the ones before it are known to be good.)
enum class Values { finite, finite_or_minus_inf };
void expect_values(const char* fn, const char* name, Vec<const float> x, std::size_t cols, Values allowed,
                   const char* rule, std::size_t from = 0) {
  constexpr float minus_inf = -std::numeric_limits<float>::infinity();
  if (all_finite(Vec<const float>{x.data + from, x.size - from}, allowed == Values::finite_or_minus_inf))
    return;  // one vector pass; else find it
  for (std::size_t i = from; i < x.size; ++i) {
    const float v = x[i];
    const bool ok = std::isfinite(v) || (allowed == Values::finite_or_minus_inf && v == minus_inf);
    if (!ok)
      raise("BAD_VALUE", fn, at(name, i, cols, x.size) + " is " + (std::isnan(v) ? "NaN" : v > 0 ? "+Infinity" : "-Infinity") +
                                 ": " + rule);
  }
}

// With finite inputs the only way to a non-finite result is float32 overflow (a score beyond
// ±3.4e38 turns its row's softmax into Infinity − Infinity = NaN: edge case
// sdpa_score_overflow_float32). Such a result is refused, naming the row, never returned.
void expect_no_overflow(const char* fn, const char* what, Vec<const float> x, std::size_t cols,
                        const std::string& advice) {
  if (all_finite(x, false)) return;
  for (std::size_t i = 0; i < x.size; ++i)
    if (!std::isfinite(x[i]))
      raise("BAD_VALUE", fn, std::string(what) + " overflowed float32 " +
                                 (cols > 1 ? "in row " + num(double(i / cols)) : "at index " + num(double(i))) + ": " + advice);
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
  expect_values(fn, "q", a.q, s.dk, Values::finite, "q, k and v must be finite");
  expect_values(fn, "k", a.k, s.dk, Values::finite, "q, k and v must be finite");
  expect_values(fn, "v", a.v, s.dv, Values::finite, "q, k and v must be finite");
  if (a.has_bias)
    expect_values(fn, "bias", a.bias, s.nk, Values::finite_or_minus_inf,
                  "a bias must be finite or -Infinity (which masks the key)");
  return s;
}

Mask mask_of(const AttentionArgs& a, const Shape& s) {
  Mask m;
  m.causal = a.causal;
  if (a.has_mask) m.keep = {a.mask.data, s.nq, s.nk};
  return m;
}

// The mask with the bias's -Infinity entries added to it: a -Infinity bias masks its key by
// selection, not addition, so a row that is -Infinity throughout is a fully masked row (zero
// weights, zero output, zero gradients, as ONNX Attention and PyTorch SDPA: edge case
// softmax_all_minus_inf) rather than softmax(all -inf) = NaN, and a score that overflowed at a
// masked key cannot turn into +inf + -inf = NaN. `keep` is the storage when one is needed.
Mask select_mask(const AttentionArgs& a, const Shape& s, std::vector<std::uint8_t>& keep) {
  Mask m = mask_of(a, s);
  constexpr float minus_inf = -std::numeric_limits<float>::infinity();
  if (!a.has_bias || std::find(a.bias.data, a.bias.data + a.bias.size, minus_inf) == a.bias.data + a.bias.size)
    return m;
  keep.resize(s.nq * s.nk);
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (!a.has_mask || a.mask[i] != 0) && a.bias[i] != minus_inf;
  m.keep = {keep.data(), s.nq, s.nk};
  return m;
}

// Rows of the forward pass that overflowed (see expect_no_overflow).
// A non-finite weight makes its whole output row NaN (P_ij·v_jc = NaN for every c, whatever v), so
// a finite output proves the nq·nk weights finite: they are scanned only to name the culprit.
void expect_forward_finite(const char* fn, const AttentionArgs& a, const Shape& s, Vec<const float> out,
                           Vec<const float> weights) {
  if (all_finite(out, false)) return;
  expect_no_overflow(fn, "the scores", weights, s.nk,
                     a.has_bias ? "|q.k|, |scale*q.k| or |scale*q.k + bias| > 3.4e38; use a smaller q, k, scale or bias"
                                : "|q.k| or |scale*q.k| > 3.4e38; use a smaller q, k or scale");
  expect_no_overflow(fn, "the output", out, s.dv, "v is too close to +-3.4e38");
}

Mat<const float> bias_of(const AttentionArgs& a, const Shape& s) {
  return a.has_bias ? Mat<const float>{a.bias.data, s.nq, s.nk} : Mat<const float>{};
}

}  // namespace

Vec<float> Out::take(const char* fn, std::size_t n, const char* expr) const {
  if (vec_) {
    vec_->resize(n);
    return {vec_->data(), n};
  }
  expect_len(fn, name_, Vec<const float>(lent_), n, expr);
  return lent_;
}

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
  // The entries are float32: a mean or std beyond its range could only give infinities.
  constexpr double flt_max = std::numeric_limits<float>::max();
  if (std::abs(mean) > flt_max) raise("BAD_VALUE", fn, "mean must be within float32 (|mean| <= 3.4e38), got " + num(mean));
  if (std > flt_max) raise("BAD_VALUE", fn, "std must be within float32 (std <= 3.4e38), got " + num(std));
  if (kind == 3 && !(df >= 3 && df <= kMaxStudentDf && df == std::floor(df)))
    raise("BAD_VALUE", fn, "df must be an integer in [3, 100] (the variance is infinite for df <= 2), got " + num(df));
  return {static_cast<Dist>(static_cast<int>(kind)), mean, std, static_cast<int>(kind == 3 ? df : 5)};
}

void softmax(Out out, Vec<const float> x, double rows_d, double cols_d, SoftmaxKind kind) {
  const char* fn = kind == SoftmaxKind::log ? "logSoftmax" : kind == SoftmaxKind::naive ? "softmaxNaive" : "softmax";
  if (kind != SoftmaxKind::stable && kind != SoftmaxKind::naive && kind != SoftmaxKind::log)  // (an int from the binding)
    raise("BAD_VALUE", fn, "kind must be 0 (stable), 1 (naive) or 2 (log), got " + std::to_string(static_cast<int>(kind)));
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements);
  const std::size_t cols = size_arg(fn, "cols", cols_d, kMaxElements);
  expect_len(fn, "x", x, product(fn, "rows*cols", rows, cols), "rows*cols");
  constexpr const char* rule = "a logit must be finite or -Infinity (which masks it)";
  // the stable softmax checks its logits in its own max pass (softmax_rows_checked: a pass over x
  // fewer, 6% of a 1024² softmax) and stops before a bad row, so the culprit is still in x
  if (kind != SoftmaxKind::stable) expect_values(fn, "x", x, cols, Values::finite_or_minus_inf, rule);
  const Vec<float> yv = out.take(fn, x.size, "rows*cols");
  const Mat<float> y{yv.data, rows, cols};
  const Mat<const float> xm{x.data, rows, cols};
  // the log-softmax's overflow check below reads the logits after the kernel has written y: an
  // out that overlaps x (the kernels allow it) would have overwritten them, so they are kept
  std::vector<float> kept;
  const float* logits = x.data;
  if (kind == SoftmaxKind::log && yv.data < x.data + x.size && x.data < yv.data + yv.size) {
    kept.assign(x.data, x.data + x.size);
    logits = kept.data();
  }
  switch (kind) {
    case SoftmaxKind::stable:
      if (const std::size_t bad = softmax_rows_checked(y, xm); bad < rows)
        expect_values(fn, "x", x, cols, Values::finite_or_minus_inf, rule, bad * cols);
      break;
    case SoftmaxKind::naive: softmax_naive_rows(y, xm); break;
    case SoftmaxKind::log: log_softmax_rows(y, xm); break;
  }
  // log p_j = x_j − max − log Σ can leave float32 when logits lie ~3.4e38 apart: refused, as an
  // overflow, where x_j was finite (-Infinity in, -Infinity out; an all -Infinity row is NaN).
  if (kind == SoftmaxKind::log)
    for (std::size_t i = 0; i < yv.size; ++i)
      if (std::isfinite(logits[i]) && !std::isfinite(yv[i]))
        raise("BAD_VALUE", fn, "the log-softmax overflowed float32 at " + at("x", i, cols, x.size) +
                                   ": logits more than 3.4e38 apart");
}

void softmax_backward(Out dx, Vec<const float> p, Vec<const float> dp, double rows_d, double cols_d) {
  const char* fn = "softmaxBackward";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements);
  const std::size_t cols = size_arg(fn, "cols", cols_d, kMaxElements);
  const std::size_t n = product(fn, "rows*cols", rows, cols);
  expect_len(fn, "p", p, n, "rows*cols");
  expect_len(fn, "gradP", dp, n, "rows*cols");
  expect_values(fn, "p", p, cols, Values::finite, "p and gradP must be finite");
  expect_values(fn, "gradP", dp, cols, Values::finite, "p and gradP must be finite");
  const Vec<float> d = dx.take(fn, n, "rows*cols");
  softmax_backward_rows(Mat<float>{d.data, rows, cols}, Mat<const float>{p.data, rows, cols},
                        Mat<const float>{dp.data, rows, cols});
  expect_no_overflow(fn, "dx", d, cols, "use a smaller p or gradP");
}

void attention(Out out, Out weights, const AttentionArgs& a) {
  const char* fn = "attention";
  const Shape s = check_attention(fn, a);
  std::vector<std::uint8_t> keep;
  const Mask mask = select_mask(a, s, keep);
  const Vec<float> o = out.take(fn, s.nq * s.dv, "nq*dv"), w = weights.take(fn, s.nq * s.nk, "nq*nk");
  attention_forward(Mat<float>{o.data, s.nq, s.dv}, Mat<float>{w.data, s.nq, s.nk},
                    Mat<const float>{a.q.data, s.nq, s.dk}, Mat<const float>{a.k.data, s.nk, s.dk},
                    Mat<const float>{a.v.data, s.nk, s.dv}, s.scale, mask, bias_of(a, s));
  expect_forward_finite(fn, a, s, o, w);
}

void attention_backward(Out dq, Out dk, Out dv, const AttentionArgs& a, Vec<const float> dout) {
  const char* fn = "attentionBackward";
  const Shape s = check_attention(fn, a);
  expect_len(fn, "gradOutput", dout, s.nq * s.dv, "nq*dv");
  expect_values(fn, "gradOutput", dout, s.dv, Values::finite, "gradOutput must be finite");
  const Vec<float> gq = dq.take(fn, s.nq * s.dk, "nq*dk"), gk = dk.take(fn, s.nk * s.dk, "nk*dk"),
                   gv = dv.take(fn, s.nk * s.dv, "nk*dv");
  std::vector<std::uint8_t> keep;
  const Mask mask = select_mask(a, s, keep);
  std::vector<float> out(s.nq * s.dv), p(s.nq * s.nk), ds(s.nq * s.nk);
  const Mat<const float> q{a.q.data, s.nq, s.dk}, k{a.k.data, s.nk, s.dk}, v{a.v.data, s.nk, s.dv};
  attention_forward(Mat<float>{out.data(), s.nq, s.dv}, Mat<float>{p.data(), s.nq, s.nk}, q, k, v,
                    s.scale, mask, bias_of(a, s));
  expect_forward_finite(fn, a, s, {out.data(), out.size()}, {p.data(), p.size()});
  attnlab::attention_backward(Mat<float>{gq.data, s.nq, s.dk}, Mat<float>{gk.data, s.nk, s.dk},
                              Mat<float>{gv.data, s.nk, s.dv}, Mat<float>{ds.data(), s.nq, s.nk},
                              q, k, v, Mat<const float>{p.data(), s.nq, s.nk},
                              Mat<const float>{dout.data, s.nq, s.dv}, s.scale);
  const char* advice = "use a smaller gradOutput, q, k, v or scale";
  expect_no_overflow(fn, "gradQ", gq, s.dk, advice);
  expect_no_overflow(fn, "gradK", gk, s.dk, advice);
  expect_no_overflow(fn, "gradV", gv, s.dv, advice);
}

void row_stats(std::vector<float>& max, std::vector<float>& entropy, Vec<const float> p,
               double rows_d, double cols_d) {
  const char* fn = "rowStats";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements);
  const std::size_t cols = size_arg(fn, "cols", cols_d, kMaxElements);
  expect_len(fn, "p", p, product(fn, "rows*cols", rows, cols), "rows*cols");
  // (A NaN would also make the SIMD row max depend on the lane it sits in.)
  expect_values(fn, "p", p, cols, Values::finite, "p must be finite");
  max.resize(rows);
  entropy.resize(rows);
  const Mat<const float> pm{p.data, rows, cols};
  row_max(Vec<float>{max.data(), rows}, pm);
  row_entropy(Vec<float>{entropy.data(), rows}, pm);
  expect_no_overflow(fn, "the entropy", {entropy.data(), rows}, 1, "use a smaller p");
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
  if (layernorm && d.std == 0) raise("BAD_VALUE", fn, "layernorm needs std > 0 (a constant vector normalises to 0/0)");
  out.resize(count);
  attnlab::sample_dot_products(Vec<float>{out.data(), count}, dk, seed, d, first, PairOptions{rho, layernorm});
  expect_no_overflow(fn, "the dot products", {out.data(), out.size()}, 1, "use a smaller mean or std");
}

void sample_softmax_rows(std::vector<float> (&out)[5], double dk_d, double n_d, double rows_d, double scale,
                         double seed_d, double first_d) {
  const char* fn = "sampleSoftmaxRows";
  const std::size_t dk = size_arg(fn, "dk", dk_d, kMaxDim);
  const std::size_t n = size_arg(fn, "n", n_d, kMaxDim);
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxCount);
  product(fn, "rows*n", rows, n);  // the scores it holds
  const float sc = scale_arg(fn, scale);
  const std::uint64_t seed = seed_arg(fn, "seed", seed_d), first = seed_arg(fn, "first", first_d);
  for (auto& v : out) v.resize(rows);
  attnlab::sample_softmax_rows({{out[0].data(), rows}, {out[1].data(), rows}, {out[2].data(), rows},
                                {out[3].data(), rows}, {out[4].data(), rows}},
                               dk, n, sc, seed, first);
  for (const auto& v : out) expect_no_overflow(fn, "the statistics", {v.data(), v.size()}, 1, "use a smaller scale");
}

void score_stats(std::vector<float> (&out)[5], Vec<const float> scores, double rows_d, double n_d, double scale) {
  const char* fn = "scoreStats";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxCount);
  const std::size_t n = size_arg(fn, "n", n_d, kMaxDim);
  expect_len(fn, "scores", scores, product(fn, "rows*n", rows, n), "rows*n");
  const float sc = scale_arg(fn, scale);
  expect_values(fn, "scores", scores, n, Values::finite, "scores must be finite");
  // the same float products as sample_scores' scale pass
  std::vector<float> s(rows * n);
  attnlab::scale(Mat<float>{s.data(), rows, n}, Mat<const float>{scores.data, rows, n}, sc);
  expect_no_overflow(fn, "scale·scores", {s.data(), s.size()}, n, "use a smaller scale");
  for (auto& v : out) v.resize(rows);
  softmax_row_stats({{out[0].data(), rows}, {out[1].data(), rows}, {out[2].data(), rows}, {out[3].data(), rows},
                     {out[4].data(), rows}},
                    Mat<const float>{s.data(), rows, n});
  for (const auto& v : out) expect_no_overflow(fn, "the statistics", {v.data(), v.size()}, 1, "use a smaller scale");
}

void sample_scores(std::vector<float>& out, double dk_d, double n_d, double rows_d, double scale, double seed_d,
                   double first_d) {
  const char* fn = "sampleScores";
  const std::size_t dk = size_arg(fn, "dk", dk_d, kMaxDim);
  const std::size_t n = size_arg(fn, "n", n_d, kMaxDim);
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxCount);
  const std::size_t count = product(fn, "rows*n", rows, n);
  const float sc = scale_arg(fn, scale);
  const std::uint64_t seed = seed_arg(fn, "seed", seed_d), first = seed_arg(fn, "first", first_d);
  out.resize(count);
  attnlab::sample_scores(Mat<float>{out.data(), rows, n}, dk, sc, seed, first);
  expect_no_overflow(fn, "the scores", {out.data(), out.size()}, 1, "use a smaller scale");
}

void scores(Out out_arg, Vec<const float> q, Vec<const float> k, double nq_d, double nk_d,
            double dk_d, double scale) {
  const char* fn = "scores";
  const std::size_t nq = size_arg(fn, "nq", nq_d, kMaxDim), nk = size_arg(fn, "nk", nk_d, kMaxDim),
                    dk = size_arg(fn, "dk", dk_d, kMaxDim);
  expect_len(fn, "q", q, product(fn, "nq*dk", nq, dk), "nq*dk");
  expect_len(fn, "k", k, product(fn, "nk*dk", nk, dk), "nk*dk");
  const std::size_t n = product(fn, "nq*nk", nq, nk);
  const float sc = scale_arg(fn, scale);
  expect_values(fn, "q", q, dk, Values::finite, "q and k must be finite");
  expect_values(fn, "k", k, dk, Values::finite, "q and k must be finite");
  const Vec<float> out = out_arg.take(fn, n, "nq*nk");
  const Mat<float> s{out.data, nq, nk};
  matmul_nt(s, Mat<const float>{q.data, nq, dk}, Mat<const float>{k.data, nk, dk});
  attnlab::scale(s, Mat<const float>(s), sc);
  expect_no_overflow(fn, "the scores", {out.data, out.size}, nk, "|q.k| or |scale*q.k| > 3.4e38; use a smaller q, k or scale");
}

void matmul(Out out_arg, Vec<const float> a, Vec<const float> b, double m_d, double k_d, double n_d) {
  const char* fn = "matmul";
  const std::size_t m = size_arg(fn, "m", m_d, kMaxElements), k = size_arg(fn, "k", k_d, kMaxElements),
                    n = size_arg(fn, "n", n_d, kMaxElements);
  expect_len(fn, "a", a, product(fn, "m*k", m, k), "m*k");
  expect_len(fn, "b", b, product(fn, "k*n", k, n), "k*n");
  const std::size_t mn = product(fn, "m*n", m, n);
  expect_values(fn, "a", a, k, Values::finite, "a and b must be finite");
  expect_values(fn, "b", b, n, Values::finite, "a and b must be finite");
  const Vec<float> out = out_arg.take(fn, mn, "m*n");
  matmul_nn(Mat<float>{out.data, m, n}, Mat<const float>{a.data, m, k}, Mat<const float>{b.data, k, n});
  expect_no_overflow(fn, "the product", {out.data, out.size}, n, "use a smaller a or b");
}

void row_dots(Out out_arg, Vec<const float> a, Vec<const float> b, double rows_d, double cols_d) {
  const char* fn = "rowDots";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements), cols = size_arg(fn, "cols", cols_d, kMaxElements);
  const std::size_t n = product(fn, "rows*cols", rows, cols);
  expect_len(fn, "a", a, n, "rows*cols");
  expect_len(fn, "b", b, n, "rows*cols");
  expect_values(fn, "a", a, cols, Values::finite, "a and b must be finite");
  expect_values(fn, "b", b, cols, Values::finite, "a and b must be finite");
  const Vec<float> out = out_arg.take(fn, rows, "rows");
  for (std::size_t i = 0; i < rows; ++i) out.data[i] = dot(Vec<const float>{a.data + i * cols, cols}, Vec<const float>{b.data + i * cols, cols});
  expect_no_overflow(fn, "the dot products", {out.data, out.size}, 1, "use a smaller a or b");
}

void softmax_jacobian(std::vector<float>& out, Vec<const float> p) {
  const char* fn = "softmaxJacobian";
  if (p.size == 0) raise("BAD_SIZE", fn, "p must hold at least one value");
  const std::size_t n = p.size;
  const std::size_t nn = product(fn, "n*n", n, n);
  expect_values(fn, "p", p, n, Values::finite, "p must be finite");
  out.resize(nn);
  softmax_jacobian_ref(Mat<float>{out.data(), n, n}, p);
  expect_no_overflow(fn, "J", {out.data(), out.size()}, n, "use a smaller p");
}

void sample_entries(Out out_arg, double count_d, double seed_d, const Distribution& d, double stream_d) {
  const char* fn = "sampleEntries";
  const std::size_t count = size_arg(fn, "count", count_d, kMaxElements);
  const std::uint64_t seed = seed_arg(fn, "seed", seed_d), stream = seed_arg(fn, "stream", stream_d);
  const Vec<float> out = out_arg.take(fn, count, "count");
  attnlab::sample_entries(out, seed, stream, d);
  expect_no_overflow(fn, "the entries", out, 1, "use a smaller mean or std");
}

namespace {
// (The running moments would turn a single infinity into NaN or not depending on its place.)
void expect_sample(Vec<const float> x) {
  if (x.size == 0) raise("BAD_SIZE", "describe", "x must hold at least one value");
  expect_values("describe", "x", x, x.size, Values::finite, "x must be finite");
}
Description summary_of(Vec<const float> x) {
  const Moments m = moments_of(x);
  return {summarize(m), tails_of(x, m)};
}
}  // namespace

Description describe(Vec<const float> x) {
  expect_sample(x);
  return summary_of(x);
}

Description describe(std::vector<std::uint32_t>& counts, Vec<const float> x, double bins_d, double lo,
                     double hi) {
  const char* fn = "describe";
  const std::size_t bins = size_arg(fn, "bins", bins_d, kMaxBins);
  if (x.size == 0) raise("BAD_SIZE", fn, "x must hold at least one value");
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo))
    raise("BAD_VALUE", fn, "the range [lo, hi] must be finite with lo < hi, got [" + num(lo) + ", " + num(hi) + "]");
  // The bin of v is (v − lo)·bins/(hi − lo): both factors must be finite doubles, or the float-to-
  // integer conversion that follows would be undefined (hi − lo = 5e-324 gives bins/(hi − lo) = inf).
  if (!std::isfinite(hi - lo) || !std::isfinite(double(bins) / (hi - lo)))
    raise("BAD_VALUE", fn, "the range [lo, hi] = [" + num(lo) + ", " + num(hi) + "] is too " +
                               (std::isfinite(hi - lo) ? "narrow" : "wide") + " for " + num(double(bins)) + " bins");
  expect_sample(x);
  counts.resize(bins);
  histogram(Vec<std::uint32_t>{counts.data(), bins}, x, lo, hi);
  return summary_of(x);
}

void row_summaries(std::vector<double>& out, Vec<const float> x, double rows_d, double cols_d) {
  const char* fn = "rowSummaries";
  const std::size_t rows = size_arg(fn, "rows", rows_d, kMaxElements), cols = size_arg(fn, "cols", cols_d, kMaxElements);
  expect_len(fn, "x", x, product(fn, "rows*cols", rows, cols), "rows*cols");
  expect_values(fn, "x", x, cols, Values::finite, "x must be finite");
  out.resize(4 * rows);
  std::vector<float> scratch(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const Vec<const float> row{x.data + r * cols, cols};
    const Summary s = summarize(moments_of(row));
    out[r] = s.mean;
    out[rows + r] = s.mean_lo;
    out[2 * rows + r] = s.mean_hi;
    out[3 * rows + r] = median_of(row, {scratch.data(), cols});
  }
}

}  // namespace attnlab::api
