// The trainer entry points of the checked API (api.hpp "Training ablation"): trainers live here,
// addressed by a handle, until destroyed; every option is checked before a trainer is built.
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "api.hpp"
#include "api_args.hpp"
#include "train.hpp"

namespace attnlab::api {
using namespace detail;
namespace {

// Trainers by handle; handles count up from 1 and are never reused, so a stale one fails.
std::map<std::uint64_t, std::unique_ptr<Trainer>>& trainers() {
  static std::map<std::uint64_t, std::unique_ptr<Trainer>> live;
  return live;
}
std::uint64_t next_trainer = 1;

Trainer& trainer_of(const char* fn, double handle) {
  auto& live = trainers();
  const auto it = std::isfinite(handle) && handle >= 1 && handle == std::floor(handle) && handle < 9007199254740992.0
                      ? live.find(static_cast<std::uint64_t>(handle))
                      : live.end();
  if (it == live.end()) raise("BAD_VALUE", fn, "no trainer has handle " + num(handle) + " (was it disposed?)");
  return *it->second;
}

// A real-valued option: finite and `ok`, or a BAD_VALUE saying what `rule` asks.
double real_arg(const char* fn, const char* name, double v, bool ok, const char* rule) {
  if (!std::isfinite(v) || !ok) raise("BAD_VALUE", fn, std::string(name) + " must be " + rule + ", got " + num(v));
  return v;
}
// The trainer computes in float: a positive option must be a normal float32 once rounded (eps
// = 1e-46 rounds to 0, and Adam's steps on weights that get no gradient are then 0/0; lr or σ
// = 1e39 rounds to +inf), and a noise std must not round to +inf.
constexpr double kFltMin = std::numeric_limits<float>::min(), kFltMax = std::numeric_limits<float>::max();
double positive_float_arg(const char* fn, const char* name, double v) {
  return real_arg(fn, name, v, v >= kFltMin && v <= kFltMax, "> 0 and a normal float32 (1.2e-38 <= x <= 3.4e38)");
}

}  // namespace

double train_create(const TrainArgs& a) {
  const char* fn = "createTrainer";
  TrainConfig c;
  ModelShape& s = c.shape;
  s.dk = size_arg(fn, "dk", a.dk, kMaxDim);
  s.dv = size_arg(fn, "dv", a.dv, kMaxDim);
  s.dx = size_arg(fn, "dx", a.dx, kMaxDim);
  s.classes = size_arg(fn, "classes", a.classes, kMaxDim);
  if (s.classes < 2) raise("BAD_SIZE", fn, "classes must be at least 2, got " + num(a.classes));
  s.seq_len = size_arg(fn, "seqLen", a.seq_len, kMaxDim);
  s.batch = size_arg(fn, "batch", a.batch, kMaxDim);
  // every array the model holds: tokens [batch·seqLen, dx+classes], K and V, the weights
  const std::size_t tokens = product(fn, "batch*seqLen", s.batch, s.seq_len);
  product(fn, "batch*seqLen*(dx+classes)", tokens, s.dm());
  product(fn, "batch*seqLen*dk", tokens, s.dk);
  product(fn, "batch*seqLen*dv", tokens, s.dv);
  product(fn, "(dx+classes)*dk", s.dm(), s.dk);
  product(fn, "(dx+classes)*dv", s.dm(), s.dv);
  product(fn, "dv*classes", s.dv, s.classes);
  if (s.n_params() > kMaxTrainParams)
    raise("SIZE_LIMIT", fn, "the model has " + num(double(s.n_params())) + " parameters (2*(dx+classes)*dk + (dx+classes)*dv + dv*classes + 1), more than the limit of " + num(double(kMaxTrainParams)));
  if (!(a.optimizer == 0 || a.optimizer == 1)) raise("BAD_VALUE", fn, "optimizer must be 'sgd' or 'adam'");
  c.optimizer = static_cast<Optimizer>(static_cast<int>(a.optimizer));
  if (!(a.init == 0 || a.init == 1 || a.init == 2 || a.init == 3))
    raise("BAD_VALUE", fn, "init must be 'xavier-uniform', 'xavier-normal', 'lecun' or 'custom'");
  c.init = static_cast<Init>(static_cast<int>(a.init));
  c.lr = positive_float_arg(fn, "lr", a.lr);
  c.momentum = real_arg(fn, "momentum", a.momentum, a.momentum >= 0 && a.momentum < 1, "in [0, 1)");
  c.beta1 = real_arg(fn, "beta1", a.beta1, a.beta1 >= 0 && a.beta1 < 1, "in [0, 1)");
  c.beta2 = real_arg(fn, "beta2", a.beta2, a.beta2 >= 0 && a.beta2 < 1, "in [0, 1)");
  c.eps = positive_float_arg(fn, "eps", a.eps);
  c.sigma = positive_float_arg(fn, "sigma", a.sigma);
  c.query_noise = real_arg(fn, "queryNoise", a.query_noise, a.query_noise >= 0 && a.query_noise <= kFltMax,
                           ">= 0 and within float32 (<= 3.4e38)");
  c.seed = seed_arg(fn, "seed", a.seed);
  if (trainers().size() >= kMaxTrainers)
    raise("SIZE_LIMIT", fn, num(double(kMaxTrainers)) + " trainers exist, the limit: dispose() those no longer needed");
  auto t = std::make_unique<Trainer>(c);
  const std::uint64_t handle = next_trainer++;
  trainers().emplace(handle, std::move(t));
  return double(handle);
}

void train_step(double handle, double n_d) {
  const char* fn = "trainer.step";
  Trainer& t = trainer_of(fn, handle);
  const std::size_t n = size_arg(fn, "n", n_d, kMaxTrainSteps);
  if (t.steps() + n > kMaxTrainSteps)
    raise("SIZE_LIMIT", fn, "n = " + num(n_d) + " would take the trainer past the limit of " + num(double(kMaxTrainSteps)) +
                                " steps (it has run " + num(double(t.steps())) + "); reset() it");
  t.step(n);
}

void train_reset(double handle) { trainer_of("trainer.reset", handle).reset(); }

void train_destroy(double handle) {
  trainer_of("trainer.dispose", handle);
  trainers().erase(static_cast<std::uint64_t>(handle));
}

void train_curves(std::vector<float> (&out)[5], double handle, double variant, double from_d) {
  const char* fn = "trainer.curves";
  const Trainer& t = trainer_of(fn, handle);
  if (!(variant == 0 || variant == 1 || variant == 2 || variant == 3))
    raise("BAD_VALUE", fn, "variant must be 0 (1/sqrt(dk)), 1 (none), 2 (1/dk) or 3 (learned), got " + num(variant));
  if (!(std::isfinite(from_d) && from_d == std::floor(from_d) && from_d >= 0 && from_d <= double(t.steps())))
    raise("BAD_VALUE", fn, "from must be an integer in [0, " + num(double(t.steps())) + "], got " + num(from_d));
  const Curves& c = t.curves(static_cast<Scaling>(static_cast<int>(variant)));
  const std::size_t from = static_cast<std::size_t>(from_d);
  const std::vector<float>* series[5] = {&c.loss, &c.accuracy, &c.entropy, &c.grad_norm, &c.scale};
  for (int i = 0; i < 5; ++i) out[i].assign(series[i]->begin() + from, series[i]->end());
}

}  // namespace attnlab::api
