#include "sampling.hpp"

#include <vector>

#include "kernels.hpp"

namespace attnlab {

void sample_dot_products(Vec<float> out, std::size_t dk, std::uint64_t seed, const Distribution& d,
                         std::uint64_t first) {
  ATTN_CHECK(dk > 0);
  std::vector<float> qk(2 * dk);  // one allocation per call: q = qk[0, dk), k = qk[dk, 2dk)
  const Vec<float> q{qk.data(), dk}, k{qk.data() + dk, dk};
  for (std::size_t i = 0; i < out.size; ++i) {
    Rng rng(seed, first + i);
    fill(q, rng, d);
    fill(k, rng, d);
    out[i] = dot(q, k);
  }
}

}  // namespace attnlab
