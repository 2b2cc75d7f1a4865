// Bad options are bad input: exit 1, a message naming the option and its allowed range, and no
// output file created or touched (the run plan is checked before any file is opened). CLI11's
// own parse errors exit 1 too, and --help names the program "nsspice", not its path.
#include "app/cli/compare_command.hpp"
#include "app/cli/plot_command.hpp"
#include "app/cli/run_command.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const char* kRect =
    "rectifier\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nC1 out 0 10u\nR1 out 0 1k\n.model DI D\n"
    ".tran 100u 5m\n.end\n";

class CliReject : public AppTest {
 protected:
  // Runs `args` with an existing output file out.csv; expects exit 1, `message` in the output,
  // and out.csv byte for byte as before.
  void expect_rejected(const std::string& args, const std::string& message) {
    write("rect.cir", kRect);
    const std::string before = "time,v(out)\n0,1\n";
    write("out.csv", before);
    const CliRun r = nsspice("run rect.cir -o out.csv -q " + args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(read_file(dir_ / "out.csv"), before) << args;
    EXPECT_EQ(r.output.find("simulation stopped"), std::string::npos) << r.output;
  }
  void expect_no_file(const std::string& args) {
    write("rect.cir", kRect);
    const CliRun r = nsspice("run rect.cir -o fresh.csv -q " + args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "fresh.csv")) << args;
  }
};

TEST_F(CliReject, ThetaOutOfRange) {
  expect_rejected("--theta 2", "--theta 2: must be in [0.5, 1]");
  expect_rejected("--theta 0.4", "--theta 0.4: must be in [0.5, 1]");
  expect_no_file("--theta 2");
}

TEST_F(CliReject, NegativeOrZeroStep) {
  expect_rejected("--step -1", "--step -1: must be positive (seconds)");
  expect_rejected("--step 0", "--step 0: must be positive (seconds)");
  expect_no_file("--step -1");
}

// A step number is said as one (CLI11's own range check printed 1.8e308 as its upper bound).
TEST_F(CliReject, DumpStepZeroNamesTheOption) {
  expect_rejected("--dump-mlcp 0", "--dump-mlcp: expected a step number K >= 1, got 0");
  expect_rejected("--dump-mlcp x", "--dump-mlcp: expected a step number K >= 1, got x");
}

TEST_F(CliReject, ZeroOrNegativeGrid) {
  expect_rejected("--grid 0", "--grid 0: must be positive (a step in seconds)");
  expect_rejected("--grid -1m", "--grid -0.001: must be positive (a step in seconds)");
  expect_no_file("--grid 0");
}

TEST_F(CliReject, EventToleranceOutOfRange) {
  expect_rejected("--method event --evrtol 5", "--evrtol 5: must be in (0, 1)");
  expect_rejected("--evrtol 0", "--evrtol 0: must be in (0, 1)");
  expect_no_file("--method event --evrtol 5");
}

TEST_F(CliReject, UnknownMethodAndSolverAndFormat) {
  expect_rejected("--method exact", "--method 'exact': expected theta or event");
  expect_rejected("--lcp-solver lemk",
                  "--lcp-solver 'lemk': unknown method (did you mean 'lemke'?)");
  expect_rejected("--format xls", "--format: xls not in {csv,raw,rawascii}");
}

TEST_F(CliReject, UnknownSignalAndBadMeasurement) {
  expect_rejected("--save 'v(nowhere)'", "v(nowhere)");
  expect_rejected("--meas 'avg v(nowhere) from=1m to=2m'", "v(nowhere)");
}

