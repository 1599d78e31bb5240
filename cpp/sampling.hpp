// The sampling experiments behind the derivation's statistical claims.
#pragma once

#include <cstdint>

#include "rng.hpp"

namespace attnlab {

// (eq:dot-variance) out_i = q⁽ⁱ⁾ · k⁽ⁱ⁾ for independent q⁽ⁱ⁾, k⁽ⁱ⁾ in R^dk with i.i.d. entries
// from `d`. Pair i draws q then k from Rng(seed, first + i), so any split of [0, count) into
// calls gives the same values. With mean 0 and std 1: E = 0 and Var(q·k) = dk.
// dk = 1 is the product experiment (eq:product-variance): Var(XY) = 1.
void sample_dot_products(Vec<float> out, std::size_t dk, std::uint64_t seed, const Distribution& d,
                         std::uint64_t first = 0);

}  // namespace attnlab
