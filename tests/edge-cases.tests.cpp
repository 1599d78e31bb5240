// The edge cases of tests/conformance/edge_cases.json (vendored from shared/conformance/edge-cases)
// through the C++ API where they apply: the checked entry points of api.hpp, and for the one
// float64 case the double `_ref` kernels. The JavaScript and web scenarios are tested through
// the JS API (tests/js/edge-cases.test.js); docs/RELIABILITY.md has one row per case.
//
// Comparison, as the file's README says: |a − e| <= atol + rtol·|e| with rtol 1e-5, atol 1e-6
// (float32 results), NaN equal to NaN, infinities only to themselves.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>

#include "api.hpp"
#include "attention.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;
using nlohmann::json;

namespace {

const json& cases() {
  static const json file = [] {
    const std::string path = std::string(ATTNLAB_CONFORMANCE_DIR) + "/edge_cases.json";
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot open " + path);
    return json::parse(f);
  }();
  return file["cases"];
}

const json& edge(const std::string& id) {
  for (const auto& c : cases())
    if (c["id"] == id) return c;
  throw std::runtime_error("no edge case " + id);
}

// "NaN", "Infinity", "-Infinity" are strings; nested matrices flatten row-major.
void flatten(const json& j, std::vector<double>& out) {
  if (j.is_array()) for (const auto& x : j) flatten(x, out);
  else if (j.is_string()) out.push_back(std::stod(j.get<std::string>()));
  else out.push_back(j.get<double>());
}
std::vector<double> values(const json& j) {
  std::vector<double> v;
  flatten(j, v);
  return v;
}
std::vector<float> floats(const json& j) {
  const auto v = values(j);
  return {v.begin(), v.end()};
}
std::vector<std::uint8_t> bools(const json& j) {
  std::vector<std::uint8_t> v;
  for (const auto& row : j)
    for (const auto& b : row) v.push_back(b.get<bool>() ? 1 : 0);
  return v;
}

template <class T>
void check_close(const std::vector<T>& got, const json& expected, const std::string& what, double rtol = 1e-5,
                 double atol = 1e-6) {
  const auto want = values(expected);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double a = got[i], e = want[i];
    INFO(what << "[" << i << "] = " << a << ", expected " << e);
    if (std::isnan(e)) CHECK(std::isnan(a));
    else if (std::isinf(e)) CHECK(a == e);
    else CHECK(std::abs(a - e) <= atol + rtol * std::abs(e));
  }
}

// The ApiError a call throws, as "CODE: message".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const api::ApiError& e) {
    return e.code + ": " + e.what();
  }
  return "(no error)";
}

Vec<const float> cvec(const std::vector<float>& v) { return {v.data(), v.size()}; }

// An sdpa case's single-head matrices as AttentionArgs (pointing into `store`).
struct Sdpa {
  std::vector<float> q, k, v, bias;
  std::vector<std::uint8_t> mask;
  api::AttentionArgs args;
  explicit Sdpa(const json& c) : q(floats(c["input"]["Q"])), k(floats(c["input"]["K"])), v(floats(c["input"]["V"])) {
    const json& in = c["input"];
    args.q = cvec(q);
    args.k = cvec(k);
    args.v = cvec(v);
    args.nq = double(in["Q"].size());
    args.nk = double(in["K"].size());
    args.dk = double(in["Q"][0].size());
    args.dv = double(in["V"][0].size());
    if (in.contains("scale") && !in["scale"].is_null()) {
      args.has_scale = true;
      args.scale = in["scale"].get<double>();
    }
    if (in.contains("mask_bool_true_means_attend")) set_mask(bools(in["mask_bool_true_means_attend"]));
  }
  void set_mask(std::vector<std::uint8_t> m) {
    mask = std::move(m);
    args.mask = {mask.data(), mask.size()};
    args.has_mask = true;
  }
  void set_bias(std::vector<float> b) {
    bias = std::move(b);
    args.bias = cvec(bias);
    args.has_bias = true;
  }
};

const std::vector<std::string> kSoftmaxValues{
    "softmax_logit_1000_vs_0", "softmax_logit_minus1000_vs_0", "softmax_89_vs_0_float32_overflow_edge",
    "softmax_onnx_large_number_row", "softmax_all_equal", "softmax_single_element", "softmax_fltmax_vs_minus_fltmax",
    "softmax_fltmax_twice", "softmax_tiny_subnormal_inputs", "softmax_minus_inf_is_mask"};

}  // namespace

