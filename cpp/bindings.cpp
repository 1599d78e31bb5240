// The only file that includes Embind. It moves arrays and error messages across the boundary and
// nothing else: validation and computation live in api.cpp.
//
// Protocol (web/engine.js is its only caller):
//   inputs   JS asks for a slot (inputF32(slot, n) → address), writes its typed array into the
//            heap at that address, then calls an operation;
//   outputs  the operation fills engine-owned vectors; JS copies them out (outputF32(slot) and
//            outputLength(slot) give the address and length) before the next call;
//   errors   an operation returns "" on success, or "CODE\tfn: message"; no C++ exception ever
//            crosses into JavaScript, and the module stays usable after any error.
// No emscripten::val anywhere: the module links with -sDYNAMIC_EXECUTION=0 and so needs no
// 'unsafe-eval' under a Content-Security-Policy.
#include <emscripten/bind.h>

#include <array>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "api.hpp"
#include "kernels.hpp"

using namespace attnlab;

namespace {

std::array<std::vector<float>, 4> in_f32;    // q, k, v, gradOutput (or x, gradP)
std::vector<std::uint8_t> in_mask;
std::array<std::vector<float>, 3> out_f32;
std::vector<std::uint32_t> out_counts;
std::array<double, 8> out_summary;

Vec<const float> in(int slot) { return {in_f32[slot].data(), in_f32[slot].size()}; }

template <class F>
std::string guarded(F&& f) {
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

std::uintptr_t input_f32(int slot, double n) {
  if (slot < 0 || slot >= int(in_f32.size()) || !(n >= 0 && n <= api::kMaxElements)) return 0;
  in_f32[slot].resize(static_cast<std::size_t>(n));
  return reinterpret_cast<std::uintptr_t>(in_f32[slot].data());
}
std::uintptr_t input_mask(double n) {
  if (!(n >= 0 && n <= api::kMaxElements)) return 0;
  in_mask.resize(static_cast<std::size_t>(n));
  return reinterpret_cast<std::uintptr_t>(in_mask.data());
}
std::uintptr_t output_f32(int slot) { return reinterpret_cast<std::uintptr_t>(out_f32.at(slot).data()); }
double output_length(int slot) { return double(out_f32.at(slot).size()); }
std::uintptr_t output_counts() { return reinterpret_cast<std::uintptr_t>(out_counts.data()); }
double output_counts_length() { return double(out_counts.size()); }
std::uintptr_t output_summary() { return reinterpret_cast<std::uintptr_t>(out_summary.data()); }

std::string softmax(double rows, double cols, int kind) {
  return guarded([&] { api::softmax(out_f32[0], in(0), rows, cols, static_cast<api::SoftmaxKind>(kind)); });
}
std::string softmax_backward(double rows, double cols) {
  return guarded([&] { api::softmax_backward(out_f32[0], in(0), in(1), rows, cols); });
}
std::string row_stats(double rows, double cols) {
  return guarded([&] { api::row_stats(out_f32[0], out_f32[1], in(0), rows, cols); });
}

api::AttentionArgs attention_args(double nq, double nk, double dk, double dv, double scale,
                                  bool has_scale, bool causal, bool has_mask) {
  api::AttentionArgs a;
  a.q = in(0); a.k = in(1); a.v = in(2);
  if (has_mask) a.mask = {in_mask.data(), in_mask.size()};
  a.nq = nq; a.nk = nk; a.dk = dk; a.dv = dv;
  a.scale = scale; a.has_scale = has_scale; a.causal = causal;
  return a;
}
std::string attention(double nq, double nk, double dk, double dv, double scale, bool has_scale,
                      bool causal, bool has_mask) {
  return guarded([&] {
    api::attention(out_f32[0], out_f32[1], attention_args(nq, nk, dk, dv, scale, has_scale, causal, has_mask));
  });
}
std::string attention_backward(double nq, double nk, double dk, double dv, double scale,
                               bool has_scale, bool causal, bool has_mask) {
  return guarded([&] {
    api::attention_backward(out_f32[0], out_f32[1], out_f32[2],
                            attention_args(nq, nk, dk, dv, scale, has_scale, causal, has_mask), in(3));
  });
}

std::string sample_dot_products(double dk, double count, double seed, double dist, double mean,
                                double std, double first) {
  return guarded([&] {
    api::sample_dot_products(out_f32[0], dk, count, seed, api::distribution("sampleDotProducts", dist, mean, std), first);
  });
}
std::string sample_entries(double count, double seed, double stream, double dist, double mean, double std) {
  return guarded([&] {
    api::sample_entries(out_f32[0], count, seed, api::distribution("sampleEntries", dist, mean, std), stream);
  });
}
std::string describe(double bins, double lo, double hi) {
  return guarded([&] {
    const Summary s = api::describe(out_counts, in(0), bins, lo, hi);
    out_summary = {s.n, s.mean, s.variance, s.mean_lo, s.mean_hi, s.variance_lo, s.variance_hi, s.variance_se};
  });
}

std::string arch() { return simd_arch(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  using emscripten::function;
  function("arch", &arch);
  function("inputF32", &input_f32);
  function("inputMask", &input_mask);
  function("outputF32", &output_f32);
  function("outputLength", &output_length);
  function("outputCounts", &output_counts);
  function("outputCountsLength", &output_counts_length);
  function("outputSummary", &output_summary);
  function("softmax", &softmax);
  function("softmaxBackward", &softmax_backward);
  function("rowStats", &row_stats);
  function("attention", &attention);
  function("attentionBackward", &attention_backward);
  function("sampleDotProducts", &sample_dot_products);
  function("sampleEntries", &sample_entries);
  function("describe", &describe);
}
