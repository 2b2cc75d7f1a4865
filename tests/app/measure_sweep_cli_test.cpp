// .meas dc and .meas ac: measurements along a DC sweep's value and along frequency, through the
// command line. Against closed forms (an RC low-pass's corner, phase and response, the integral
// of its magnitude; an ideal diode's knee and its resistive branch, swept up and down) and
// against ngspice run on the same decks in the same test (skipped where ngspice is not
// installed); failures, left-out cards and bad --meas reported as .tran's are.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

// The values of --meas-json (full precision; the printed lines have 6 digits), by name.
std::map<std::string, double> json_measures(const std::string& text) {
  std::map<std::string, double> out;
  const auto j = nlohmann::json::parse(text);
  for (const auto& m : j.at("measurements"))
    if (m.at("value").is_number())
      out[m.at("name").get<std::string>()] = m.at("value").get<double>();
  return out;
}

// R = 1 kΩ, C = 1 µF: the corner at fc = 1/(2π RC) = 159.155 Hz; 100 points per decade, so
// 1 Hz, 10 Hz, 1 kHz, 10 kHz are points of the sweep.
const char* const kRcAc =
    "* RC low-pass: the -3 dB corner and the response measured by .meas ac\n"
    "V1 in 0 DC 0 AC 1\nR1 in out 1k\nC1 out 0 1u\n.ac dec 100 1 1meg\n"
    ".meas ac f3db when vdb(out)=-3.0103\n"
    ".meas ac gdb find vdb(out) at=1k\n"
    ".meas ac ph find vp(out) at=1k\n"
    ".meas ac mg find vm(out) at=1k\n"
    ".meas ac re find vr(out) at=1k\n"
    ".meas ac im find vi(out) at=1k\n"
    ".meas ac pl find v(out) at=1k\n"
    ".meas ac gmax max vdb(out)\n"
    ".meas ac pmin min vp(out) from=10 to=10k\n"
    ".meas ac mavg avg vm(out) from=10 to=10k\n"
    ".meas ac gpp pp vdb(out) from=10 to=100k\n"
    ".meas ac minteg integ vm(out) from=10 to=10k\n"
    ".meas ac bw trig vdb(out) val=-1 fall=1 targ vdb(out) val=-10 fall=1\n"
    ".meas ac pwhen find vdb(out) when vp(out)=-1\n"
    ".meas ac f20 when vdb(out)=-20 fall=last\n"
    ".end\n";

class MeasureSweepCli : public AppTest {
 protected:
  // Runs `deck` (-q, --meas-json): what it printed in `output`, its measurements by name (none,
  // the test failed, when the run fails).
  std::map<std::string, double> measured(const std::string& deck, std::string& output) {
    const CliRun r = nsspice("run " + deck + " -q -o out.csv --meas-json m.json");
    output = r.output;
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.exit_code == 0 ? json_measures(read_file(dir_ / "m.json"))
                            : std::map<std::string, double>{};
  }
};