TEST_CASE("the edge-case file holds 59 cases, each tested here or through the JS API", "[edge-cases]") {
  // Tested through the JavaScript API only (tests/js/edge-cases.test.js): they are about JS values,
  // the Embind boundary or the page.
  const std::set<std::string> js_only{
      "js_string_number", "js_missing_argument", "js_fractional_or_negative_size", "js_wrong_array_type",
      "js_detached_heap_view", "js_use_after_delete", "js_long_session", "cpp_exception_crossing_boundary",
      "web_foreign_origin_message", "web_oversized_message", "web_sandbox_no_same_origin",
      "web_csp_without_wasm_unsafe_eval", "web_csp_without_unsafe_eval_embind"};
  std::set<std::string> here(kSoftmaxValues.begin(), kSoftmaxValues.end());
  for (const char* id :
       {"softmax_all_minus_inf", "softmax_plus_inf", "softmax_two_plus_inf", "softmax_nan_input",
        "softmax_nan_and_minus_inf", "softmax_float64_1e308", "softmax_empty_axis", "softmax_zero_rows",
        "logsoftmax_1000_vs_0", "logsoftmax_minus_inf", "logsoftmax_onnx_large_number", "logsoftmax_all_minus_inf",
        "softmax_backward_basic", "softmax_backward_saturated", "softmax_backward_masked", "sdpa_basic_3x4_d4",
        "sdpa_fully_masked_row", "sdpa_nan_in_masked_key", "sdpa_inf_value_at_masked_key", "sdpa_head_dim_zero",
        "sdpa_score_overflow_float32", "sdpa_float_mask_contains_nan", "sdpa_fully_masked_row_finite_minus_1e9",
        "sdpa_fully_masked_row_finite_minus_fltmax", "sdpa_scale_zero_uniform", "sdpa_qk_dim_mismatch",
        "sdpa_kv_len_mismatch", "sdpa_mask_not_broadcastable", "sdpa_data_length_vs_shape",
        "sdpa_gqa_heads_not_divisible", "sdpa_causal_alignment_sq_ne_skv", "sdpa_causal_negative_offset",
        "sdpa_backward_with_fully_masked_row", "dot_product_statistics_normal", "size_scores_matrix_too_large",
        "size_t_overflow_wasm32"})
    here.insert(id);
  std::set<std::string> all;
  for (const auto& c : cases()) all.insert(c["id"].get<std::string>());
  CHECK(cases().size() == 59);
  CHECK(all.size() == 59);
  std::set<std::string> covered = here;
  covered.insert(js_only.begin(), js_only.end());
  CHECK(covered == all);
  CHECK(here.size() + js_only.size() == 59);
}

TEST_CASE("softmax gives the recommended value on every finite or -inf edge case, and the naive one its wrong one",
          "[edge-cases][eq:shift-vs-scale]") {
  const std::string id = GENERATE_REF(from_range(kSoftmaxValues));
  const json& c = edge(id);
  const auto x = floats(c["input"]["data"]);
  std::vector<float> y;
  INFO(id);
  api::softmax(y, cvec(x), 1, double(x.size()));
  check_close(y, c["recommended"]["data"], "softmax");
  api::softmax(y, cvec(x), 1, double(x.size()), api::SoftmaxKind::naive);
  check_close(y, c["naive_no_max_subtraction"], "softmaxNaive");
}

