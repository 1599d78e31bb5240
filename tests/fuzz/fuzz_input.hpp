// What every harness in tests/fuzz/ shares: a decoder from fuzzer bytes to API arguments, the
// one way a call may fail, and the checks that end a run with a report.
//
// Decoding (each value reads one selector byte, then its payload; exhausted input reads zeros):
//   size()   mostly small integers 0…32, sometimes 1…512, else an edge value: NaN, ±inf, −1, −0,
//            0.5, 1.5, the limits 2^16 and 2^24 and one past them, 2^53, 1e300, a raw double
//   real()   a multiplier or option: small values k/16, an edge value, or a raw double
//   value()  a float element: small values k/16, an edge value (NaN, ±inf, ±FLT_MAX, FLT_MIN,
//            the smallest denormal, 88.7 where exp overflows, …), or a raw float
//   floats(expected) an array whose length is usually `expected` (when that is a size one can
//            hold) and otherwise off by one, empty or arbitrary: the API must notice. Elements
//            past the input's end come from a small generator seeded by the input, so large
//            shapes still get varied values; or all one value; or generated with a quarter of
//            them -Infinity (masked logits and biases).
// Arrays are capped at kMaxFuzzArray elements, so a size the API would accept but that needs a
// bigger array always ends in SHAPE_MISMATCH (the API's own limit is 2^24 per array).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "api.hpp"

namespace fuzz {

constexpr std::size_t kMaxFuzzArray = std::size_t(1) << 15;

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {
    for (std::size_t i = 0; i < size && i < 16; ++i) lcg_ = lcg_ * 131 + data[i];
  }

  bool empty() const { return n_ == 0; }
  std::uint8_t byte() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  std::uint16_t u16() { return std::uint16_t(byte() | (byte() << 8)); }
  std::uint32_t u32() { return std::uint32_t(u16()) | (std::uint32_t(u16()) << 16); }
  std::uint64_t u64() { return std::uint64_t(u32()) | (std::uint64_t(u32()) << 32); }
  bool flag() { return byte() & 1; }

  double size() {
    const std::uint8_t s = byte();
    if (s < 192) return byte() % 33;
    if (s < 224) return 1 + u16() % 512;
    static const double edge[] = {
        std::nan(""), inf, -inf, -1, -0.0, 0.5, 1.5, 1 + 0x1p-52, 65536, 65537, 65535.5,
        4096, 4097, 16777216, 16777217, 4294967297.0, 9007199254740992.0, 1.8446744073709552e19,
        1e300, 5e-324, -16777216, 257, 8, 9, 3, 4, 5, 1};
    const std::uint8_t i = byte();
    if (i == 255) return raw_double();
    return edge[i % (sizeof edge / sizeof edge[0])];
  }

  double real() {
    const std::uint8_t s = byte();
    if (s < 160) return double(std::int8_t(byte())) / 16;
    static const double edge[] = {
        std::nan(""), inf, -inf, 0, -0.0, 1, -1, 1e-300, 5e-324, 1e300, 3.4e38,
        3.4028234663852886e38, 3.4028235677973366e38, 3.5e38, 1e39, 1 - 0x1p-53, 0.999, 1e-8,
        0.125, 64, 1e6, -1e6, 1e20, 2, 3, 100, 101, 0.5};
    if (s < 240) return edge[byte() % (sizeof edge / sizeof edge[0])];
    return raw_double();
  }

  float value() {
    const std::uint8_t s = byte();
    if (s < 144) return float(std::int8_t(byte())) / 16;
    if (s < 208) {
      static const float edge[] = {
          0.f, -0.f, 1.f, -1.f, std::nanf(""), finf, -finf, fmax, -fmax, fmin, -fmin,
          std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
          88.7f, 89.f, -88.7f, -104.f, 100.f, -100.f, 1e20f, -1e20f, 1e-20f, 0.5f, 1e19f, 2e19f,
          3e38f, 1e30f, 65504.f};
      return edge[byte() % (sizeof edge / sizeof edge[0])];
    }
    const std::uint32_t bits = u32();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }

  // `expected` as a length this harness can allocate, or -1.
  static long length_of(double expected) {
    if (!(expected >= 0 && expected <= double(kMaxFuzzArray)) || expected != std::floor(expected)) return -1;
    return long(expected);
  }

  std::size_t length(double expected) {
    const long e = length_of(expected);
    const std::uint8_t s = byte();
    if (e >= 0 && s < 224) return std::size_t(e);
    if (e >= 0 && s < 236) return std::size_t(e + 1);
    if (e >= 1 && s < 248) return std::size_t(e - 1);
    if (s & 1) return 0;
    return byte() % 65;
  }

  std::vector<float> floats(double expected) {
    std::vector<float> x(length(expected));
    // The selector says how: from the input, all one value, or small generated values.
    const std::uint8_t how = byte();
    if (how < 16) {
      const float v = value();
      for (auto& e : x) e = v;
      return x;
    }
    if (how < 40) {  // generated, a quarter of them -Infinity (masked logits, biases)
      for (auto& e : x) e = next() >> 62 ? generated() : -finf;
      return x;
    }
    for (auto& e : x) e = n_ > 0 ? value() : generated();
    return x;
  }