TEST_F(MeasureSweepCli, AcRcLowPassAgainstClosedForms) {
  write("rc.cir", kRcAc);
  std::string r_output;
  const auto m = measured("rc.cir", r_output);
  const double fc = 1 / (2 * std::numbers::pi * 1e3 * 1e-6);
  // The corner: vdb interpolated linearly in f between the points 158.5 and 162.2 Hz (as
  // ngspice does) is off by 2.0e-7 of fc for the exact response; bound 1e-6.
  EXPECT_NEAR(m.at("f3db"), fc, 1e-6 * fc);
  // At a point of the sweep (1 kHz, x = f/fc): H = 1/(1 + jx), to the solver's round-off.
  const double x = 1e3 / fc;
  EXPECT_NEAR(m.at("mg"), 1 / std::sqrt(1 + x * x), 1e-9);
  EXPECT_NEAR(m.at("re"), 1 / (1 + x * x), 1e-9);
  EXPECT_NEAR(m.at("pl"), 1 / (1 + x * x), 1e-9);  // v(out) alone: the real part (ngspice)
  EXPECT_NEAR(m.at("im"), -x / (1 + x * x), 1e-9);
  EXPECT_NEAR(m.at("ph"), -std::atan(x), 1e-9);  // radians, ngspice's default
  EXPECT_NEAR(m.at("gdb"), -10 * std::log10(1 + x * x), 1e-9);
  EXPECT_NEAR(m.at("gmax"), -10 * std::log10(1 + 1 / (fc * fc)), 1e-9);  // at 1 Hz
  EXPECT_NEAR(m.at("pmin"), -std::atan(1e4 / fc), 1e-9);                 // at 10 kHz
  // ∫|H| df from 10 Hz to 10 kHz = fc (asinh(10k/fc) − asinh(10/fc)); the trapezoids over 300
  // points of the log grid are 6.2e-5 above it: bound 1e-4.
  const double integ = fc * (std::asinh(1e4 / fc) - std::asinh(10 / fc));
  EXPECT_NEAR(m.at("minteg"), integ, 1e-4 * integ);
  EXPECT_NEAR(m.at("mavg"), integ / (1e4 - 10), 1e-4 * integ / (1e4 - 10));
  // The frequencies where |H| falls through -1 dB and -10 dB: f = fc sqrt(10^(L/10) − 1).
  // Away from the corner the dB curve bends more between the points: the linear interpolation
  // of the exact response puts -1 dB 2.1e-5 low, -10 dB 2.0e-5 high, -20 dB 0.9e-5 high.
  const auto at_db = [&](double db) { return fc * std::sqrt(std::pow(10, db / 10) - 1); };
  EXPECT_NEAR(m.at("bw"), at_db(10) - at_db(1), 5e-5 * at_db(10));
  EXPECT_NEAR(m.at("f20"), at_db(20), 3e-5 * at_db(20));
  // The printed lines: units of the scale and of the forms.
  for (const char* want :
       {"f3db =             159.155 Hz  (when vdb(out)=-3.0103)", "ph =               -1.4129",
        "gmax =             -0.000171449 dB at f = 1 Hz  (max vdb(out))",
        "minteg =           759.3", "V·Hz"})
    EXPECT_NE(r_output.find(want), std::string::npos) << want << "\n" << r_output;
}

// ngspice's numbers are printed with 6 or 7 digits: the tolerances below are 1e-5 of the value
// unless said otherwise.
void expect_agree(const std::map<std::string, double>& ns, const std::map<std::string, double>& ng,
                  const std::string& name, double rel = 1e-5, double abs = 1e-9) {
  ASSERT_TRUE(ns.contains(name)) << name;
  ASSERT_TRUE(ng.contains(name)) << name;
  EXPECT_NEAR(ns.at(name), ng.at(name), rel * std::abs(ng.at(name)) + abs) << name;
}

TEST_F(MeasureSweepCli, AcAgreesWithNgspice) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
  const auto deck = write("rc.cir", kRcAc);
  std::string r_output;
  const auto ns = measured("rc.cir", r_output);
  const auto ng = measures(run_shell("ngspice -b '" + deck.string() + "'").output);
  for (const char* name : {"f3db", "gdb", "ph", "mg", "re", "im", "pl", "gmax", "pmin", "minteg",
                           "bw", "pwhen", "f20"})
    expect_agree(ns, ng, name);
  // ngspice starts the avg and pp windows at its first point at or after from= (10.23 Hz: its
  // 10 Hz point is computed a rounding below 10), nsspice at 10 Hz: avg 3e-4 apart, and pp by
  // vdb(10 Hz) − vdb(10.23 Hz) = 8.1e-4 dB.
  expect_agree(ns, ng, "mavg", 5e-4);
  expect_agree(ns, ng, "gpp", 0, 1e-3);
}

