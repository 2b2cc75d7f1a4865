// Issue 16, circuit side: contradictory initial conditions (loops of capacitors and voltage
// sources, cut-sets of inductors and current sources) warned with the elements and the jump;
// sources too fast for the run; values out of range; singular matrices explained by name.
#include <gtest/gtest.h>

#include <string>

#include "circuit/assemble.hpp"
#include "circuit/elaborate.hpp"
#include "circuit/explain.hpp"
#include "netlist/parse.hpp"

namespace nsspice::circuit {
namespace {

struct Elaborated {
  Circuit circuit;
  std::string diagnostics;
};

Elaborated elaborate_text(const std::string& text) {
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_string(text, "h.cir", sources, diags);
  Elaborated e;
  e.circuit = elaborate(tree, diags);
  e.diagnostics = diags.format(sources);
  return e;
}

TEST(InitialConditions, ParallelCapacitorsWithDifferentIcWarnWithTheCommonVoltage) {
  const std::string d =
      elaborate_text("t\nC1 out 0 1u IC=1\nC2 out 0 1u IC=2\nR1 out 0 1k\n.tran 1u 1m UIC\n")
          .diagnostics;
  EXPECT_NE(d.find("h.cir:2:1: warning: contradictory initial conditions (UIC) around the loop "
                   "c1 IC=1 V, c2 IC=2 V: the initial voltages add up to -1 V instead of 0; the "
                   "capacitor voltages jump at t = 0 to the charge-conserving values: c1 1 V -> "
                   "1.5 V, c2 2 V -> 1.5 V"),
            std::string::npos)
      << d;
  // Unequal capacitors: (1u·1 + 3u·2) / 4u = 1.75 V.
  const std::string e =
      elaborate_text("t\nC1 out 0 1u IC=1\nC2 out 0 3u IC=2\nR1 out 0 1k\n.tran 1u 1m UIC\n")
          .diagnostics;
  EXPECT_NE(e.find("c1 1 V -> 1.75 V, c2 2 V -> 1.75 V"), std::string::npos) << e;
}

TEST(InitialConditions, ConsistentOrIgnoredInitialConditionsGiveNoWarning) {
  EXPECT_EQ(elaborate_text("t\nC1 out 0 1u IC=2\nC2 out 0 1u IC=2\nR1 out 0 1k\n.tran 1u 1m UIC\n")
                .diagnostics,
            "");
  // Without UIC the operating point sets the start: IC= is not used.
  EXPECT_EQ(elaborate_text("t\nC1 out 0 1u IC=1\nC2 out 0 1u IC=2\nR1 out 0 1k\n.tran 1u 1m\n")
                .diagnostics,
            "");
}

TEST(InitialConditions, CapacitorAcrossAVoltageSourceAndDotIc) {
  const std::string d =
      elaborate_text("t\nV1 a 0 5\nC1 a 0 1u IC=2\nR1 a 0 1k\n.tran 1u 1m UIC\n").diagnostics;
  EXPECT_NE(d.find("h.cir:2:1: warning: contradictory initial conditions (UIC) around the loop "
                   "v1 = 5 V at t = 0, c1 IC=2 V: the initial voltages add up to 3 V instead of "
                   "0; the capacitor voltages jump at t = 0 to the charge-conserving values: c1 "
                   "2 V -> 5 V"),
            std::string::npos)
      << d;
  const std::string e =
      elaborate_text("t\nC1 a 0 1u IC=2\nR1 a 0 1k\n.ic v(a)=3\n.tran 1u 1m UIC\n").diagnostics;
  EXPECT_NE(e.find("warning: contradictory initial conditions (UIC) around the loop c1 IC=2 V, "
                   ".ic v(a)=3: the initial voltages add up to -1 V instead of 0; the start-up "
                   "values decide"),
            std::string::npos)
      << e;
}

TEST(InitialConditions, DotIcOnANodeFixedBySourcesWithoutUic) {
  const std::string d =
      elaborate_text("t\nV1 a 0 5\nR1 a b 1k\nC1 b 0 1u\n.ic v(a)=3\n.tran 1u 1m\n").diagnostics;
  EXPECT_NE(d.find("h.cir:2:1: warning: '.ic v(a)=3' holds a node that voltage sources already "
                   "fix (loop v1 = 5 V at t = 0, .ic v(a)=3) (and the values disagree by 2 V): "
                   "without UIC the operating point holds each .ic node with a source, and this "
                   "loop makes its equations singular; drop the .ic entry or use '.tran ... UIC'"),
            std::string::npos)
      << d;
  // Agreeing values: still a loop of sources for the operating point.
  const std::string e =
      elaborate_text("t\nV1 a 0 5\nR1 a b 1k\nC1 b 0 1u\n.ic v(a)=5\n.tran 1u 1m\n").diagnostics;
  EXPECT_NE(e.find("warning: '.ic v(a)=5' holds a node that voltage sources already fix (loop "
                   "v1 = 5 V at t = 0, .ic v(a)=5): without UIC"),
            std::string::npos)
      << e;
  // .ic on a node no source fixes: nothing to say.
  EXPECT_EQ(
      elaborate_text("t\nV1 a 0 5\nR1 a b 1k\nC1 b 0 1u\n.ic v(b)=3\n.tran 1u 1m\n").diagnostics,
      "");
}

TEST(InitialConditions, SeriesInductorsWithDifferentIcWarnWithTheCommonCurrent) {
  // L1 and L2 in series through node m: flux conservation (1m·1 + 3m·0) / 4m = 0.25 A.
  const std::string d = elaborate_text(
                            "t\nR1 a 0 1\nL1 a m 1m IC=1\nL2 m b 3m IC=0\nR2 b 0 1\n.tran 1u 1m "
                            "UIC\n")
                            .diagnostics;
  EXPECT_NE(d.find("h.cir:3:1: warning: contradictory initial conditions (UIC) across the "
                   "cut-set l1 IC=1 A, l2 IC=0 A: the initial currents leave the node group "
                   "with a net -1 A instead of 0; the inductor currents jump at t = 0 to the "
                   "flux-conserving values: l1 1 A -> 0.25 A, l2 0 A -> 0.25 A"),
            std::string::npos)
      << d;
}

TEST(InitialConditions, InductorInSeriesWithACurrentSource) {
  const std::string d =
      elaborate_text("t\nI1 0 a 1m\nL1 a b 1m\nR1 b 0 1\n.tran 1u 1m UIC\n").diagnostics;
  EXPECT_NE(
      d.find("warning: contradictory initial conditions (UIC) across the cut-set i1 = "
             "0.001 A at t = 0, l1 IC=0 A: the initial currents leave the node group with a net "
             "-0.001 A instead of 0; the inductor currents jump at t = 0 to the "
             "flux-conserving values: l1 0 A -> 0.001 A"),
      std::string::npos)
      << d;
  EXPECT_EQ(
      elaborate_text("t\nI1 0 a 1m\nL1 a b 1m IC=1m\nR1 b 0 1\n.tran 1u 1m UIC\n").diagnostics, "");
  EXPECT_EQ(elaborate_text("t\nI1 0 a 1m\nL1 a b 1m\nR1 b 0 1\n.tran 1u 1m\n").diagnostics, "");
}

TEST(SourceRates, AbsurdFrequencyWarnsNamingTheSource) {
  const std::string d =
      elaborate_text("t\nV1 a 0 SIN(0 1 1e300)\nR1 a 0 1k\n.tran 1u 1\n").diagnostics;
  EXPECT_NE(d.find("h.cir:2:1: warning: source 'v1': SIN frequency 1e+300 Hz gives 1e+300 "
                   "periods in TSTOP = 1 s, more than 1e+09: no time step can resolve it, the "
                   "simulated waveform is aliased (check the units)"),
            std::string::npos)
      << d;
  const std::string p =
      elaborate_text("t\nI1 a 0 SFFM(0 1 1e15 0 1k)\nR1 a 0 1k\n.tran 1u 1m\n").diagnostics;
  EXPECT_NE(p.find("h.cir:2:1: warning: source 'i1': SFFM frequency 1e+15 Hz gives 1e+12 "
                   "periods in TSTOP = 0.001 s"),
            std::string::npos)
      << p;
  // 1e9 periods exactly is still accepted.
  EXPECT_EQ(elaborate_text("t\nV1 a 0 SIN(0 1 1e9)\nR1 a 0 1k\n.tran 1n 1\n").diagnostics, "");
}

TEST(ValueRanges, HugeSourceAcrossTinyResistorWarnsNamingTheValues) {
  const std::string d = elaborate_text("t\nV1 a 0 1e308\nR1 a 0 1e-308\n.tran 1u 1m\n").diagnostics;
  EXPECT_NE(d.find("h.cir:2:1: warning: 'v1': value 1e+308 at t = 0 is out of the range the "
                   "solver can take"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("h.cir:3:1: warning: 'r1': R = 1e-308 Ohm is out of the range the solver "
                   "can take"),
            std::string::npos)
      << d;
}

// ---- singular matrices explained by name ----

Assembled assembled_of(const std::string& text) {
  const Elaborated e = elaborate_text(text);
  return assemble(e.circuit);
}

TEST(ExplainSingular, FloatingNodeNamesTheNodeAndItsCapacitors) {
  const Assembled a = assembled_of("t\nV1 a 0 1\nR1 a 0 1\nC1 a b 1u\nC2 b 0 1u\n.tran 1u 1m\n");
  const std::string why = explain_singular_matrix(a, a.mlcs.G);
  EXPECT_EQ(why,
            "structurally singular (structural rank 2 of 3); unknowns not determined: v(b) "
            "(devices: c1, c2); dependent (or empty) equations: KCL at b (devices: c1, c2)")
      << why;
}

TEST(ExplainSingular, ParallelVoltageSourcesNameTheirBranchEquations) {
  const Assembled a = assembled_of("t\nV1 a 0 1\nV2 a 0 2\nR1 a 0 1\n.tran 1u 1m\n");
  const std::string why = explain_singular_matrix(a, a.mlcs.G);
  EXPECT_NE(why.find("structurally singular (structural rank 2 of 3)"), std::string::npos) << why;
  EXPECT_NE(why.find("unknowns not determined: v(a), i(v1), i(v2) (devices: v1, v2, r1); "
                     "dependent (or empty) equations: KCL at a, branch equation of v1, branch "
                     "equation of v2 (devices: v1, v2, r1)"),
            std::string::npos)
      << why;
}

TEST(ExplainSingular, LoopOfControlledSourcesIsNumericallySingular) {
  const Assembled a =
      assembled_of("t\nE1 a 0 b 0 1\nE2 b 0 a 0 1\nR1 a 0 1\nR2 b 0 1\n.tran 1u 1m\n");
  const std::string why = explain_singular_matrix(a, a.mlcs.G);
  EXPECT_EQ(why,
            "numerically singular; unknowns not determined: v(a), v(b), i(e1), i(e2) (devices: "
            "e1, e2, r1, r2); dependent (or empty) equations: branch equation of e1, branch "
            "equation of e2 (devices: e1, e2)")
      << why;
  EXPECT_EQ(explain_singular(a, std::vector<int>{2}), "i(e1) (devices: e1)");
}

TEST(ExplainSingular, OverflowIsCalledOverflowNotSingular) {
  const Assembled a = assembled_of("t\nV1 a 0 1e308\nR1 a 0 1e-308\n.tran 1u 1m\n");
  Eigen::VectorXd s(static_cast<Eigen::Index>(a.sources.size()));
  a.mlcs.source_values(0.0, s);
  const Eigen::VectorXd rhs = a.mlcs.S * s;
  const std::string why = explain_singular_matrix(a, a.mlcs.G, rhs);
  EXPECT_EQ(why,
            "overflow: values beyond the range double precision can solve with (|x| > 1e+150): "
            "matrix[KCL at a, v(a)] = 1e+308, right-hand side[branch equation of v1] = 1e+308 "
            "(devices: v1, r1); the matrix is not singular, its values are out of range")
      << why;
  EXPECT_EQ(why.find("singular;"), std::string::npos);
}

TEST(ExplainSingular, ModeMatrixWithComplementarityRows) {
  // K(σ) of the step/operating point (solvers/lcp/mode_mlcp.hpp) with the diode off:
  //   [ G  −B ] [x]      row n + j (pair j off): λ_j = 0
  //   [ 0   I ] [λ]
  // Node b is then reached by nothing but C1 (open at DC): v(b) is not determined.
  const Assembled a = assembled_of("t\nV1 a 0 1\nD1 a b DM\nC1 b 0 1u\n.model DM D\n.tran 1u 1m\n");
  const int n = a.mlcs.n, m = a.mlcs.m;
  ASSERT_EQ(m, 1);
  std::vector<Eigen::Triplet<double, int>> t;
  for (int c = 0; c < n; ++c)
    for (solvers::SparseMatrix::InnerIterator it(a.mlcs.G, c); it; ++it)
      t.emplace_back(static_cast<int>(it.row()), c, it.value());
  for (int c = 0; c < m; ++c)
    for (solvers::SparseMatrix::InnerIterator it(a.mlcs.B, c); it; ++it)
      t.emplace_back(static_cast<int>(it.row()), n + c, -it.value());
  t.emplace_back(n, n, 1.0);
  solvers::SparseMatrix k(n + m, n + m);
  k.setFromTriplets(t.begin(), t.end());
  k.makeCompressed();
  const std::string why = explain_singular_matrix(a, k);
  EXPECT_EQ(why,
            "structurally singular (structural rank 3 of 4); unknowns not determined: v(b), "
            "lambda(d1) (devices: d1, c1); dependent (or empty) equations: KCL at b, "
            "complementarity row of d1 (devices: d1, c1)");
}

TEST(ExplainSingular, NonsingularMatrixGivesNothing) {
  const Assembled a = assembled_of("t\nV1 a 0 1\nR1 a 0 1\n.tran 1u 1m\n");
  EXPECT_EQ(explain_singular_matrix(a, a.mlcs.G), "");
  ASSERT_EQ(a.unknown_devices.size(), 2u);
  EXPECT_EQ(a.unknown_devices[0], (std::vector<int>{0, 1}));  // v(a): v1, r1
  EXPECT_EQ(a.unknown_devices[1], (std::vector<int>{0}));     // i(v1): v1
  EXPECT_EQ(a.device_names, (std::vector<std::string>{"v1", "r1"}));
}

}  // namespace
}  // namespace nsspice::circuit
