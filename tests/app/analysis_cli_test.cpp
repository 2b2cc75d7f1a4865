// `nsspice run` of .op, .dc and .ac netlists: what is printed, the files (CSV and raw laid out as
// ngspice writes them), the Bode plot, the choice of the analysis, and the AC response against
// ngspice's on the same netlist (when ngspice is installed).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <sstream>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

using cd = std::complex<double>;

class AnalysisCli : public AppTest {};

// True when some line of `text` starts with `head` and ends with `tail`.
bool has_line(const std::string& text, const std::string& head, const std::string& tail) {
  for (const auto& line : text_lines(text))
    if (line.starts_with(head) && line.ends_with(tail)) return true;
  return false;
}

// The variable names of a raw file, in order.
std::vector<std::string> raw_names(const std::string& text) {
  std::vector<std::string> out;
  const auto begin = text.find("Variables:\n") + 11;
  const auto end = text.find_first_of("VB", text.find("\n\t", begin) + 1);
  for (const auto& line : text_lines(text.substr(begin, end - begin))) {
    std::istringstream in(line);
    std::string index, name;
    if (in >> index >> name) out.push_back(name);
  }
  return out;
}

// The values of an ASCII raw file: per point, per variable, (re, im) (im = 0 for real files).
std::vector<std::vector<cd>> raw_values(const std::string& text, size_t variables) {
  std::vector<std::vector<cd>> points;
  const auto at = text.find("Values:\n");
  std::istringstream in(text.substr(at + 8));
  std::vector<cd> point;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string token;
    if (line[0] != '\t') fields >> token;  // the point index
    fields >> token;
    const auto comma = token.find(',');
    point.emplace_back(std::stod(token.substr(0, comma)),
                       comma == std::string::npos ? 0.0 : std::stod(token.substr(comma + 1)));
    if (point.size() == variables) {
      points.push_back(point);
      point.clear();
    }
  }
  return points;
}

const char* kRlc =
    "series RLC\nV1 in 0 DC 0 AC 1\nR1 in a 10\nL1 a b 1m\nC1 b 0 1u\n.ac dec 10 100 100k\n.end\n";

