// attnlab_cli: one JSON request on stdin → one JSON result on stdout, through the same checked
// API the wasm bindings use. The JS tests send identical requests here and to the wasm module.
//   echo '{"op":"softmax","x":[1,2,3],"rows":1,"cols":3}' | attnlab_cli
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>

#include "api.hpp"
#include "kernels.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

std::vector<float> floats(const json& j, const char* key) {
  return j.contains(key) ? j[key].get<std::vector<float>>() : std::vector<float>{};
}

Distribution dist(const json& r, const char* fn) {
  const std::string name = r.value("distribution", "normal");
  const double kind = name == "normal" ? 0 : name == "uniform" ? 1 : name == "rademacher" ? 2 : name == "student-t" ? 3 : -1;
  return api::distribution(fn, kind, r.value("mean", 0.0), r.value("std", 1.0), r.value("df", 5.0));
}

// The native reference figures of bench/native.mjs: the checked API timed in C++, inputs of
// N(0, 1) entries, outputs reused (no copies); the median of `rounds` calls after one warm-up.
//   {"op":"benchAttention","n":512,"d":64,"rounds":15} → {"ms", "arch"}   (n_q = n_k = n, d_k = d_v = d)
//   {"op":"benchSoftmax","rows":1024,"cols":1024,"rounds":15} → {"ms", "arch"}
json bench(const json& r) {
  const bool attention = r.at("op") == "benchAttention";
  const std::size_t n = attention ? r.at("n").get<std::size_t>() : r.at("rows").get<std::size_t>();
  const std::size_t d = attention ? r.at("d").get<std::size_t>() : r.at("cols").get<std::size_t>();
  const int rounds = r.value("rounds", 15);
  std::vector<float> q(n * d), k(n * d), v(n * d), out(n * d), weights(n * n);
  Rng rng(1);
  for (auto* x : {&q, &k, &v})
    for (float& e : *x) e = static_cast<float>(rng.normal());
  api::AttentionArgs args;
  args.q = {q.data(), q.size()};
  args.k = {k.data(), k.size()};
  args.v = {v.data(), v.size()};
  args.nq = args.nk = static_cast<double>(n);
  args.dk = args.dv = static_cast<double>(d);
  const auto call = [&] {
    if (attention) api::attention(api::Out({out.data(), out.size()}, "output"), api::Out({weights.data(), weights.size()}, "weights"), args);
    else api::softmax(api::Out({out.data(), out.size()}, "y"), {q.data(), q.size()}, double(n), double(d), api::SoftmaxKind::stable);
  };
  call();
  std::vector<double> ms;
  for (int i = 0; i < rounds; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return {{"ms", ms[ms.size() / 2]}, {"arch", simd_arch()}};
}

json run(const json& r) {
  const std::string op = r.at("op");
  std::vector<float> a, b, c;
  if (op == "softmax" || op == "logSoftmax" || op == "softmaxNaive") {
    const auto x = floats(r, "x");
    const auto kind = op == "softmax" ? api::SoftmaxKind::stable : op == "logSoftmax" ? api::SoftmaxKind::log : api::SoftmaxKind::naive;
    api::softmax(a, {x.data(), x.size()}, r.at("rows"), r.at("cols"), kind);
    return {{"y", a}};
  }
  if (op == "attention" || op == "attentionBackward") {
    const auto q = floats(r, "q"), k = floats(r, "k"), v = floats(r, "v"), g = floats(r, "gradOutput");
    const auto mask = r.contains("mask") ? r["mask"].get<std::vector<std::uint8_t>>() : std::vector<std::uint8_t>{};
    api::AttentionArgs args;
    args.q = {q.data(), q.size()};
    args.k = {k.data(), k.size()};
    args.v = {v.data(), v.size()};
    args.mask = {mask.data(), mask.size()};
    args.has_mask = r.contains("mask");
    const auto bias = floats(r, "bias");
    args.bias = {bias.data(), bias.size()};
    args.has_bias = r.contains("bias");
    args.nq = r.at("nq"); args.nk = r.at("nk"); args.dk = r.at("dk"); args.dv = r.at("dv");
    args.has_scale = r.contains("scale");
    args.scale = r.value("scale", 0.0);
    args.causal = r.value("causal", false);
    if (op == "attention") {
      api::attention(a, b, args);
      return {{"output", a}, {"weights", b}};
    }
    api::attention_backward(a, b, c, args, {g.data(), g.size()});
    return {{"gradQ", a}, {"gradK", b}, {"gradV", c}};
  }
  if (op == "sampleDotProducts") {
    api::sample_dot_products(a, r.at("dk"), r.at("count"), r.at("seed"), dist(r, "sampleDotProducts"), r.value("first", 0.0),
                             r.value("rho", 0.0), r.value("layernorm", false));
    return {{"values", a}};
  }
  if (op == "sampleEntries") {
    api::sample_entries(a, r.at("count"), r.at("seed"), dist(r, "sampleEntries"), r.value("stream", 0.0));
    return {{"values", a}};
  }
  if (op == "train") {
    // createTrainer's options by their JavaScript names, then `steps` steps; `seconds` times them.
    api::TrainArgs t;
    t.dk = r.value("dk", t.dk); t.dv = r.value("dv", t.dv); t.dx = r.value("dx", t.dx);
    t.classes = r.value("classes", t.classes); t.seq_len = r.value("seqLen", t.seq_len); t.batch = r.value("batch", t.batch);
    const std::string optimizer = r.value("optimizer", "adam"), init = r.value("init", "xavier-uniform");
    t.optimizer = optimizer == "sgd" ? 0 : optimizer == "adam" ? 1 : -1;
    t.init = init == "xavier-uniform" ? 0 : init == "xavier-normal" ? 1 : init == "lecun" ? 2 : init == "custom" ? 3 : -1;
    t.lr = r.value("lr", t.lr); t.momentum = r.value("momentum", t.momentum);
    t.beta1 = r.value("beta1", t.beta1); t.beta2 = r.value("beta2", t.beta2); t.eps = r.value("eps", t.eps);
    t.sigma = r.value("sigma", t.sigma); t.query_noise = r.value("queryNoise", t.query_noise); t.seed = r.value("seed", t.seed);
    const double handle = api::train_create(t);
    json variants;
    double seconds = 0;
    try {
      const auto start = std::chrono::steady_clock::now();
      api::train_step(handle, r.at("steps").get<double>());
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const char* names[] = {"invSqrtDk", "none", "invDk", "learned"};
      std::vector<float> out[5];
      for (int v = 0; v < 4; ++v) {
        api::train_curves(out, handle, v, 0);
        variants[names[v]] = {{"loss", out[0]}, {"accuracy", out[1]}, {"entropy", out[2]}, {"gradNorm", out[3]}, {"scale", out[4]}};
      }
    } catch (...) {
      api::train_destroy(handle);
      throw;
    }
    api::train_destroy(handle);
    return {{"steps", r.at("steps")}, {"seconds", seconds}, {"variants", variants}};
  }
  if (op == "benchAttention" || op == "benchSoftmax") return bench(r);
  if (op == "info") return {{"arch", simd_arch()}, {"simd", simd_enabled()}};
  throw std::invalid_argument("unknown op " + op);
}

}  // namespace

int main() {
  try {
    std::cout << run(json::parse(std::cin)).dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cout << json{{"error", e.what()}}.dump() << "\n";
    return 1;
  }
}
