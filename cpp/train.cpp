// The training ablation's model, data and optimizers (shapes and passes in train.hpp).
//                                                                        (eq:training-ablation)
// Written once as templates: float runs the fast matmul_nn/matmul_tn kernels (the trainer),
// double runs their `_ref` twins (the finite-difference test). The per-example dot products and
// softmaxes are fixed-order loops with portable_exp/portable_log, so float results are the same
// in every build (train.hpp, "Determinism").
#include "train.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels.hpp"
#include "rng.hpp"

namespace attnlab {
namespace {

template <class T> Mat<const T> in(Mat<T> m) { return m; }

// softmax of one row in place with max subtraction; e_j = exp(s_j − m) in (0, 1], so no overflow.
template <class T>
void softmax_in_place(T* s, std::size_t n) {
  T m = -std::numeric_limits<T>::infinity();
  for (std::size_t j = 0; j < n; ++j) m = std::max(m, s[j]);
  T sum = 0;
  for (std::size_t j = 0; j < n; ++j) sum += (s[j] = static_cast<T>(portable_exp(double(s[j] - m))));
  for (std::size_t j = 0; j < n; ++j) s[j] /= sum;
}

// H = −Σ_j p_j ln p_j, with 0 ln 0 = 0.
template <class T>
double entropy(const T* p, std::size_t n) {
  double h = 0;
  for (std::size_t j = 0; j < n; ++j)
    if (p[j] > 0) h -= double(p[j]) * portable_log(double(p[j]));
  return h;
}

}  // namespace

template <class T>
void make_batch(Batch<T>& out, const ModelShape& s, double query_noise, std::uint64_t seed,
                std::uint64_t index) {
  const std::size_t B = s.batch, L = s.seq_len, dm = s.dm(), dx = s.dx;
  Rng rng(seed, 1 + index);
  out.x.assign(B * L * dm, T(0));
  out.xq.assign(B * dm, T(0));
  out.y.resize(B);
  out.target.resize(B);
  std::vector<int> cls(L);
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t j = 0; j < L; ++j) {                       // token j = [key_j ; onehot(y_j)]
      T* xj = out.x.data() + (b * L + j) * dm;
      for (std::size_t i = 0; i < dx; ++i) xj[i] = static_cast<T>(rng.normal());
      cls[j] = static_cast<int>(rng.next_u64() % s.classes);
      xj[dx + cls[j]] = 1;
    }
    const std::size_t t = static_cast<std::size_t>(rng.next_u64() % L);
    const T* key = out.x.data() + (b * L + t) * dm;
    T* q = out.xq.data() + b * dm;                                // query = [key_t + noise ; 0]
    for (std::size_t i = 0; i < dx; ++i) q[i] = static_cast<T>(double(key[i]) + query_noise * rng.normal());
    out.y[b] = cls[t];
    out.target[b] = static_cast<int>(t);
  }
}

template <class T>
void init_params(std::vector<T>& p, const ModelShape& s, Init init, double sigma, std::uint64_t seed) {
  p.assign(s.n_params(), T(0));
  Rng rng(seed, 0);
  const Weights<T> w = weights_of(s, p.data());
  for (const Mat<T>& m : {w.wq, w.wk, w.wv, w.wo}) {
    const double fan_in = double(m.rows), fan_out = double(m.cols);
    for (std::size_t i = 0; i < m.size(); ++i) {
      double v = 0;
      switch (init) {
        case Init::xavier_uniform: v = std::sqrt(6 / (fan_in + fan_out)) * (2 * rng.uniform() - 1); break;
        case Init::xavier_normal: v = std::sqrt(2 / (fan_in + fan_out)) * rng.normal(); break;
        case Init::lecun: v = std::sqrt(1 / fan_in) * rng.normal(); break;
        case Init::custom: v = sigma * rng.normal(); break;
      }
      m.data[i] = static_cast<T>(v);
    }
  }
  *w.log_tau = static_cast<T>(0.5 * portable_log(double(s.dk)));  // τ = √dk
}

