// libFuzzer harness: the trainer entry points of the checked API (api.hpp): createTrainer with
// fuzzed options, then up to eight of step, curves, reset, dispose, a replay (reset and step
// again) and calls on handles that are disposed or were never issued. Every trainer the input
// creates is disposed at its end. Calls whose accepted sizes would cost more than kBudget per
// step, or more than kMaxSteps steps per input, are skipped: the API itself accepts step(2^18)
// (about 4 minutes natively at the default sizes) and models of up to 2^20 parameters.
//   Every call returns or throws ApiError (fuzz_input.hpp: call). When it returns:
//   - createTrainer gives a new integer handle >= 1, never one seen before;
//   - a disposed or never-issued handle is refused by every call;
//   - curves(variant, from) gives five series of steps − from points; accuracy in [0, 1]; loss,
//     entropy and gradient norm >= 0 (or NaN once training diverged); the scale is 1/√dk, 1 and
//     1/dk for variants 0-2 and >= 0 (or NaN) for the learned one;
//   - reset() then the same number of steps gives the same curves, bit for bit.
// Run: bash tools/fuzz.sh 60 train_step
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>

#include "fuzz_input.hpp"

using namespace attnlab;
using fuzz::str;

namespace {

constexpr double kBudget = double(1 << 19);  // multiply-adds per variant and step, roughly
constexpr std::size_t kMaxSteps = 8;          // per input, over all trainers

struct Live {
  double handle;
  std::size_t steps;
  double dk;
};

api::TrainArgs decode_args(fuzz::Input& in) {
  api::TrainArgs a;
  // Sizes start from a small model (the API's defaults, dk = 64, B = 16, …, take ~60 ms a step
  // under the sanitizers, a few hundred times the small one); each option is then kept (most
  // often), a small valid size, or a fuzzed size or real.
  a.dk = 8, a.dv = 4, a.dx = 4, a.classes = 3, a.seq_len = 4, a.batch = 4;
  auto size = [&](double& f) {
    const std::uint8_t s = in.byte();
    if (s >= 128) f = s < 224 ? 1 + in.byte() % 24 : in.size();
  };
  auto real = [&](double& f) {
    if (in.byte() >= 160) f = in.real();
  };
  size(a.dk), size(a.dv), size(a.dx), size(a.classes), size(a.seq_len), size(a.batch);
  real(a.optimizer), real(a.init);
  if (in.byte() >= 192) a.optimizer = in.byte() % 2, a.init = in.byte() % 4;
  real(a.lr), real(a.momentum), real(a.beta1), real(a.beta2), real(a.eps), real(a.sigma), real(a.query_noise), real(a.seed);
  return a;
}

// A step's work for sizes the API would accept (over_budget's rule), or 0 for any other.
double step_cost(const api::TrainArgs& a) {
  for (double s : {a.dk, a.dv, a.dx, a.classes, a.seq_len, a.batch})
    if (!(std::isfinite(s) && s >= 1 && s == std::floor(s))) return 0;
  const double dm = a.dx + a.classes, tokens = a.batch * a.seq_len;
  const double params = 2 * dm * a.dk + dm * a.dv + a.dv * a.classes + 1;
  return tokens * dm * (a.dk + a.dv + 1) + a.batch * dm * a.dk + a.batch * a.dv * a.classes + params;
}

void curves_of(std::vector<float> (&out)[5], double handle, int variant) {
  FUZZ_CHECK(fuzz::call("trainer.curves", [&] { api::train_curves(out, handle, variant, 0); }), "curves(variant, 0) refused");
}

void check_curves(const std::vector<float> (&c)[5], const Live& t, int variant, double from) {
  const std::size_t n = t.steps - std::size_t(from);
  const std::string at = " (variant " + str(variant) + ", from " + str(from) + ", steps " + str(double(t.steps)) + ")";
  for (const auto& s : c) FUZZ_CHECK(s.size() == n, "curves length " + str(double(s.size())) + at);
  const float want[3] = {float(1 / std::sqrt(t.dk)), 1.f, float(1 / t.dk)};
  for (std::size_t i = 0; i < n; ++i) {
    const std::string where = " at point " + str(double(i)) + at;
    FUZZ_CHECK(c[1][i] >= 0 && c[1][i] <= 1, "accuracy " + str(c[1][i]) + where);
    FUZZ_CHECK(std::isnan(c[0][i]) || c[0][i] >= -1e-5f, "loss " + str(c[0][i]) + where);
    FUZZ_CHECK(std::isnan(c[2][i]) || c[2][i] >= -1e-5f, "entropy " + str(c[2][i]) + where);
    FUZZ_CHECK(std::isnan(c[3][i]) || c[3][i] >= 0, "gradient norm " + str(c[3][i]) + where);
    if (variant < 3)
      FUZZ_CHECK(std::abs(c[4][i] - want[variant]) <= 1e-6f * want[variant], "scale " + str(c[4][i]) + ", expected " + str(want[variant]) + where);
    else
      FUZZ_CHECK(std::isnan(c[4][i]) || c[4][i] >= 0, "learned scale " + str(c[4][i]) + where);
  }
}

bool same(const std::vector<float> (&a)[5], const std::vector<float> (&b)[5]) {
  for (int s = 0; s < 5; ++s)
    if (a[s].size() != b[s].size() || std::memcmp(a[s].data(), b[s].data(), a[s].size() * sizeof(float)) != 0) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  static std::set<double> issued;  // every handle seen, over the whole run: none is reused
  static std::vector<float> c[5], again[5];
  std::vector<Live> live;
  std::vector<double> dead;
  std::size_t steps_left = kMaxSteps;

  // The handle an op acts on: a live one (most often), a disposed one or any number.
  auto pick = [&](bool& valid) -> Live* {
    const std::uint8_t s = in.byte();
    valid = false;
    if (s < 200 && !live.empty()) return valid = true, &live[s % live.size()];
    static Live other;
    other = {s < 230 && !dead.empty() ? dead[s % dead.size()] : in.real(), 0, 1};
    // A number that happens to be a live handle is that trainer (those of earlier inputs are
    // all disposed, so they count as never issued).
    for (Live& t : live)
      if (t.handle == other.handle) return valid = true, &t;
    return &other;
  };

  for (int op = 0; op < 8 && (op == 0 || !in.empty()); ++op) {
    const std::uint8_t kind = op == 0 ? 0 : in.byte() % 6;
    if (kind == 0) {  // createTrainer
      const api::TrainArgs a = decode_args(in);
      if (live.size() >= 3 || step_cost(a) > kBudget) continue;
      double h = 0;
      if (!fuzz::call("createTrainer", [&] { h = api::train_create(a); })) continue;
      FUZZ_CHECK(h >= 1 && h == std::floor(h) && !issued.count(h), "createTrainer returned handle " + str(h));
      issued.insert(h);
      live.push_back({h, 0, a.dk});
      continue;
    }
    bool valid;
    Live* t = pick(valid);
    switch (kind) {
      case 1: {  // step(n)
        const double n = in.flag() ? in.size() : 1 + in.byte() % 4;
        if (valid && n >= 1 && n == std::floor(n) && n > double(steps_left) && n <= double(api::kMaxTrainSteps)) break;
        const bool ok = fuzz::call("trainer.step", [&] { api::train_step(t->handle, n); });
        if (!valid) FUZZ_CHECK(!ok, "trainer.step accepted handle " + str(t->handle));
        if (ok) t->steps += std::size_t(n), steps_left -= std::size_t(n);
        break;
      }
      case 2: {  // curves(variant, from)
        const double variant = in.flag() ? in.real() : in.byte() % 4;
        const double from = in.flag() ? in.real() : double(in.byte() % (t->steps + 2));
        const bool ok = fuzz::call("trainer.curves", [&] { api::train_curves(c, t->handle, variant, from); });
        if (!valid) FUZZ_CHECK(!ok, "trainer.curves accepted handle " + str(t->handle));
        if (ok) check_curves(c, *t, int(variant), from);
        break;
      }
      case 3: {  // reset
        const bool ok = fuzz::call("trainer.reset", [&] { api::train_reset(t->handle); });
        FUZZ_CHECK(ok == valid, "trainer.reset on handle " + str(t->handle) + (valid ? " refused" : " accepted"));
        if (ok) t->steps = 0;
        break;
      }
      case 4: {  // dispose
        const bool ok = fuzz::call("trainer.dispose", [&] { api::train_destroy(t->handle); });
        FUZZ_CHECK(ok == valid, "trainer.dispose on handle " + str(t->handle) + (valid ? " refused" : " accepted"));
        if (ok) {
          dead.push_back(t->handle);
          live.erase(live.begin() + (t - live.data()));
        }
        break;
      }
      case 5: {  // replay: the curves so far, reset, the same steps, the same curves
        if (!valid || t->steps == 0 || t->steps > steps_left) break;
        const int variant = in.byte() % 4;
        curves_of(c, t->handle, variant);
        const std::size_t n = t->steps;
        FUZZ_CHECK(fuzz::call("trainer.reset", [&] { api::train_reset(t->handle); }), "reset refused");
        FUZZ_CHECK(fuzz::call("trainer.step", [&] { api::train_step(t->handle, double(n)); }), "step refused after reset");
        steps_left -= n;
        curves_of(again, t->handle, variant);
        FUZZ_CHECK(same(c, again), "the curves after reset() and " + str(double(n)) + " steps differ from the first run");
        break;
      }
    }
  }
  for (const Live& t : live)
    FUZZ_CHECK(fuzz::call("trainer.dispose", [&] { api::train_destroy(t.handle); }), "dispose refused at the end");
  return 0;
}
