// Assembly by modified nodal analysis (circuit/assemble.hpp): the MLCS entries of small circuits
// against their stamps written by hand (docs/formulation.md §1, §1.2; docs/devices.md).
#include "circuit/assemble.hpp"

#include <gtest/gtest.h>

#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

using testing::elaborate_text;

Assembled assemble_text(const std::string& text) {
  const auto e = elaborate_text(text);
  EXPECT_FALSE(e.diags.has_errors()) << e.text();
  return assemble(e.circuit);
}

TEST(Assemble, RcWithVoltageSource) {
  // x = (v(a), v(b), i(v1)).
  const Assembled a = assemble_text("t\nV1 a 0 5\nR1 a b 2\nC1 b 0 3u\n.tran 1u 1m\n.end\n");
  ASSERT_EQ(a.unknown_names, (std::vector<std::string>{"v(a)", "v(b)", "i(v1)"}));
  const solvers::Mlcs& s = a.mlcs;
  EXPECT_EQ(s.n, 3);
  EXPECT_EQ(s.m, 0);
  const Eigen::MatrixXd G(s.G), E(s.E);
  // R1: ±1/R in the (a, b) block.
  EXPECT_DOUBLE_EQ(G(0, 0), 0.5);
  EXPECT_DOUBLE_EQ(G(0, 1), -0.5);
  EXPECT_DOUBLE_EQ(G(1, 0), -0.5);
  EXPECT_DOUBLE_EQ(G(1, 1), 0.5);
  // V1: its current leaves a through the source (+1 in row a), its row v(a) = s.
  EXPECT_DOUBLE_EQ(G(0, 2), 1.0);
  EXPECT_DOUBLE_EQ(std::abs(G(2, 0)), 1.0);
  // C1: capacitance on v(b)'s KCL row.
  EXPECT_DOUBLE_EQ(E(1, 1), 3e-6);
  EXPECT_DOUBLE_EQ(E.cwiseAbs().sum(), 3e-6) << "no other reactive entry";
  // The source: b(0) on V1's row equals ±5 with the sign that gives v(a) = 5.
  Eigen::VectorXd scratch, b;
  s.eval_b(0.0, scratch, b);
  EXPECT_DOUBLE_EQ(b[2] * G(2, 0), 5.0);
}

TEST(Assemble, IdealDiodePairStamp) {
  // D1 a → k with VF and RON: B[a] = −1, B[k] = +1, C = [−1 on a, +1 on k], D = RON, d = VF.
  const Assembled a = assemble_text(
      "t\nV1 a 0 1\nD1 a k DM\nR1 k 0 1k\n.model DM D(VF=0.6 RON=0.2)\n.tran 1u 1m\n.end\n");
  const solvers::Mlcs& s = a.mlcs;
  ASSERT_EQ(s.m, 1);
  ASSERT_EQ(a.pair_names, (std::vector<std::string>{"d1"}));
  const Eigen::MatrixXd B(s.B), C(s.C), D(s.D);
  const int ia = 0, ik = 1;  // v(a), v(k)
  ASSERT_EQ(a.unknown_names[ia], "v(a)");
  ASSERT_EQ(a.unknown_names[ik], "v(k)");
  EXPECT_DOUBLE_EQ(B(ia, 0), -1.0);
  EXPECT_DOUBLE_EQ(B(ik, 0), 1.0);
  EXPECT_DOUBLE_EQ(C(0, ia), -1.0);
  EXPECT_DOUBLE_EQ(C(0, ik), 1.0);
  EXPECT_DOUBLE_EQ(D(0, 0), 0.2);
  EXPECT_DOUBLE_EQ(s.d[0], 0.6);
  EXPECT_TRUE((B.transpose() - C).isZero()) << "B = Cᵀ on the passive part";
  // The diode current is a derived signal: i(d1) = λ.
  ASSERT_EQ(a.derived.size(), 1u);
  EXPECT_EQ(a.derived[0].name, "i(d1)");
  ASSERT_EQ(a.derived[0].lambda_terms.size(), 1u);
  EXPECT_EQ(a.derived[0].lambda_terms[0], (std::pair<int, double>{0, 1.0}));
}

TEST(Assemble, ZenerHasTwoPairs) {
  const Assembled a =
      assemble_text("t\nV1 a 0 1\nD1 a k DZ\nR1 k 0 1k\n.model DZ D(BV=5)\n.tran 1u 1m\n.end\n");
  ASSERT_EQ(a.mlcs.m, 2);
  EXPECT_EQ(a.pair_names, (std::vector<std::string>{"d1", "d1"}));
  const Eigen::VectorXd d = a.mlcs.d;
  EXPECT_DOUBLE_EQ(d[0], 0.0);
  EXPECT_DOUBLE_EQ(d[1], 5.0) << "the reverse pair blocks until BV";
}

TEST(Assemble, InductorBranchCurrent) {
  const Assembled a = assemble_text("t\nI1 0 a 1m\nL1 a 0 2m\nR1 a 0 10\n.tran 1u 1m\n.end\n");
  ASSERT_EQ(a.unknown_names, (std::vector<std::string>{"v(a)", "i(l1)"}));
  const Eigen::MatrixXd E(a.mlcs.E);
  EXPECT_DOUBLE_EQ(std::abs(E(1, 1)), 2e-3) << "L on the inductor's branch row";
  EXPECT_DOUBLE_EQ(E(0, 0), 0.0);
}

}  // namespace
}  // namespace nsspice::circuit
