// libFuzzer harness: the sampling entry points of the checked API (api.hpp): sampleDotProducts
// (distribution, mean, std, df, rho, layernorm, first), sampleSoftmaxRows, sampleEntries,
// describe and rowSummaries, up to three calls per input, at small sizes: a call whose accepted sizes multiply
// to more than kBudget normal draws is skipped (over_budget), not run. The API itself accepts
// dk·count up to 2^40 (about 10 hours natively) and rows·n·dk up to 2^48.
//   Every call returns or throws ApiError (fuzz_input.hpp: call). When it returns:
//   - each output has the promised length (count, or rows for each of the five statistics);
//   - sampleDotProducts is finite, and with layernorm |q·k| <= dk (‖q‖² = ‖k‖² = dk; a constant
//     vector normalises to 0);
//     pair i depends on first + i only: the same call from first + 1 gives the same values
//     shifted by one, bit for bit;
//   - sampleSoftmaxRows is finite, max weight in [1/n, 1], entropy in [0, log n], the other
//     three >= 0, and row r depends on first + r only (same shift check);
//   - sampleEntries is finite;
//   - describe: n is x's length, the counts sum to the number of x in [lo, hi], the mean lies
//     within [min x, max x], the variance is >= 0, the kurtosis >= 1, no interval starts below
//     0 (variance, E[x⁴]) or 1 (kurtosis, or the kurtosis if rounding put it below 1), and each
//     interval holds its estimate;
//   - rowSummaries: per row, the mean lies within the row's range and inside its interval (none,
//     NaN, for a row of one value), and
//     the median has at most half the row below it and at most half above it.
// Run: bash tools/fuzz.sh 60 sampling
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_input.hpp"

using namespace attnlab;
using fuzz::str;

