// The only file that includes Embind. It moves arrays and error messages across the boundary and
// nothing else: validation and computation live in api.cpp.
//
// Protocol (web/engine.js is its only caller):
//   inputs   JS asks for a slot (inputF32(slot, n) → address, 0 on failure), writes its typed
//            array into the heap at that address, then calls an operation;
//   outputs  the operation fills engine-owned vectors; JS copies them out (outputF32(slot) and
//            outputLength(slot) give the address and length) before the next call;
//   errors   an operation returns "" on success, or "CODE\tfn: message"; no C++ exception ever
//            crosses into JavaScript, and the module stays usable after any error.
//   lending  workspaceAlloc(n) → address of an engine-owned block that JS views in place
//            (engine.workspace); before an operation, lendInput(slot, address, n) makes an input
//            slot read from a block instead of its vector, and lendOutput(slot, address, n) makes
//            the operation write that output there (the methods with an `out` option). A loan lasts
//            for the next operation only, or until its block is freed; each is checked to lie
//            inside a live block, and no output loan to overlap any other loan, whichever is made
//            first (inputs may share memory with each other: they are only read).
// No emscripten::val anywhere: the module links with -sDYNAMIC_EXECUTION=0 and so needs no
// 'unsafe-eval' under a Content-Security-Policy.
#include <emscripten/bind.h>

#include <array>
#include <cstdint>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "api.hpp"
#include "kernels.hpp"

using namespace attnlab;

