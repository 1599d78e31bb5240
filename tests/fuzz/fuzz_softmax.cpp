// libFuzzer harness: the softmax family of the checked API (api.hpp): softmax, softmaxNaive,
// logSoftmax, softmaxBackward, softmaxJacobian and rowStats, up to four calls per input.
//   Every call returns or throws ApiError (fuzz_input.hpp: call). When it returns:
//   - the output has rows*cols elements (rows for rowStats, n*n for the Jacobian);
//   - softmax: a row with a finite logit is in [0, 1] and sums to 1 (sum_tolerance), -Infinity
//     gives exactly 0; an all -Infinity row is all NaN (documented) or all 0;
//   - softmaxNaive: the same for rows whose logits all lie in [-60, 60] (nothing overflows or
//     underflows: e^60·2^15 < FLT_MAX, e^-60 > FLT_MIN);
//   - logSoftmax: -Infinity where x is, otherwise finite, <= 0, and Σ exp(y) = 1 per row;
//   - softmaxBackward, the Jacobian and rowStats are finite; J is symmetric; max is the row max.
// Run: bash tools/fuzz.sh 60 softmax
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"

using namespace attnlab;
using fuzz::str;

namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// Rows of y (rows, cols) from logits x: the checks of the header for softmax and softmaxNaive.
void check_probabilities(const std::vector<float>& y, const std::vector<float>& x, std::size_t rows,
                         std::size_t cols, bool naive) {
  for (std::size_t i = 0; i < rows; ++i) {
    const float* xi = x.data() + i * cols;
    const float* yi = y.data() + i * cols;
    bool any_finite = false, in_range = true;
    for (std::size_t j = 0; j < cols; ++j) {
      any_finite |= std::isfinite(xi[j]);
      in_range &= xi[j] >= -60 && xi[j] <= 60;
    }
    const std::string where = "row " + str(double(i)) + " of " + str(double(rows)) + "x" + str(double(cols));
    if (!any_finite) {  // all -Infinity
      if (naive) continue;
      bool all_nan = true, all_zero = true;
      for (std::size_t j = 0; j < cols; ++j) {
        all_nan &= std::isnan(yi[j]);
        all_zero &= yi[j] == 0;
      }
      FUZZ_CHECK(all_nan || all_zero, "softmax of an all -Infinity " + where + " is neither all NaN nor all 0");
      continue;
    }
    if (naive && !in_range) continue;
    double sum = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      FUZZ_CHECK(yi[j] >= 0 && yi[j] <= 1, "p[" + str(double(j)) + "] = " + str(yi[j]) + " in " + where);
      if (xi[j] == kMinusInf) FUZZ_CHECK(yi[j] == 0, "a -Infinity logit has weight " + str(yi[j]) + " in " + where);
      sum += yi[j];
    }
    FUZZ_CHECK(std::abs(sum - 1) <= fuzz::sum_tolerance(cols), "the weights sum to " + str(sum) + " in " + where);
  }
}

