// LTspice's `.ic I(L1)=value`: an inductor's initial current (ngspice has no such form and
// rejects the card). Without UIC the operating point holds the current (LTspice's semantics),
// with UIC it is the inductor's IC=. Checked against closed forms:
//   * held: V1 = 10 V through R = 10 Ω into L = 1 mH, i(0) = 0.2 A held, so v(a)(0) = 8 V and
//     then i = 1 − 0.8·e^(−t/τ), v(a) = 8·e^(−t/τ), τ = L/R = 100 µs (error-controlled steps:
//     within 1e-3 relative);
//   * UIC: an LC tank started with 1 A swings to 1 A·√(L/C) = 31.623 V (within 1e-3);
//   * errors: an unknown inductor (with a suggestion), a non-inductor, a current given twice (IC=
//     and .ic), `.nodeset I(L1)=` (not a form of .nodeset).
#include <gtest/gtest.h>

#include <cmath>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class IcCurrent : public AppTest {};

TEST_F(IcCurrent, TheOperatingPointHoldsTheCurrentWithoutUic) {
  write("rl.cir",
        "rl, held initial current\nV1 in 0 10\nR1 in a 10\nL1 a 0 1m\n.ic I(L1)=0.2\n"
        ".tran 1u 300u\n.meas tran va0 find v(a) at=0\n.meas tran va1 find v(a) at=100u\n"
        ".meas tran il1 find i(L1) at=100u\n.end\n");
  const CliRun r = nsspice("run rl.cir -o out.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto m = measures(r.output);
  ASSERT_TRUE(m.contains("va0") && m.contains("va1") && m.contains("il1")) << r.output;
  EXPECT_NEAR(m.at("va0"), 8.0, 1e-9);
  EXPECT_NEAR(m.at("va1"), 8.0 * std::exp(-1.0), 1e-3 * 8.0 * std::exp(-1.0));
  EXPECT_NEAR(m.at("il1"), 1.0 - 0.8 * std::exp(-1.0), 1e-3);
  // Without the .ic the operating point has the full 1 A and v(a) = 0 throughout.
  write("plain.cir",
        "rl\nV1 in 0 10\nR1 in a 10\nL1 a 0 1m\n.tran 1u 300u\n"
        ".meas tran il0 find i(L1) at=0\n.end\n");
  const CliRun p = nsspice("run plain.cir -o plain.csv --no-progress");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NEAR(measures(p.output).at("il0"), 1.0, 1e-9);
}

TEST_F(IcCurrent, UnderUicItIsTheInductorsInitialCurrent) {
  write("lc.cir",
        "lc tank\nL1 a 0 1m\nC1 a 0 1u\n.ic I(L1)=1\n.tran 1u 200u uic\n"
        ".meas tran va max v(a)\n.end\n");
  const CliRun r = nsspice("run lc.cir -o out.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double want = std::sqrt(1e-3 / 1e-6);
  EXPECT_NEAR(measures(r.output).at("va"), want, 1e-3 * want);
}

TEST_F(IcCurrent, BadEntriesAreErrorsAtTheirPlace) {
  write("bad.cir", "t\nL1 a 0 1m\nR1 a 0 1\n.ic I(L2)=1 I(R1)=2\n.tran 1u 10u\n.end\n");
  const CliRun r = nsspice("run bad.cir -o out.csv --no-progress");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("bad.cir:4:7: error: unknown inductor 'L2' in .ic (did you mean 'l1'?)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("bad.cir:4:15: error: 'R1' in .ic I(R1) is not an inductor"),
            std::string::npos)
      << r.output;
  write("twice.cir", "t\nL1 a 0 1m ic=2\nR1 a 0 1\n.ic I(L1)=1\n.tran 1u 10u\n.end\n");
  const CliRun t = nsspice("run twice.cir -o out.csv --no-progress");
  EXPECT_EQ(t.exit_code, 1);
  EXPECT_NE(t.output.find("twice.cir:4:5: error: inductor 'l1' has its initial current twice: "
                          "IC=2 on its card and .ic I(L1)=1; give one"),
            std::string::npos)
      << t.output;
  write("nodeset.cir", "t\nL1 a 0 1m\nR1 a 0 1\n.nodeset I(L1)=1\n.tran 1u 10u\n.end\n");
  const CliRun n = nsspice("run nodeset.cir -o out.csv --no-progress");
  EXPECT_EQ(n.exit_code, 1);
  EXPECT_NE(n.output.find("nodeset.cir:4:10: error: expected V(node)=value in .nodeset"),
            std::string::npos)
      << n.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
}

}  // namespace
}  // namespace nsspice::testing