namespace {

constexpr double kBudget = double(1 << 20);

bool same_bits(const float* a, const float* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

// A distribution argument; a refused one ends the call (it throws before the sampler runs).
bool decode_distribution(fuzz::Input& in, const char* fn, Distribution& d) {
  const double kind = in.flag() ? in.real() : in.byte() % 4;
  const double mean = in.flag() ? in.real() : 0, std = in.flag() ? in.real() : 1, df = in.flag() ? in.real() : 5;
  return fuzz::call(fn, [&] { d = api::distribution(fn, kind, mean, std, df); });
}

double seed_of(fuzz::Input& in) { return in.flag() ? in.real() : in.byte(); }

// Draws per sampled entry: a Student-t entry takes a normal and a chi-square (about 3 in all).
double draws(const Distribution& d) { return d.kind == Dist::student_t ? 3 : 1; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  static std::vector<float> out, shifted;
  static std::vector<float> rows_out[5], rows_shifted[5];
  static std::vector<std::uint32_t> counts;
  for (int call = 0; call < 3 && (call == 0 || !in.empty()); ++call) {
    switch (in.byte() % 6) {
      case 0: {  // sampleDotProducts
        const char* fn = "sampleDotProducts";
        Distribution d;
        if (!decode_distribution(in, fn, d)) break;
        const double dk = in.size(), count = in.size(), seed = seed_of(in), first = seed_of(in);
        const double rho = in.flag() ? in.real() : 0;
        const bool layernorm = in.flag();
        if (fuzz::over_budget({dk, count, draws(d)}, kBudget)) break;
        if (!fuzz::call(fn, [&] { api::sample_dot_products(out, dk, count, seed, d, first, rho, layernorm); })) break;
        const auto n = std::size_t(count), k = std::size_t(dk);
        FUZZ_CHECK(out.size() == n, "sampleDotProducts length " + str(double(out.size())) + " for count " + str(count));
        for (std::size_t i = 0; i < n; ++i) {
          FUZZ_CHECK(std::isfinite(out[i]), "sampleDotProducts[" + str(double(i)) + "] = " + str(out[i]) + (layernorm ? " with layernorm" : ""));
          if (layernorm)
            FUZZ_CHECK(std::abs(out[i]) <= double(k) * (1 + 1e-4), "layernorm q.k = " + str(out[i]) + " beyond dk = " + str(double(k)));
        }
        if (n >= 2 && first + 1 <= 9007199254740991.0) {
          FUZZ_CHECK(fuzz::call(fn, [&] { api::sample_dot_products(shifted, dk, count - 1, seed, d, first + 1, rho, layernorm); }),
                     "sampleDotProducts refused first + 1");
          FUZZ_CHECK(same_bits(out.data() + 1, shifted.data(), n - 1), "pair i differs between first and first + 1");
        }
        break;
      }
      case 1: {  // sampleSoftmaxRows
        const char* fn = "sampleSoftmaxRows";
        const double dk = in.size(), n = in.size(), rows = in.size(), scale = in.real();
        const double seed = seed_of(in), first = seed_of(in);
        if (fuzz::over_budget({dk, n, rows}, kBudget)) break;
        if (!fuzz::call(fn, [&] { api::sample_softmax_rows(rows_out, dk, n, rows, scale, seed, first); })) break;
        const auto R = std::size_t(rows);
        const double N = n;
        for (const auto& v : rows_out) {
          FUZZ_CHECK(v.size() == R, "sampleSoftmaxRows length " + str(double(v.size())) + " for rows " + str(rows));
          FUZZ_CHECK(fuzz::all_finite(v), "sampleSoftmaxRows returned a non-finite statistic");
        }
        for (std::size_t r = 0; r < R; ++r) {
          const std::string at = " in row " + str(double(r)) + " (n = " + str(N) + ", scale " + str(scale) + ")";
          FUZZ_CHECK(rows_out[0][r] >= (1 / N) * (1 - fuzz::sum_tolerance(std::size_t(N))) && rows_out[0][r] <= 1,
                     "max weight " + str(rows_out[0][r]) + at);
          FUZZ_CHECK(rows_out[1][r] >= 0 && rows_out[1][r] <= std::log(N) + 1e-4 + fuzz::sum_tolerance(std::size_t(N)),
                     "entropy " + str(rows_out[1][r]) + at);
          for (int s = 2; s < 5; ++s) FUZZ_CHECK(rows_out[s][r] >= 0, "statistic " + str(s) + " = " + str(rows_out[s][r]) + at);
        }
        {  // scoreStats of the same rows' scores drawn at scale 1 gives the same bits
          std::vector<float> scores, given[5];
          if (fuzz::call("sampleScores", [&] { api::sample_scores(scores, dk, n, rows, 1, seed, first); }) &&
              fuzz::call("scoreStats", [&] { api::score_stats(given, {scores.data(), scores.size()}, rows, n, scale); }))
            for (int s = 0; s < 5; ++s)
              FUZZ_CHECK(same_bits(rows_out[s].data(), given[s].data(), R), "scoreStats differs from sampleSoftmaxRows");
        }
        if (R >= 2 && first + 1 <= 9007199254740991.0) {
          FUZZ_CHECK(fuzz::call(fn, [&] { api::sample_softmax_rows(rows_shifted, dk, n, rows - 1, scale, seed, first + 1); }),
                     "sampleSoftmaxRows refused first + 1");
          for (int s = 0; s < 5; ++s)
            FUZZ_CHECK(same_bits(rows_out[s].data() + 1, rows_shifted[s].data(), R - 1), "row r differs between first and first + 1");
        }
        break;
      }
      case 2: {  // sampleEntries
        const char* fn = "sampleEntries";
        Distribution d;
        if (!decode_distribution(in, fn, d)) break;
        const double count = in.size(), seed = seed_of(in), stream = seed_of(in);
        if (fuzz::over_budget({count, draws(d)}, kBudget)) break;
        if (!fuzz::call(fn, [&] { api::sample_entries(out, count, seed, d, stream); })) break;
        FUZZ_CHECK(out.size() == std::size_t(count), "sampleEntries length " + str(double(out.size())));
        FUZZ_CHECK(fuzz::all_finite(out), "sampleEntries returned a non-finite value");
        break;
      }
      case 4: {  // sampleScores: finite, and row r is the same as row r − 1 of a call from first + 1
        const char* fn = "sampleScores";
        const double dk = in.size(), n = in.size(), rows = in.size(), scale = in.real();
        const double seed = seed_of(in), first = seed_of(in);
        if (fuzz::over_budget({dk + n, rows}, kBudget)) break;
        if (!fuzz::call(fn, [&] { api::sample_scores(out, dk, n, rows, scale, seed, first); })) break;
        const auto R = std::size_t(rows), N = std::size_t(n);
        FUZZ_CHECK(out.size() == R * N, "sampleScores length " + str(double(out.size())) + " for rows*n " + str(rows * n));
        FUZZ_CHECK(fuzz::all_finite(out), "sampleScores returned a non-finite score");
        if (R >= 2 && first + 1 <= 9007199254740991.0) {
          FUZZ_CHECK(fuzz::call(fn, [&] { api::sample_scores(shifted, dk, n, rows - 1, scale, seed, first + 1); }),
                     "sampleScores refused first + 1");
          FUZZ_CHECK(same_bits(out.data() + N, shifted.data(), (R - 1) * N), "row r differs between first and first + 1");
        }
        break;
      }
      case 3: {  // describe
        const std::vector<float> x = in.floats(in.size());
        const double bins = in.size(), lo = in.flag() ? in.real() : -4, hi = in.flag() ? in.real() : 4;
        api::Description dsc{};
        if (!fuzz::call("describe", [&] { dsc = api::describe(counts, {x.data(), x.size()}, bins, lo, hi); })) break;
        const Summary& s = dsc.summary;
        const Tails& t = dsc.tails;
        FUZZ_CHECK(counts.size() == std::size_t(bins), "describe: " + str(double(counts.size())) + " bins for " + str(bins));
        FUZZ_CHECK(s.n == double(x.size()), "describe: n = " + str(s.n) + " for " + str(double(x.size())) + " values");
        std::uint64_t inside = 0, counted = 0;
        double mn = INFINITY, mx = -INFINITY;
        for (float v : x) inside += v >= lo && v <= hi, mn = std::min(mn, double(v)), mx = std::max(mx, double(v));
        for (auto c : counts) counted += c;
        FUZZ_CHECK(counted == inside, "describe counted " + str(double(counted)) + " of " + str(double(inside)) + " values in [lo, hi]");
        const double slack = 1e-9 * std::max(std::abs(mn), std::abs(mx));
        FUZZ_CHECK(s.mean >= mn - slack && s.mean <= mx + slack, "describe: mean " + str(s.mean) + " outside [" + str(mn) + ", " + str(mx) + "]");
        FUZZ_CHECK(s.variance >= 0, "describe: variance " + str(s.variance));
        // mean of t_i² with mean of t_i = 1 (t_i = d_i²/m₂): at least 1 by Jensen, unless x is constant
        FUZZ_CHECK(t.kurtosis >= 1 - 1e-9 || (std::isnan(t.kurtosis) && mn == mx), "describe: kurtosis " + str(t.kurtosis));
        FUZZ_CHECK(t.fourth >= 0, "describe: E[x⁴] = " + str(t.fourth));
        // an interval's lower end is inside what its statistic can take (or NaN: none)
        FUZZ_CHECK(!(s.variance_lo < 0), "describe: variance interval from " + str(s.variance_lo));
        FUZZ_CHECK(!(t.fourth_lo < 0), "describe: E[x⁴] interval from " + str(t.fourth_lo));
        FUZZ_CHECK(!(t.kurtosis_lo < std::min(1.0, t.kurtosis)), "describe: kurtosis interval from " + str(t.kurtosis_lo));
        // …and holds its estimate (NaN: no interval)
        const auto holds = [](double lo, double v, double hi) { return std::isnan(lo) || (lo <= v && v <= hi); };
        FUZZ_CHECK(holds(s.variance_lo, s.variance, s.variance_hi), "describe: variance " + str(s.variance) + " outside its interval");
        FUZZ_CHECK(holds(t.fourth_lo, t.fourth, t.fourth_hi), "describe: E[x⁴] " + str(t.fourth) + " outside its interval");
        FUZZ_CHECK(holds(t.kurtosis_lo, t.kurtosis, t.kurtosis_hi), "describe: kurtosis " + str(t.kurtosis) + " outside its interval");
        break;
      }
      case 5: {  // rowSummaries
        const double rows = in.size(), cols = in.size();
        const std::vector<float> x = in.floats(rows * cols);
        static std::vector<double> sums;
        if (!fuzz::call("rowSummaries", [&] { api::row_summaries(sums, {x.data(), x.size()}, rows, cols); })) break;
        const auto R = std::size_t(rows), C = std::size_t(cols);
        FUZZ_CHECK(sums.size() == 4 * R, "rowSummaries length " + str(double(sums.size())) + " for rows " + str(rows));
        for (std::size_t r = 0; r < R; ++r) {
          const float* row = x.data() + r * C;
          const double mn = *std::min_element(row, row + C), mx = *std::max_element(row, row + C);
          const double slack = 1e-9 * std::max(std::abs(mn), std::abs(mx));
          const double mean = sums[r], lo = sums[R + r], hi = sums[2 * R + r], median = sums[3 * R + r];
          FUZZ_CHECK(mean >= mn - slack && mean <= mx + slack, "rowSummaries: mean " + str(mean) + " outside [" + str(mn) + ", " + str(mx) + "]");
          // an interval needs two values: a row of one gives none (NaN)
          if (C > 1) FUZZ_CHECK(lo <= mean && mean <= hi, "rowSummaries: mean " + str(mean) + " outside its interval");
          else FUZZ_CHECK(std::isnan(lo) && std::isnan(hi), "rowSummaries: an interval " + str(lo) + ", " + str(hi) + " from one value");
          FUZZ_CHECK(median >= mn && median <= mx, "rowSummaries: median " + str(median) + " outside [" + str(mn) + ", " + str(mx) + "]");
          std::size_t below = 0, above = 0;
          for (std::size_t c = 0; c < C; ++c) below += row[c] < median, above += row[c] > median;
          FUZZ_CHECK(2 * below <= C && 2 * above <= C, "rowSummaries: median " + str(median) + " is not in the middle of row " + str(double(r)));
        }
        break;
      }
    }
  }
  // The API stays usable after any error: a small valid call succeeds.
  api::sample_dot_products(out, 4, 3, 1, Distribution{});
  FUZZ_CHECK(out.size() == 3 && fuzz::all_finite(out), "sampleDotProducts after the input");
  return 0;
}
