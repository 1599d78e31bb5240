// Attention forward and backward: the float engine against the same composition in double, the
// backward pass against central differences, and the masks.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

struct Problem {
  std::size_t nq, nk, dk, dv;
  std::vector<double> q, k, v, dout;
  Problem(std::size_t nq_, std::size_t nk_, std::size_t dk_, std::size_t dv_, std::uint64_t seed)
      : nq(nq_), nk(nk_), dk(dk_), dv(dv_), q(widen(normals(nq * dk, seed))),
        k(widen(normals(nk * dk, seed + 1))), v(widen(normals(nk * dv, seed + 2))),
        dout(widen(normals(nq * dv, seed + 3))) {}
};

// L(q, k, v) = Σ_ij O_ij G_ij, so ∂L/∂O = G: a scalar loss whose gradient is the backward pass's.
// (bias: an additive (nq, nk) mask, or empty)
double loss(const Problem& p, const std::vector<double>& q, const std::vector<double>& k,
            const std::vector<double>& v, double scale, const Mask& mask, Mat<const double> bias) {
  std::vector<double> out(p.nq * p.dv), w(p.nq * p.nk);
  attention_forward(mmat(out, p.nq, p.dv), mmat(w, p.nq, p.nk), cmat(q, p.nq, p.dk),
                    cmat(k, p.nk, p.dk), cmat(v, p.nk, p.dv), scale, mask, bias);
  double l = 0;
  for (std::size_t i = 0; i < out.size(); ++i) l += out[i] * p.dout[i];
  return l;
}

struct Grads { std::vector<double> dq, dk, dv; };

Grads backward(const Problem& p, double scale, const Mask& mask, Mat<const double> bias = {}) {
  std::vector<double> out(p.nq * p.dv), w(p.nq * p.nk), ds(p.nq * p.nk);
  Grads g{std::vector<double>(p.nq * p.dk), std::vector<double>(p.nk * p.dk), std::vector<double>(p.nk * p.dv)};
  attention_forward(mmat(out, p.nq, p.dv), mmat(w, p.nq, p.nk), cmat(p.q, p.nq, p.dk),
                    cmat(p.k, p.nk, p.dk), cmat(p.v, p.nk, p.dv), scale, mask, bias);
  attention_backward(mmat(g.dq, p.nq, p.dk), mmat(g.dk, p.nk, p.dk), mmat(g.dv, p.nk, p.dv),
                     mmat(ds, p.nq, p.nk), cmat(p.q, p.nq, p.dk), cmat(p.k, p.nk, p.dk),
                     cmat(p.v, p.nk, p.dv), cmat(w, p.nq, p.nk), cmat(p.dout, p.nq, p.dv), scale);
  return g;
}

}  // namespace

TEST_CASE("attention backward matches central differences of the forward in double, masked or biased",
          "[attention][eq:vanishing-gradients]") {
  // the backward pass sees the forward's P alone: masked keys (P = 0), a row with no key allowed
  // (P_i = 0) and an additive bias must all come out of it right
  const int kind = GENERATE(0, 1, 2, 3, 4);  // none, causal, keep, bias, causal + keep + bias
  const char* const kinds[] = {"none", "causal", "keep", "bias", "causal + keep + bias"};
  const Problem p(4, 5, 4, 3, 40);
  const double scale = 1 / std::sqrt(4.0);
  // keep: row 2 attends nothing, the others skip one or two keys
  const std::vector<std::uint8_t> keep{1, 0, 1, 1, 1,  1, 1, 0, 1, 0,  0, 0, 0, 0, 0,  1, 1, 1, 0, 1};
  std::vector<double> biasd(p.nq * p.nk);
  for (std::size_t i = 0; i < biasd.size(); ++i) biasd[i] = 0.5 * std::cos(double(i));
  Mask mask;
  mask.causal = kind == 1 || kind == 4;
  if (kind == 2 || kind == 4) mask.keep = {keep.data(), p.nq, p.nk};
  const Mat<const double> bias = kind >= 3 ? cmat(biasd, p.nq, p.nk) : Mat<const double>{};
  const Grads g = backward(p, scale, mask, bias);
  // central difference: (L(x+h) − L(x−h)) / 2h = L'(x) + O(h²); h = 1e-5 gives truncation ~1e-10
  // and rounding ~ε·|L|/h ~ 1e-11, so 1e-7 absolute is a safe, still sharp bound.
  const double h = 1e-5;
  auto check = [&](const std::vector<double>& analytic, int which) {
    for (std::size_t i = 0; i < analytic.size(); ++i) {
      Problem plus = p, minus = p;
      auto& xp = which == 0 ? plus.q : which == 1 ? plus.k : plus.v;
      auto& xm = which == 0 ? minus.q : which == 1 ? minus.k : minus.v;
      xp[i] += h;
      xm[i] -= h;
      const double numeric = (loss(p, plus.q, plus.k, plus.v, scale, mask, bias) -
                              loss(p, minus.q, minus.k, minus.v, scale, mask, bias)) / (2 * h);
      INFO("tensor " << "qkv"[which] << " index " << i << ", mask " << kinds[kind]);
      REQUIRE(analytic[i] == Approx(numeric).margin(1e-7));
    }
  };
  check(g.dq, 0);
  check(g.dk, 1);
  check(g.dv, 2);
}

