// The checked API: every bad argument is an error that names it, and nothing is left broken.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>
#include <limits>

#include "api.hpp"
#include "rng.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using api::ApiError;

namespace {
template <class F>
std::string error_of(F&& f, std::string* code = nullptr) {
  try {
    f();
  } catch (const ApiError& e) {
    if (code) *code = e.code;
    return e.what();
  }
  return "(no error)";
}
const double kNaN = std::nan("");
}  // namespace

TEST_CASE("softmax rejects sizes that are not positive integers, naming the argument", "[api]") {
  std::vector<float> x(6, 0.f), out;
  const Vec<const float> xv{x.data(), x.size()};
  std::string code;
  CHECK(error_of([&] { api::softmax(out, xv, kNaN, 3); }, &code) == "softmax: rows must be a positive integer, got nan");
  CHECK(code == "BAD_SIZE");
  CHECK(error_of([&] { api::softmax(out, xv, 2, 0); }) == "softmax: cols must be at least 1, got 0");
  CHECK(error_of([&] { api::softmax(out, xv, -2, 3); }) == "softmax: rows must be at least 1, got -2");
  CHECK(error_of([&] { api::softmax(out, xv, 2.5, 3); }) == "softmax: rows must be a positive integer, got 2.5");
  CHECK(error_of([&] { api::softmax(out, xv, 2, 4); }, &code) == "softmax: x has 6 elements, expected rows*cols = 8");
  CHECK(code == "SHAPE_MISMATCH");
  api::softmax(out, xv, 2, 3);  // still works after every error
  CHECK(out.size() == 6);
  CHECK(out[0] == Approx(1.0 / 3));
}

TEST_CASE("attention names the argument whose length does not fit the sizes", "[api][eq:full-attention]") {
  const auto q = normals(100, 1), k = normals(128, 2), v = normals(128, 3);
  api::AttentionArgs a;
  a.q = {q.data(), q.size()};
  a.k = {k.data(), k.size()};
  a.v = {v.data(), v.size()};
  a.nq = 32; a.nk = 32; a.dk = 4; a.dv = 4;
  std::vector<float> out, w;
  CHECK(error_of([&] { api::attention(out, w, a); }) == "attention: q has 100 elements, expected nq*dk = 128");
  a.nq = 25;
  api::attention(out, w, a);
  CHECK(out.size() == 100);
  CHECK(w.size() == 25 * 32);
  a.has_scale = true;
  a.scale = std::numeric_limits<double>::infinity();
  CHECK(error_of([&] { api::attention(out, w, a); }) == "attention: scale must be finite in float32 (|scale| <= 3.4e38), got inf");
  a.scale = 1e39;  // finite as a double, +inf as a float: refused, not a silent NaN
  CHECK(error_of([&] { api::attention(out, w, a); }) == "attention: scale must be finite in float32 (|scale| <= 3.4e38), got 1e+39");
  std::vector<std::uint8_t> mask(7, 1);
  a.has_scale = false;
  a.mask = {mask.data(), mask.size()};
  a.has_mask = true;
  CHECK(error_of([&] { api::attention(out, w, a); }) == "attention: mask has 7 elements, expected nq*nk = 800");
}

TEST_CASE("softmax refuses a kind it does not have, by name, and computes nothing", "[api]") {
  std::vector<float> x{1.f, 2.f, 3.f}, out(3, 42.f);
  std::string code;
  // (the binding passes kind as an int: 3 was taken as success, leaving out as it was)
  CHECK(error_of([&] { api::softmax(out, {x.data(), 3}, 1, 3, static_cast<api::SoftmaxKind>(3)); }, &code) ==
        "softmax: kind must be 0 (stable), 1 (naive) or 2 (log), got 3");
  CHECK(code == "BAD_VALUE");
  CHECK(error_of([&] { api::softmax(out, {x.data(), 3}, 1, 3, static_cast<api::SoftmaxKind>(-1)); }) ==
        "softmax: kind must be 0 (stable), 1 (naive) or 2 (log), got -1");
  CHECK(out == std::vector<float>(3, 42.f));
}

TEST_CASE("the log-softmax's overflow is refused by the logit's place even when out overwrites x", "[api][eq:shift-vs-scale]") {
  // log p = (x − max) − log Σ leaves float32 for logits 6e38 apart; with out = x the check used to
  // read the overwritten logits, and returned [0, −inf] as a success
  for (const bool aliased : {false, true}) {
    std::vector<float> x{3e38f, -3e38f}, separate(2);
    std::string code;
    const std::string msg = error_of([&] {
      api::softmax(api::Out({aliased ? x.data() : separate.data(), 2}, "out"), {x.data(), 2}, 1, 2, api::SoftmaxKind::log);
    }, &code);
    CHECK(msg == "logSoftmax: the log-softmax overflowed float32 at x[1]: logits more than 3.4e38 apart");
    CHECK(code == "BAD_VALUE");
  }
}