// |v(in) − 1| through a B source, and a divider: crossings both ways, windows, a delay.
const char* const kVShapeDc =
    "* A V-shaped transfer (|v(in) - 1|) and a divider swept together\n"
    "V1 in 0 0\nR1 in mid 1k\nR2 mid 0 3k\nB1 y 0 V=abs(V(in)-1)\nR3 y 0 1k\n.dc V1 -2 4 0.05\n"
    ".meas dc x1 when v(y)=0.5 cross=1\n"
    ".meas dc x2 when v(y)=0.5 cross=2\n"
    ".meas dc xr when v(y)=0.5 rise=1\n"
    ".meas dc xf when v(y)=0.5 fall=1\n"
    ".meas dc xl when v(y)=0.5 cross=last\n"
    ".meas dc ya find v(y) at=2.525\n"
    ".meas dc ymin min v(y)\n"
    ".meas dc ymax max v(y) from=0 to=3\n"
    ".meas dc yavg avg v(y) from=-1 to=3\n"
    ".meas dc yint integ v(y) from=-1 to=3\n"
    ".meas dc ypp pp v(mid)\n"
    ".meas dc dly trig v(y) val=2 fall=1 targ v(y) val=2 rise=1\n"
    ".meas dc fw find v(mid) when v(y)=1.5 rise=1\n"
    ".end\n";

TEST_F(MeasureSweepCli, DcAgreesWithNgspiceAndClosedForms) {
  const auto deck = write("v.cir", kVShapeDc);
  std::string r_output;
  const auto ns = measured("v.cir", r_output);
  // Closed forms: y = |v − 1|, mid = v · 3/4; the sweep is exact where the curve is linear.
  const std::map<std::string, double> exact = {
      {"x1", 0.5}, {"x2", 1.5}, {"xr", 1.5}, {"xf", 0.5},  {"xl", 1.5}, {"ya", 1.525},
      {"ymax", 2}, {"yavg", 1}, {"yint", 4}, {"ypp", 4.5}, {"dly", 4},  {"fw", 1.875}};
  for (const auto& [name, value] : exact) {
    ASSERT_TRUE(ns.contains(name)) << name << "\n" << r_output;
    EXPECT_NEAR(ns.at(name), value, 1e-9) << name;
  }
  EXPECT_NEAR(ns.at("ymin"), 0, 1e-12);
  EXPECT_NE(r_output.find("ymax =             2 V at v1 = 3 V  (max v(y) from=0 to=3)"),
            std::string::npos)
      << r_output;
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
  const auto ng = measures(run_shell("ngspice -b '" + deck.string() + "'").output);
  for (const auto& [name, value] : exact)
    if (name != "yint") expect_agree(ns, ng, name);
  // ngspice integrates with Simpson's rules on an even grid: across the kink at v = 1 its
  // parabolas give 3.99937 where the trapezoids of the piecewise-linear curve give the exact 4.
  expect_agree(ns, ng, "yint", 2e-4);
}

// An ideal diode (VF = 0.7 V, RON = 10 Ω) behind 1 kΩ: v(a) = v for v ≤ 0.7 V, else
// 0.7 + 10 (v − 0.7)/1010; the same instants swept upwards and downwards.
TEST_F(MeasureSweepCli, DcIdealDiodeKneeSweptBothWays) {
  for (const bool down : {false, true}) {
    const char* sweep = down ? ".dc V1 6 -1 -0.01" : ".dc V1 -1 6 0.01";
    write("d.cir", std::string("* ideal diode behind a resistor\nV1 in 0 0\nR1 in a 1k\n"
                               "D1 a 0 DI\n.model DI D(VF=0.7 RON=10)\n") +
                       sweep +
                       "\n.meas dc vk when v(a)=0.71\n.meas dc vlow when v(a)=0.35\n"
                       ".meas dc va find v(a) at=2.5\n.meas dc amax max v(a) from=0 to=3\n"
                       ".meas dc aint integ v(a) from=0 to=0.7\n.end\n");
    std::string r_output;
    const auto m = measured("d.cir", r_output);
    EXPECT_NEAR(m.at("vk"), 0.7 + 0.01 * 1010 / 10, 1e-9) << sweep;  // 1.71 V
    EXPECT_NEAR(m.at("vlow"), 0.35, 1e-9) << sweep;
    EXPECT_NEAR(m.at("va"), 0.7 + 10 * 1.8 / 1010, 1e-9) << sweep;
    EXPECT_NEAR(m.at("amax"), 0.7 + 10 * 2.3 / 1010, 1e-9) << sweep;
    // ∫ v dv from 0 to 0.7 = 0.245 upwards; a downward sweep integrates against its direction
    // (ngspice's signed sum).
    EXPECT_NEAR(m.at("aint"), down ? -0.245 : 0.245, 1e-9) << sweep;
  }
}

