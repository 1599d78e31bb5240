// ONNX backend node tests for Softmax and LogSoftmax (tests/conformance/onnx), at ONNX's own
// criterion |actual − expected| <= atol + rtol·|expected| with each file's tolerance.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <numeric>

#include "attention.hpp"
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

// ONNX Attention (opset 23/24), the 16 tests that need only core scaled dot-product attention:
// 4D Q (B, H, Sq, D), K (B, H, Skv, D), V (B, H, Skv, Dv), an optional bool or float mask that
// broadcasts numpy-style to (B, H, Sq, Skv), is_causal (upper-left), scale, and fully masked rows.
TEST_CASE("the ONNX Attention core node tests pass at their stated tolerance", "[conformance][eq:full-attention]") {
  const std::string name = GENERATE(
      "test_attention_4d", "test_attention_4d_attn_mask", "test_attention_4d_attn_mask_3d",
      "test_attention_4d_attn_mask_3d_causal", "test_attention_4d_attn_mask_4d",
      "test_attention_4d_attn_mask_4d_causal", "test_attention_4d_attn_mask_bool",
      "test_attention_4d_attn_mask_bool_4d", "test_attention_4d_causal", "test_attention_4d_diff_heads_sizes",
      "test_attention_4d_diff_heads_sizes_attn_mask", "test_attention_4d_diff_heads_sizes_causal",
      "test_attention_4d_diff_heads_sizes_scaled", "test_attention_4d_scaled",
      "test_attention_23_boolmask_fullymasked_row_nan_robustness", "test_attention_causal_boolmask_nan_robustness");
  const json t = load("onnx/attention/" + name + ".json");
  auto input = [&](const std::string& n) -> const json* {
    for (const auto& i : t["inputs"]) if (i["name"] == n) return &i;
    return nullptr;
  };
  const json &Q = *input("Q"), &K = *input("K"), &V = *input("V");
  const json* M = input("attn_mask");
  const auto qs = Q["shape"].get<std::vector<std::size_t>>(), ks = K["shape"].get<std::vector<std::size_t>>(),
             vs = V["shape"].get<std::vector<std::size_t>>();
  const std::size_t B = qs[0], H = qs[1], Sq = qs[2], D = qs[3], Skv = ks[2], Dv = vs[3];
  const std::vector<float> q = floats(Q["data"]), k = floats(K["data"]), v = floats(V["data"]);
  const float scale = t["attributes"].contains("scale") ? t["attributes"]["scale"].get<float>() : 1.f / std::sqrt(float(D));
  const bool causal = t["attributes"].value("is_causal", 0) == 1;

  // the mask, broadcast to (B, H, Sq, Skv): right-aligned dimensions, size-1 dimensions repeat
  std::vector<std::size_t> ms;
  std::vector<float> mask_f;
  bool mask_bool = false;
  if (M) {
    ms = (*M)["shape"].get<std::vector<std::size_t>>();
    mask_bool = (*M)["dtype"] == "bool";
    for (const auto& x : (*M)["data"]) mask_f.push_back(mask_bool ? (x.get<bool>() ? 1.f : 0.f) : (x.is_string() ? std::stof(x.get<std::string>()) : x.get<float>()));
  }
  auto mask_at = [&](std::size_t b, std::size_t h, std::size_t i, std::size_t j) {
    const std::size_t full[4] = {b, h, i, j};
    std::size_t idx = 0;
    for (std::size_t d = 0; d < ms.size(); ++d) {
      const std::size_t along = full[4 - ms.size() + d];
      idx = idx * ms[d] + (ms[d] == 1 ? 0 : along);
    }
    return mask_f[idx];
  };

  const std::vector<float> want = floats(t["outputs"][0]["data"]);
  const double rtol = t["tolerance"]["rtol"], atol = t["tolerance"]["atol"];
  std::vector<float> out(Sq * Dv), w(Sq * Skv), bias(Sq * Skv);
  std::vector<std::uint8_t> keep(Sq * Skv);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      Mask mask;
      mask.causal = causal;
      if (M) {
        for (std::size_t i = 0; i < Sq; ++i)
          for (std::size_t j = 0; j < Skv; ++j) {
            if (mask_bool) keep[i * Skv + j] = mask_at(b, h, i, j) != 0;
            else bias[i * Skv + j] = mask_at(b, h, i, j);
          }
        if (mask_bool) mask.keep = {keep.data(), Sq, Skv};
      }
      const std::size_t bh = b * H + h;
      attention_forward(mmat(out, Sq, Dv), mmat(w, Sq, Skv), Mat<const float>{q.data() + bh * Sq * D, Sq, D},
                        Mat<const float>{k.data() + bh * Skv * D, Skv, D}, Mat<const float>{v.data() + bh * Skv * Dv, Skv, Dv},
                        scale, mask, M && !mask_bool ? cmat(bias, Sq, Skv) : Mat<const float>{});
      for (std::size_t i = 0; i < Sq * Dv; ++i) {
        const float e = want[bh * Sq * Dv + i];
        INFO(name << " b " << b << " h " << h << " element " << i << ": got " << out[i] << ", expected " << e);
        REQUIRE(std::abs(out[i] - e) <= atol + rtol * std::abs(e));
      }
    }
}