TEST_CASE("an all -inf row is NaN in softmax and a zero row with zero gradients in attention",
          "[edge-cases][eq:full-attention]") {
  const json& c = edge("softmax_all_minus_inf");
  const auto x = floats(c["input"]["data"]);
  std::vector<float> y;
  api::softmax(y, cvec(x), 1, 3);
  check_close(y, c["ieee_stable"], "softmax");

  // The same row in attention, from a bias of -inf throughout row 1 (or a mask of zeros).
  const std::vector<float> q{1, 2, 3, 4}, k{1, 0, 0, 1, 1, 1}, v{1, 2, 3}, bias{0, 0, 0, -INFINITY, -INFINITY, -INFINITY},
      dout{1, 1};
  const std::vector<std::uint8_t> mask{1, 1, 1, 0, 0, 0};
  api::AttentionArgs a;
  a.q = cvec(q); a.k = cvec(k); a.v = cvec(v);
  a.nq = 2; a.nk = 3; a.dk = 2; a.dv = 1;
  SECTION("a bias of -inf masks by selection") {
    a.bias = cvec(bias);
    a.has_bias = true;
  }
  SECTION("a boolean mask") {
    a.mask = {mask.data(), mask.size()};
    a.has_mask = true;
  }
  std::vector<float> out, w, dq, dk, dv;
  api::attention(out, w, a);
  check_close(std::vector<float>(w.begin() + 3, w.end()), c["guarded_all_masked_zero"], "weights row 1");
  CHECK(out[1] == 0);
  api::attention_backward(dq, dk, dv, a, cvec(dout));
  CHECK(dq[2] == 0);
  CHECK(dq[3] == 0);
}

TEST_CASE("every softmax refuses a +inf or NaN logit as BAD_VALUE naming the first one", "[edge-cases]") {
  const auto [id, says] = GENERATE(table<std::string, std::string>({
      {"softmax_plus_inf", "x[0] is +Infinity"},
      {"softmax_two_plus_inf", "x[0] is +Infinity"},
      {"softmax_nan_input", "x[0] is NaN"},
      {"softmax_nan_and_minus_inf", "x[0] is NaN"}}));
  const auto kind = GENERATE(api::SoftmaxKind::stable, api::SoftmaxKind::naive, api::SoftmaxKind::log);
  const auto x = floats(edge(id)["input"]["data"]);
  std::vector<float> y;
  INFO(id);
  const std::string err = error_of([&] { api::softmax(y, cvec(x), 1, double(x.size()), kind); });
  CHECK_THAT(err, Catch::StartsWith("BAD_VALUE: "));
  CHECK_THAT(err, Catch::Contains(says) && Catch::Contains("a logit must be finite or -Infinity"));
  // the others are refused before their output is allocated; the stable softmax checks its logits
  // in its own max pass (softmax_rows_checked), so its output exists by then, for the next call
  if (kind != api::SoftmaxKind::stable) CHECK(y.capacity() == 0);
  // with more than one row the message also says where
  const std::vector<float> two_rows{0, 1, 2, NAN};
  CHECK_THAT(error_of([&] { api::softmax(y, cvec(two_rows), 2, 2, kind); }),
             Catch::Contains("x[3] (row 1, column 1) is NaN"));
}

TEST_CASE("float64 logits of ±1e308 give exactly [1, 0] in the double reference kernel", "[edge-cases]") {
  const json& c = edge("softmax_float64_1e308");
  const auto x = values(c["input"]["data"]);
  std::vector<double> y(2);
  softmax_rows_ref(mmat(y, 1, 2), cmat(x, 1, 2));
  check_close(y, c["recommended"]["data"], "softmax_rows_ref<double>", 0, 0);
  // The float32 API cannot hold them: as floats they are ±inf, and +inf is refused.
  const std::vector<float> xf{float(x[0]), float(x[1])};
  std::vector<float> yf;
  CHECK_THAT(error_of([&] { api::softmax(yf, cvec(xf), 1, 2); }), Catch::Contains("x[0] is +Infinity"));
}

TEST_CASE("an empty softmax axis and zero rows are refused as BAD_SIZE before anything is allocated", "[edge-cases]") {
  std::vector<float> y;
  CHECK(error_of([&] { api::softmax(y, {}, 1, 0); }) == "BAD_SIZE: softmax: cols must be at least 1, got 0");
  CHECK(error_of([&] { api::softmax(y, {}, 0, 4); }) == "BAD_SIZE: softmax: rows must be at least 1, got 0");
  CHECK(y.capacity() == 0);
}

TEST_CASE("logSoftmax gives the IEEE stable value on its edge cases", "[edge-cases]") {
  const std::string id = GENERATE(as<std::string>{}, "logsoftmax_1000_vs_0", "logsoftmax_minus_inf", "logsoftmax_all_minus_inf");
  const json& c = edge(id);
  const auto x = floats(c["input"]["data"]);
  std::vector<float> y;
  INFO(id);
  api::softmax(y, cvec(x), 1, double(x.size()), api::SoftmaxKind::log);
  check_close(y, c["ieee_stable"], "logSoftmax");
}

