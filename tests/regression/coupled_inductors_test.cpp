// Coupled inductors (K cards): the sign and the zero of a coupling coefficient (an indefinite
// inductive system: tests/circuit/elaborate_test.cpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "helpers.hpp"

namespace nsspice::testing {
namespace {

// A transformer driven on its primary, a resistor on its secondary. Reversing the sign of k is
// reversing the secondary winding: the secondary's voltage changes sign at every point and the
// primary's current stays the same (the circuit is symmetric under i2 → −i2, v(s) → −v(s)).
std::string transformer(double k) {
  return fmt::format(
      "t\nV1 a 0 SIN(0 1 10k)\nR1 a p 10\nL1 p 0 1m\nL2 s 0 4m\nR2 s 0 100\nK1 L1 L2 {}\n"
      ".tran 1u 200u\n.end\n",
      k);
}

TEST(CoupledInductors, ANegativeCouplingReversesTheSecondary) {
  const Waveforms pos = simulate_fixed(transformer(0.8));
  const Waveforms neg = simulate_fixed(transformer(-0.8));
  ASSERT_TRUE(pos.result.ok()) << pos.diagnostics << pos.result.summary.message;
  ASSERT_TRUE(neg.result.ok()) << neg.diagnostics << neg.result.summary.message;
  const auto vs_pos = pos.series("v(s)"), vs_neg = neg.series("v(s)");
  const auto ip_pos = pos.series("i(l1)"), ip_neg = neg.series("i(l1)");
  ASSERT_EQ(vs_pos.size(), vs_neg.size());
  double peak = 0;
  for (size_t k = 0; k < vs_pos.size(); ++k) {
    EXPECT_NEAR(vs_neg[k], -vs_pos[k], 1e-12) << k;
    EXPECT_NEAR(ip_neg[k], ip_pos[k], 1e-12) << k;
    peak = std::max(peak, std::abs(vs_pos[k]));
  }
  EXPECT_GT(peak, 0.1);  // the secondary is driven (k = 0.8, turns ratio 2)
}

// k = 0 is no coupling (ngspice takes it): the same waveforms as without the card.
TEST(CoupledInductors, ZeroCouplingIsNoCoupling) {
  const Waveforms zero = simulate_fixed(transformer(0));
  ASSERT_TRUE(zero.result.ok()) << zero.diagnostics << zero.result.summary.message;
  for (double v : zero.series("v(s)")) EXPECT_EQ(v, 0.0);
}

}  // namespace
}  // namespace nsspice::testing