template <class T>
T scale_of(Scaling scaling, std::size_t dk, T log_tau) {
  switch (scaling) {
    case Scaling::inv_sqrt_dk: return T(1) / std::sqrt(T(dk));
    case Scaling::none: return T(1);
    case Scaling::inv_dk: return T(1) / T(dk);
    case Scaling::learned: {  // α = 1/τ = e^−θ (portable_exp is for arguments <= 0)
      const double th = double(log_tau);
      return static_cast<T>(th >= 0 ? portable_exp(-th) : 1 / portable_exp(th));
    }
  }
  return T(1);
}

template <class T>
StepStats forward_backward(const ModelShape& s, Scaling scaling, const T* params, const Batch<T>& b,
                           T* grad, Workspace<T>& ws) {
  const std::size_t B = s.batch, L = s.seq_len, N = B * L, dm = s.dm(), dk = s.dk, dv = s.dv, C = s.classes;
  ATTN_CHECK(b.x.size() == N * dm && b.xq.size() == B * dm && b.y.size() == B);
  const Weights<const T> w = weights_of(s, params);
  const T alpha = scale_of(scaling, dk, *w.log_tau);
  for (auto* v : {&ws.r, &ws.p, &ws.dp, &ws.ds}) v->resize(B * L);
  ws.q.resize(B * dk); ws.dq.resize(B * dk);
  ws.k.resize(N * dk); ws.dk.resize(N * dk);
  ws.v.resize(N * dv); ws.dv.resize(N * dv);
  ws.o.resize(B * dv); ws.dout.resize(B * dv);
  ws.z.resize(B * C); ws.dz.resize(B * C);
  const Mat<const T> X{b.x.data(), N, dm}, Xq{b.xq.data(), B, dm};
  const Mat<T> Q{ws.q.data(), B, dk}, K{ws.k.data(), N, dk}, V{ws.v.data(), N, dv};
  const Mat<T> R{ws.r.data(), B, L}, P{ws.p.data(), B, L}, O{ws.o.data(), B, dv}, Z{ws.z.data(), B, C};
  const Mat<T> dZ{ws.dz.data(), B, C};
  StepStats st;
  st.scale = double(alpha);

  // pass 1: Q = Xq Wq [B, dk], K = X Wk [N, dk], V = X Wv [N, dv]
  matmul_nn(Q, Xq, w.wq);
  matmul_nn(K, X, w.wk);
  matmul_nn(V, X, w.wv);
  for (std::size_t e = 0; e < B; ++e) {
    // pass 2: r_j = q · k_j (fixed order), s_j = α r_j (kept in P's row)
    for (std::size_t j = 0; j < L; ++j) {
      R(e, j) = dot_ref(Q.row_vec(e), K.row_vec(e * L + j));
      P(e, j) = alpha * R(e, j);
    }
    // pass 3: P_e = softmax(s_e)
    softmax_in_place(P.row(e), L);
    st.entropy += entropy(P.row(e), L);
    // pass 4: o_e = P_e V_e [1, dv], V_e the example's L rows of V
    matmul_nn(O.row_block(e, 1), in(P.row_block(e, 1)), in(V.row_block(e * L, L)));
  }
  // pass 5: Z = O Wo [B, C]
  matmul_nn(Z, in(O), w.wo);
  // pass 6: ℓ_e = lse(z_e) − z_e,y in double; dZ = (softmax(z_e) − onehot(y_e)) / B on the way
  for (std::size_t e = 0; e < B; ++e) {
    const T* z = Z.row(e);
    const int y = b.y[e];
    std::size_t arg = 0;
    for (std::size_t c = 1; c < C; ++c)
      if (z[c] > z[arg]) arg = c;
    const double m = double(z[arg]);
    double sum = 0;
    for (std::size_t c = 0; c < C; ++c) sum += portable_exp(double(z[c]) - m);
    st.loss += m + portable_log(sum) - double(z[y]);
    st.accuracy += arg == std::size_t(y) ? 1 : 0;
    if (grad)
      for (std::size_t c = 0; c < C; ++c)
        dZ(e, c) = static_cast<T>((portable_exp(double(z[c]) - m) / sum - (c == std::size_t(y) ? 1 : 0)) / double(B));
  }
  st.loss /= double(B);
  st.accuracy /= double(B);
  st.entropy /= double(B);
  if (!grad) return st;

  // Backward: each pass in reverse.
  std::fill(grad, grad + s.n_params(), T(0));
  const Weights<T> g = weights_of(s, grad);
  const Mat<T> dO{ws.dout.data(), B, dv}, dP{ws.dp.data(), B, L}, dS{ws.ds.data(), B, L};
  const Mat<T> dQ{ws.dq.data(), B, dk}, dK{ws.dk.data(), N, dk}, dV{ws.dv.data(), N, dv};
  // pass 5 was Z = O Wo: dWo = Oᵀ dZ [dv, C], dO_ei = Σ_c dZ_ec Wo_ic [B, dv]
  matmul_tn(g.wo, in(O), in(dZ));
  for (std::size_t e = 0; e < B; ++e)
    for (std::size_t i = 0; i < dv; ++i) dO(e, i) = dot_ref(dZ.row_vec(e), w.wo.row_vec(i));
  for (std::size_t e = 0; e < B; ++e) {
    // pass 4 was o_e = Σ_j P_ej v_j: dP_ej = dO_e · v_j, dV_e = P_eᵀ dO_e [L, dv]
    for (std::size_t j = 0; j < L; ++j) dP(e, j) = dot_ref(dO.row_vec(e), V.row_vec(e * L + j));
    matmul_tn(dV.row_block(e * L, L), in(P.row_block(e, 1)), in(dO.row_block(e, 1)));
  }
  // pass 3 was P = softmax(s): dS_ej = P_ej (dP_ej − Σ_l P_el dP_el)
  softmax_backward_rows_ref(dS, in(P), in(dP));
  // the recorded gradient norm: per example ‖∂ℓ_e/∂s_e‖ = B‖dS_e‖ (dS carries the mean's 1/B)
  for (std::size_t e = 0; e < B; ++e) {
    double n2 = 0;
    for (std::size_t j = 0; j < L; ++j) n2 += double(dS(e, j)) * double(dS(e, j));
    st.grad_norm += std::sqrt(n2) * double(B);
  }
  st.grad_norm /= double(B);
  // pass 2 was s = α r: for the learned α = e^−θ, ∂s/∂θ = −s, so dθ = −Σ dS ⊙ s; then dR = α dS
  if (scaling == Scaling::learned) {
    T d = 0;
    for (std::size_t i = 0; i < B * L; ++i) d -= dS.data[i] * (alpha * R.data[i]);
    *g.log_tau = d;
  }
  scale_ref(dS, in(dS), alpha);  // dS now holds dR
  //   and r_j = q · k_j: dq_e = Σ_j dR_ej k_j = dR_e K_e [1, dk], dK_e = dR_eᵀ q_e [L, dk]
  for (std::size_t e = 0; e < B; ++e) {
    matmul_nn(dQ.row_block(e, 1), in(dS.row_block(e, 1)), in(K.row_block(e * L, L)));
    matmul_tn(dK.row_block(e * L, L), in(dS.row_block(e, 1)), in(Q.row_block(e, 1)));
  }
  // pass 1 was Q = Xq Wq, K = X Wk, V = X Wv: dWq = Xqᵀ dQ, dWk = Xᵀ dK, dWv = Xᵀ dV
  matmul_tn(g.wq, Xq, in(dQ));
  matmul_tn(g.wk, X, in(dK));
  matmul_tn(g.wv, X, in(dV));
  return st;
}

