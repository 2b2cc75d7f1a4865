// The runs of a sweep as a user analyses and reproduces them (docs/sweeps.md): the Monte Carlo
// table holds every drawn value under a name the user wrote; --run K reruns run K alone with the
// values and draws it has in the whole sweep, bit for bit; a stepped value that changes nothing
// is named; a multi-plot raw file says which run each plot is; LTspice's ".step TYPE MODEL(P)"
// and ".step temp".
#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "app_test_helpers.hpp"
#include "sweep_helpers.hpp"

namespace nsspice::testing {
namespace {

class SweepRuns : public SweepAppTest {
 protected:
  // Line k (0 = the header) of a file.
  std::string line(const std::string& file, std::size_t k) {
    std::istringstream in(read_file(dir_ / file));
    std::string l;
    for (std::size_t i = 0; i <= k && std::getline(in, l); ++i) {
    }
    return l;
  }
};

// A Monte Carlo of every kind of drawn value: a .param, an element value, a model parameter, a
// parameter inside a subcircuit instance and PSpice's DEV tolerance.
constexpr const char* kDrawn =
    "drawn\n.param rl=agauss(100, 10, 1)\nV1 a 0 1\nR1 a 0 {rl}\n"
    "V2 b 0 1\nR2 b 0 {mc(1k, 0.1)}\n"
    "V3 c 0 1\nR3 c e 10k\nD1 e 0 dm\n.model dm D(IS={agauss(1e-14, 1e-15, 1)} RS=1 DEV 10%)\n"
    ".subckt load p\nR9 p 0 {aunif(2k, 100)}\n.ends\nV4 d 0 1\nX1 d load\n"
    ".tran 1u 2u\n.meas tran ia find i(v1) at=2u\n.meas tran ib find i(v2) at=2u\n"
    ".meas tran id find i(v4) at=2u\n";

TEST_F(SweepRuns, TheMonteCarloTableHoldsEveryDrawnValue) {
  write("d.cir", std::string(kDrawn) + ".end\n");
  const CliRun r = nsspice("run d.cir -o d.csv -q --runs 20 --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(line("d.meas.csv", 0), "run,trial,rl,r2,dm.is,x1.r9,dm@d1.rs,status,ia,ib,id");
  // The drawn values are the circuit's: i(V) = −1 V / R exactly as the run computed it.
  const auto rl = column("d.meas.csv", "rl"), r2 = column("d.meas.csv", "r2"),
             r9 = column("d.meas.csv", "x1.r9"), is = column("d.meas.csv", "dm.is"),
             rs = column("d.meas.csv", "dm@d1.rs");
  const auto ia = column("d.meas.csv", "ia"), ib = column("d.meas.csv", "ib"),
             id = column("d.meas.csv", "id");
  ASSERT_EQ(rl.size(), 20u);
  for (std::size_t k = 0; k < 20; ++k) {
    EXPECT_NEAR(ia[k], -1 / rl[k], 1e-12 / rl[k]) << k;
    EXPECT_NEAR(ib[k], -1 / r2[k], 1e-12 / r2[k]) << k;
    EXPECT_NEAR(id[k], -1 / r9[k], 1e-12 / r9[k]) << k;
    EXPECT_GE(r2[k], 900 - 1e-9);
    EXPECT_LE(r2[k], 1100 + 1e-9);
    EXPECT_GE(r9[k], 1900 - 1e-9);
    EXPECT_LE(r9[k], 2100 + 1e-9);
    EXPECT_GE(rs[k], 0.9 - 1e-12);  // RS = 1 Ω ± 10 % (DEV, uniform)
    EXPECT_LE(rs[k], 1.1 + 1e-12);
    EXPECT_GT(is[k], 0);
  }
  EXPECT_NE(rl[0], rl[1]);
  EXPECT_NE(rs[0], rs[1]);
}

// A sweep's report states the model conversions too (here LAMBDA's approximation with its
// numbers), not only a single run's: a stepped SPICE MOSFET is never silently idealized.
TEST_F(SweepRuns, TheSweepReportStatesTheModelConversions) {
  write("m.cir",
        "cs\nV1 vdd 0 12\nV2 in 0 SIN(2.2 10m 1k)\nR1 vdd d 4.7k\nM1 d in 0 0 NM1 W=10u L=2u\n"
        ".model NM1 NMOS(LEVEL=1 VTO=1.5 KP=120u LAMBDA=0.03)\n"
        ".step NMOS NM1(VTO) list 1.4 1.6\n.tran 2m\n.end\n");
  const CliRun r = nsspice("run m.cir -o m.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("device models (nominal values; each run converts its own)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("m1 LAMBDA 0.03 /V at the initial point"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not modelled: the output conductance"), std::string::npos);
}

TEST_F(SweepRuns, AFailingMonteCarloRunIsReportedWithItsDrawnValues) {
  // σ = 100 Ω around 100 Ω: some draws are ≤ 0, a resistor the netlist rejects.
  write("f.cir",
        "f\n.param rl=agauss(100, 100, 1)\nV1 a 0 1\nR1 a 0 {rl}\n.tran 1u 2u\n"
        ".meas tran ia find i(v1) at=2u\n.end\n");
  const CliRun r = nsspice("run f.cir -o f.csv -q --runs 20 --seed 1");
  ASSERT_EQ(r.exit_code, 2) << r.output;
  std::istringstream in(read_file(dir_ / "f.meas.csv"));
  std::string row;
  std::getline(in, row);
  int failed = 0;
  while (std::getline(in, row)) {
    if (row.find(",failed") == std::string::npos) continue;
    ++failed;
    // run,trial,rl,status: the drawn value is there, and it is the one printed.
    std::vector<std::string> f;
    std::stringstream fields(row);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 3u) << row;
    EXPECT_LE(std::stod(f[2]), 0) << row;
    EXPECT_NE(
        r.output.find(fmt::format("run {} (trial {}: rl={:g}):", f[0], f[1], std::stod(f[2]))),
        std::string::npos)
        << r.output;
  }
  EXPECT_GT(failed, 0) << "seed 1 draws a negative resistance in 20 runs";
}

// Run K alone (--run K) equals run K of the whole sweep bit for bit: its waveforms, its row of
// the table (drawn values included); the draws of a trial do not depend on the sweep points.
TEST_F(SweepRuns, RunKAloneEqualsRunKOfTheWholeSweep) {
  constexpr const char* kMc =
      "mc\n.param r=1k c={mc(1u, 0.2)}\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\nR1 in out {r}\n"
      "C1 out 0 {c}\n.tran 10u 1m\n.meas tran vend find v(out) at=1m\n";
  write("s.cir", std::string(kMc) + ".step param r list 500 1k 2k\n.end\n");
  ASSERT_EQ(nsspice("run s.cir -o all.csv -q --runs 4 --seed 9 --jobs 2").exit_code, 0);
  for (int k : {1, 7, 12}) {
    const CliRun one =
        nsspice(fmt::format("run s.cir -o one{0}.csv -q --runs 4 --seed 9 --run {0}", k));
    ASSERT_EQ(one.exit_code, 0) << one.output;
    EXPECT_EQ(read_file(dir_ / fmt::format("one{0}.run{0}.csv", k)),
              read_file(dir_ / fmt::format("all.run{}.csv", k)))
        << k;
    const std::string table = fmt::format("one{}.meas.csv", k);
    EXPECT_EQ(line(table, 0), line("all.meas.csv", 0));
    EXPECT_EQ(line(table, 1), line("all.meas.csv", static_cast<std::size_t>(k)));
    EXPECT_EQ(line(table, 2), "") << "one row";
    EXPECT_FALSE(fs::exists(dir_ / fmt::format("one{}.run{}.csv", k, k == 1 ? 2 : 1)));
  }
  ASSERT_EQ(nsspice("run s.cir -o part.csv -q --runs 4 --seed 9 --run 5:8").exit_code, 0);
  for (std::size_t k = 5; k <= 8; ++k)
    EXPECT_EQ(line("part.meas.csv", k - 4), line("all.meas.csv", k));
  // One more sweep point before the others: every (r, trial) keeps its draw.
  write("t.cir", std::string(kMc) + ".step param r list 200 500 1k 2k\n.end\n");
  ASSERT_EQ(nsspice("run t.cir -o more.csv -q --runs 4 --seed 9").exit_code, 0);
  const auto c_all = column("all.meas.csv", "c"), c_more = column("more.meas.csv", "c");
  ASSERT_EQ(c_more.size(), 16u);
  for (std::size_t k = 0; k < 12; ++k) EXPECT_EQ(c_all[k], c_more[k + 4]) << k;
  for (std::size_t t = 0; t < 4; ++t) EXPECT_EQ(c_all[t], c_all[t + 8]) << "trial " << t + 1;
}

TEST_F(SweepRuns, BadRunOptionsAreErrorsNamingTheOption) {
  write("s.cir",
        "s\n.param r=1k\nV1 a 0 1\nR1 a 0 {r}\n.tran 1u 2u\n.step param r list 1k 2k 3k\n.end\n");
  for (const char* bad : {"0", "3:1", "x", "2:", "-1", "1.5"}) {
    const CliRun r = nsspice(fmt::format("run s.cir -o b.csv --run '{}'", bad));
    EXPECT_EQ(r.exit_code, 1) << bad << r.output;
    EXPECT_NE(r.output.find("--run"), std::string::npos) << bad << r.output;
  }
  CliRun r = nsspice("run s.cir -o b.csv --run 4");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--run 4: the sweep has 3 runs"), std::string::npos) << r.output;
  write("n.cir", "n\nV1 a 0 1\nR1 a 0 1k\n.tran 1u 2u\n.end\n");
  r = nsspice("run n.cir -o b.csv --run 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("nothing to run more than once"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::directory_iterator(dir_) != fs::directory_iterator());
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().extension(), ".cir") << e.path();
}

// LTspice writes the model's type first: ".step D DM(VF) ...". It steps the same parameter as
// ".step DM(VF) ..."; a type that is not the model's is an error at the type.
TEST_F(SweepRuns, LtspiceModelStepSpellingAndTemperature) {
  constexpr const char* kD =
      "d\nV1 a 0 2\nR1 a b 1k\nD1 b 0 DM\n.model DM D(VF=0.5)\n.tran 1u 2u\n"
      ".meas tran id find i(d1) at=2u\n";
  write("a.cir", std::string(kD) + ".step D DM(VF) list 0.5 1\n.end\n");
  write("b.cir", std::string(kD) + ".step DM(VF) list 0.5 1\n.end\n");
  ASSERT_EQ(nsspice("run a.cir -o a.csv -q").exit_code, 0);
  ASSERT_EQ(nsspice("run b.cir -o b.csv -q").exit_code, 0);
  EXPECT_EQ(read_file(dir_ / "a.run2.csv"), read_file(dir_ / "b.run2.csv"));
  const auto id = column("a.meas.csv", "id");
  ASSERT_EQ(id.size(), 2u);
  EXPECT_NEAR(id[0], 1.5e-3, 1e-12);  // (2 V − VF) / 1 kΩ
  EXPECT_NEAR(id[1], 1.0e-3, 1e-12);
  write("c.cir", std::string(kD) + ".step NPN DM(VF) list 0.5 1\n.end\n");
  CliRun r = nsspice("run c.cir -o c.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("c.cir:8:7: error: .step NPN DM(VF): model 'DM' is of type D, not NPN"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "c.run1.csv"));
  // .step temp: each run as the netlist with that .temp, bit for bit.
  constexpr const char* kT =
      "t\nV1 a 0 2\nR1 a b 1k\nD1 b 0 DS\n.model DS D(IS=1e-14 N=1)\n.tran 1u 2u\n";
  write("t.cir", std::string(kT) + ".step temp list 27 100\n.end\n");
  write("u.cir", std::string(kT) + ".temp 100\n.end\n");
  r = nsspice("run t.cir -o t.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(nsspice("run u.cir -o u.csv -q").exit_code, 0);
  EXPECT_EQ(read_file(dir_ / "t.run2.csv"), read_file(dir_ / "u.csv"));
  EXPECT_NE(read_file(dir_ / "t.run1.csv"), read_file(dir_ / "t.run2.csv"));
  EXPECT_EQ(line("t.meas.csv", 0), "run,temp,status");
}

// A stepped value that changes nothing is named with two of its runs, whatever the kind of
// target: a source's DC value under SIN(...), a parameter nothing uses.
TEST_F(SweepRuns, ASteppedValueThatChangesNothingIsNamed) {
  write("s.cir", "s\nV1 a 0 SIN(0 1 1k)\nR1 a 0 1k\n.tran 10u 1m\n.step V1 list 1 2\n.end\n");
  CliRun r = nsspice("run s.cir -o s.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: .step v1: the runs that differ only in v1 have the same "
                          "waveforms, bit for bit (runs 1 and 2: v1=1 and v1=2)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("s.cir:2:1: warning: stepped source 'V1' has a SIN(...) waveform: the "
                          "DC value the step sets (1) is not used by .tran"),
            std::string::npos)
      << r.output;
  r = nsspice("run s.cir -o p.csv -q --step-param nothing=1,2,3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: .step nothing: the runs that differ only in nothing"),
            std::string::npos)
      << r.output;
  // A step that matters: no warning.
  write("e.cir",
        "e\n.param a=1\nV1 a 0 SIN(0 {a} 1k)\nR1 a 0 1k\n.tran 10u 1m\n.step param a list 1 2\n"
        ".end\n");
  r = nsspice("run e.cir -o e.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("changes nothing"), std::string::npos) << r.output;
}

// A stepped source that is not in the netlist is shown at its own .step card, not at the last.
TEST_F(SweepRuns, AMissingTargetIsShownAtItsCard) {
  write("m.cir",
        "m\n.param r=1k\nV1 a 0 1\nR1 a 0 {r}\n.tran 1u 2u\n.step V9 list 1 2\n"
        ".step param r list 1k 2k\n.end\n");
  const CliRun r = nsspice("run m.cir -o m.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("m.cir:6:1: error: stepped source 'v9' is not in the netlist"),
            std::string::npos)
      << r.output;
}

// A failed run has no plot in the raw file: each plot's title names its run, the run says so,
// and `nsspice plot` of the file draws every plot over the others.
TEST_F(SweepRuns, RawPlotsNameTheirRunsAndPlotDrawsThemAll) {
  write("f.cir",
        "f\n.param r=1k\nV1 a 0 SIN(0 1 1k)\nR1 a 0 {r}\n.tran 10u 1m\n"
        ".step param r list 1k 0 2k\n.end\n");
  const CliRun r = nsspice("run f.cir -o f.raw -q");
  ASSERT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'f.raw' holds 2 plots for 3 runs: no plot for run 2"), std::string::npos)
      << r.output;
  const std::string raw = read_file(dir_ / "f.raw");
  EXPECT_NE(raw.find("Title: f [run 1: r=1000]\n"), std::string::npos);
  EXPECT_NE(raw.find("Title: f [run 3: r=2000]\n"), std::string::npos);
  const CliRun p = nsspice("plot f.raw -o f.svg");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("2 plots of 'f.raw' drawn over each other"), std::string::npos)
      << p.output;
  const std::string svg = read_file(dir_ / "f.svg");
  EXPECT_NE(svg.find("run 1: r=1000"), std::string::npos);
  EXPECT_NE(svg.find("run 3: r=2000"), std::string::npos);
}

}  // namespace
}  // namespace nsspice::testing