TEST_F(CliReject, ParseErrorsExitOneWithAMessage) {
  write("rect.cir", kRect);
  const CliRun unknown = nsspice("run rect.cir --no-such-option");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_NE(unknown.output.find("nsspice: error:"), std::string::npos) << unknown.output;
  EXPECT_NE(unknown.output.find("--no-such-option"), std::string::npos) << unknown.output;
  const CliRun none = nsspice("");
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_NE(none.output.find("subcommand"), std::string::npos) << none.output;
  const CliRun bad_number = nsspice("run rect.cir --theta abc");
  EXPECT_EQ(bad_number.exit_code, 1) << bad_number.output;
  EXPECT_NE(bad_number.output.find("'abc' is not a number"), std::string::npos)
      << bad_number.output;
  // An unknown option beside a missing required one is named (it was "--period is required").
  const CliRun misspelt = nsspice("ac rect.cir --perod 1u");
  EXPECT_EQ(misspelt.exit_code, 1) << misspelt.output;
  EXPECT_NE(misspelt.output.find("The following arguments were not expected: --perod 1u (and "
                                 "--period is required"),
            std::string::npos)
      << misspelt.output;
  const CliRun missing = nsspice("run");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_NE(missing.output.find("netlist"), std::string::npos) << missing.output;
}

TEST_F(CliReject, HelpAndVersionExitZeroAndNameTheProgram) {
  const CliRun help = nsspice("--help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_EQ(help.output.find(NSSPICE_BINARY), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("Usage: nsspice"), std::string::npos) << help.output;
  const CliRun run_help = nsspice("run --help");
  EXPECT_EQ(run_help.exit_code, 0) << run_help.output;
  EXPECT_EQ(run_help.output.find(NSSPICE_BINARY), std::string::npos) << run_help.output;
  const CliRun version = nsspice("--version");
  EXPECT_EQ(version.exit_code, 0) << version.output;
  EXPECT_EQ(version.output.rfind("nsspice ", 0), 0u) << version.output;
}

// The executable's start-up (README, "Static linking"): with NSSPICE_STATIC_STDCXX it loads libc,
// libm and METIS only; SuiteSparse, Boost, fmt and libstdc++ are linked in, and it still runs.
TEST_F(CliReject, TheExecutableLoadsOnlyLibcLibmAndMetis) {
  if (!NSSPICE_STATIC_STDCXX) GTEST_SKIP() << "a build with shared dependencies";
  const CliRun libs = run_shell(std::string("ldd '") + NSSPICE_BINARY + "'");
  ASSERT_EQ(libs.exit_code, 0) << libs.output;
  for (const char* lib :
       {"libklu", "libamd", "libcolamd", "libbtf", "libsuitesparseconfig", "libboost", "libfmt",
        "libstdc++", "libgcc_s", "libz", "liblzma", "libzstd", "libbz2"})
    EXPECT_EQ(libs.output.find(lib), std::string::npos) << lib << " in\n" << libs.output;
  EXPECT_NE(libs.output.find("libmetis"), std::string::npos) << libs.output;
  write("r.cir", "r\nV1 a 0 1\nR1 a 0 1k\n.tran 1u 10u\n.end\n");
  const CliRun run = nsspice("run r.cir -o r.csv -q");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(fs::exists(dir_ / "r.csv"));
}

// A run whose file would get more rows than the limit (default 1e8, --max-rows, .options
// maxrows) stops before anything is written, with the estimate and the options that raise it.
TEST_F(CliReject, OutputTooLargeStopsBeforeWriting) {
  write("big.cir", "big\nV1 a 0 1\nR1 a 0 1k\n.tran 1p 1\n.end\n");
  const CliRun big = nsspice("run big.cir -o big.csv -q");
  EXPECT_EQ(big.exit_code, 1) << big.output;
  EXPECT_NE(big.output.find("the run would write about 1e+12 rows (about"), std::string::npos)
      << big.output;
  EXPECT_NE(big.output.find("at one row per .tran TSTEP (the print interval) of 1e-12 s; the "
                            "limit is 1e+08 rows: raise it with --max-rows or .options maxrows"),
            std::string::npos)
      << big.output;
  EXPECT_FALSE(fs::exists(dir_ / "big.csv"));
  write("small.cir", "small\nV1 a 0 1\nR1 a 0 1k\n.tran 1u 10m\n.end\n");
  const CliRun limited = nsspice("run small.cir -o s1.csv -q --max-rows 100");
  EXPECT_EQ(limited.exit_code, 1) << limited.output;
  EXPECT_NE(limited.output.find("about 1e+04 rows"), std::string::npos) << limited.output;
  EXPECT_FALSE(fs::exists(dir_ / "s1.csv"));
  write("opt.cir", "small\nV1 a 0 1\nR1 a 0 1k\n.options maxrows=100\n.tran 1u 10m\n.end\n");
  EXPECT_EQ(nsspice("run opt.cir -o s2.csv -q").exit_code, 1);
  EXPECT_FALSE(fs::exists(dir_ / "s2.csv"));
  EXPECT_EQ(nsspice("run opt.cir -o s3.csv -q --max-rows 1e6").exit_code, 0);
  EXPECT_EQ(nsspice("run small.cir -o s4.csv -q --max-rows 0").exit_code, 1);
}

TEST_F(CliReject, ValidOptionsStillRun) {
  write("rect.cir", kRect);
  const CliRun r = nsspice("run rect.cir -o ok.csv -q --theta 1 --step 50u --grid 1m");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "ok.csv"));
}

}  // namespace
}  // namespace nsspice::testing