TEST_CASE("a lent output is written in place, and one of the wrong length is refused by its name", "[api]") {
  const auto q = normals(3 * 4, 1), k = normals(5 * 4, 2), v = normals(5 * 2, 3);
  api::AttentionArgs a;
  a.q = {q.data(), q.size()};
  a.k = {k.data(), k.size()};
  a.v = {v.data(), v.size()};
  a.nq = 3; a.nk = 5; a.dk = 4; a.dv = 2;
  std::vector<float> out, w, lent_out(3 * 2, -1.f), lent_w(3 * 5 + 1, -1.f);
  api::attention(out, w, a);
  std::string code;
  CHECK(error_of([&] { api::attention(api::Out({lent_out.data(), 6}, "out.output"), api::Out({lent_w.data(), 16}, "out.weights"), a); },
                 &code) == "attention: out.weights has 16 elements, expected nq*nk = 15");
  CHECK(code == "SHAPE_MISMATCH");
  api::attention(api::Out({lent_out.data(), 6}, "out.output"), api::Out({lent_w.data(), 15}, "out.weights"), a);
  CHECK(std::equal(out.begin(), out.end(), lent_out.begin()));  // the same computation, in place
  CHECK(std::equal(w.begin(), w.end(), lent_w.begin()));
  CHECK(lent_w[15] == -1.f);                                    // and nothing past the loan
}

TEST_CASE("matmul writes a lent output in place, bit for bit as into its own vector, and refuses a wrong length by name", "[api]") {
  const auto a = normals(3 * 7, 4), b = normals(7 * 5, 5);
  std::vector<float> c, lent(3 * 5 + 1, -1.f);
  api::matmul(c, {a.data(), a.size()}, {b.data(), b.size()}, 3, 7, 5);
  std::string code;
  CHECK(error_of([&] { api::matmul(api::Out({lent.data(), 16}, "out"), {a.data(), a.size()}, {b.data(), b.size()}, 3, 7, 5); },
                 &code) == "matmul: out has 16 elements, expected m*n = 15");
  CHECK(code == "SHAPE_MISMATCH");
  api::matmul(api::Out({lent.data(), 15}, "out"), {a.data(), a.size()}, {b.data(), b.size()}, 3, 7, 5);
  CHECK(std::equal(c.begin(), c.end(), lent.begin()));
  CHECK(lent[15] == -1.f);
}

TEST_CASE("sizes whose product would overflow are refused before any allocation", "[api]") {
  std::vector<float> x(4), out;
  std::string code;
  const auto msg = error_of([&] { api::softmax(out, {x.data(), 4}, 1 << 20, 1 << 20); }, &code);
  CHECK(code == "SIZE_LIMIT");
  CHECK(msg == "softmax: rows*cols = 1099511627776 exceeds the limit of 16777216 elements");
  CHECK(error_of([&] { api::sample_dot_products(out, 1e6, 10, 1, {}); }, &code) ==
        "sampleDotProducts: dk = 1000000 exceeds the limit of 65536");
  CHECK(code == "SIZE_LIMIT");
  CHECK(out.empty());
}

TEST_CASE("seeds and distributions are validated", "[api]") {
  std::vector<float> out;
  CHECK(error_of([&] { api::sample_dot_products(out, 4, 10, -1, {}); }) ==
        "sampleDotProducts: seed must be an integer in [0, 2^53), got -1");
  CHECK(error_of([&] { api::distribution("sampleDotProducts", 7, 0, 1); }) ==
        "sampleDotProducts: distribution must be 'normal', 'uniform', 'rademacher' or 'student-t'");
  CHECK(error_of([&] { api::distribution("sampleDotProducts", 0, 0, -1); }) ==
        "sampleDotProducts: std must be finite and >= 0, got -1");
  api::sample_dot_products(out, 4, 10, 1, api::distribution("x", 2, 0, 1));
  for (float v : out) CHECK(v == std::round(v));  // Rademacher ±1 entries: q·k is an integer
}

TEST_CASE("describe returns the summary and a histogram of the requested range", "[api][eq:dot-variance]") {
  std::vector<float> x{1.f, 2.f, 3.f, 4.f};
  std::vector<std::uint32_t> counts;
  const auto [s, t] = api::describe(counts, {x.data(), 4}, 2, 0, 4);
  CHECK(s.mean == 2.5);
  CHECK(s.variance == Approx(5.0 / 3));
  CHECK(counts == std::vector<std::uint32_t>{1, 3});
  CHECK(t.fourth == Approx((1 + 16 + 81 + 256) / 4.0));
  CHECK(t.kurtosis == Approx(2.5625 / (1.25 * 1.25)));  // m₄ = (1.5⁴ + 0.5⁴)/2, m₂ = (1.5² + 0.5²)/2
  CHECK(error_of([&] { api::describe(counts, {x.data(), 4}, 2, 1, 1); }) ==
        "describe: the range [lo, hi] must be finite with lo < hi, got [1, 1]");
}