TEST_F(MeasureSweepCli, FailuresAndCardsLeftOutAreReported) {
  write("rc.cir",
        "rc\nV1 in 0 DC 0 AC 1\nR1 in out 1k\nC1 out 0 1u\n.ac dec 10 10 100k\n"
        ".meas ac never when vdb(out)=-200\n"
        ".meas ac outside find vm(out) at=1meg\n"
        ".meas ac below avg vm(out) from=1 to=100\n"
        ".meas ac nosuch max vdb(ot)\n"
        ".meas tran tonly max v(out)\n"
        ".meas ac late when vdb(out)=-3 td=1m\n"
        ".meas dc donly max v(out)\n.end\n");
  const CliRun r = nsspice("run rc.cir -o rc.csv --meas-json m.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;  // as .tran's: failed measurements, not errors
  for (const char* want :
       {"never              failed: vdb(out) never crosses -200 (cross 1)",
        "outside            failed: f = 1e+06 Hz is outside the run",
        "below              failed: from=1 Hz is below the sweep, which covers f = 10 … 100000 Hz",
        "rc.cir:9:1: warning: measurement 'nosuch': unknown signal 'vdb(ot)'",
        "; the measurement is left out",
        "rc.cir:10:1: warning: measurement 'tonly' of .tran is not made: this run is .ac (one "
        "analysis per run: --analysis tran)",
        "rc.cir:11:1: warning: measurement 'late': td= is a delay in time; a .meas ac ignores it "
        "(as ngspice does)",
        "rc.cir:12:1: warning: measurement 'donly' of .dc is not made: this run is .ac",
        "late =             "})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  const std::string json = read_file(dir_ / "m.json");
  EXPECT_NE(json.find("\"failure\": \"vdb(out) never crosses -200 (cross 1)\""), std::string::npos)
      << json;
  // --meas on an .ac run: measured; one naming no signal of the run, or another analysis, is an
  // error before anything is written.
  const CliRun ok = nsspice("run rc.cir -q -o ok.csv --meas 'g1k find vdb(out) at=1k'");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("g1k =              -16.0722 dB"), std::string::npos) << ok.output;
  const CliRun bad = nsspice("run rc.cir -o bad.csv --meas 'max vdb(nothere)'");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("unknown signal 'vdb(nothere)'"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(dir_ / "bad.csv"));
  const CliRun tran = nsspice("run rc.cir -o t.csv --meas 'tran max v(out)'");
  EXPECT_EQ(tran.exit_code, 1) << tran.output;
  EXPECT_NE(tran.output.find("'tran max v(out)' measures a .tran run, and this run is .ac"),
            std::string::npos)
      << tran.output;
  // A nested .dc is not measured: the card says so and is left out.
  write("nest.cir",
        "nested\nV1 in 0 0\nV2 b 0 0\nR1 in b 1k\n.dc V1 0 1 0.5 V2 0 1 1\n"
        ".meas dc a1 max v(in)\n.end\n");
  const CliRun nest = nsspice("run nest.cir -o n.csv");
  EXPECT_EQ(nest.exit_code, 0) << nest.output;
  EXPECT_NE(nest.output.find("nest.cir:6:1: warning: measurement 'a1': a nested .dc (two sweeps) "
                             "is not measured"),
            std::string::npos)
      << nest.output;
  // An .op run measures nothing: each card says so.
  write("op.cir", "op\nV1 in 0 1\nR1 in 0 1k\n.op\n.meas dc a2 max v(in)\n.end\n");
  const CliRun op = nsspice("run op.cir");
  EXPECT_EQ(op.exit_code, 0) << op.output;
  EXPECT_NE(op.output.find("op.cir:5:1: warning: measurement 'a2' is not made: .meas cards measure "
                           ".tran, .dc and .ac runs, and this run is .op"),
            std::string::npos)
      << op.output;
}