namespace nsspice::app {
namespace {

TEST(CompareOptionsValidate, DefaultsAreValidAndEachRangeIsNamed) {
  EXPECT_EQ(CompareOptions{}.validate(), "");
  CompareOptions o;
  o.timeout_seconds = 0;
  EXPECT_EQ(o.validate(), "--timeout 0: must be positive (seconds)");
  o = {};
  o.switch_threshold = 1.5;
  EXPECT_EQ(o.validate(), "--switch-threshold 1.5: must be in (0, 1)");
  o = {};
  o.grid = -1e-6;
  EXPECT_EQ(o.validate(), "--grid -1e-06: must be positive (a step in seconds)");
  o = {};
  o.sweep_n = {1, 0};
  EXPECT_EQ(o.validate(), "--sweep-n 0: must be positive");
}

}  // namespace
}  // namespace nsspice::app

namespace nsspice::testing {
namespace {

TEST_F(CliReject, CompareRejectsBadOptionsBeforeWritingAnything) {
  write("rect.cir", kRect);
  const CliRun r = nsspice("compare rect.cir -d cmp -q --theta 3");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--theta 3: must be in [0.5, 1]"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "cmp"));
  const CliRun t = nsspice("compare rect.cir -d cmp -q --timeout 0");
  EXPECT_EQ(t.exit_code, 1) << t.output;
  EXPECT_NE(t.output.find("--timeout 0: must be positive (seconds)"), std::string::npos)
      << t.output;
  EXPECT_FALSE(fs::exists(dir_ / "cmp"));
}

}  // namespace
}  // namespace nsspice::testing

namespace nsspice::app {
namespace {

TEST(RunOptionsValidate, CommandLineNumbersAndTheirRanges) {
  EXPECT_EQ(RunOptions{}.validate(), "");
  RunOptions o;
  o.grid = 0.0;
  EXPECT_EQ(o.validate(), "--grid 0: must be positive (a step in seconds)");
  o = {};
  o.dump_step = -2;
  EXPECT_EQ(o.validate(), "--dump-mlcp -2: must be >= 1");
  o = {};
  o.dump_time = -1e-3;
  EXPECT_EQ(o.validate(), "--dump-mlcp-time -0.001: must be >= 0 (seconds)");
}

TEST(TranslateOptionsValidate, ComparatorWidthAndStep) {
  EXPECT_EQ(TranslateOptions{}.validate(), "");
  TranslateOptions t;
  t.comparator_width = 0;
  EXPECT_EQ(t.validate(), "--comparator-width 0: must be positive (volts)");
  CompareOptions c;
  c.translate.comparator_width = -1;
  EXPECT_EQ(c.validate(), "--comparator-width -1: must be positive (volts)");
  t = {};
  t.tmax = -1;
  EXPECT_EQ(t.validate(), "tmax -1: must be >= 0 (seconds; 0 = from .tran)");
}

TEST(PlotOptionsValidate, WindowMustBeOrdered) {
  EXPECT_EQ(PlotOptions{}.validate(), "");
  PlotOptions p;
  p.t_from = 2e-3;
  p.t_to = 1e-3;
  EXPECT_EQ(p.validate(), "--window 0.002,0.001: FROM must be below TO");
  p.t_to.reset();
  EXPECT_EQ(p.validate(), "--window: needs FROM,TO");
  p.t_to = 3e-3;
  EXPECT_EQ(p.validate(), "");
}

}  // namespace
}  // namespace nsspice::app