TEST_CASE("describe without a histogram gives the same summary and tails, and the same checks of x",
          "[api][eq:dot-variance]") {
  std::vector<float> x{1.5f, -2.f, 3.25f, 0.f, 7.f};
  std::vector<std::uint32_t> counts;
  const auto [s, t] = api::describe(counts, {x.data(), x.size()}, 3, -1, 1);
  const auto [s0, t0] = api::describe({x.data(), x.size()});
  CHECK(std::memcmp(&s, &s0, sizeof s) == 0);
  CHECK(std::memcmp(&t, &t0, sizeof t) == 0);
  CHECK(error_of([&] { api::describe({x.data(), 0}); }) == "describe: x must hold at least one value");
  x[2] = std::numeric_limits<float>::infinity();
  CHECK(error_of([&] { api::describe({x.data(), x.size()}); }) == "describe: x[2] is +Infinity: x must be finite");
}

TEST_CASE("describe gives no interval from too few values: the mean's needs 2, the variance's 4",
          "[api][eq:dot-variance]") {
  const std::vector<float> x{1.f, 2.f, 4.f, 8.f};
  for (std::size_t n = 1; n <= 4; ++n) {
    INFO("n " << n);
    const auto [s, t] = api::describe({x.data(), n});
    CHECK(std::isnan(s.mean_lo) == (n < 2));
    CHECK(std::isnan(s.mean_hi) == (n < 2));
    CHECK(std::isnan(s.variance_lo) == (n < 4));
    CHECK(std::isnan(s.variance_hi) == (n < 4));
    CHECK(std::isnan(s.variance_se) == (n < 4));
    if (n >= 2) CHECK((s.mean_lo < s.mean && s.mean < s.mean_hi));
    if (n >= 4) CHECK((s.variance_lo < s.variance && s.variance < s.variance_hi));
  }
}

TEST_CASE("rowSummaries gives each row's mean and interval exactly as describe does, and its median",
          "[api][eq:softmax-saturation]") {
  // rows of odd and even length, with ties and unsorted values: the median is the middle value,
  // or the mean of the middle two
  const std::size_t cols = GENERATE(1, 2, 5, 6, 64);
  const std::size_t rows = 3;
  std::vector<float> x(rows * cols);
  Rng rng(cols);
  for (auto& v : x) v = static_cast<float>(std::round(4 * rng.normal()) / 4);  // quarters: ties
  std::vector<double> out;
  api::row_summaries(out, {x.data(), x.size()}, rows, cols);
  REQUIRE(out.size() == 4 * rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const Vec<const float> row{x.data() + r * cols, cols};
    const auto [s, t] = api::describe(row);
    CHECK(out[r] == s.mean);
    const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    CHECK(same(out[rows + r], s.mean_lo));  // NaN, both, for rows of one value
    CHECK(same(out[2 * rows + r], s.mean_hi));
    std::vector<double> sorted(row.data, row.data + cols);
    std::sort(sorted.begin(), sorted.end());
    const double median = cols % 2 ? sorted[cols / 2] : (sorted[cols / 2 - 1] + sorted[cols / 2]) / 2;
    INFO("cols " << cols << " row " << r);
    CHECK(out[3 * rows + r] == median);
  }
  CHECK(error_of([&] { api::row_summaries(out, {x.data(), x.size()}, rows + 1, cols); }) ==
        "rowSummaries: x has " + std::to_string(x.size()) + " elements, expected rows*cols = " + std::to_string((rows + 1) * cols));
  x[cols] = std::nanf("");
  CHECK(error_of([&] { api::row_summaries(out, {x.data(), x.size()}, rows, cols); }) ==
        "rowSummaries: x[" + std::to_string(cols) + "] (row 1, column 0) is NaN: x must be finite");
}

TEST_CASE("one draw of scores serves every scale: sampleSoftmaxRows is scoreStats of the scores drawn at scale 1",
          "[api][eq:scaling-choices]") {
  const double dk = 16, n = 7, rows = 9;
  std::vector<float> scores;
  api::sample_scores(scores, dk, n, rows, 1, 5);
  for (const double scale : {1.0, 0.25, 1 / 16.0, -0.5}) {
    std::vector<float> drawn[5], given[5];
    api::sample_softmax_rows(drawn, dk, n, rows, scale, 5);
    api::score_stats(given, {scores.data(), scores.size()}, rows, n, scale);
    INFO("scale " << scale);
    for (int s = 0; s < 5; ++s) CHECK(std::memcmp(drawn[s].data(), given[s].data(), drawn[s].size() * sizeof(float)) == 0);
  }
  std::vector<float> out[5];
  CHECK(error_of([&] { api::score_stats(out, {scores.data(), scores.size()}, rows, n + 1, 1); }) ==
        "scoreStats: scores has 63 elements, expected rows*n = 72");
}