  std::vector<std::uint8_t> mask(double expected) {
    std::vector<std::uint8_t> m(length(expected));
    const std::uint8_t how = byte();  // 0 none kept, 1 all kept, else bits from input/generator
    for (std::size_t i = 0; i < m.size(); ++i)
      m[i] = how == 0 ? 0 : how == 1 ? 1 : n_ > 0 ? byte() % 3 : std::uint8_t(next() >> 62 ? 1 : 0);
    return m;
  }

 private:
  static constexpr double inf = std::numeric_limits<double>::infinity();
  static constexpr float finf = std::numeric_limits<float>::infinity();
  static constexpr float fmax = std::numeric_limits<float>::max();
  static constexpr float fmin = std::numeric_limits<float>::min();

  double raw_double() {
    const std::uint64_t bits = u64();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  std::uint64_t next() { return lcg_ = lcg_ * 6364136223846793005ull + 1442695040888963407ull; }
  float generated() { return float(std::int32_t(next() >> 40) - (1 << 23)) / float(1 << 21); }  // [-4, 4)

  const std::uint8_t* p_;
  std::size_t n_;
  std::uint64_t lcg_ = 0x9e3779b97f4a7c15ull;
};

// A finding: print it and abort, which libFuzzer reports as a crash and saves the input.
[[noreturn]] inline void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "\n==FUZZ FINDING== %s: %s\n", what, detail.c_str());
  std::abort();
}
#define FUZZ_CHECK(cond, detail)                                                        \
  do {                                                                                  \
    if (!(cond)) ::fuzz::finding("invariant `" #cond "` broken", std::string(detail)); \
  } while (0)

inline std::string str(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// Runs one API call: it must return or throw ApiError with one of the four codes and a message
// that starts with "<fn>: ". Any other exception escapes, and libFuzzer reports it. Returns
// whether the call succeeded.
// ATTNLAB_FUZZ_TRACE=1 prints each call's outcome (to see what a corpus reaches).
inline bool tracing() {
  static const bool on = std::getenv("ATTNLAB_FUZZ_TRACE") != nullptr;
  return on;
}
template <class F>
bool call(const char* fn, F&& f) {
  try {
    f();
    if (tracing()) std::fprintf(stderr, "  %s: ok\n", fn);
    return true;
  } catch (const attnlab::api::ApiError& e) {
    if (tracing()) std::fprintf(stderr, "  %s: %s %s\n", fn, e.code.c_str(), e.what());
    const std::string& c = e.code;
    if (c != "BAD_SIZE" && c != "SIZE_LIMIT" && c != "SHAPE_MISMATCH" && c != "BAD_VALUE")
      finding("unknown error code", c + " from " + e.what());
    const std::string prefix = std::string(fn) + ": ";
    if (std::string(e.what()).compare(0, prefix.size(), prefix) != 0)
      finding("error message does not name the function", std::string(fn) + " threw \"" + e.what() + "\"");
    return false;
  }
}

// Sizes that are all positive integers (the API will accept them) and multiply to more than
// `budget`: a harness skips such a call rather than spend seconds on one input. Any other size
// is passed on, since the API must refuse it before doing any work.
inline bool over_budget(std::initializer_list<double> sizes, double budget) {
  double work = 1;
  for (double s : sizes) {
    if (!(std::isfinite(s) && s >= 1 && s == std::floor(s))) return false;
    work *= s;
  }
  return work > budget;
}

inline bool all_finite(const std::vector<float>& x) {
  for (float v : x)
    if (!std::isfinite(v)) return false;
  return true;
}

// Recursive float summation of n terms has relative error at most (n − 1)·2^-24; sums to 1 are
// checked within that bound or 1e-4, whichever is larger.
inline double sum_tolerance(std::size_t n) { return std::max(1e-4, double(n) * 0x1p-24 * 2); }

// Arguments of attention and attentionBackward with the arrays they point into. has_scale,
// causal, mask and bias are each decided by the input; lengths usually fit the sizes.
struct AttentionInput {
  std::vector<float> q, k, v, bias;
  std::vector<std::uint8_t> mask;
  attnlab::api::AttentionArgs a;

  explicit AttentionInput(Input& in) {
    a.nq = in.size(), a.nk = in.size(), a.dk = in.size(), a.dv = in.size();
    const std::uint8_t flags = in.byte();
    a.has_scale = flags & 1, a.causal = flags & 2, a.has_mask = flags & 4, a.has_bias = flags & 8;
    if (a.has_scale) a.scale = in.real();
    q = in.floats(a.nq * a.dk), k = in.floats(a.nk * a.dk), v = in.floats(a.nk * a.dv);
    if (a.has_mask) mask = in.mask(a.nq * a.nk);
    if (a.has_bias) bias = in.floats(a.nq * a.nk);
    a.q = {q.data(), q.size()}, a.k = {k.data(), k.size()}, a.v = {v.data(), v.size()};
    a.mask = {mask.data(), mask.size()}, a.bias = {bias.data(), bias.size()};
  }

  // Whether query i may attend key j: the mask, causality and a -Infinity bias all forbid it.
  bool allows(std::size_t i, std::size_t j) const {
    const std::size_t nk = std::size_t(a.nk);
    if (a.causal && j > i) return false;
    if (a.has_mask && mask[i * nk + j] == 0) return false;
    if (a.has_bias && bias[i * nk + j] == -std::numeric_limits<float>::infinity()) return false;
    return true;
  }
};

}  // namespace fuzz
