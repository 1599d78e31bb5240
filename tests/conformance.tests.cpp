// ONNX backend node tests for Softmax and LogSoftmax (tests/conformance/onnx), at ONNX's own
// criterion |actual − expected| <= atol + rtol·|expected| with each file's tolerance.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <numeric>

#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using nlohmann::json;

namespace {

json load(const std::string& rel) {
  const std::string path = std::string(ATTNLAB_CONFORMANCE_DIR) + "/" + rel;
  std::ifstream f(path);
  if (!f) FAIL("cannot open " << path);
  return json::parse(f);
}

std::vector<float> floats(const json& data) {
  std::vector<float> v;
  for (const auto& x : data) v.push_back(x.is_string() ? std::stof(x.get<std::string>()) : x.get<float>());
  return v;
}

// Softmax over one axis of a row-major tensor: view it as (outer, A, inner), move A last,
// run the row kernel, move it back. Opset < 13 flattens to 2D at `axis` instead.
std::vector<float> run(const json& t) {
  const auto& in = t["inputs"][0];
  std::vector<std::size_t> shape = in["shape"].get<std::vector<std::size_t>>();
  const std::vector<float> x = floats(in["data"]);
  const int opset = t["opset"];
  const int rank = int(shape.size());
  int axis = t["attributes"].value("axis", opset >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  const auto prod = [&](int a, int b) {
    return std::accumulate(shape.begin() + a, shape.begin() + b, std::size_t(1), std::multiplies<>());
  };
  std::size_t outer = prod(0, axis), len = shape[axis], inner = prod(axis + 1, rank);
  if (opset < 13) { len *= inner; inner = 1; }  // flatten [outer, rest] and normalise each row
  std::vector<float> moved(x.size()), y(x.size());
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t a = 0; a < len; ++a)
      for (std::size_t i = 0; i < inner; ++i) moved[(o * inner + i) * len + a] = x[(o * len + a) * inner + i];
  const Mat<const float> xm{moved.data(), outer * inner, len};
  std::vector<float> out(x.size());
  if (t["op"] == "Softmax") softmax_rows(mmat(out, outer * inner, len), xm);
  else log_softmax_rows(mmat(out, outer * inner, len), xm);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t a = 0; a < len; ++a)
      for (std::size_t i = 0; i < inner; ++i) y[(o * len + a) * inner + i] = out[(o * inner + i) * len + a];
  return y;
}

}  // namespace

TEST_CASE("the ONNX Softmax and LogSoftmax node tests pass at their stated tolerance", "[conformance][softmax]") {
  const std::string name = GENERATE(
      "softmax/test_softmax_example", "softmax/test_softmax_large_number", "softmax/test_softmax_axis_0",
      "softmax/test_softmax_axis_1", "softmax/test_softmax_axis_2", "softmax/test_softmax_negative_axis",
      "softmax/test_softmax_default_axis", "logsoftmax/test_logsoftmax_example_1",
      "logsoftmax/test_logsoftmax_large_number", "logsoftmax/test_logsoftmax_axis_0",
      "logsoftmax/test_logsoftmax_axis_1", "logsoftmax/test_logsoftmax_axis_2",
      "logsoftmax/test_logsoftmax_negative_axis", "logsoftmax/test_logsoftmax_default_axis",
      "pytorch-converted/test_Softmax", "pytorch-converted/test_LogSoftmax",
      "pytorch-converted/test_softmax_lastdim", "pytorch-converted/test_softmax_functional_dim3",
      "pytorch-converted/test_log_softmax_lastdim", "pytorch-converted/test_log_softmax_dim3");
  const json t = load("onnx/" + name + ".json");
  const std::vector<float> got = run(t), want = floats(t["outputs"][0]["data"]);
  const double rtol = t["tolerance"]["rtol"], atol = t["tolerance"]["atol"];
  INFO(name << " (rtol " << rtol << ", atol " << atol << ")");
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", expected " << want[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= atol + rtol * std::abs(want[i]));
  }
}