TEST_CASE("float attention forward and backward agree with the double composition",
          "[attention][eq:full-attention]") {
  const std::size_t dk = GENERATE(1, 3, 4, 5, 11, 64);
  const Problem p(7, 9, dk, 6, 50);
  const double scale = 1 / std::sqrt(double(dk));
  std::vector<float> q(p.q.begin(), p.q.end()), k(p.k.begin(), p.k.end()), v(p.v.begin(), p.v.end()),
      dout(p.dout.begin(), p.dout.end());
  std::vector<float> out(p.nq * p.dv), w(p.nq * p.nk), ds(p.nq * p.nk), dq(q.size()), dkk(k.size()), dv(v.size());
  attention_forward(mmat(out, p.nq, p.dv), mmat(w, p.nq, p.nk), cmat(q, p.nq, dk), cmat(k, p.nk, dk),
                    cmat(v, p.nk, p.dv), float(scale));
  attention_backward(mmat(dq, p.nq, dk), mmat(dkk, p.nk, dk), mmat(dv, p.nk, p.dv), mmat(ds, p.nq, p.nk),
                     cmat(q, p.nq, dk), cmat(k, p.nk, dk), cmat(v, p.nk, p.dv), cmat(w, p.nq, p.nk),
                     cmat(dout, p.nq, p.dv), float(scale));
  std::vector<double> outd(out.size()), wd(w.size());
  attention_forward(mmat(outd, p.nq, p.dv), mmat(wd, p.nq, p.nk), cmat(p.q, p.nq, dk),
                    cmat(p.k, p.nk, dk), cmat(p.v, p.nk, p.dv), scale);
  const Grads g = backward(p, scale, {});
  // Chained float kernels: a few hundred ulps of the largest magnitude involved (all entries
  // here are O(1): N(0,1) inputs, weights in [0, 1], nk = 9 terms per output).
  const double tol = 2e-5;
  for (std::size_t i = 0; i < w.size(); ++i) REQUIRE(w[i] == Approx(wd[i]).margin(tol));
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == Approx(outd[i]).margin(tol));
  for (std::size_t i = 0; i < dq.size(); ++i) REQUIRE(dq[i] == Approx(g.dq[i]).margin(tol));
  for (std::size_t i = 0; i < dkk.size(); ++i) REQUIRE(dkk[i] == Approx(g.dk[i]).margin(tol));
  for (std::size_t i = 0; i < dv.size(); ++i) REQUIRE(dv[i] == Approx(g.dv[i]).margin(tol));
}