void check_log_probabilities(const std::vector<float>& y, const std::vector<float>& x, std::size_t rows,
                             std::size_t cols) {
  for (std::size_t i = 0; i < rows; ++i) {
    const float* xi = x.data() + i * cols;
    const float* yi = y.data() + i * cols;
    bool any_finite = false;
    for (std::size_t j = 0; j < cols; ++j) any_finite |= std::isfinite(xi[j]);
    if (!any_finite) continue;  // all -Infinity: NaN, documented
    const std::string where = "row " + str(double(i)) + " of " + str(double(rows)) + "x" + str(double(cols));
    double sum = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      if (xi[j] == kMinusInf) {
        FUZZ_CHECK(yi[j] == kMinusInf, "log p of a -Infinity logit is " + str(yi[j]) + " in " + where);
        continue;
      }
      FUZZ_CHECK(std::isfinite(yi[j]) && yi[j] <= 1e-6f, "log p[" + str(double(j)) + "] = " + str(yi[j]) + " in " + where);
      sum += std::exp(double(yi[j]));
    }
    FUZZ_CHECK(std::abs(sum - 1) <= fuzz::sum_tolerance(cols), "exp(log p) sums to " + str(sum) + " in " + where);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  static std::vector<float> out, out2;  // reused from call to call, as the bindings do
  for (int call = 0; call < 4 && (call == 0 || !in.empty()); ++call) {
    const std::uint8_t op = in.byte() % 6;
    const double rows = in.size(), cols = in.size();
    const bool ok_shape = std::isfinite(rows * cols);
    switch (op) {
      case 0: case 1: case 2: {  // softmax, softmaxNaive, logSoftmax
        const auto kind = static_cast<api::SoftmaxKind>(op);
        const char* fn = op == 2 ? "logSoftmax" : op == 1 ? "softmaxNaive" : "softmax";
        const std::vector<float> x = in.floats(ok_shape ? rows * cols : -1);
        if (!fuzz::call(fn, [&] { api::softmax(out, {x.data(), x.size()}, rows, cols, kind); })) break;
        FUZZ_CHECK(out.size() == x.size() && double(x.size()) == rows * cols,
                   std::string(fn) + " returned " + str(double(out.size())) + " values for rows*cols = " + str(rows * cols));
        const auto r = std::size_t(rows), c = std::size_t(cols);
        if (kind == api::SoftmaxKind::log) check_log_probabilities(out, x, r, c);
        else check_probabilities(out, x, r, c, kind == api::SoftmaxKind::naive);
        break;
      }
      case 3: {  // softmaxBackward
        const std::vector<float> p = in.floats(ok_shape ? rows * cols : -1);
        const std::vector<float> dp = in.floats(ok_shape ? rows * cols : -1);
        if (!fuzz::call("softmaxBackward", [&] {
              api::softmax_backward(out, {p.data(), p.size()}, {dp.data(), dp.size()}, rows, cols);
            }))
          break;
        FUZZ_CHECK(out.size() == p.size() && double(p.size()) == rows * cols, "softmaxBackward length " + str(double(out.size())));
        FUZZ_CHECK(fuzz::all_finite(out), "softmaxBackward returned a non-finite value");
        break;
      }
      case 4: {  // softmaxJacobian: n is p's length
        const std::vector<float> p = in.floats(in.flag() ? in.size() : in.byte() % 70);
        if (!fuzz::call("softmaxJacobian", [&] { api::softmax_jacobian(out, {p.data(), p.size()}); })) break;
        const std::size_t n = p.size();
        FUZZ_CHECK(out.size() == n * n, "softmaxJacobian length " + str(double(out.size())) + " for n = " + str(double(n)));
        FUZZ_CHECK(fuzz::all_finite(out), "softmaxJacobian returned a non-finite value");
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < i; ++j)
            FUZZ_CHECK(out[i * n + j] == out[j * n + i], "J is not symmetric at (" + str(double(i)) + ", " + str(double(j)) + ")");
        break;
      }
      case 5: {  // rowStats
        const std::vector<float> p = in.floats(ok_shape ? rows * cols : -1);
        if (!fuzz::call("rowStats", [&] { api::row_stats(out, out2, {p.data(), p.size()}, rows, cols); })) break;
        const auto r = std::size_t(rows), c = std::size_t(cols);
        FUZZ_CHECK(out.size() == r && out2.size() == r && p.size() == r * c, "rowStats length " + str(double(out.size())));
        FUZZ_CHECK(fuzz::all_finite(out2), "rowStats returned a non-finite entropy");
        for (std::size_t i = 0; i < r; ++i) {
          float m = p[i * c];
          for (std::size_t j = 1; j < c; ++j) m = std::max(m, p[i * c + j]);
          FUZZ_CHECK(out[i] == m, "rowStats max of row " + str(double(i)) + " is " + str(out[i]) + ", not " + str(m));
        }
        break;
      }
    }
  }
  // The API stays usable after any error: a small valid call succeeds.
  const float x[3] = {1, 2, 3};
  api::softmax(out, {x, 3}, 1, 3);
  FUZZ_CHECK(out.size() == 3 && std::abs(out[0] + out[1] + out[2] - 1) < 1e-6f, "softmax after the input");
  return 0;
}