namespace {

std::array<std::vector<float>, 5> in_f32;    // q, k, v, gradOutput, bias (or x, gradP)
std::vector<std::uint8_t> in_mask;
std::vector<float> out_f32[5];
std::vector<std::uint32_t> out_counts;
std::array<double, 15> out_summary;
std::vector<double> out_f64;  // rowSummaries: the means, the intervals' ends, the medians (rows each)

// Workspace blocks by address, and this operation's loans (empty view: none). A block starts on
// a 64-byte boundary (malloc gives 8 in wasm32): a caller's rows then start where the kernels'
// 16-byte loads do not straddle cache lines.
template <class T>
struct CacheAligned {
  using value_type = T;
  CacheAligned() = default;
  template <class U> CacheAligned(const CacheAligned<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U> bool operator==(const CacheAligned<U>&) const { return true; }
  template <class U> bool operator!=(const CacheAligned<U>&) const { return false; }
};
std::map<std::uintptr_t, std::vector<float, CacheAligned<float>>> blocks;
std::array<Vec<float>, 5> lent_in, lent_out;

Vec<const float> in(int slot) {
  return lent_in[slot].data ? Vec<const float>(lent_in[slot]) : Vec<const float>{in_f32[slot].data(), in_f32[slot].size()};
}
// Output slot `slot`: the loan if there is one (`name` is how JavaScript calls it), else the vector.
api::Out out(int slot, const char* name) {
  return lent_out[slot].data ? api::Out(lent_out[slot], name) : api::Out(out_f32[slot]);
}

template <class F>
std::string guarded(F&& f) {
  struct EndLoans {  // every loan ends with the operation, however it ends
    ~EndLoans() { lent_in.fill({}); lent_out.fill({}); }
  } end_loans;
  try {
    f();
    return {};
  } catch (const api::ApiError& e) {
    return e.code + "\t" + e.what();
  } catch (const std::bad_alloc&) {
    return "OUT_OF_MEMORY\tthe engine ran out of memory";
  } catch (const std::exception& e) {
    return std::string("INTERNAL\t") + e.what();
  }
}

// An input slot of n elements; 0 when n is out of range or memory ran out (engine.js checks
// the limit first and reports either case as an Error, never writing to address 0).
template <class T>
std::uintptr_t input_slot(std::vector<T>& slot, double n) {
  if (!(n >= 0 && n <= api::kMaxElements)) return 0;
  try {
    slot.resize(static_cast<std::size_t>(n));
    slot.reserve(1);  // a valid, non-null address even for n = 0
  } catch (const std::bad_alloc&) {
    return 0;
  }
  return reinterpret_cast<std::uintptr_t>(slot.data());
}
std::uintptr_t input_f32(int slot, double n) {
  if (!(slot >= 0 && slot < int(in_f32.size()))) return 0;
  lent_in[slot] = {};
  return input_slot(in_f32[slot], n);
}

std::uintptr_t workspace_alloc(double n) {
  if (!(n >= 1 && n <= api::kMaxElements && n == double(std::size_t(n)))) return 0;
  try {
    std::vector<float, CacheAligned<float>> block(static_cast<std::size_t>(n));
    const auto address = reinterpret_cast<std::uintptr_t>(block.data());
    blocks.emplace(address, std::move(block));
    return address;
  } catch (const std::bad_alloc&) {
    return 0;
  }
}
void workspace_free(std::uintptr_t address) {
  const auto it = blocks.find(address);
  if (it == blocks.end()) return;
  const float* begin = it->second.data();
  const float* end = begin + it->second.size();
  for (auto* loans : {&lent_in, &lent_out})  // a loan into the block would outlive it
    for (Vec<float>& loan : *loans)
      if (loan.data >= begin && loan.data < end) loan = {};
  blocks.erase(it);
}

// [address, address + n floats) inside one live block, as a view; empty if not.
Vec<float> block_range(std::uintptr_t address, double n) {
  auto it = blocks.upper_bound(address);
  if (it == blocks.begin() || !(n >= 1 && n <= api::kMaxElements)) return {};
  --it;
  const std::uintptr_t offset = address - it->first;
  if (offset % sizeof(float) != 0 || offset / sizeof(float) + std::size_t(n) > it->second.size()) return {};
  return {it->second.data() + offset / sizeof(float), std::size_t(n)};
}
bool overlaps(Vec<float> a, Vec<float> b) { return a.data && b.data && a.data < b.data + b.size && b.data < a.data + a.size; }

bool lend_input(int slot, std::uintptr_t address, double n) {
  if (!(slot >= 0 && slot < int(lent_in.size()))) return false;
  const Vec<float> v = block_range(address, n);
  for (const Vec<float>& o : lent_out)
    if (overlaps(v, o)) { lent_in[slot] = {}; return false; }
  lent_in[slot] = v;
  return v.data != nullptr;
}
bool lend_output(int slot, std::uintptr_t address, double n) {
  if (!(slot >= 0 && slot < int(lent_out.size()))) return false;
  const Vec<float> v = block_range(address, n);
  for (std::size_t i = 0; i < lent_in.size(); ++i)
    if (overlaps(v, lent_in[i]) || overlaps(v, lent_out[i])) return false;
  lent_out[slot] = v;
  return v.data != nullptr;
}
std::uintptr_t input_mask(double n) { return input_slot(in_mask, n); }
bool out_slot(int slot) { return slot >= 0 && slot < 5; }
std::uintptr_t output_f32(int slot) { return out_slot(slot) ? reinterpret_cast<std::uintptr_t>(out_f32[slot].data()) : 0; }
double output_length(int slot) { return out_slot(slot) ? double(out_f32[slot].size()) : 0; }
std::uintptr_t output_counts() { return reinterpret_cast<std::uintptr_t>(out_counts.data()); }
double output_counts_length() { return double(out_counts.size()); }
std::uintptr_t output_summary() { return reinterpret_cast<std::uintptr_t>(out_summary.data()); }
std::uintptr_t output_f64() { return reinterpret_cast<std::uintptr_t>(out_f64.data()); }

std::string softmax(double rows, double cols, int kind) {
  return guarded([&] { api::softmax(out(0, "out"), in(0), rows, cols, static_cast<api::SoftmaxKind>(kind)); });
}
std::string softmax_backward(double rows, double cols) {
  return guarded([&] { api::softmax_backward(out(0, "out"), in(0), in(1), rows, cols); });
}
std::string row_stats(double rows, double cols) {
  return guarded([&] { api::row_stats(out_f32[0], out_f32[1], in(0), rows, cols); });
}

api::AttentionArgs attention_args(double nq, double nk, double dk, double dv, double scale,
                                  bool has_scale, bool causal, bool has_mask, bool has_bias) {
  api::AttentionArgs a;
  a.q = in(0); a.k = in(1); a.v = in(2);
  a.bias = in(4);
  a.has_bias = has_bias;
  a.mask = {in_mask.data(), in_mask.size()};
  a.has_mask = has_mask;
  a.nq = nq; a.nk = nk; a.dk = dk; a.dv = dv;
  a.scale = scale; a.has_scale = has_scale; a.causal = causal;
  return a;
}
std::string attention(double nq, double nk, double dk, double dv, double scale, bool has_scale,
                      bool causal, bool has_mask, bool has_bias) {
  return guarded([&] {
    api::attention(out(0, "out.output"), out(1, "out.weights"),
                   attention_args(nq, nk, dk, dv, scale, has_scale, causal, has_mask, has_bias));
  });
}
std::string attention_backward(double nq, double nk, double dk, double dv, double scale,
                               bool has_scale, bool causal, bool has_mask, bool has_bias) {
  return guarded([&] {
    api::attention_backward(out(0, "out.gradQ"), out(1, "out.gradK"), out(2, "out.gradV"),
                            attention_args(nq, nk, dk, dv, scale, has_scale, causal, has_mask, has_bias), in(3));
  });
}

std::string sample_dot_products(double dk, double count, double seed, double dist, double mean,
                                double std, double df, double first, double rho, bool layernorm) {
  return guarded([&] {
    api::sample_dot_products(out_f32[0], dk, count, seed, api::distribution("sampleDotProducts", dist, mean, std, df),
                             first, rho, layernorm);
  });
}
std::string sample_entries(double count, double seed, double stream, double dist, double mean, double std,
                           double df) {
  return guarded([&] {
    api::sample_entries(out(0, "out"), count, seed, api::distribution("sampleEntries", dist, mean, std, df), stream);
  });
}
std::string sample_softmax_rows(double dk, double n, double rows, double scale, double seed, double first) {
  return guarded([&] { api::sample_softmax_rows(out_f32, dk, n, rows, scale, seed, first); });
}
std::string score_stats(double rows, double n, double scale) {
  return guarded([&] { api::score_stats(out_f32, in(0), rows, n, scale); });
}
std::string sample_scores(double dk, double n, double rows, double scale, double seed, double first) {
  return guarded([&] { api::sample_scores(out_f32[0], dk, n, rows, scale, seed, first); });
}
std::string scores(double nq, double nk, double dk, double scale) {
  return guarded([&] { api::scores(out(0, "out"), in(0), in(1), nq, nk, dk, scale); });
}
std::string matmul(double m, double k, double n) {
  return guarded([&] { api::matmul(out(0, "out"), in(0), in(1), m, k, n); });
}
std::string row_dots(double rows, double cols) {
  return guarded([&] { api::row_dots(out(0, "out"), in(0), in(1), rows, cols); });
}
std::string softmax_jacobian() {
  return guarded([&] { api::softmax_jacobian(out_f32[0], in(0)); });
}
// bins = 0: no histogram (the JS API's describe(x) without a range)
std::string describe(double bins, double lo, double hi) {
  return guarded([&] {
    const auto [s, t] = bins == 0 ? api::describe(in(0)) : api::describe(out_counts, in(0), bins, lo, hi);
    out_summary = {s.n, s.mean, s.variance, s.mean_lo, s.mean_hi, s.variance_lo, s.variance_hi, s.variance_se,
                   t.fourth, t.fourth_lo, t.fourth_hi, t.kurtosis, t.kurtosis_lo, t.kurtosis_hi, t.kurtosis_se};
  });
}

std::string row_summaries(double rows, double cols) {
  return guarded([&] { api::row_summaries(out_f64, in(0), rows, cols); });
}

// Training ablation: a trainer is state that outlives a call, kept in api.cpp under a handle.
// trainCreate leaves the new handle for outputHandle(); trainCurves fills out slots 0–4.
double out_handle = 0;
double output_handle() { return out_handle; }
std::string train_create(double dk, double dv, double dx, double classes, double seq_len, double batch,
                         double optimizer, double lr, double momentum, double beta1, double beta2, double eps,
                         double init, double sigma, double query_noise, double seed) {
  return guarded([&] {
    api::TrainArgs a;
    a.dk = dk; a.dv = dv; a.dx = dx; a.classes = classes; a.seq_len = seq_len; a.batch = batch;
    a.optimizer = optimizer; a.lr = lr; a.momentum = momentum; a.beta1 = beta1; a.beta2 = beta2; a.eps = eps;
    a.init = init; a.sigma = sigma; a.query_noise = query_noise; a.seed = seed;
    out_handle = api::train_create(a);
  });
}
std::string train_step(double handle, double n) { return guarded([&] { api::train_step(handle, n); }); }
std::string train_reset(double handle) { return guarded([&] { api::train_reset(handle); }); }
std::string train_destroy(double handle) { return guarded([&] { api::train_destroy(handle); }); }
std::string train_curves(double handle, double variant, double from) {
  return guarded([&] { api::train_curves(out_f32, handle, variant, from); });
}

std::string arch() { return simd_arch(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  using emscripten::function;
  function("arch", &arch);
  function("inputF32", &input_f32);
  function("inputMask", &input_mask);
  function("workspaceAlloc", &workspace_alloc);
  function("workspaceFree", &workspace_free);
  function("lendInput", &lend_input);
  function("lendOutput", &lend_output);
  function("outputF32", &output_f32);
  function("outputLength", &output_length);
  function("outputCounts", &output_counts);
  function("outputCountsLength", &output_counts_length);
  function("outputSummary", &output_summary);
  function("outputF64", &output_f64);
  function("softmax", &softmax);
  function("softmaxBackward", &softmax_backward);
  function("rowStats", &row_stats);
  function("attention", &attention);
  function("attentionBackward", &attention_backward);
  function("sampleDotProducts", &sample_dot_products);
  function("sampleEntries", &sample_entries);
  function("sampleSoftmaxRows", &sample_softmax_rows);
  function("scoreStats", &score_stats);
  function("sampleScores", &sample_scores);
  function("scores", &scores);
  function("matmul", &matmul);
  function("softmaxJacobian", &softmax_jacobian);
  function("rowDots", &row_dots);
  function("describe", &describe);
  function("rowSummaries", &row_summaries);
  function("outputHandle", &output_handle);
  function("trainCreate", &train_create);
  function("trainStep", &train_step);
  function("trainReset", &train_reset);
  function("trainDestroy", &train_destroy);
  function("trainCurves", &train_curves);
}
