// Sampling statistics: streaming central moments, 95% intervals, histograms.
#pragma once

#include <cstdint>

#include "view.hpp"

namespace attnlab {

// Running count, mean and central moment sums M2..M4, updated one value at a time (Welford's
// update extended to the 4th moment by Pébay 2008) and merged across chunks (Chan et al. 1979).
// All in double: no catastrophic cancellation, unlike Σx² − (Σx)²/n.
struct Moments {
  double n = 0, mean = 0, m2 = 0, m3 = 0, m4 = 0;
  void push(double x);
  void merge(const Moments& o);
  double variance() const { return n > 1 ? m2 / (n - 1) : 0; }  // unbiased s²
};

Moments moments_of(Vec<const float> x);

// A sample's mean and variance with 95% intervals (normal approximation, z = 1.96):
//   mean ± z·s/√n
//   s² ± z·SE(s²),  SE(s²)² = (μ4 − (n−3)/(n−1)·σ⁴) / n,  μ4 = M4/n, σ² = s²
// The variance interval uses the sample's own 4th moment, so it is right for heavy-tailed q·k
// too (a product of normals has kurtosis 9), where the chi-square interval would be too narrow.
// Its lower end is at least 0.
struct Summary {
  double n, mean, variance, mean_lo, mean_hi, variance_lo, variance_hi, variance_se;
};
Summary summarize(const Moments& m);

// A sample's tails: its 4th raw moment E[x⁴] (the mean of x_i⁴) and its kurtosis κ̂ = m₄/m₂²
// (central moments over n), each with a 95% interval (normal approximation, z = 1.96):
//   SE(E[x⁴]) = sd(x_i⁴)/√n
//   SE(κ̂) by the delta method: κ̂ − κ ≈ the mean of κ̂'s influence function, which is, up to a
//   constant, u_i = (d_i⁴ − 4m₃·d_i − 2κ̂·m₂·d_i²)/m₂², d_i = x_i − x̄ (the −4m₃·d_i: m₄ moves
//   with the estimated mean, by −4m₃ per unit; a skewed sample's SE is wrong without it, 2.8× too
//   small for 0/1 entries with P(1) = 0.2), so SE(κ̂) = sd(u)/√n   (sd with n − 1)
// The lower ends are at least 0 for E[x⁴] and 1 for κ̂ (m₄ ≥ m₂² always; κ̂ itself if rounding
// put it below 1), and never above the estimate.
// Both SEs come from the sample's own 8th moment: right when that is finite (products of normal,
// uniform or ±1 entries), only a guide for heavy tails. One pass in double, given the sample's
// moments (m = moments_of(x)). A constant sample has no kurtosis (m₂ = 0): NaN, as are the SEs
// of a single value.
struct Tails {
  double fourth, fourth_lo, fourth_hi, kurtosis, kurtosis_lo, kurtosis_hi, kurtosis_se;
};
Tails tails_of(Vec<const float> x, const Moments& m);
inline Tails tails_of(Vec<const float> x) { return tails_of(x, moments_of(x)); }

// The median of x (n >= 1): the middle value, or the mean of the middle two (in double); `scratch`
// holds at least n floats, which it leaves in another order.
double median_of(Vec<const float> x, Vec<float> scratch);

// counts_b = #{x_i in [lo + b·w, lo + (b+1)·w)}, w = (hi − lo)/bins; x = hi goes to the last bin.
// Values outside [lo, hi] or NaN are not counted (returned: the number left out).
std::size_t histogram(Vec<std::uint32_t> counts, Vec<const float> x, double lo, double hi);

}  // namespace attnlab
