// Argument checks shared by the checked entry points (api.cpp, api_train.cpp): numbers from
// JavaScript arrive as doubles and are validated here before any allocation or arithmetic.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "api.hpp"

namespace attnlab::api::detail {

// Integers print exactly (no "1.67772e+07 exceeds the limit of 1.67772e+07"), others with %g.
inline std::string num(double v) {
  char buf[40];
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e18) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

[[noreturn]] inline void raise(const char* code, const char* fn, const std::string& msg) {
  throw ApiError(code, std::string(fn) + ": " + msg);
}

// A size from JavaScript: a finite integer in [1, max].
inline std::size_t size_arg(const char* fn, const char* name, double v, std::size_t max) {
  if (!std::isfinite(v) || v != std::floor(v))
    raise("BAD_SIZE", fn, std::string(name) + " must be a positive integer, got " + num(v));
  if (v < 1) raise("BAD_SIZE", fn, std::string(name) + " must be at least 1, got " + num(v));
  if (v > static_cast<double>(max))
    raise("SIZE_LIMIT", fn, std::string(name) + " = " + num(v) + " exceeds the limit of " + num(double(max)));
  return static_cast<std::size_t>(v);
}

// a·b, checked against kMaxElements before it can overflow (a, b <= 2^16 or 2^24 each).
inline std::size_t product(const char* fn, const char* what, std::size_t a, std::size_t b) {
  if (b != 0 && a > kMaxElements / b)
    raise("SIZE_LIMIT", fn, std::string(what) + " = " + num(double(a) * double(b)) +
                                " exceeds the limit of " + num(double(kMaxElements)) + " elements");
  return a * b;
}

}  // namespace attnlab::api::detail
