// The sampling experiments behind the derivation's statistical claims.
#pragma once

#include <cstdint>

#include "rng.hpp"

namespace attnlab {

// How a pair (q, k) departs from the derivation's premises.           (eq:breaking-assumptions)
struct PairOptions {
  double rho = 0;          // corr(q_i, k_i): k = ρ·a + √(1−ρ²)·b before the mean/std transform
  bool layernorm = false;  // then q ← (q − mean q)/std q and likewise k (population std; dk >= 2)
};

// (eq:dot-variance) out_i = q⁽ⁱ⁾ · k⁽ⁱ⁾ for independent pairs in R^dk with entries from `d`.
// Pair i draws from stream first + i of the seed, so any split of [0, count) into calls gives the
// same values. Standardized entries a, b are drawn first (q takes a, k takes b): for normal and
// Student-t entries the first dk and the next dk entries of the pair's NormalStream (kernels.hpp
// normals, student_t), for the other laws a then b from its Rng. They are correlated, then mapped
// to mean + std·(·), then optionally normalised. With the defaults E = 0, Var = dk; dk = 1 is the
// product experiment (eq:product-variance): Var(XY) = 1.
//   mean μ, std 1:   E = dk·μ²,  Var = dk·(1 + 2μ²)
//   correlation ρ:   E = dk·ρ,   Var = dk·(1 + ρ²)   (normal entries)
//   layernorm:       E = 0,      Var = dk²/(dk − 1)
void sample_dot_products(Vec<float> out, std::size_t dk, std::uint64_t seed, const Distribution& d,
                         std::uint64_t first = 0, const PairOptions& pair = {});

// `out.size` entries mean + std·z of stream `stream`: z the stream's normals or Student-t entries
// (NormalStream, in float), and standard_draw's from Rng(seed, stream) for the other laws. One
// stream's entries come one after another: fewer are a prefix of more. The initialisation step
// draws its tokens and its projections W_Q, W_K (std = σ_W) here.            (eq:initialization)
void sample_entries(Vec<float> out, std::uint64_t seed, std::uint64_t stream, const Distribution& d);

// Scores of one random query against n random keys, row by row.   (eq:softmax-saturation)
// out (rows, n): row r draws from Rng(seed, first + r) the query's squared norm ‖q‖² ~ χ²_dk (the
// law of a sum of dk squared N(0, 1) entries: Rng::chi_square) and then n normals z, and sets
//   s_j = scale · ‖q‖·z_j        (‖q‖·z_j rounded to float, then the float product with scale)
// Neither the query's entries nor the keys are drawn: given q, the scores q·k_j of keys
// k_j ~ N(0, I_dk) are i.i.d. N(0, ‖q‖²) (a rotation that takes q to ‖q‖e₁ leaves each
// k_j ~ N(0, I_dk), and then q·k_j = ‖q‖ times its first entry), and they depend on q only
// through ‖q‖. So s has exactly the distribution of scale · K q, at about n + 2 draws a row
// instead of (n + 1)·dk. (The dot-product experiments above do draw both vectors: there the dot
// product is the point.)
void sample_scores(Mat<float> out, std::size_t dk, float scale, std::uint64_t seed, std::uint64_t first = 0);

// Per-row softmax statistics of scores s (rows, n), each row softmax(s), m = argmax p (the
// temperature step's rows are softmax(s/τ): s scaled by 1/τ first, as by 1/√dk elsewhere):
//                               (eq:softmax-saturation, eq:vanishing-gradients, eq:temperature)
//   max_weight   p_m
//   entropy      −Σ p_j log p_j                         (log n when uniform, 0 when one-hot)
//   jacobian     ‖diag(p) − ppᵀ‖_F, summed without cancellation for nearly one-hot rows
//   nonmax_grad  mean over j ≠ m of ‖∂p/∂s_j‖₂ = p_j·‖e_j − p‖₂: how much the weights can move
//                when a logit that is not the largest moves
//   score_var    the sample variance of s_1 … s_n; for sample_scores' rows they are i.i.d.
//                N(0, scale²‖q‖²) given q, so its expectation is scale²·E‖q‖² = scale²·dk
struct SoftmaxRowStats {
  Vec<float> max_weight, entropy, jacobian, nonmax_grad, score_var;  // each of length `rows`
};
void softmax_row_stats(const SoftmaxRowStats& out, Mat<const float> scores);

// sample_scores, then softmax_row_stats: one random query against n random keys per row.
void sample_softmax_rows(const SoftmaxRowStats& out, std::size_t dk, std::size_t n, float scale,
                         std::uint64_t seed, std::uint64_t first = 0);

}  // namespace attnlab