// The kernels compute (x − m) − log s: x − m is exact near the max. (x − (m + log s) rounded
// m + log s to the ulp of 10003, 2⁻¹⁰, and missed by 2.4e-4.)
TEST_CASE("logSoftmax of [10000, 10001, 10002, 10003] is within rtol 1e-5 of the IEEE stable value",
          "[edge-cases]") {
  const json& c = edge("logsoftmax_onnx_large_number");
  const auto x = floats(c["input"]["data"]);
  std::vector<float> y;
  api::softmax(y, cvec(x), 1, 4, api::SoftmaxKind::log);
  check_close(y, c["ieee_stable"], "logSoftmax");
}

TEST_CASE("softmaxBackward of a saturated or masked softmax gives exactly zero gradient where p = 0",
          "[edge-cases][eq:vanishing-gradients]") {
  const std::string id = GENERATE(as<std::string>{}, "softmax_backward_basic", "softmax_backward_saturated", "softmax_backward_masked");
  const json& c = edge(id);
  const auto x = floats(c["input"]["x"]), dy = floats(c["input"]["dy"]);
  std::vector<float> y, dx;
  INFO(id);
  api::softmax(y, cvec(x), 1, double(x.size()));
  check_close(y, c["y"], "y");
  api::softmax_backward(dx, cvec(y), cvec(dy), 1, double(x.size()));
  check_close(dx, c["dx"], "dx");
  const auto want = values(c["dx"]);
  for (std::size_t j = 0; j < want.size(); ++j)
    if (want[j] == 0) CHECK(dx[j] == 0);
}

TEST_CASE("attention gives the float64 results of the sdpa edge cases", "[edge-cases][eq:full-attention]") {
  std::vector<float> out, w;
  SECTION("sdpa_basic_3x4_d4: default scale 1/√d") {
    const json& c = edge("sdpa_basic_3x4_d4");
    Sdpa s(c);
    api::attention(out, w, s.args);
    check_close(out, c["expected"]["Y"], "Y");
    check_close(w, c["expected"]["P"], "P");
    // and the same composition in double, through the _ref kernels, to 1e-12
    std::vector<double> qd = values(c["input"]["Q"]), kd = values(c["input"]["K"]), vd = values(c["input"]["V"]);
    std::vector<double> od(6), wd(12);
    attention_forward<double>(mmat(od, 3, 2), mmat(wd, 3, 4), cmat(qd, 3, 4), cmat(kd, 4, 4), cmat(vd, 4, 2), 0.5);
    check_close(od, c["expected"]["Y"], "Y in double", 1e-12, 0);
    check_close(wd, c["expected"]["P"], "P in double", 1e-12, 0);
  }
  SECTION("sdpa_scale_zero_uniform: scale 0 gives uniform weights") {
    const json& c = edge("sdpa_scale_zero_uniform");
    Sdpa s(c);
    REQUIRE(s.args.has_scale);
    api::attention(out, w, s.args);
    check_close(out, c["expected"]["Y"], "Y");
    check_close(w, c["expected"]["P"], "P");
  }
  SECTION("sdpa_fully_masked_row: the guarded result, a zero row") {
    const json& c = edge("sdpa_fully_masked_row");
    Sdpa s(c);
    api::attention(out, w, s.args);
    check_close(out, c["guarded"]["Y"], "Y");
    check_close(w, c["guarded"]["P"], "P");
    for (std::size_t j = 4; j < 8; ++j) CHECK(w[j] == 0);
  }
  SECTION("sdpa_fully_masked_row_finite_minus_1e9 and _fltmax: a finite bias does not mask, row 1 is uniform") {
    const std::string id = GENERATE(as<std::string>{}, "sdpa_fully_masked_row_finite_minus_1e9", "sdpa_fully_masked_row_finite_minus_fltmax");
    const json& c = edge(id);
    Sdpa s(c);
    std::vector<float> bias(12, 0.f);
    std::fill(bias.begin() + 4, bias.begin() + 8, c["input"]["float_mask_row1_value"].get<float>());
    s.set_bias(bias);
    INFO(id);
    api::attention(out, w, s.args);
    check_close(std::vector<float>(w.begin() + 4, w.begin() + 8), c["float32_result"]["P_row1"], "P row 1");
    check_close(std::vector<float>(out.begin() + 2, out.begin() + 4), c["float32_result"]["Y_row1"], "Y row 1");
  }
}

