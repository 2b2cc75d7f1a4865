// A sweep's runs, flattened once (netlist::FlatTemplate) and restamped, equal the same netlists
// run alone bit for bit: a subcircuit parameter that depends on a stepped .param, Monte Carlo
// draws inside subcircuit instances (the run alone gets the drawn values written as numbers),
// a stepped model parameter and a stepped source value; the sweep report says how each run's
// netlist was flattened, and a run whose values make an expression fail is flattened anew and
// fails with the diagnostics of the run alone.
#include <fmt/format.h>

#include <string>

#include "sweep_helpers.hpp"

namespace nsspice::testing {
namespace {

class SweepIndividual : public SweepAppTest {
 protected:
  // Run k (from 1) of the sweep "sw" equals `alone` run by itself, byte for byte.
  void expect_run_equals(int k, const std::string& alone) {
    write("one.cir", alone);
    const CliRun one = nsspice("run one.cir -o one.csv -q");
    ASSERT_EQ(one.exit_code, 0) << one.output;
    EXPECT_EQ(read_file(dir_ / fmt::format("sw.run{}.csv", k)), read_file(dir_ / "one.csv"))
        << "run " << k;
  }
};

constexpr const char* kRcStage =
    ".subckt rc in out params: r=1 c=1n\nR1 in out {r}\nC1 out 0 {c}\n.ends\n"
    "V1 in 0 PULSE(0 1 0 1n 1n 1 2)\n";

TEST_F(SweepIndividual, SubcircuitParametersThatDependOnASteppedParam) {
  const std::string body = std::string(kRcStage) +
                           "X1 in mid rc r={rl*2} c={1u*rl/1k}\nX2 mid out rc r={rl} c=1u\n"
                           ".tran 10u 2m\n";
  write("sw.cir", "sub\n.param rl=1k\n" + body + ".step param rl list 500 2k 1.5k\n.end\n");
  const CliRun r = nsspice("run sw.cir -o sw.csv --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("netlist            3 from the netlist flattened once (their values "
                          "evaluated again, elaborated each)\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("assembly           3 restamped"), std::string::npos) << r.output;
  const char* values[] = {"500", "2k", "1.5k"};
  for (int k = 0; k < 3; ++k)
    expect_run_equals(k + 1, fmt::format("sub\n.param rl={}\n{}.end\n", values[k], body));
}

TEST_F(SweepIndividual, MonteCarloDrawsInsideSubcircuits) {
  write("sw.cir",
        "mc\n.subckt rcs in out params: rn=1k\nR1 in out {agauss(rn, rn/10, 1)}\n"
        "C1 out 0 {mc(1u, 0.1)}\n.ends\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\n"
        "X1 in mid rcs rn=1k\nX2 mid out rcs rn={unif(2k, 0.2)}\n.tran 10u 1m\n.end\n");
  const CliRun r = nsspice("run sw.cir -o sw.csv -q --runs 4 --seed 3 --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto r1 = column("sw.meas.csv", "x1.r1"), c1 = column("sw.meas.csv", "x1.c1");
  const auto r2 = column("sw.meas.csv", "x2.r1"), c2 = column("sw.meas.csv", "x2.c1");
  ASSERT_EQ(r1.size(), 4u);
  ASSERT_EQ(r2.size(), 4u);
  EXPECT_EQ(column("sw.meas.csv", "x2.rn").size(), 4u);
  for (int k = 0; k < 4; ++k) {
    // The drawn values, written in their shortest exact form ("{}"), as numbers.
    expect_run_equals(k + 1,
                      fmt::format("mc\n.subckt rcs in out params: rv=1 cv=1\nR1 in out {{rv}}\n"
                                  "C1 out 0 {{cv}}\n.ends\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\n"
                                  "X1 in mid rcs rv={} cv={}\nX2 mid out rcs rv={} cv={}\n"
                                  ".tran 10u 1m\n.end\n",
                                  r1[k], c1[k], r2[k], c2[k]));
  }
}

constexpr const char* kRectifier =
    "V1 in 0 SIN(0 {amp} 1k)\nD1 in out dm\nR1 out 0 1k\nC1 out 0 1u\nVb b 0 2\nRb b 0 1k\n"
    ".tran 10u 3m\n";

TEST_F(SweepIndividual, SteppedModelParametersAndSources) {
  write("sw.cir", "rect\n.param amp=5\n" + std::string(kRectifier) +
                      ".model dm D(VF=0.7)\n.step dm(vf) list 0.3 0.7\n.step Vb list 1 3\n.end\n");
  const CliRun r = nsspice("run sw.cir -o sw.csv -q --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const char* vf[] = {"0.3", "0.3", "0.7", "0.7"};
  const char* vb[] = {"1", "3", "1", "3"};
  for (int k = 0; k < 4; ++k) {
    std::string alone = "rect\n.param amp=5\n" + std::string(kRectifier) +
                        fmt::format(".model dm D(VF={})\n.end\n", vf[k]);
    alone.replace(alone.find("Vb b 0 2"), 8, fmt::format("Vb b 0 {}", vb[k]));
    expect_run_equals(k + 1, alone);
  }
}

TEST_F(SweepIndividual, ARunWhoseValuesFailAnExpressionIsFlattenedAnew) {
  write("sw.cir",
        "bad\n.param n=1\nR1 a 0 {1k*sqrt(n)}\nV1 a 0 1\n.tran 1u 5u\n"
        ".step param n list 1 -1 4\n.end\n");
  const CliRun r = nsspice("run sw.cir -o sw.csv --jobs 2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("netlist            2 from the netlist flattened once (their values "
                          "evaluated again, elaborated each); 1 flattened anew (an expression "
                          "failed with their values: run 2)"),
            std::string::npos)
      << r.output;
  // Its diagnostics are those of the netlist alone with n = -1.
  write("one.cir", "bad\n.param n=-1\nR1 a 0 {1k*sqrt(n)}\nV1 a 0 1\n.tran 1u 5u\n.end\n");
  const CliRun one = nsspice("run one.cir -o one.csv -q");
  EXPECT_EQ(one.exit_code, 1);
  const std::string first = one.output.substr(0, one.output.find('\n'));
  EXPECT_NE(first.find("error"), std::string::npos) << one.output;
  EXPECT_NE(r.output.find(first.substr(first.find(':'))), std::string::npos)
      << r.output << "\n---\n"
      << one.output;
}

}  // namespace
}  // namespace nsspice::testing
