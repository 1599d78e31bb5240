// Training ablation: one attention layer trained four times, side by side, from the same initial
// weights on the same batches, differing only in how the scores are scaled.   (eq:training-ablation)
//
// Task: key–value retrieval. Each example is a sequence of L tokens and one query:
//   token x_j = [key_j ; onehot(y_j)] in R^dm, dm = dx + C, key_j ~ N(0, I_dx), y_j uniform in 0…C−1
//   query x_q = [key_t + noise·N(0, I_dx) ; 0_C] for a target position t uniform in 0…L−1
//   label y = y_t: attention must learn to look at the key that matches the query, then read its value.
//
// Model (row vectors, weights stored (in, out), so q = x·Wq):
//   Wq (dm, dk), Wk (dm, dk), Wv (dm, dv), Wo (dv, C), θ = log τ (used by the learned variant only)
// Forward, for a batch of B examples (shapes in brackets):
//   pass 1: Q = Xq Wq [B, dk],  K = X Wk [B·L, dk],  V = X Wv [B·L, dv]
//   pass 2: r_bj = q_b · k_bj [B, L],  s = α r        α = 1/√dk | 1 | 1/dk | e^−θ (learned 1/τ)
//   pass 3: P_b = softmax(s_b) [B, L]
//   pass 4: o_b = Σ_j P_bj v_bj [B, dv]
//   pass 5: Z = O Wo [B, C]
//   pass 6: ℓ_b = logsumexp(z_b) − z_b,y_b,  loss = (1/B) Σ_b ℓ_b
// Backward: the passes in reverse (train.cpp), through every weight and θ.
//
// Per step and variant the trainer records, on the batch it is about to learn from (before the
// update): loss, accuracy (argmax z_b = y_b), mean attention entropy −Σ_j P_bj ln P_bj, the mean
// gradient norm at the attention logits ‖∂ℓ_b/∂s_b‖ (it vanishes when softmax saturates), and α.
//
// Determinism: the same config gives the same curves natively (the default SSE2 build), in wasm
// SIMD128 and in the scalar wasm build, bit for bit. Only kernels whose float results do not depend
// on the SIMD width or its horizontal adds are used: matmul_nn and matmul_tn accumulate every
// output in the order of the inner index in all builds, like their `_ref` twins. The dot products
// of pass 2 and the softmaxes are fixed-order loops here, with portable_exp/portable_log (rng.hpp)
// in place of the C library's, whose last bit differs between glibc and musl. (attention.hpp's
// composition is not used: its matmul_nt and softmax_rows reduce with horizontal adds, whose order
// differs between SSE2 natively and SSE4.1 in wasm.) In a -march=native build the products'
// multiply-adds stay a multiply and an add (-ffp-contract=off), as in the others; no test
// compares that build's curves with theirs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "view.hpp"