// DERIV (HSPICE's and LTspice's; ngspice 39 answers "function 'deriv' currently not
// supported"): an RC charging through 1 kΩ into 1 µF (τ = 1 ms), v = 1 − e^(−t/τ), so
// dv/dt = e^(−t/τ)/τ; the same slope measured along a .dc sweep and along frequency.
TEST_F(MeasureSweepCli, DerivAgainstClosedForms) {
  write("rc.cir",
        "rc charging\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\nR1 in out 1k\nC1 out 0 1u\n"
        ".tran 1u 5m\n.meas tran s1 deriv v(out) at=1m\n"
        ".meas tran shalf deriv v(out) when v(out)=0.5\n.end\n");
  std::string t_output;
  const auto m = measured("rc.cir", t_output);
  // The waveform's own error (RELTOL 1e-3) dominates the difference quotient's (1.7e-7 at a
  // print point; 5e-4 of the slope on a 1 µs chord off the points): bound 2e-3.
  EXPECT_NEAR(m.at("s1"), std::exp(-1.0) / 1e-3, 2e-3 * std::exp(-1.0) / 1e-3);
  EXPECT_NEAR(m.at("shalf"), 0.5 / 1e-3, 2e-3 * 0.5 / 1e-3);  // at t = τ ln 2
  EXPECT_NE(t_output.find("shalf =            "), std::string::npos) << t_output;
  EXPECT_NE(t_output.find(" V/s at t = 0.00069"), std::string::npos) << t_output;
  // Along the ideal diode's resistive branch: dv(a)/dv1 = RON/(R + RON) = 10/1010.
  write("d.cir",
        "diode\nV1 in 0 0\nR1 in a 1k\nD1 a 0 DI\n.model DI D(VF=0.7 RON=10)\n"
        ".dc V1 -1 6 0.01\n.meas dc g deriv v(a) at=2.5\n.meas dc g0 deriv v(a) at=0.3\n.end\n");
  std::string d_output;
  const auto g = measured("d.cir", d_output);
  EXPECT_NEAR(g.at("g"), 10.0 / 1010, 1e-9);
  EXPECT_NEAR(g.at("g0"), 1.0, 1e-9);
  EXPECT_NE(d_output.find("V/V"), std::string::npos) << d_output;
  // d(vdb)/df of the RC low-pass at 100 kHz, a point of the sweep: −(20/ln 10) x/(fc (1 + x²)),
  // x = f/fc; the central difference on the 100-per-decade grid is within 1e-3 of it.
  write("ac.cir", std::string(kRcAc).replace(std::string(kRcAc).find(".end"), 4,
                                             ".meas ac gslope deriv vdb(out) at=100k\n.end"));
  std::string a_output;
  const auto gslope = measured("ac.cir", a_output);
  const double fc = 1 / (2 * std::numbers::pi * 1e3 * 1e-6), x = 1e5 / fc;
  const double slope = -20 / std::log(10.0) * x / (fc * (1 + x * x));
  EXPECT_NEAR(gslope.at("gslope"), slope, 1e-3 * std::abs(slope));
  EXPECT_NE(a_output.find("dB/Hz"), std::string::npos) << a_output;
}

}  // namespace
}  // namespace nsspice::testing