TEST_F(AnalysisCli, OpOnlyNetlistPrintsAndWritesTheOperatingPoint) {
  write("op.cir",
        "op\nV1 in 0 DC 10\nR1 in a 1k\nD1 a out DM\nR2 out 0 1k\nD2 0 out DM\n"
        ".model DM D(VF=1)\n.op\n.end\n");
  auto r = nsspice("run op.cir -o op.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("operating point"), std::string::npos) << r.output;
  EXPECT_TRUE(has_line(r.output, "    v(out) ", " 4.5 V")) << r.output;
  EXPECT_TRUE(has_line(r.output, "    i(v1) ", " -0.0045 A")) << r.output;
  EXPECT_NE(r.output.find("d1                   conducting     i = 0.0045 A"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("d2                   blocking       i = 0 A"), std::string::npos)
      << r.output;
  const auto csv = text_lines(read_file(dir_ / "op.csv"));
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(csv[0], "v(in),v(a),v(out),i(v1),i(d1),i(d2)");
  const std::vector<double> want = {10, 5.5, 4.5, -0.0045, 0.0045, 0};
  std::istringstream row(csv[1]);
  for (double w : want) {
    std::string cell;
    ASSERT_TRUE(std::getline(row, cell, ','));
    EXPECT_NEAR(std::stod(cell), w, 1e-15) << csv[1];
  }
  r = nsspice("run op.cir -o op.raw --format rawascii -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string raw = read_file(dir_ / "op.raw");
  EXPECT_NE(raw.find("Plotname: Operating Point\nFlags: real\nNo. Variables: 6\nNo. Points: 1 "),
            std::string::npos)
      << raw;
  EXPECT_NE(raw.find("\t0\tv(in)\tvoltage\n"), std::string::npos) << raw;
  const auto values = raw_values(raw, 6);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_DOUBLE_EQ(values[0][2].real(), 4.5);
}

TEST_F(AnalysisCli, DcSweepWritesTheSweepColumnAndPlots) {
  write("clip.cir",
        "clipper\nVin in 0 0\nR1 in out 1k\nD1 out p DM\nVp p 0 2\n.model DM D\n"
        ".dc Vin -4 4 1\n.save v(out) i(d1)\n.end\n");
  auto r = nsspice("run clip.cir -o clip.csv --plot clip.png");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = text_lines(read_file(dir_ / "clip.csv"));
  ASSERT_EQ(csv.size(), 10u);
  EXPECT_EQ(csv[0], "v-sweep,v(out),i(d1)");
  EXPECT_EQ(csv[1], "-4,-4,0");
  EXPECT_EQ(csv[9], "4,2,0.002");
  EXPECT_EQ(read_file(dir_ / "clip.png").substr(0, 4), "\x89PNG");
  r = nsspice("run clip.cir -o clip.raw --format rawascii -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string raw = read_file(dir_ / "clip.raw");
  EXPECT_NE(raw.find("Plotname: DC transfer characteristic\nFlags: real\n"), std::string::npos);
  EXPECT_NE(raw.find("\t0\tv(v-sweep)\tvoltage\n\t1\tv(out)\tvoltage\n"), std::string::npos) << raw;
  EXPECT_EQ(raw_values(raw, 3).size(), 9u);
}

TEST_F(AnalysisCli, DcOverAParameterRebuildsTheCircuitPerValue) {
  // R2 = {rload} swept (inner), V1 outer; the diode clamps v(out) at 4 V:
  // v(out) = min(V1·R2/(R1 + R2), 4), i(d1) = max(V1/R1 − 4/R1 − 4/R2, 0) when clamped.
  write("p.cir",
        "load sweep\n.param rload=1k\nV1 in 0 10\nR1 in out 1k\nR2 out 0 {rload}\nD1 out z DZ\n"
        "Vz z 0 4\n.model DZ D\n.dc rload 500 2k 500 V1 5 10 5\n.save v(out) i(d1)\n.end\n");
  const auto r = nsspice("run p.cir -o p.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = text_lines(read_file(dir_ / "p.csv"));
  ASSERT_EQ(csv.size(), 9u);
  EXPECT_EQ(csv[0], "rload,v1-sweep,v(out),i(d1)");
  for (size_t k = 1; k < csv.size(); ++k) {
    double r2, v1, vout, id;
    ASSERT_EQ(std::sscanf(csv[k].c_str(), "%lf,%lf,%lf,%lf", &r2, &v1, &vout, &id), 4);
    EXPECT_DOUBLE_EQ(r2, 500.0 * static_cast<double>((k - 1) % 4 + 1));
    EXPECT_DOUBLE_EQ(v1, k <= 4 ? 5 : 10);
    EXPECT_NEAR(vout, std::min(v1 * r2 / (1e3 + r2), 4.0), 1e-12) << csv[k];
    EXPECT_NEAR(id, std::max(v1 / 1e3 - 4 / 1e3 - 4 / r2, 0.0), 1e-15) << csv[k];
  }
}

TEST_F(AnalysisCli, AcWritesDbAndPhaseColumnsComplexRawAndABodePlot) {
  write("rlc.cir", kRlc);
  auto r = nsspice("run rlc.cir -o rlc.csv --save 'v(b),i(l1)' --plot bode.png");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(dir_ / "bode.png").substr(0, 4), "\x89PNG");
  const auto csv = text_lines(read_file(dir_ / "rlc.csv"));
  ASSERT_EQ(csv.size(), 32u);
  EXPECT_EQ(csv[0], "frequency,vdb(b),vp(b),idb(l1),ip(l1)");
  // At 100 Hz: v(b) = 1/(1 − ω²LC + jωRC).
  double f, vdb, vp;
  ASSERT_EQ(std::sscanf(csv[1].c_str(), "%lf,%lf,%lf", &f, &vdb, &vp), 3);
  const double w = 2 * std::numbers::pi * 100;
  const cd vb = 1.0 / (1.0 - w * w * 1e-9 + cd(0, w * 1e-5));
  EXPECT_DOUBLE_EQ(f, 100);
  EXPECT_NEAR(vdb, 20 * std::log10(std::abs(vb)), 1e-9);
  EXPECT_NEAR(vp, std::arg(vb) * 180 / std::numbers::pi, 1e-9);
  r = nsspice("run rlc.cir -o rlc.raw -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string raw = read_file(dir_ / "rlc.raw");
  EXPECT_NE(raw.find("Plotname: AC Analysis\nFlags: complex\nNo. Variables: 6\nNo. Points: 31 "),
            std::string::npos);
  EXPECT_NE(raw.find("\t0\tfrequency\tfrequency\tgrid=3\n"), std::string::npos);
  // Binary: 6 complex doubles per point after "Binary:\n".
  const auto at = raw.find("Binary:\n") + 8;
  ASSERT_EQ(raw.size() - at, 31u * 6 * 16);
}

TEST_F(AnalysisCli, AcMatchesNgspice) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed";
  write("rlc.cir", kRlc);
  write("ng.cir",
        std::string(kRlc).replace(std::string(kRlc).find(".ac"), 0, ".options filetype=ascii\n"));
  auto ng = run_shell("cd '" + dir_.string() + "' && ngspice -b -r ng.raw ng.cir");
  ASSERT_EQ(ng.exit_code, 0) << ng.output;
  auto r = nsspice("run rlc.cir -o ns.raw --format rawascii -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string ng_raw = read_file(dir_ / "ng.raw"), ns_raw = read_file(dir_ / "ns.raw");
  // The same variables (ngspice orders them its own way): matched by name.
  const auto ng_names = raw_names(ng_raw), ns_names = raw_names(ns_raw);
  ASSERT_EQ(ng_names.size(), 6u) << ng_raw.substr(0, 400);
  ASSERT_EQ(ns_names.size(), 6u) << ns_raw.substr(0, 400);
  const auto a = raw_values(ng_raw, 6), b = raw_values(ns_raw, 6);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), 31u);
  for (size_t j = 0; j < 6; ++j) {
    const auto at = std::find(ns_names.begin(), ns_names.end(), ng_names[j]);
    ASSERT_NE(at, ns_names.end()) << ng_names[j];
    const auto i = static_cast<size_t>(at - ns_names.begin());
    // ngspice leaves the imaginary part of its complex frequency uninitialized: the real
    // part alone is compared there.
    for (size_t k = 0; k < a.size(); ++k)
      EXPECT_LT(j == 0 ? std::abs(a[k][j].real() - b[k][i].real()) : std::abs(a[k][j] - b[k][i]),
                1e-9 * std::abs(j == 0 ? a[k][j].real() : a[k][j]) + 1e-15)
          << "point " << k << " " << ng_names[j] << ": ngspice " << a[k][j] << ", nsspice "
          << b[k][i];
  }
}

TEST_F(AnalysisCli, TranRunsAndTheOpIsPrintedWhenBothAreThere) {
  write("both.cir",
        "both\nV1 in 0 DC 2 AC 1\nR1 in out 1k\nC1 out 0 1u\n.op\n.tran 10u 1m\n.ac dec 1 1 10\n"
        ".end\n");
  auto r = nsspice("run both.cir -o both.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("operating point"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("note: the netlist's .ac is not run (one analysis per run: --analysis "
                          "ac)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(text_lines(read_file(dir_ / "both.csv"))[0].substr(0, 5), "time,");
  r = nsspice("run both.cir -o ac.csv --analysis ac -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(text_lines(read_file(dir_ / "ac.csv"))[0].substr(0, 10), "frequency,");
  r = nsspice("run both.cir --analysis dc");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--analysis dc: the netlist has no .dc card"), std::string::npos)
      << r.output;
  r = nsspice("run both.cir --analysis noise");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--analysis 'noise': expected tran, op, dc, ac or pss"),
            std::string::npos);
  r = nsspice("run both.cir --analysis ac --grid 1u");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--grid applies to a .tran run only"), std::string::npos);
}

TEST_F(AnalysisCli, EveryAnalysisExampleRuns) {
  int count = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(NSSPICE_EXAMPLES_DIR) + "/analyses")) {
    if (entry.path().extension() != ".cir") continue;
    SCOPED_TRACE(entry.path().filename().string());
    EXPECT_NE(read_file(entry.path()).find("What it shows"), std::string::npos);
    const auto r = nsspice("run '" + entry.path().string() + "' -o out.csv -q");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_GE(text_lines(read_file(dir_ / "out.csv")).size(), 2u);
    ++count;
  }
  EXPECT_GE(count, 5);
}

TEST_F(AnalysisCli, PssWritesOnePeriodThatClosesOnItself) {
  const std::string buck = std::string(NSSPICE_EXAMPLES_DIR) + "/buck.cir";
  auto r = nsspice("pss '" + buck +
                   "' --period 10u --steps 200 --compare-transient 2000 -o p.csv "
                   "--save 'v(out),i(l1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Newton iterations"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("transient to settle"), std::string::npos) << r.output;
  const auto csv = text_lines(read_file(dir_ / "p.csv"));
  ASSERT_GT(csv.size(), 200u);
  EXPECT_EQ(csv[0], "time,v(out),i(l1)");
  double t0, v0, i0, t1, v1, i1;
  ASSERT_EQ(std::sscanf(csv[1].c_str(), "%lf,%lf,%lf", &t0, &v0, &i0), 3);
  ASSERT_EQ(std::sscanf(csv.back().c_str(), "%lf,%lf,%lf", &t1, &v1, &i1), 3);
  EXPECT_DOUBLE_EQ(t0, 0);
  EXPECT_NEAR(t1, 10e-6, 1e-15);
  EXPECT_NEAR(v1, v0, 1e-9 * std::abs(v0));
  EXPECT_NEAR(i1, i0, 1e-9 * std::abs(v0));
  // Measurements over the orbit: the mean output D·Vin and the ripple (Vin − Vout)·D·T/L.
  r = nsspice("pss '" + buck + "' --period 10u -o q.csv --meas 'avg v(out)' --meas 'pp i(l1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto at = r.output.find("measurements (over the 1 period written)");
  ASSERT_NE(at, std::string::npos) << r.output;
  double avg = 0, pp = 0;
  ASSERT_EQ(std::sscanf(r.output.substr(r.output.find("= ", at) + 2).c_str(), "%lf", &avg), 1)
      << r.output;
  const auto second = r.output.find("= ", r.output.find("= ", at) + 2);
  ASSERT_EQ(std::sscanf(r.output.substr(second + 2).c_str(), "%lf", &pp), 1) << r.output;
  EXPECT_NEAR(avg, 5.0, 0.02) << r.output;
  EXPECT_NEAR(pp, 0.25, 0.002) << r.output;
  r = nsspice("pss '" + buck + "' --period 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("the period must be > 0 s"), std::string::npos) << r.output;
  // A --save signal that pss does not write (a differential voltage: `run` derives those) is bad
  // input, nothing written (the option checks after it cleared the error: a segmentation fault).
  r = nsspice("pss '" + buck + "' --period 10u -o bad.csv --save 'v(out,sw)'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("unknown signal 'v(out,sw)' in --save"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "bad.csv"));
}

// A PSS's failure exits by its status (docs/output.md): invalid input (a period the sources do
// not repeat in) exits 1, a numerical failure (a step without solution) 2; nothing is written.
TEST_F(AnalysisCli, PssFailuresExitByTheirStatus) {
  write("sine.cir", "s\nV1 a 0 SIN(0 1 1k)\nR1 a b 1k\nC1 b 0 1u\n.end\n");
  write("short.cir",
        "t\nV1 a 0 1\nR1 a 0 1\nS1 a 0 ctl 0 SW\nVc ctl 0 PULSE(0 1 0.5m 1n 1n 0.2m 1m)\n"
        ".model SW SW(VT=0.5 RON=0)\n.end\n");
  const struct {
    const char *command, *file;
    int exit_code;
    const char* message;
  } cases[] = {
      {"pss sine.cir --period 0.3m -o s.csv", "s.csv", 1,
       "error: no periodic steady state (input, invalid input): source 'v1' is not periodic in "
       "T = 0.0003 s"},
      {"pss short.cir --period 1m -o t.csv", "t.csv", 2,
       "error: no periodic steady state (step failed, numerical failure): warm-up: at t = "
       "0.000500"},
  };
  for (const auto& c : cases) {
    const auto r = nsspice(c.command);
    EXPECT_EQ(r.exit_code, c.exit_code) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / c.file));
  }
}

// A self-oscillating circuit: `run` of a netlist whose analysis is ngspice's .pss card finds the
// period as an unknown (the relaxation oscillator's closed form 2RC ln(7/3)), and the trigger's
// command-line form; bad .pss cards and --trigger options are bad input, nothing written.
TEST_F(AnalysisCli, PssCardAndTriggerOfASelfOscillatingCircuit) {
  const std::string body =
      "V1 vcc 0 DC 5\nVr ref 0 DC 2.5\nS1 vcc drv ref cap SWM\nS2 drv 0 cap ref SWM\n"
      "R1 drv cap 1k\nC1 cap 0 1u IC=0\n.model SWM SW(VT=0 VH=1)\n";
  write("osc.cir", "relaxation oscillator\n" + body + ".pss 600 2m cap 400 10 50 5e-3 uic\n.end\n");
  auto r = nsspice("run osc.cir -o osc.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("T = 0.001694595721 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("warning: '.pss' HARMS = 10 ignored"), std::string::npos) << r.output;
  const auto csv = text_lines(read_file(dir_ / "osc.csv"));
  ASSERT_GT(csv.size(), 400u);
  double t1 = 0;
  ASSERT_EQ(std::sscanf(csv.back().c_str(), "%lf", &t1), 1);
  EXPECT_NEAR(t1, 2e-3 * std::log(3.5 / 1.5), 1e-12);
  write("osc2.cir", "relaxation oscillator\n" + body + ".tran 1u 20m UIC\n.end\n");
  r = nsspice("pss osc2.cir --trigger 'V(cap)=3 fall' --period 1m --periods 2 -o o2.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("T = 0.001694595721 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("output                 o2.csv (CSV, 2 periods)"), std::string::npos)
      << r.output;
  for (const char* bad : {"'v(cap)=3 sideways'", "'v(cap)=x rise'", "cap"}) {
    r = nsspice(std::string("pss osc2.cir --period 1m -o bad.csv --trigger ") + bad);
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.output.find("error: --trigger"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "bad.csv"));
  }
  write("osc3.cir", "relaxation oscillator\n" + body + ".pss TRIG v(cap) PERIOD=1m STEP=9\n.end\n");
  r = nsspice("run osc3.cir -o bad.csv");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("osc3.cir:9:28: error: unknown .pss parameter 'STEP' (did you mean "
                          "'steps'?)\n.pss TRIG v(cap) PERIOD=1m STEP=9\n"
                          "                           ^~~~"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "bad.csv"));
}

// The θ map cannot settle the closed-loop comparator buck (its duty cycle is quantized to the
// step): the report names the cause and the orbit written is the event map's.
TEST_F(AnalysisCli, ThetaMapFailureFallsBackToTheEventMapAndSaysWhy) {
  const std::string buck = std::string(NSSPICE_EXAMPLES_DIR) + "/buck_closed_loop.cir";
  const auto r = nsspice("pss '" + buck + "' --period 10u --map theta -o cl.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("event map (Radau IIA"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("note                   the theta map did not converge, the event map "
                          "found the orbit: the theta map switches the ideal comparator 'e1' on "
                          "its step grid (h = 1e-08 s)"),
            std::string::npos)
      << r.output;
  EXPECT_GT(text_lines(read_file(dir_ / "cl.csv")).size(), 200u);
}

const char* kDcmBuck =
    "DCM buck\nVin in 0 10\nVp g 0 PULSE(0 1 0 1n 1n 2.999u 10u)\nS1 in sw g 0 SWI\n"
    "D1 0 sw DI\nL1 sw out 10u\nC1 out 0 100u\nR1 out 0 50\n.model SWI SW(VT=0.5)\n"
    ".model DI D\n.tran 0.1u 10m\n.end\n";

// A PSS option given is checked as given: 0 steps or periods written and a negative warm-up are
// errors naming the option (they ran with the defaults: 200 steps, 1 period, 5 warm-up periods),
// and so is a period that is not > 0 s (--period -1 said "no period: give --period T").
TEST_F(AnalysisCli, PssOptionsOutOfRangeAreErrorsNamingTheOption) {
  write("dcm.cir", kDcmBuck);
  const struct {
    const char *args, *message;
  } cases[] = {
      {"pss dcm.cir --period 10u --steps 0", "error: --steps 0: must be >= 1"},
      {"pss dcm.cir --period 10u --steps -5", "error: --steps -5: must be >= 1"},
      {"pss dcm.cir --period -1", "error: --period -1: the period must be > 0 s"},
      {"pss dcm.cir --period 0", "error: --period 0: the period must be > 0 s"},
      {"pss dcm.cir --period 10u --periods 0", "error: --periods 0: must be >= 1"},
      {"pss dcm.cir --period 10u --warmup -1", "error: --warmup -1: must be >= 0"},
      {"ac dcm.cir --period 10u --inject vp --freq 1k 10k 3 --steps 0",
       "error: --steps 0: must be >= 1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = nsspice(std::string(c.args) + " -o x.csv");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
  }
}

// The θ map's fallback note names the cause once ("no periodic orbit: no periodic orbit: ..."
// before: the cause's name was also the start of its message).
TEST_F(AnalysisCli, ThetaMapFallbackNoteNamesItsCauseOnce) {
  write("dcm.cir", kDcmBuck);
  const auto r = nsspice("pss dcm.cir --period 10u --map theta -o d.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("the event map found the orbit: no periodic orbit: Newton stalls on a "
                          "settled mode sequence"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("no periodic orbit: no periodic orbit"), std::string::npos) << r.output;
}

TEST_F(AnalysisCli, NoAnalysisCardIsBadInput) {
  write("none.cir", "none\nV1 a 0 1\nR1 a 0 1k\n.end\n");
  const auto r = nsspice("run none.cir");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("error: 'none.cir' has no analysis card (.tran, .op, .dc, .ac or .pss)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "none.csv"));
}

}  // namespace
}  // namespace nsspice::testing
