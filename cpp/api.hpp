// The checked entry points behind the JavaScript API (and usable from C++).
//
// Kernels trust their views; these functions do not trust anything. Sizes arrive as doubles
// (JavaScript numbers) and are validated (finite, integer, in range) and multiplied with overflow
// checks before any allocation. Every failure is an ApiError whose message names the function and
// the argument ("attention: q has 100 elements, expected nq*dk = 128") and whose code is one of
// BAD_SIZE, SIZE_LIMIT, SHAPE_MISMATCH, BAD_VALUE. Outputs go to caller-owned vectors, resized
// here, so a caller that keeps them reuses their memory from call to call; the softmax and
// attention entry points also write into memory the caller lends (Out).
//
// Values (docs/RELIABILITY.md): every float input must be finite, except that logits and biases
// may be -Infinity (it masks); a NaN or ±Infinity elsewhere is a BAD_VALUE naming its index. A
// result that overflows float32 is refused as a BAD_VALUE, never returned as ±inf or NaN. Two
// documented exceptions: softmaxNaive returns IEEE results (it exists to show the overflow), and
// softmax of a row that is -Infinity throughout is NaN, as torch.softmax (attention treats that
// row as fully masked: zero weights, output and gradients).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rng.hpp"
#include "stats.hpp"
#include "view.hpp"

namespace attnlab::api {

struct ApiError : Error {
  std::string code;
  ApiError(std::string c, const std::string& msg) : Error(msg), code(std::move(c)) {}
};

// Limits, documented in the README: one array holds at most 2^24 floats (64 MiB), a dimension is
// at most 2^16, a sample count at most 2^24.
constexpr std::size_t kMaxElements = std::size_t(1) << 24;
constexpr std::size_t kMaxDim = std::size_t(1) << 16;
constexpr std::size_t kMaxCount = std::size_t(1) << 24;
constexpr std::size_t kMaxBins = 4096;

// Where a float result goes: a vector, resized to the result (so a caller that keeps it reuses
// its memory), or memory the caller lends (the JavaScript API's workspace views), which must hold
// exactly the result: a lent block of another length is a SHAPE_MISMATCH naming it.
class Out {
 public:
  Out(std::vector<float>& v) : vec_(&v) {}  // implicit: every vector argument stays valid
  Out(Vec<float> lent, const char* name) : lent_(lent), name_(name) {}
  // the n floats of the result; `expr` names n in the message ("rows*cols")
  Vec<float> take(const char* fn, std::size_t n, const char* expr) const;