// ------------------------------------------------------------------------------------ Trainer

Trainer::Trainer(const TrainConfig& config) : config_(config) {
  init_params(init_, config_.shape, config_.init, config_.sigma, config_.seed);
  for (std::size_t i = 0; i < kScalings; ++i) variants_[i].scaling = static_cast<Scaling>(i);
  reset();
}

void Trainer::reset() {
  const std::size_t n = init_.size();
  for (Variant& var : variants_) {
    var.w = init_;
    var.g.assign(n, 0.f);
    var.m.assign(n, 0.f);
    var.v.assign(config_.optimizer == Optimizer::adam ? n : 0, 0.f);
    var.curves = {};
  }
  steps_ = 0;
  beta1_t_ = beta2_t_ = 1;
}

void Trainer::step(std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    make_batch(batch_, config_.shape, config_.query_noise, config_.seed, steps_);
    beta1_t_ *= config_.beta1;
    beta2_t_ *= config_.beta2;
    for (Variant& var : variants_) {
      const StepStats st = forward_backward(config_.shape, var.scaling, var.w.data(), batch_, var.g.data(), ws_);
      var.curves.loss.push_back(static_cast<float>(st.loss));
      var.curves.accuracy.push_back(static_cast<float>(st.accuracy));
      var.curves.entropy.push_back(static_cast<float>(st.entropy));
      var.curves.grad_norm.push_back(static_cast<float>(st.grad_norm));
      var.curves.scale.push_back(static_cast<float>(st.scale));
      update(var);
    }
    ++steps_;
  }
}

