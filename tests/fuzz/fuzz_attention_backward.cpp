// libFuzzer harness: attentionBackward of the checked API (api.hpp), with and without mask, bias,
// causal and scale, up to two calls per input.
//   Every call returns or throws ApiError (fuzz_input.hpp: call). When it returns:
//   - gradQ is (nq, dk), gradK (nk, dk), gradV (nk, dv), all finite;
//   - attention on the same arguments also returns (the backward pass runs the forward);
//   - a query row with no allowed key has gradQ = 0 (its weights are 0, so its dS is 0);
//   - scale = 0 gives gradQ = gradK = 0 (dQ = scale·dS K, dK = scale·dSᵀ Q);
//   - Σ_j gradV_j = Σ_i (Σ_j P_ij) gradOutput_i (dV = Pᵀ dO; each row of P sums to 1 or is 0),
//     within the rounding of both sums.
// Run: bash tools/fuzz.sh 60 attention_backward
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"

using namespace attnlab;
using fuzz::str;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  static std::vector<float> dq, dk, dv, out, weights;
  for (int call = 0; call < 2 && (call == 0 || !in.empty()); ++call) {
    const fuzz::AttentionInput A(in);
    const std::vector<float> dout = in.floats(A.a.nq * A.a.dv);
    if (!fuzz::call("attentionBackward", [&] { api::attention_backward(dq, dk, dv, A.a, {dout.data(), dout.size()}); }))
      continue;
    const auto nq = std::size_t(A.a.nq), nk = std::size_t(A.a.nk), d_k = std::size_t(A.a.dk), d_v = std::size_t(A.a.dv);
    FUZZ_CHECK(dq.size() == nq * d_k && dk.size() == nk * d_k && dv.size() == nk * d_v,
               "attentionBackward lengths " + str(double(dq.size())) + ", " + str(double(dk.size())) + ", " + str(double(dv.size())));
    FUZZ_CHECK(fuzz::all_finite(dq) && fuzz::all_finite(dk) && fuzz::all_finite(dv), "attentionBackward returned a non-finite value");
    FUZZ_CHECK(fuzz::call("attention", [&] { api::attention(out, weights, A.a); }),
               "attentionBackward accepted arguments that attention refuses");

    std::vector<double> rowsum(nq, 0.0);
    for (std::size_t i = 0; i < nq; ++i) {
      bool any = false;
      for (std::size_t j = 0; j < nk; ++j) any |= A.allows(i, j), rowsum[i] += weights[i * nk + j];
      if (!any)
        for (std::size_t c = 0; c < d_k; ++c)
          FUZZ_CHECK(dq[i * d_k + c] == 0, "gradQ of fully masked row " + str(double(i)) + " is " + str(dq[i * d_k + c]));
    }
    if (A.a.has_scale && float(A.a.scale) == 0) {
      for (float g : dq) FUZZ_CHECK(g == 0, "gradQ = " + str(g) + " with scale 0");
      for (float g : dk) FUZZ_CHECK(g == 0, "gradK = " + str(g) + " with scale 0");
    }
    // Column c: Σ_j dV_jc (each dV_jc a float sum over nq terms) against Σ_i rowsum_i dO_ic.
    for (std::size_t c = 0; c < d_v; ++c) {
      double got = 0, want = 0, mag = 0;
      for (std::size_t j = 0; j < nk; ++j) got += dv[j * d_v + c];
      for (std::size_t i = 0; i < nq; ++i) want += rowsum[i] * dout[i * d_v + c], mag += std::abs(dout[i * d_v + c]);
      const double tol = (fuzz::sum_tolerance(nk) + 2 * double(nq + nk) * 0x1p-24) * mag + double(nq * nk) * 1e-44;
      FUZZ_CHECK(std::abs(got - want) <= tol, "column " + str(double(c)) + ": sum of gradV = " + str(got) +
                                                  ", sum of rowsum*gradOutput = " + str(want) + " (tolerance " + str(tol) + ")");
    }
  }
  // The API stays usable after any error: a small valid call succeeds.
  const float q[2] = {1, 0}, k[4] = {1, 0, 0, 1}, v[4] = {1, 2, 3, 4}, g[2] = {1, 1};
  api::AttentionArgs a;
  a.q = {q, 2}, a.k = {k, 4}, a.v = {v, 4}, a.nq = 1, a.nk = 2, a.dk = 2, a.dv = 2;
  api::attention_backward(dq, dk, dv, a, {g, 2});
  FUZZ_CHECK(dq.size() == 2 && dk.size() == 4 && dv.size() == 4, "attentionBackward after the input");
  return 0;
}