 private:
  std::vector<float>* vec_ = nullptr;
  Vec<float> lent_{};
  const char* name_ = "";
};

enum class SoftmaxKind : int { stable = 0, naive = 1, log = 2 };
void softmax(Out out, Vec<const float> x, double rows, double cols,
             SoftmaxKind kind = SoftmaxKind::stable);

// dx = p ⊙ (dp − Σ p dp) row by row, for p and dp of shape (rows, cols).
void softmax_backward(Out dx, Vec<const float> p, Vec<const float> dp, double rows, double cols);

struct AttentionArgs {
  Vec<const float> q, k, v;
  Vec<const std::uint8_t> mask;  // nq*nk entries, nonzero = attend; read only if has_mask
  bool has_mask = false;
  Vec<const float> bias;          // nq*nk entries added to the scaled scores; read only if has_bias
  bool has_bias = false;
  double nq = 0, nk = 0, dk = 0, dv = 0;
  double scale = 0;
  bool has_scale = false;         // false: scale = 1/√dk
  bool causal = false;
};
void attention(Out out, Out weights, const AttentionArgs& a);
void attention_backward(Out dq, Out dk, Out dv, const AttentionArgs& a, Vec<const float> dout);

// out_i = max_j p_ij and H_i = −Σ_j p_ij log p_ij for p of shape (rows, cols).
void row_stats(std::vector<float>& max, std::vector<float>& entropy, Vec<const float> p,
               double rows, double cols);

Distribution distribution(const char* fn, double kind, double mean, double std, double df = 5);
std::uint64_t seed_arg(const char* fn, const char* name, double v);

void sample_dot_products(std::vector<float>& out, double dk, double count, double seed,
                         const Distribution& d, double first = 0, double rho = 0, bool layernorm = false);

// Five per-row statistics of softmax(scale·K q) (see sampling.hpp), each `rows` long, into out[0..4]:
// max weight, entropy, ‖J‖_F, mean gradient norm at non-max logits, score variance.
void sample_softmax_rows(std::vector<float> (&out)[5], double dk, double n, double rows, double scale,
                         double seed, double first = 0);

// The same five statistics of softmax(scale·scores) for given scores (rows, n): sample_softmax_rows is
// score_stats of sample_scores at scale 1, bit for bit, so one draw serves several scales.
void score_stats(std::vector<float> (&out)[5], Vec<const float> scores, double rows, double n, double scale);

// Scores (rows, n) of one random query against n random keys per row (see sampling.hpp), scaled.
void sample_scores(std::vector<float>& out, double dk, double n, double rows, double scale, double seed,
                   double first = 0);

// S = scale · Q Kᵀ (nq, nk) for q (nq, dk), k (nk, dk).
void scores(Out out, Vec<const float> q, Vec<const float> k, double nq, double nk,
            double dk, double scale);
// C = A B for a (m, k) and b (k, n), into out (m*n floats).
void matmul(Out out, Vec<const float> a, Vec<const float> b, double m, double k, double n);
// out_i = a_i · b_i for a, b of shape (rows, cols): the scores of matched (q, k) pairs.
void row_dots(Out out, Vec<const float> a, Vec<const float> b, double rows, double cols);
// J = diag(p) − p pᵀ (n, n) for p of length n.
void softmax_jacobian(std::vector<float>& out, Vec<const float> p);
// count entries of stream `stream`, into out (a vector, or a lent block of count floats).
void sample_entries(Out out, double count, double seed, const Distribution& d, double stream = 0);

// Summary and tails of x, and with `counts`, a histogram of `bins` bins over [lo, hi] (the
// histogram costs about as much as the moments: leave it out when only the moments are wanted).
struct Description {
  Summary summary;
  Tails tails;
};
Description describe(Vec<const float> x);
Description describe(std::vector<std::uint32_t>& counts, Vec<const float> x, double bins, double lo,
                     double hi);

// Per row of x (rows, cols), row-major: its mean with the mean's 95% interval (as describe gives
// them) and its median, into out as four columns of `rows` values: the means, the intervals' lower
// ends, their upper ends, the medians. The statistics of a sweep's per-row values in one call
// rather than one describe per row.
void row_summaries(std::vector<double>& out, Vec<const float> x, double rows, double cols);

// ---------------------------------------------------------------------------------------------
// Training ablation (train.hpp): trainers live here, addressed by a handle, until destroyed.
// Messages use the JavaScript names: createTrainer, trainer.step, trainer.reset, trainer.curves,
// trainer.dispose; the arguments as engine.createTrainer names them (seqLen, queryNoise, …).
constexpr std::size_t kMaxTrainers = 64;           // live at once
constexpr std::size_t kMaxTrainSteps = 1u << 18;   // per trainer between resets (curves: 80 B/step)
constexpr std::size_t kMaxTrainParams = 1u << 20;  // per variant; a trainer holds 16 floats per parameter

struct TrainArgs {
  double dk = 64, dv = 16, dx = 16, classes = 8, seq_len = 8, batch = 16;
  double optimizer = 1;  // 0 'sgd' (with momentum), 1 'adam'
  double lr = 1e-2, momentum = 0.9, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double init = 0;       // 0 'xavier-uniform', 1 'xavier-normal', 2 'lecun', 3 'custom' (N(0, sigma²))
  double sigma = 0.02, query_noise = 0, seed = 1;
};
double train_create(const TrainArgs& a);        // → the new trainer's handle
void train_step(double handle, double n);
void train_reset(double handle);
void train_destroy(double handle);
// The curves of variant (0 1/√dk, 1 none, 2 1/dk, 3 learned) from step `from` on, into out[0..4]:
// loss, accuracy, entropy, gradient norm at the logits, scale.
void train_curves(std::vector<float> (&out)[5], double handle, double variant, double from);

}  // namespace attnlab::api