TEST_CASE("masked, causal and biased float attention agree with the double composition",
          "[attention][eq:full-attention]") {
  // attention_forward takes three paths: no mask (one fused scale-and-softmax pass over S), causal
  // only (the softmax of each row's allowed prefix), and any keep mask or bias (row by row)
  const int kind = GENERATE(0, 1, 2, 3, 4);  // none, causal, keep, bias, causal + keep + bias
  const std::size_t nk = GENERATE(3, 9, 13), nq = 7, dk = 5, dv = 6;
  const Problem p(nq, nk, dk, dv, 80);
  std::vector<std::uint8_t> keep(nq * nk);
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (i * 7) % 5 != 0;
  std::vector<double> biasd(nq * nk);
  for (std::size_t i = 0; i < biasd.size(); ++i) biasd[i] = double(float(0.25 * std::sin(double(i))));
  const std::vector<float> bias(biasd.begin(), biasd.end());
  Mask mask;
  mask.causal = kind == 1 || kind == 4;
  if (kind == 2 || kind == 4) mask.keep = {keep.data(), nq, nk};
  const bool biased = kind == 3 || kind == 4;
  const double scale = 0.4;
  std::vector<float> q(p.q.begin(), p.q.end()), k(p.k.begin(), p.k.end()), v(p.v.begin(), p.v.end());
  std::vector<float> out(nq * dv), w(nq * nk);
  std::vector<double> outd(nq * dv), wd(nq * nk);
  attention_forward(mmat(out, nq, dv), mmat(w, nq, nk), cmat(q, nq, dk), cmat(k, nk, dk), cmat(v, nk, dv),
                    float(scale), mask, biased ? cmat(bias, nq, nk) : Mat<const float>{});
  attention_forward(mmat(outd, nq, dv), mmat(wd, nq, nk), cmat(p.q, nq, dk), cmat(p.k, nk, dk),
                    cmat(p.v, nk, dv), scale, mask, biased ? cmat(biasd, nq, nk) : Mat<const double>{});
  // as in the test above: O(1) entries, a few hundred ulps at most
  INFO("kind " << kind << " nk " << nk);
  for (std::size_t i = 0; i < w.size(); ++i) {
    REQUIRE(w[i] == Approx(wd[i]).margin(2e-5));
    if (wd[i] == 0) REQUIRE(w[i] == 0.f);  // masked weights are exactly 0
  }
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == Approx(outd[i]).margin(2e-5));
}

TEST_CASE("a causal query attends only to itself and earlier keys", "[attention][eq:full-attention]") {
  const std::size_t n = 6, d = 4;
  const auto q = normals(n * d, 60), k = normals(n * d, 61), v = normals(n * d, 62);
  std::vector<float> out(n * d), w(n * n);
  Mask mask;
  mask.causal = true;
  attention_forward(mmat(out, n, d), mmat(w, n, n), cmat(q, n, d), cmat(k, n, d), cmat(v, n, d), 0.5f, mask);
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j > i) REQUIRE(w[i * n + j] == 0.f);
      s += w[i * n + j];
    }
    REQUIRE(s == Approx(1.0).epsilon(1e-6));
  }
  CHECK(w[0] == 1.f);  // the first query sees only the first key
  for (std::size_t c = 0; c < d; ++c) CHECK(out[c] == v[c]);
}

TEST_CASE("a fully masked query row gives a zero output row and zero gradients", "[attention][eq:full-attention]") {
  const std::size_t nq = 3, nk = 4, d = 2;
  const Problem p(nq, nk, d, d, 70);
  std::vector<std::uint8_t> keep{1, 1, 0, 1,  0, 0, 0, 0,  1, 0, 1, 1};  // row 1 attends nothing
  Mask mask;
  mask.keep = {keep.data(), nq, nk};
  std::vector<double> out(nq * d), w(nq * nk);
  attention_forward(mmat(out, nq, d), mmat(w, nq, nk), cmat(p.q, nq, d), cmat(p.k, nk, d), cmat(p.v, nk, d), 0.7, mask);
  for (std::size_t j = 0; j < nk; ++j) CHECK(w[nk + j] == 0.0);  // row 1
  CHECK(out[2] == 0.0);
  CHECK(out[3] == 0.0);
  CHECK(w[2] == 0.0);  // masked entries of other rows are 0 as well
  const Grads g = backward(p, 0.7, mask);
  CHECK(g.dq[2] == 0.0);
  CHECK(g.dq[3] == 0.0);
  for (double x : g.dq) CHECK(std::isfinite(x));
  for (double x : g.dk) CHECK(std::isfinite(x));
  for (double x : g.dv) CHECK(std::isfinite(x));
}