// SGD with momentum (PyTorch's form):  m ← μ m + g,  w ← w − lr m
// Adam (Kingma & Ba):  m ← β1 m + (1−β1) g,  v ← β2 v + (1−β2) g²,
//                      w ← w − lr (m / (1−β1^t)) / (√(v / (1−β2^t)) + ε)
void Trainer::update(Variant& var) {
  const std::size_t n = var.w.size();
  const float lr = static_cast<float>(config_.lr);
  float* w = var.w.data();
  const float* g = var.g.data();
  float* m = var.m.data();
  if (config_.optimizer == Optimizer::sgd) {
    const float mu = static_cast<float>(config_.momentum);
    for (std::size_t i = 0; i < n; ++i) {
      m[i] = mu * m[i] + g[i];
      w[i] -= lr * m[i];
    }
    return;
  }
  float* v = var.v.data();
  const float b1 = static_cast<float>(config_.beta1), b2 = static_cast<float>(config_.beta2);
  const float c1 = static_cast<float>(1 - config_.beta1), c2 = static_cast<float>(1 - config_.beta2);
  const float bc1 = static_cast<float>(1 - beta1_t_), bc2 = static_cast<float>(1 - beta2_t_);
  const float eps = static_cast<float>(config_.eps);
  for (std::size_t i = 0; i < n; ++i) {
    m[i] = b1 * m[i] + c1 * g[i];
    v[i] = b2 * v[i] + c2 * (g[i] * g[i]);
    w[i] -= lr * (m[i] / bc1) / (std::sqrt(v[i] / bc2) + eps);
  }
}

#define ATTNLAB_TRAIN_INSTANTIATE(T)                                                              \
  template void make_batch<T>(Batch<T>&, const ModelShape&, double, std::uint64_t, std::uint64_t); \
  template void init_params<T>(std::vector<T>&, const ModelShape&, Init, double, std::uint64_t);   \
  template T scale_of<T>(Scaling, std::size_t, T);                                                 \
  template StepStats forward_backward<T>(const ModelShape&, Scaling, const T*, const Batch<T>&, T*, \
                                         Workspace<T>&);
ATTNLAB_TRAIN_INSTANTIATE(float)
ATTNLAB_TRAIN_INSTANTIATE(double)
#undef ATTNLAB_TRAIN_INSTANTIATE

}  // namespace attnlab
