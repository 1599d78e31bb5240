#include "sampling.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels.hpp"

namespace attnlab {
namespace {

// x ← (x − mean x) / std x, population std. A constant x (std 0: Rademacher entries give one
// with probability 2^(1−d_k)) becomes 0, as LayerNorm with its ε does, not 0/0.
void layer_normalize(std::vector<double>& x) {
  double m = 0, v = 0;
  for (double e : x) m += e;
  m /= double(x.size());
  for (double e : x) v += (e - m) * (e - m);
  const double inv = v > 0 ? 1 / std::sqrt(v / double(x.size())) : 0;
  for (double& e : x) e = (e - m) * inv;
}

}  // namespace

void sample_dot_products(Vec<float> out, std::size_t dk, std::uint64_t seed, const Distribution& d,
                         std::uint64_t first, const PairOptions& pair) {
  ATTN_CHECK(dk > 0 && (!pair.layernorm || dk >= 2) && std::abs(pair.rho) <= 1);
  // Standardized entries for pair i: a, the first dk, and b, the next dk. Normal and Student-t
  // ones are the first 2·dk entries of the pair's NormalStream (the SIMD kernels), in float;
  // other laws are drawn one by one from the pair's Rng, in double.
  const bool bulk = d.kind == Dist::normal || d.kind == Dist::student_t;
  // (d_k = 1, the product experiment: the two normals of a block of pairs at once, four streams in
  // SIMD lanes, first_normal_pairs; draw is called for i = 0, 1, 2, … in order)
  constexpr std::size_t kBlock = 256;
  std::vector<float> z(bulk ? 2 * dk : 0), z1(d.kind == Dist::normal && dk == 1 ? kBlock : 0), z2(z1.size());
  std::vector<double> zd(bulk ? 0 : 2 * dk);
  const auto draw = [&](std::size_t i) {
    if (d.kind == Dist::normal && dk == 1) {
      if (i % kBlock == 0) {
        const std::size_t n = std::min(kBlock, out.size - i);
        first_normal_pairs(Vec<float>{z1.data(), n}, Vec<float>{z2.data(), n}, seed, first + i);
      }
      z[0] = z1[i % kBlock];
      z[1] = z2[i % kBlock];
      return;
    }
    if (bulk) {
      NormalStream g(seed, first + i);
      if (d.kind == Dist::normal) normals(Vec<float>{z.data(), z.size()}, g);
      else student_t(Vec<float>{z.data(), z.size()}, g, d.df);
      return;
    }
    Rng rng(seed, first + i);
    for (double& v : zd) v = standard_draw_slow(rng, d);
  };
  const auto ab = [&](std::size_t j) { return bulk ? double(z[j]) : zd[j]; };
  // q and k are drawn (and normalised) in double and rounded to float once: entries with a huge
  // std would overflow float before LayerNorm brings them back. With ρ = 0, k = 0·a + 1·b = b
  // exactly: the plain pair below.
  std::vector<float> qk(2 * dk);
  const Vec<float> q{qk.data(), dk}, k{qk.data() + dk, dk};
  if (pair.rho == 0 && !pair.layernorm) {
    // d_k = 1 (the product experiment): dot's one rounded product, without its call
    const auto pair_dot = [dk](Vec<const float> x, Vec<const float> y) { return dk == 1 ? x[0] * y[0] : dot(x, y); };
    const bool standard = bulk && d.mean == 0 && d.std == 1;  // then q and k are the entries themselves
    for (std::size_t i = 0; i < out.size; ++i) {
      draw(i);
      if (standard) { out[i] = pair_dot({z.data(), dk}, {z.data() + dk, dk}); continue; }
      for (std::size_t j = 0; j < 2 * dk; ++j) qk[j] = static_cast<float>(d.mean + d.std * ab(j));
      out[i] = pair_dot(q, k);
    }
    return;
  }
  std::vector<double> qd(dk), kd(dk);
  const double c = std::sqrt(1 - pair.rho * pair.rho);
  for (std::size_t i = 0; i < out.size; ++i) {
    draw(i);
    for (std::size_t j = 0; j < dk; ++j) {
      const double a = ab(j);
      qd[j] = d.mean + d.std * a;
      kd[j] = pair.rho * a;
    }
    for (std::size_t j = 0; j < dk; ++j)
      kd[j] = d.mean + d.std * (kd[j] + c * ab(dk + j));
    if (pair.layernorm) {
      layer_normalize(qd);
      layer_normalize(kd);
    }
    for (std::size_t j = 0; j < dk; ++j) {
      q[j] = static_cast<float>(qd[j]);
      k[j] = static_cast<float>(kd[j]);
    }
    out[i] = dot(q, k);
  }
}

void sample_entries(Vec<float> out, std::uint64_t seed, std::uint64_t stream, const Distribution& d) {
  if (d.kind != Dist::normal && d.kind != Dist::student_t) {
    Rng rng(seed, stream);
    fill(out, rng, d);
    return;
  }
  NormalStream g(seed, stream);
  if (d.kind == Dist::normal) normals(out, g);
  else student_t(out, g, d.df);
  if (d.mean == 0 && d.std == 1) return;
  for (std::size_t i = 0; i < out.size; ++i) out[i] = static_cast<float>(d.mean + d.std * double(out[i]));
}

void sample_scores(Mat<float> out, std::size_t dk, float scale, std::uint64_t seed, std::uint64_t first) {
  ATTN_CHECK(dk > 0);
  for (std::size_t r = 0; r < out.rows; ++r) {
    Rng rng(seed, first + r);
    const double norm = std::sqrt(rng.chi_square(dk));  // ‖q‖ of a query with dk N(0, 1) entries
    float* s = out.row(r);
    for (std::size_t j = 0; j < out.cols; ++j) s[j] = static_cast<float>(norm * rng.normal());
  }
  // the same float product as attention's scale pass
  attnlab::scale(out, Mat<const float>(out), scale);
}

void sample_softmax_rows(const SoftmaxRowStats& out, std::size_t dk, std::size_t n, float scale,
                         std::uint64_t seed, std::uint64_t first) {
  const std::size_t rows = out.max_weight.size;
  std::vector<float> s(rows * n);
  sample_scores(Mat<float>{s.data(), rows, n}, dk, scale, seed, first);
  softmax_row_stats(out, Mat<const float>{s.data(), rows, n});
}

void softmax_row_stats(const SoftmaxRowStats& out, Mat<const float> scores) {
  const std::size_t rows = scores.rows, n = scores.cols;
  ATTN_CHECK(n > 0 && out.max_weight.size == rows && out.entropy.size == rows && out.jacobian.size == rows &&
             out.nonmax_grad.size == rows && out.score_var.size == rows);
  // the softmax of a block of rows in one call, whose row passes pipeline from row to row
  constexpr std::size_t kBlock = 256;
  std::vector<float> block(std::min(rows, kBlock) * n);
  for (std::size_t r0 = 0; r0 < rows; r0 += kBlock) {
    const std::size_t nr = std::min(kBlock, rows - r0);
    softmax_rows(Mat<float>{block.data(), nr, n}, Mat<const float>{scores.row(r0), nr, n});
    for (std::size_t i = 0; i < nr; ++i) {
      const std::size_t r = r0 + i;
      const float* s = scores.row(r);
      const float* p = block.data() + i * n;
      // the statistics, in double
      std::size_t m = 0;
      for (std::size_t j = 1; j < n; ++j)
        if (p[j] > p[m]) m = j;
      // A = Σ_{j≠m} p_j and B = Σ_{j≠m} p_j², summed directly: for a nearly one-hot row 1 − p_m
      // and Σp² − p_m² would cancel to noise, while these stay accurate.
      // Entropy with one logarithm a row: log p_j = (s_j − s_m) − log Z, Z = Σ_l e^(s_l − s_m), so
      //   H = −Σ_j p_j log p_j = log Z + Σ_{j≠m} p_j (s_m − s_j),  log Z = −log p_m = −log1p(−A)
      // (p_m = 1/Z = 1 − A). From A where p_m >= 1/2: accurate even where p_m rounds to 1 in float,
      // where −Σ p log p over the float weights loses the p_m term. From p_m below 1/2, where 1 − A
      // would cancel: for a near-uniform row of 65 536, A's float error of 10⁻⁶ is 7% of p_m.
      // (A log an entry was also most of the cost.)
      double a = 0, b = 0, gap = 0, mean_s = 0, var_s = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double pj = p[j];
        if (j != m) { a += pj; b += pj * pj; gap += pj * (double(s[m]) - s[j]); }
        mean_s += s[j];
      }
      const double log_z = p[m] >= 0.5f ? -std::log1p(-a) : -std::log(double(p[m]));
      const double h = log_z + gap;
      mean_s /= n;
      for (std::size_t j = 0; j < n; ++j) var_s += (s[j] - mean_s) * (s[j] - mean_s);
      // ‖J‖_F² = Σ_i p_i²[(Σ_{j≠i} p_j)² + Σ_{j≠i} p_j²]  (row i of J is p_i(e_i − p))
      // nonmax: ‖∂p/∂s_j‖₂ = ‖J e_j‖ = p_j·‖e_j − p‖, ‖e_j − p‖² = (Σ_{l≠j} p_l)² + Σ_{l≠j} p_l²
      const double pm = p[m];
      double jac2 = pm * pm * (a * a + b), g = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (j == m) continue;
        const double pj = p[j], others = a - pj + pm, others_sq = b - pj * pj + pm * pm;
        const double norm2 = others * others + others_sq;
        jac2 += pj * pj * norm2;
        g += pj * std::sqrt(norm2);
      }
      out.max_weight[r] = p[m];
      out.entropy[r] = static_cast<float>(h);
      out.jacobian[r] = static_cast<float>(std::sqrt(jac2));
      out.nonmax_grad[r] = static_cast<float>(n > 1 ? g / (n - 1) : 0);
      out.score_var[r] = static_cast<float>(n > 1 ? var_s / (n - 1) : 0);
    }
  }
}

}  // namespace attnlab