TEST_CASE("attentionBackward gives dQ, dK, dV with a fully masked row, and exactly zero dQ for that row",
          "[edge-cases][eq:full-attention]") {
  const json& c = edge("sdpa_backward_with_fully_masked_row");
  Sdpa s(c);
  const auto dy = floats(c["input"]["dY"]);
  std::vector<float> out, w, dq, dk, dv;
  api::attention(out, w, s.args);
  check_close(out, c["expected"]["Y"], "Y");
  check_close(w, c["expected"]["P"], "P");
  api::attention_backward(dq, dk, dv, s.args, cvec(dy));
  check_close(dq, c["expected"]["dQ"], "dQ");
  check_close(dk, c["expected"]["dK"], "dK");
  check_close(dv, c["expected"]["dV"], "dV");
  for (std::size_t j = 4; j < 8; ++j) CHECK(dq[j] == 0);
}

TEST_CASE("attention refuses non-finite q, k, v and bias values and overflowing scores as BAD_VALUE, naming them",
          "[edge-cases][eq:full-attention]") {
  std::vector<float> out, w, dq, dk, dv;
  std::string err;
  SECTION("sdpa_nan_in_masked_key: a NaN in k, even at a masked key (the strict policy)") {
    Sdpa s(edge("sdpa_nan_in_masked_key"));
    err = error_of([&] { api::attention(out, w, s.args); });
    CHECK(err == "BAD_VALUE: attention: k[12] (row 3, column 0) is NaN: q, k and v must be finite");
  }
  SECTION("sdpa_inf_value_at_masked_key: +inf in v") {
    Sdpa s(edge("sdpa_inf_value_at_masked_key"));
    err = error_of([&] { api::attention(out, w, s.args); });
    CHECK(err == "BAD_VALUE: attention: v[6] (row 3, column 0) is +Infinity: q, k and v must be finite");
  }
  SECTION("sdpa_float_mask_contains_nan: a NaN in the bias") {
    const json& c = edge("sdpa_float_mask_contains_nan");
    Sdpa s(c);
    s.set_bias(floats(c["input"]["float_mask"]));
    err = error_of([&] { api::attention(out, w, s.args); });
    CHECK(err == "BAD_VALUE: attention: bias[1] (row 0, column 1) is NaN: a bias must be finite or -Infinity (which masks the key)");
  }
  SECTION("sdpa_score_overflow_float32: q·k = 2e40 overflows float32") {
    Sdpa s(edge("sdpa_score_overflow_float32"));
    err = error_of([&] { api::attention(out, w, s.args); });
    CHECK(err == "BAD_VALUE: attention: the scores overflowed float32 in row 0: |q.k| or |scale*q.k| > 3.4e38; use a smaller q, k or scale");
    const std::vector<float> dy{1};
    CHECK_THAT(error_of([&] { api::attention_backward(dq, dk, dv, s.args, cvec(dy)); }),
               Catch::StartsWith("BAD_VALUE: attentionBackward: the scores overflowed float32 in row 0"));
  }
  SECTION("a score that overflows at a key masked by a -inf bias is selected away, not added") {
    Sdpa s(edge("sdpa_score_overflow_float32"));
    s.set_bias({-INFINITY, 0});
    api::attention(out, w, s.args);
    CHECK(w == std::vector<float>{0, 1});
    CHECK(out == std::vector<float>{2});
  }
  SECTION("gradients that overflow float32") {
    Sdpa s(edge("sdpa_basic_3x4_d4"));
    const std::vector<float> dy(6, 3e38f);
    s.v.assign(8, 3e38f);
    s.args.v = cvec(s.v);
    CHECK_THAT(error_of([&] { api::attention_backward(dq, dk, dv, s.args, cvec(dy)); }),
               Catch::StartsWith("BAD_VALUE: attentionBackward: grad") && Catch::Contains("overflowed float32"));
  }
}