namespace nsspice::testing {
namespace {

// A --window beside the data drew nothing: `plot --window 200m,300m` of a 100 ms file exited 3
// with gnuplot's "all points y value undefined" and left gnuplot's partial PNG (3388 bytes) under
// the name; `compare --window` did the same after both runs. Now exit 1 naming the option, no
// file (compare: no directory; it checks against the netlist's TSTART .. TSTOP before running).
TEST_F(CliReject, AWindowOutsideTheDataIsRejected) {
  write("w.csv", "time,v(a)\n0,0\n50e-3,1\n100e-3,0.5\n");
  CliRun r = nsspice("plot w.csv -o w.png --window 200m,300m");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--window 0.2,0.3 lies outside 'w.csv' (t = 0 .. 0.1 s)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "w.png"));
  r = nsspice("plot w.csv -o w.png --window 90m,300m");  // overlapping: drawn
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "w.png"));
  write("rect.cir", kRect);
  r = nsspice("compare rect.cir -d cmp -q --against w.csv --window 6m,7m");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--window 0.006,0.007 lies outside the run's TSTART .. TSTOP"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "cmp"));
  // A start-up as long as the run left nothing to compare: exit 0, "verdict: no signal in common".
  r = nsspice("compare rect.cir -d cmp -q --against w.csv --startup 5m");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--startup 0.005: skips the whole run (TSTART .. TSTOP = 0 .. 0.005 s)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "cmp"));
}

// A signal compare cannot judge is bad input, and bad input writes nothing: `compare --signals
// v(nope)` exited 1 but left its directory with nsspice.raw (written before the signals were
// checked against the run's).
TEST_F(CliReject, CompareWithAnUnknownSignalWritesNoDirectory) {
  write("w.csv", "time,v(out)\n0,0\n5e-3,1\n");
  write("rect.cir", kRect);
  CliRun r = nsspice("compare rect.cir -d cmp -q --against w.csv --signals 'v(nope)'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("unknown signal 'v(nope)' in --signals"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "cmp"));
  r = nsspice("compare rect.cir -d cmp -q --against w.csv --meas 'avg v(nope)'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "cmp"));
  r = nsspice("compare rect.cir -d cmp -q --against w.csv --signals 'v(out)'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "cmp" / "nsspice.raw"));
}

// The viewer is HTML: `view x.raw -o v.png` wrote HTML into v.png (exit 0), `view out.csv -o
// out.csv` over its own input, `run rect.cir --view rect.cir` over the netlist. Now exit 1
// naming the option, nothing written.
TEST_F(CliReject, TheViewerMustBeAnHtmlFile) {
  const std::string csv = "time,v(a)\n0,0\n1e-3,1\n";
  write("w.csv", csv);
  CliRun r = nsspice("view w.csv -o v.png");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("-o 'v.png': the viewer is an HTML file"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "v.png"));
  r = nsspice("view w.csv -o w.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(read_file(dir_ / "w.csv"), csv);
  EXPECT_EQ(nsspice("view w.csv -o v.HTML").exit_code, 0);
  expect_rejected("--view rect.cir", "--view 'rect.cir': the viewer is an HTML file");
  EXPECT_EQ(read_file(dir_ / "rect.cir"), kRect);
  expect_no_file("--view v.png");
  EXPECT_FALSE(fs::exists(dir_ / "v.png"));
  r = nsspice("compare rect.cir -d cmp -q --against w.csv --view cmp.png");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--view 'cmp.png': the viewer is an HTML file"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "cmp"));
}

}  // namespace
}  // namespace nsspice::testing