namespace attnlab {

enum class Scaling : int { inv_sqrt_dk = 0, none = 1, inv_dk = 2, learned = 3 };
constexpr std::size_t kScalings = 4;
enum class Init : int { xavier_uniform = 0, xavier_normal = 1, lecun = 2, custom = 3 };
enum class Optimizer : int { sgd = 0, adam = 1 };  // sgd: with momentum (0 gives plain SGD)

// The sizes of the task and the model (defaults as api::TrainArgs and engine.js TRAIN_DEFAULTS).
struct ModelShape {
  std::size_t dx = 16;       // key part of a token
  std::size_t classes = 8;   // C, the value part is onehot(y)
  std::size_t dk = 64;
  std::size_t dv = 16;
  std::size_t seq_len = 8;   // L
  std::size_t batch = 16;    // B
  std::size_t dm() const { return dx + classes; }
  // All parameters in one vector: [Wq | Wk | Wv | Wo | θ]
  std::size_t n_params() const { return 2 * dm() * dk + dm() * dv + dv * classes + 1; }
};

struct TrainConfig {
  ModelShape shape;
  double query_noise = 0;    // std of the noise added to the query's key
  Init init = Init::xavier_uniform;
  double sigma = 0.02;       // for Init::custom: N(0, σ²)
  Optimizer optimizer = Optimizer::adam;
  double lr = 1e-2;
  double momentum = 0.9;     // sgd
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // adam
  std::uint64_t seed = 1;
};

// Views of the parameter vector [Wq | Wk | Wv | Wo | θ].
template <class T>
struct Weights {
  Mat<T> wq, wk, wv, wo;
  T* log_tau;
};
template <class T>
Weights<T> weights_of(const ModelShape& s, T* p) {
  const std::size_t dm = s.dm();
  Weights<T> w;
  w.wq = {p, dm, s.dk};
  w.wk = {p + dm * s.dk, dm, s.dk};
  w.wv = {p + 2 * dm * s.dk, dm, s.dv};
  w.wo = {p + 2 * dm * s.dk + dm * s.dv, s.dv, s.classes};
  w.log_tau = p + s.n_params() - 1;
  return w;
}

// One batch: tokens x [B·L, dm], queries xq [B, dm], labels y [B] (and the targets t [B]).
template <class T>
struct Batch {
  std::vector<T> x, xq;
  std::vector<int> y, target;
};

// Batch `index` of the stream of `seed`: RNG stream 1 + index, so any batch is directly
// addressable and every variant (and every reset) sees the same data.
template <class T>
void make_batch(Batch<T>& out, const ModelShape& s, double query_noise, std::uint64_t seed,
                std::uint64_t index);

// The shared initial parameters, from RNG stream 0 of `seed`. Each matrix (fan_in, fan_out):
//   xavier_uniform U(−a, a), a = √(6/(fan_in + fan_out))   xavier_normal N(0, 2/(fan_in + fan_out))
//   lecun N(0, 1/fan_in)                                   custom N(0, σ²)
// θ = ln √dk, so the learned variant starts at τ = √dk, i.e. at the 1/√dk variant's scale.
template <class T>
void init_params(std::vector<T>& p, const ModelShape& s, Init init, double sigma, std::uint64_t seed);

// α for a scaling; for `learned`, e^−θ.
template <class T>
T scale_of(Scaling scaling, std::size_t dk, T log_tau);

struct StepStats {
  double loss = 0, accuracy = 0, entropy = 0, grad_norm = 0, scale = 0;
};

// Every intermediate of one forward and backward pass, reused from call to call.
template <class T>
struct Workspace {
  std::vector<T> q, k, v, r, p, o, z, dz, dout, dp, ds, dq, dk, dv;
};

// Forward (and, when grad is not null, backward) of the whole model on one batch. Returns the
// batch statistics; grad (n_params) receives ∂loss/∂params, with ∂/∂θ = 0 unless `learned`.
// grad_norm is only computed with the backward pass.
template <class T>
StepStats forward_backward(const ModelShape& s, Scaling scaling, const T* params, const Batch<T>& b,
                           T* grad, Workspace<T>& ws);

// The recorded curves of one variant, one entry per step.
struct Curves {
  std::vector<float> loss, accuracy, entropy, grad_norm, scale;
};

// The four variants, trained in lockstep in float. step(n) advances all of them n steps;
// reset() returns to the shared initialisation and the start of the batch stream.
class Trainer {
 public:
  explicit Trainer(const TrainConfig& config);  // config assumed valid (api.cpp checks it)
  void step(std::size_t n);
  void reset();
  std::size_t steps() const { return steps_; }
  const TrainConfig& config() const { return config_; }
  const Curves& curves(Scaling s) const { return variants_[static_cast<int>(s)].curves; }
  const std::vector<float>& params(Scaling s) const { return variants_[static_cast<int>(s)].w; }

 private:
  struct Variant {
    Scaling scaling;
    std::vector<float> w, g, m, v;  // parameters, gradient, optimizer moments (v: adam only)
    Curves curves;
  };
  void update(Variant& var);

  TrainConfig config_;
  std::vector<float> init_;
  std::array<Variant, kScalings> variants_;
  Batch<float> batch_;
  Workspace<float> ws_;
  std::size_t steps_ = 0;
  double beta1_t_ = 1, beta2_t_ = 1;  // β1^t, β2^t for Adam's bias correction
};

}  // namespace attnlab