TEST_CASE("attention refuses sizes and lengths that do not fit as BAD_SIZE or SHAPE_MISMATCH", "[edge-cases]") {
  const auto [what, nq, nk, dk, dv, lq, lk, lv, lmask, says] =
      GENERATE(table<std::string, double, double, double, double, std::size_t, std::size_t, std::size_t, std::size_t, std::string>({
          {"sdpa_head_dim_zero", 2, 3, 0, 2, 0, 0, 6, 0, "BAD_SIZE: attention: dk must be at least 1, got 0"},
          {"sdpa_qk_dim_mismatch", 3, 5, 4, 2, 12, 15, 10, 0, "SHAPE_MISMATCH: attention: k has 15 elements, expected nk*dk = 20"},
          {"sdpa_kv_len_mismatch", 3, 5, 4, 2, 12, 20, 12, 0, "SHAPE_MISMATCH: attention: v has 12 elements, expected nk*dv = 10"},
          {"sdpa_mask_not_broadcastable", 3, 5, 4, 2, 12, 20, 10, 10, "SHAPE_MISMATCH: attention: mask has 10 elements, expected nq*nk = 15"},
          {"sdpa_data_length_vs_shape", 3, 5, 4, 2, 11, 20, 10, 0, "SHAPE_MISMATCH: attention: q has 11 elements, expected nq*dk = 12"},
          {"sdpa_gqa_heads_not_divisible (one head only)", 3, 5, 4, 4, 72, 80, 80, 0, "SHAPE_MISMATCH: attention: q has 72 elements, expected nq*dk = 12"}}));
  const std::vector<float> q(lq), k(lk), v(lv);
  const std::vector<std::uint8_t> mask(lmask);
  api::AttentionArgs a;
  a.q = cvec(q); a.k = cvec(k); a.v = cvec(v);
  a.nq = nq; a.nk = nk; a.dk = dk; a.dv = dv;
  if (lmask) {
    a.mask = {mask.data(), mask.size()};
    a.has_mask = true;
  }
  std::vector<float> out, w;
  INFO(what);
  CHECK(error_of([&] { api::attention(out, w, a); }) == says);
  CHECK(out.capacity() == 0);
  CHECK(w.capacity() == 0);
}

TEST_CASE("causal is upper-left, and lower-right is an explicit mask whose keyless rows are zero rows",
          "[edge-cases][eq:full-attention]") {
  std::vector<float> out, w;
  SECTION("sdpa_causal_alignment_sq_ne_skv: 3 queries, 5 keys") {
    const json& c = edge("sdpa_causal_alignment_sq_ne_skv");
    const std::vector<float> q(12, 0.5f), k = normals(20, 3), v(10, 1.f);
    api::AttentionArgs a;
    a.q = cvec(q); a.k = cvec(k); a.v = cvec(v);
    a.nq = 3; a.nk = 5; a.dk = 4; a.dv = 2;
    a.causal = true;
    api::attention(out, w, a);
    const auto upper_left = bools(c["upper_left_mask"]);
    for (std::size_t t = 0; t < 15; ++t) CHECK((w[t] > 0) == (upper_left[t] != 0));
  }
  SECTION("sdpa_causal_negative_offset: 4 queries, 2 keys, lower-right") {
    const json& c = edge("sdpa_causal_negative_offset");
    const std::vector<float> q = normals(32, 4), k = normals(16, 5), v{1, 2, 3, 4, 5, 6};
    const auto lower_right = bools(c["lower_right_mask"]);
    api::AttentionArgs a;
    a.q = cvec(q); a.k = cvec(k); a.v = cvec(v);
    a.nq = 4; a.nk = 2; a.dk = 8; a.dv = 3;
    a.mask = {lower_right.data(), lower_right.size()};
    a.has_mask = true;
    api::attention(out, w, a);
    for (std::size_t j = 0; j < 6; ++j) CHECK(out[j] == 0);  // rows 0 and 1: no key
    for (std::size_t j = 0; j < 4; ++j) CHECK(w[j] == 0);
    CHECK(w[4] == 1);
  }
}

