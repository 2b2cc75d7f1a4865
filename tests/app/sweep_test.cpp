// Sweeps and Monte Carlo (app/cli/sweep_command.hpp): a sweep's runs equal individual runs bit
// for bit; Monte Carlo runs depend only on (seed, run index), whatever --jobs; the drawn
// values follow their distributions; a failing run is reported and the others go on; the raw
// output holds one plot per run; bad .step cards and options are clear errors.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "app/io/waveforms.hpp"
#include "app/sweep/sweep_points.hpp"
#include "app_test_helpers.hpp"
#include "sweep_helpers.hpp"

namespace nsspice::testing {
namespace {

// The column `name` of <dir>/<file>: SweepAppTest::column.
class Sweep : public SweepAppTest {};

constexpr const char* kRc =
    "rc\n.param r=1k c=1u\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\nR1 in out {r}\nC1 out 0 {c}\n"
    ".tran 10u 2m\n.meas tran vend find v(out) at=1m\n";

TEST_F(Sweep, RunsEqualIndividualRunsBitForBit) {
  write("sw.cir", std::string(kRc) + ".step param r list 500 2k\n.step param c 1u 2u 1u\n.end\n");
  const CliRun r = nsspice("run sw.cir -o sw.csv -q --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double rs[] = {500, 500, 2000, 2000}, cs[] = {1e-6, 2e-6, 1e-6, 2e-6};
  for (int k = 0; k < 4; ++k) {
    write("one.cir", fmt::format("rc\n.param r={} c={}\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\n"
                                 "R1 in out {{r}}\nC1 out 0 {{c}}\n.tran 10u 2m\n.end\n",
                                 rs[k], cs[k]));
    const CliRun one = nsspice("run one.cir -o one.csv -q");
    ASSERT_EQ(one.exit_code, 0) << one.output;
    EXPECT_EQ(read_file(dir_ / fmt::format("sw.run{}.csv", k + 1)), read_file(dir_ / "one.csv"))
        << "run " << k + 1;
  }
  // The measurement table: one row per run with its values; vend = 1 − exp(−1 ms / RC).
  const std::string meas = read_file(dir_ / "sw.meas.csv");
  EXPECT_EQ(meas.substr(0, meas.find('\n')), "run,r,c,status,vend");
  const auto vend = column("sw.meas.csv", "vend");
  ASSERT_EQ(vend.size(), 4u);
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(vend[k], 1 - std::exp(-1e-3 / (rs[k] * cs[k])), 1e-3) << "run " << k + 1;  // RELTOL
  EXPECT_NE(r.output.find("vend"), std::string::npos) << "-q keeps the measurements";
}

TEST_F(Sweep, CommandLineSweepsSourcesAndModelParameters) {
  write("s.cir",
        "s\nV1 a 0 1\nR1 a b 1k\nD1 b 0 dm\n.model dm D(VF=0.5)\n.tran 1u 2u\n"
        ".step V1 list 2 3\n.step dm(vf) list 0.5 1\n.meas tran id find i(d1) at=2u\n.end\n");
  const CliRun r = nsspice("run s.cir -o s.csv -q --step-param unused=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto id = column("s.meas.csv", "id");
  ASSERT_EQ(id.size(), 4u);
  const double want[] = {1.5e-3, 1e-3, 2.5e-3, 2e-3};  // (V1 − VF) / 1 kΩ
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(id[k], want[k], 1e-12) << "run " << k + 1;
}

TEST_F(Sweep, MonteCarloDependsOnlyOnSeedAndRunIndex) {
  write("mc.cir",
        "mc\n.param r=agauss(1k, 100, 1) c={mc(1u, 0.1)}\n"
        "V1 in 0 PULSE(0 1 0 1n 1n 1 2)\nR1 in out {r}\nC1 out 0 {c}\n.tran 10u 1m\n"
        ".meas tran vend find v(out) at=1m\n.end\n");
  ASSERT_EQ(nsspice("run mc.cir -o a.csv -q --runs 12 --seed 5 --jobs 1").exit_code, 0);
  ASSERT_EQ(nsspice("run mc.cir -o b.csv -q --runs 12 --seed 5 --jobs 2").exit_code, 0);
  ASSERT_EQ(nsspice("run mc.cir -o c.csv -q --runs 12 --seed 6 --jobs 2").exit_code, 0);
  EXPECT_EQ(read_file(dir_ / "a.meas.csv"), read_file(dir_ / "b.meas.csv"));
  for (int k = 1; k <= 12; ++k)
    EXPECT_EQ(read_file(dir_ / fmt::format("a.run{}.csv", k)),
              read_file(dir_ / fmt::format("b.run{}.csv", k)));
  EXPECT_NE(read_file(dir_ / "a.meas.csv"), read_file(dir_ / "c.meas.csv"));
  // Without --runs the distributions give their nominal values, and the run says so.
  const CliRun nominal = nsspice("run mc.cir -o n.csv -q");
  ASSERT_EQ(nominal.exit_code, 0) << nominal.output;
  EXPECT_NE(nominal.output.find("mc.cir:2:10: warning: 'agauss(1k, 100, 1)' takes its nominal "
                                "value 1000 (no Monte Carlo run: use --runs N to draw it)"),
            std::string::npos)
      << nominal.output;
  EXPECT_EQ(nsspice("run mc.cir -o e.csv -q --runs 2").output.find("nominal value"),
            std::string::npos);
  // Run 3 of a 12-run Monte Carlo is run 3 of a 4-run one (any subset is reproducible).
  ASSERT_EQ(nsspice("run mc.cir -o d.csv -q --runs 4 --seed 5 --jobs 2").exit_code, 0);
  EXPECT_EQ(read_file(dir_ / "a.run3.csv"), read_file(dir_ / "d.run3.csv"));
}

// The drawn values against their distributions: R1 = agauss(1k, 100, 1) (normal, σ = 100) and
// R2 = mc(1k, 0.2) (uniform on [800, 1200], σ = 200/√3), read back through the currents of
// 1 V sources. With n = 400 a sample mean is within 4 σ/√n of the mean, and a sample σ within
// 20 % of σ, except with probability below 1e-4 (a fixed seed: the test is deterministic).
TEST_F(Sweep, MonteCarloDrawsFollowTheirDistributions) {
  write("d.cir",
        "d\n.param r=agauss(1k, 100, 1) u={mc(1k, 0.2)}\nV1 a 0 1\nR1 a 0 {r}\n"
        "V2 b 0 1\nR2 b 0 {u}\n.tran 1u 2u\n"
        ".meas tran ia find i(v1) at=2u\n.meas tran ib find i(v2) at=2u\n.end\n");
  const CliRun r = nsspice("run d.cir -o d.csv -q --runs 400 --seed 11 --save 'i(v1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  struct Case {
    const char* meas;
    double sigma;
  };
  for (const Case c : {Case{"ia", 100.0}, Case{"ib", 200 / std::sqrt(3.0)}}) {
    std::vector<double> rv;
    for (double i : column("d.meas.csv", c.meas)) rv.push_back(-1.0 / i);  // i(V) = −1 V / R
    ASSERT_EQ(rv.size(), 400u);
    const double n = static_cast<double>(rv.size());
    const double mean = std::accumulate(rv.begin(), rv.end(), 0.0) / n;
    double var = 0;
    for (double x : rv) var += (x - mean) * (x - mean);
    EXPECT_NEAR(mean, 1000, 4 * c.sigma / std::sqrt(n)) << c.meas;
    EXPECT_NEAR(std::sqrt(var / (n - 1)), c.sigma, 0.2 * c.sigma) << c.meas;
    if (std::string(c.meas) == "ib") {
      EXPECT_GE(*std::min_element(rv.begin(), rv.end()), 800 - 1e-9);
      EXPECT_LE(*std::max_element(rv.begin(), rv.end()), 1200 + 1e-9);
    }
  }
}

TEST_F(Sweep, AFailingRunIsReportedAndTheOthersGoOn) {
  write("f.cir",
        "f\n.param r=1k\nV1 a 0 1\nR1 a 0 {r}\n.tran 1u 2u\n"
        ".step param r list 1k 0 2k\n.meas tran ir find i(r1) at=2u\n.end\n");
  const CliRun r = nsspice("run f.cir -o f.csv");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("run 2 (r=0): the netlist of this run has errors"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("f.cir:4:8: error: resistor 'r1' must have a positive value"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("2 ok, 1 failed"), std::string::npos) << r.output;
  const std::string meas = read_file(dir_ / "f.meas.csv");
  EXPECT_NE(meas.find("1,1000,ok,"), std::string::npos) << meas;
  EXPECT_NE(meas.find("2,0,failed,\n"), std::string::npos) << meas;
  EXPECT_NE(meas.find("3,2000,ok,"), std::string::npos) << meas;
  EXPECT_TRUE(fs::exists(dir_ / "f.run3.csv"));
}

// SIGINT during a sweep: the runs under way stop after their current row, no new run starts,
// the measurement table says which runs ran, exit 130.
TEST_F(Sweep, AnInterruptStopsTheRunsUnderWayAndStartsNoOther) {
  write("i.cir",
        "i\n.param r=agauss(1k, 100, 1)\nV1 a 0 SIN(0 1 1k)\nR1 a b {r}\nC1 b 0 1u\n"
        ".tran 1u 0.5\n.end\n");
  // --foreground: one SIGINT to nsspice (without it, timeout also signals its process group, and
  // a second SIGINT delivered after the first means "exit at once").
  const CliRun r =
      run_shell("cd '" + dir_.string() + "' && timeout --foreground --preserve-status -s INT 1 '" +
                NSSPICE_BINARY + "' run i.cir -o i.csv --grid 1m --runs 500 --jobs 2");
  EXPECT_EQ(r.exit_code, 130) << r.output;
  EXPECT_NE(r.output.find("interrupted by SIGINT:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("runs not started"), std::string::npos) << r.output;
  const std::string meas = read_file(dir_ / "i.meas.csv");
  EXPECT_NE(meas.find(",not run"), std::string::npos) << meas;
  EXPECT_FALSE(fs::exists(dir_ / "i.run500.csv"));
}

// A warning of the runs (here: a fixed step too long for the source, in one run of two) is
// printed once, with the runs that gave it.
TEST_F(Sweep, TheRunsWarningsAreShownOnceWithTheirRuns) {
  write("w.cir",
        "w\n.param f=1k\nV1 a 0 SIN(0 1 {f})\nR1 a 0 1k\n.tran 10u 2m\n"
        ".step param f list 1k 40k\n.end\n");
  const CliRun r = nsspice("run w.cir -o w.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("(run 2)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("(run 1)"), std::string::npos) << r.output;
}

// LTspice: a stepped parameter needs no .param card; each run takes its value of the .step.
TEST_F(Sweep, ASteppedParameterNeedsNoParamCard) {
  write("u.cir",
        "u\nV1 in 0 10\nR1 in out {Rl}\nR2 out 0 1k\n.step param Rl list 1k 4k\n"
        ".tran 1u 10u\n.meas tran vout avg v(out)\n.end\n");
  const CliRun r = nsspice("run u.cir -o u.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto vout = column("u.meas.csv", "vout");
  ASSERT_EQ(vout.size(), 2u);
  EXPECT_NEAR(vout[0], 5.0, 1e-9);
  EXPECT_NEAR(vout[1], 2.0, 1e-9);
  // A .param card, where there is one, is still the nominal value and the runs step it.
  write("p.cir",
        "p\n.param Rl=9k\nV1 in 0 10\nR1 in out {Rl}\nR2 out 0 1k\n.step param Rl list 1k 4k\n"
        ".tran 1u 10u\n.meas tran vout avg v(out)\n.end\n");
  const CliRun p = nsspice("run p.cir -o p.csv -q");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(column("p.meas.csv", "vout"), vout);
}

// A .meas card left out (a signal the circuit does not have) is one warning after the runs,
// with its place and the runs it applies to, not one per run.
TEST_F(Sweep, AMeasurementLeftOutIsWarnedOnceForEveryRun) {
  write("m.cir",
        "m\n.param r=1k\nV1 in 0 1\nR1 in out {r}\nR2 out 0 1k\n.step param r list 1k 2k 3k\n"
        ".tran 1u 10u\n.meas tran a avg v(nothere)\n.meas tran b avg v(out)\n.end\n");
  const CliRun r = nsspice("run m.cir -o m.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string want =
      "nsspice: warning: m.cir:8:1: measurement 'a': unknown signal 'v(nothere)'; the measurement "
      "is left out (every run)";
  EXPECT_NE(r.output.find(want), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("unknown signal"), r.output.rfind("unknown signal")) << r.output;
}

TEST_F(Sweep, RawOutputHoldsOnePlotPerRunInRunOrder) {
  write("r.cir", std::string(kRc) + ".step param r list 500 1k 2k\n.end\n");
  const CliRun r = nsspice("run r.cir -o r.raw -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string raw = read_file(dir_ / "r.raw");
  size_t plots = 0;
  for (size_t at = raw.find("Plotname:"); at != std::string::npos;
       at = raw.find("Plotname:", at + 1))
    ++plots;
  EXPECT_EQ(plots, 3u);
  EXPECT_FALSE(fs::exists(dir_ / "r.run1.raw"));
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not on PATH";
  // ngspice loads the multi-plot file: one plot per run.
  write("load.sp", "* load\n.control\nload r.raw\nsetplot\n.endc\n.end\n");
  const CliRun ng = run_shell("cd '" + dir_.string() + "' && timeout 60 ngspice -b load.sp");
  EXPECT_NE(ng.output.find("tran3\t"), std::string::npos) << ng.output;
  EXPECT_EQ(ng.output.find("tran4\t"), std::string::npos) << ng.output;
}

// A --spec naming no measurement is bad input before any run: it was a warning after all the runs,
// exit 0, its yield "-". The names are the .meas cards' and the --meas's.
TEST_F(Sweep, ASpecOfNoMeasurementIsRejectedBeforeTheRuns) {
  write("p.cir", std::string(kRc) + ".step param r list 500 1k\n.end\n");
  CliRun r = nsspice("run p.cir -o p.csv -q --meas 'max v(out)' --spec 'max_v(ou) 0 1'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--spec 'max_v(ou)': no measurement of that name (did you mean "
                          "'max_v(out)'?)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "p.run1.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "p.meas.csv"));
  r = nsspice(
      "run p.cir -o p.csv -q --meas 'max v(out)' --spec 'max_v(out) 0 1' --spec 'vend 0 1'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "p.meas.csv"));
}

// --plot of a sweep draws the runs over each other from their files (a raw output is joined
// after the plot is drawn); with many runs one legend entry per signal, and the count drawn.
TEST_F(Sweep, PlotOverlaysTheRuns) {
  write("p.cir", std::string(kRc) + ".step param r list 500 1k 2k\n.end\n");
  CliRun r = nsspice("run p.cir -o p.raw --plot p.png -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(fs::file_size(dir_ / "p.png"), 1000u);
  EXPECT_FALSE(fs::exists(dir_ / "p.run1.raw"));
  std::string mc = kRc;
  mc.replace(mc.find("r=1k"), 4, "r=agauss(1k, 100, 1)");
  write("m.cir", mc + ".end\n");
  r = nsspice("run m.cir -o m.csv --plot m.svg --runs 60 -q --save 'v(out)' --spec 'vend 0.6 0.7'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string svg = read_file(dir_ / "m.svg");
  EXPECT_NE(svg.find("v(out) (50 runs)"), std::string::npos);
  EXPECT_NE(svg.find("50 of 60 runs drawn"), std::string::npos);
  // Monte Carlo: a histogram of each measurement beside the plot, with the spec's limits and
  // the statistics of the summary table (8 bins: ⌈2·60^(1/3)⌉).
  const auto vend = column("m.meas.csv", "vend");
  ASSERT_EQ(vend.size(), 60u);
  const double mean = std::accumulate(vend.begin(), vend.end(), 0.0) / 60;
  const auto in =
      std::count_if(vend.begin(), vend.end(), [](double v) { return v >= 0.6 && v <= 0.7; });
  const std::string hist = read_file(dir_ / "m.vend.hist.svg");
  EXPECT_NE(hist.find(fmt::format("vend of 60 runs (Monte Carlo, seed 1): mean {:.6g}", mean)),
            std::string::npos)
      << hist.substr(0, 3000);
  EXPECT_NE(hist.find(fmt::format("yield {:.1f} % in [0.6, 0.7]", 100.0 * in / 60)),
            std::string::npos);
  EXPECT_NE(hist.find("vend (8 bins)"), std::string::npos);
  EXPECT_NE(hist.find("spec [0.6, 0.7]"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "p.vend.hist.png")) << "no histogram without Monte Carlo";
}

TEST_F(Sweep, BadStepCardsAndOptionsAreClearErrors) {
  write("b.cir",
        "b\n.param r=1k\nV1 a 0 1\nR1 a 0 {r}\n.tran 1u 2u\n"
        ".step param r 1k 2k -1\n.end\n");
  CliRun r = nsspice("run b.cir -o b.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("b.cir:6:1: error: .step r: the increment -1 does not lead from 1000 "
                          "to 2000"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "b.run1.csv"));
  write("c.cir", "c\nV1 a 0 1\nR1 a 0 1k\n.tran 1u 2u\n.step R1 1 2 1\n.end\n");
  r = nsspice("run c.cir -o c.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("c.cir:5:7: error: .step of 'R1': only parameters"), std::string::npos)
      << r.output;
  write("g.cir", "g\n.param r=1k\nV1 a 0 1\nR1 a 0 {r}\n.tran 1u 2u\n.end\n");
  r = nsspice("run g.cir -o g.csv --step-param r=1k,x");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--step-param r: 'x' is not a number"), std::string::npos) << r.output;
  r = nsspice(
      "run g.cir -o g.csv --step-param a=1 --step-param b=1 --step-param c=1 "
      "--step-param d=1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("4 sweep dimensions"), std::string::npos) << r.output;
  r = nsspice("run g.cir -o g.csv --runs 0");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--runs"), std::string::npos) << r.output;
  // A sweep of a netlist whose analysis is not .tran: said so, not a bad .tran; a .step card's
  // at the card, LTspice's .step with .ac included.
  write("o.cir", "o\n.param r=1k\nV1 a 0 1\nR1 a 0 {r}\n.step param r list 1k 2k\n.op\n.end\n");
  r = nsspice("run o.cir -o o.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("o.cir:5:1: error: .step sweeps the .tran analysis only, and this "
                          "netlist runs its .op (one analysis per run)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "o.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "o.run1.csv"));
  write("ac.cir",
        "ac\n.param r=1k\nV1 a 0 DC 0 AC 1\nR1 a b {r}\nC1 b 0 1u\n"
        ".step param R 1k 10k 1k\n.ac dec 10 1 1Meg\n.end\n");
  r = nsspice("run ac.cir -o ac.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("ac.cir:6:1: error: .step sweeps the .tran analysis only, and this "
                          "netlist runs its .ac (one analysis per run): add a .tran card "
                          "(--analysis tran), or run the .ac without the .step"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("\n.step param R 1k 10k 1k\n^~~~"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "ac.csv"));
  r = nsspice("run o.cir -o o.csv --analysis op --step-param r=1k,2k");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("o.cir:5:1: error: .step sweeps the .tran analysis only"),
            std::string::npos)
      << r.output;
  write("p.cir", "p\n.param r=1k\nV1 a 0 1\nR1 a 0 {r}\n.op\n.end\n");
  r = nsspice("run p.cir -o p.csv --step-param r=1k,2k");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("sweeps and Monte Carlo (.step, --step-param, --runs) run the .tran "
                          "analysis; 'p.cir' would run its .op"),
            std::string::npos)
      << r.output;
}

// A stepped source or model that is not in the netlist is bad input before any run (exit 1, no
// file); a stepped model parameter the model does not use is named once, not silently swept.
TEST_F(Sweep, SteppedTargetsMustExistAndMatter) {
  write("s.cir",
        "s\nV1 in 0 SIN(0 5 1k)\nD1 in out DM\nR1 out 0 1k\n.model DM D(VF=0.7)\n"
        ".tran 10u 1m\n.step V9 list 1 2\n.end\n");
  CliRun r = nsspice("run s.cir -o s.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("s.cir:7:1: error: stepped source 'v9' is not in the netlist"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("no run started"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "s.run1.csv"));
  write("m.cir",
        "m\nV1 in 0 SIN(0 5 1k)\nD1 in out DM\nR1 out 0 1k\n.model DM D(VF=0.7)\n"
        ".tran 10u 1m\n.step DM(foo) list 1 2\n.end\n");
  r = nsspice("run m.cir -o m.csv -q");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("with the swept values of run 1 (dm(foo)=1)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("parameters foo are ignored"), std::string::npos) << r.output;
}

TEST(SweepPoints, LinearLogarithmicAndListDimensions) {
  netlist::StepCard card;
  card.name.lower = "x";
  auto values = [&](netlist::StepCard::Scale s, std::vector<double> v) {
    card.scale = s;
    card.values.clear();
    for (double x : v) card.values.push_back(netlist::Value{x, {}, ""});
    std::string error;
    auto d = app::dimension_of(card, error);
    EXPECT_TRUE(d) << error;
    return d ? d->values : std::vector<double>();
  };
  using S = netlist::StepCard::Scale;
  EXPECT_EQ(values(S::kLin, {1, 2, 0.25}), (std::vector<double>{1, 1.25, 1.5, 1.75, 2}));
  EXPECT_EQ(values(S::kLin, {0.1, 0.3, 0.1}).size(), 3u);  // stop kept despite rounding
  EXPECT_EQ(values(S::kLin, {5, 1, -2}), (std::vector<double>{5, 3, 1}));
  const auto dec = values(S::kDec, {1, 100, 2});
  ASSERT_EQ(dec.size(), 5u);
  EXPECT_NEAR(dec[1], std::sqrt(10.0), 1e-12);
  EXPECT_NEAR(dec[4], 100, 1e-12);
  EXPECT_EQ(values(S::kOct, {1, 8, 1}).size(), 4u);
  EXPECT_EQ(values(S::kList, {3, 1, 2}), (std::vector<double>{3, 1, 2}));
  std::string error;
  card.scale = S::kLin;
  card.values = {{1, {}, ""}, {2, {}, ""}, {0, {}, ""}};
  EXPECT_FALSE(app::dimension_of(card, error));
  card.scale = S::kDec;
  card.values = {{0, {}, ""}, {2, {}, ""}, {3, {}, ""}};
  EXPECT_FALSE(app::dimension_of(card, error));
  EXPECT_NE(error.find("0 < start"), std::string::npos) << error;
}

TEST(SweepPoints, RunsNestTheFirstDimensionOutermost) {
  std::vector<app::SweepDimension> dims(2);
  dims[0].values = {1, 2};
  dims[1].values = {10, 20, 30};
  std::string error;
  const auto runs = app::sweep_runs(dims, 2, error);
  ASSERT_TRUE(runs) << error;
  ASSERT_EQ(runs->size(), 12u);
  EXPECT_EQ((*runs)[0].values, (std::vector<double>{1, 10}));
  EXPECT_EQ((*runs)[1].values, (std::vector<double>{1, 10}));  // trial 2 of the same point
  EXPECT_EQ((*runs)[1].trial, 1u);
  EXPECT_EQ((*runs)[2].values, (std::vector<double>{1, 20}));
  EXPECT_EQ((*runs)[11].values, (std::vector<double>{2, 30}));
  // Draws depend on (seed, index) only.
  app::RunRandom a(3, 7), b(3, 7), c(3, 8);
  const double x = a(true);
  EXPECT_EQ(x, b(true));
  EXPECT_NE(x, c(true));
}

}  // namespace
}  // namespace nsspice::testing