TEST_CASE("q·k/√d of N(0, 1) vectors passes the case's test rule at d = 1, 16, 64, 512", "[edge-cases][eq:dot-variance]") {
  // |mean|·√n < 5 and |var − 1| / √((2 + 6/d)/n) < 5 (false-alarm rate ~1e-6 per check), fixed seed.
  const double d = GENERATE(1, 16, 64, 512);
  const double n = 20000;
  std::vector<float> dots;
  api::sample_dot_products(dots, d, n, 7, Distribution{});
  for (float& x : dots) x = static_cast<float>(x / std::sqrt(d));
  const Summary s = summarize(moments_of(Vec<const float>{dots.data(), dots.size()}));
  INFO("d = " << d << ": mean " << s.mean << ", variance " << s.variance);
  CHECK(std::abs(s.mean) * std::sqrt(n) < 5);
  CHECK(std::abs(s.variance - 1) / std::sqrt((2 + 6 / d) / n) < 5);
}

TEST_CASE("sizes beyond the limits are SIZE_LIMIT before any allocation, and products cannot wrap", "[edge-cases]") {
  std::vector<float> out, w, dq, dk, dv;
  api::AttentionArgs a;
  SECTION("size_scores_matrix_too_large: L = S = 100000, d = 64") {
    a.nq = 100000; a.nk = 100000; a.dk = 64; a.dv = 64;
    CHECK(error_of([&] { api::attention(out, w, a); }) == "SIZE_LIMIT: attention: nq = 100000 exceeds the limit of 65536");
    CHECK(error_of([&] { api::scores(out, {}, {}, 100000, 100000, 64, 1); }) == "SIZE_LIMIT: scores: nq = 100000 exceeds the limit of 65536");
  }
  SECTION("size_t_overflow_wasm32: L = S = 65536, d = 1 needs 2^32 scores, 0 in a 32-bit size_t") {
    a.nq = 65536; a.nk = 65536; a.dk = 1; a.dv = 1;
    CHECK(error_of([&] { api::attention(out, w, a); }) ==
          "SIZE_LIMIT: attention: nq*nk = 4294967296 exceeds the limit of 16777216 elements");
    CHECK(error_of([&] { api::attention_backward(dq, dk, dv, a, {}); }) ==
          "SIZE_LIMIT: attentionBackward: nq*nk = 4294967296 exceeds the limit of 16777216 elements");
    const std::vector<float> column(65536);
    CHECK(error_of([&] { api::scores(out, cvec(column), cvec(column), 65536, 65536, 1, 1); }) ==
          "SIZE_LIMIT: scores: nq*nk = 4294967296 exceeds the limit of 16777216 elements");
    CHECK(error_of([&] { api::matmul(out, cvec(column), cvec(column), 65536, 1, 65536); }) ==
          "SIZE_LIMIT: matmul: m*n = 4294967296 exceeds the limit of 16777216 elements");
    CHECK(error_of([&] { api::softmax_jacobian(out, cvec(column)); }) ==
          "SIZE_LIMIT: softmaxJacobian: n*n = 4294967296 exceeds the limit of 16777216 elements");
    CHECK(error_of([&] { api::softmax(out, {}, 65536, 65536); }) ==
          "SIZE_LIMIT: softmax: rows*cols = 4294967296 exceeds the limit of 16777216 elements");
  }
  SECTION("the largest sizes: 2^24 · 2^24 = 2^48, also 0 in a 32-bit size_t") {
    CHECK(error_of([&] { api::softmax(out, {}, 16777216, 16777216); }) ==
          "SIZE_LIMIT: softmax: rows*cols = 281474976710656 exceeds the limit of 16777216 elements");
    CHECK(error_of([&] { api::row_stats(out, w, {}, 16777216, 16777216); }) ==
          "SIZE_LIMIT: rowStats: rows*cols = 281474976710656 exceeds the limit of 16777216 elements");
    std::vector<float> stats[5];
    CHECK(error_of([&] { api::sample_softmax_rows(stats, 1, 65536, 65536, 1, 1); }) ==
          "SIZE_LIMIT: sampleSoftmaxRows: rows*n = 4294967296 exceeds the limit of 16777216 elements");
    CHECK(error_of([&] { api::sample_scores(out, 1, 65536, 65536, 1, 1); }) ==
          "SIZE_LIMIT: sampleScores: rows*n = 4294967296 exceeds the limit of 16777216 elements");
    CHECK(stats[0].capacity() == 0);
  }
  CHECK(out.capacity() == 0);
  CHECK(w.capacity() == 0);
  CHECK(dq.capacity() == 0);
}
