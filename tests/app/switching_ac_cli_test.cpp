// `nsspice ac NETLIST --period T --inject SRC --freq F1 F2 N`: the file laid out as an .ac's
// (vdb()/vp() CSV, complex raw), the loop gain and its margins, the brute-force check, bad input
// (exit 1, no file) and a failed orbit (exit 2, the cause named).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <sstream>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class SwitchingAcCli : public AppTest {};

// The example's path, quoted for the shell.
std::string example(const std::string& name) {
  std::ostringstream path;
  path << '\'' << NSSPICE_EXAMPLES_DIR << "/analyses/" << name << '\'';
  return path.str();
}

TEST_F(SwitchingAcCli, WritesTheResponseAndTheLoopGainLikeAnAc) {
  auto r = nsspice("ac " + example("ac_loop_gain.cir") +
                   " --period 10u --inject vinj --freq 100 40k 25 --loop-gain "
                   "--save 'v(out),v(fb)' -o loop.csv --plot loop.png");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = text_lines(read_file(dir_ / "loop.csv"));
  ASSERT_EQ(csv.size(), 26u);
  EXPECT_EQ(csv[0], "frequency,vdb(out),vp(out),vdb(fb),vp(fb),loopgaindb,loopgainp");
  double f = 0, vdb = 0, vp = 0, fdb = 0, fp = 0, tdb = 0, tp = 0;
  ASSERT_EQ(std::sscanf(csv[1].c_str(), "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &f, &vdb, &vp, &fdb, &fp,
                        &tdb, &tp),
            7);
  EXPECT_DOUBLE_EQ(f, 100);
  // At low frequency the loop gain is k·Vin·Fm = 0.2·10·0.999 (≈ 6 dB, 0°).
  EXPECT_NEAR(tdb, 6.0, 0.2);
  EXPECT_NEAR(tp, 0.0, 2.0);
  EXPECT_TRUE(fs::exists(dir_ / "loop.png"));
  EXPECT_NE(r.output.find("loop gain              crossover"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("phase margin"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 state-dependent switching instants"), std::string::npos) << r.output;
  // The raw file is complex, as ngspice writes an .ac.
  r = nsspice("ac " + example("ac_loop_gain.cir") +
              " --period 10u --inject vinj --freq 1k 2k 2 --save 'v(out)' -o loop.raw "
              "--format rawascii -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string raw = read_file(dir_ / "loop.raw");
  EXPECT_NE(raw.find("Plotname: AC Analysis"), std::string::npos);
  EXPECT_NE(raw.find("Flags: complex"), std::string::npos);
  EXPECT_NE(raw.find("No. Points: 2"), std::string::npos);
}

TEST_F(SwitchingAcCli, MarginsOfALoopWhosePhaseCrossesMinus180) {
  // ac_loop_gain.cir with an RC low-pass (1 kΩ, 3.98 nF: 40 kHz) between fb and the error
  // amplifier: T ≈ 2·0.998/((1 + sL/R + s²LC)(1 + sRC)) crosses −180°; the gain margin and the
  // phase margin against that averaged loop (the comparator's view of the ripple moves it by
  // less than 0.2 dB).
  std::string text = read_file(std::string(NSSPICE_EXAMPLES_DIR) + "/analyses/ac_loop_gain.cir");
  const std::string amplifier = "E2   verr 0 ref fb 0.2";
  const auto at_amplifier = text.find(amplifier);
  ASSERT_NE(at_amplifier, std::string::npos);
  write("rc.cir", text.substr(0, at_amplifier) + "Rf fb fbf 1k\nCf fbf 0 3.979n\n" +
                      "E2   verr 0 ref fbf 0.2" + text.substr(at_amplifier + amplifier.size()));
  const auto r = nsspice(
      "ac rc.cir --period 10u --inject vinj --freq 1k 45k 200 --loop-gain "
      "-o rc.csv --save 'v(out)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  double fc = 0, pm = 0, gm = 0, f180 = 0;
  const auto at = r.output.find("loop gain              crossover");
  ASSERT_NE(at, std::string::npos) << r.output;
  ASSERT_EQ(std::sscanf(r.output.c_str() + at,
                        "loop gain crossover %lf Hz, phase margin %lf deg; gain margin %lf dB at "
                        "%lf Hz",
                        &fc, &pm, &gm, &f180),
            4)
      << r.output;
  // The averaged loop: find its crossover and −180° point by bisection.
  const auto loop = [](double f) {
    const std::complex<double> s(0, 2 * 3.141592653589793 * f);
    return 2 * 0.999 / ((1.0 + s * 1e-5 + s * s * 1e-9) * (1.0 + s * 1e3 * 3.979e-9));
  };
  const auto solve = [](auto g, double lo, double hi) {
    for (int k = 0; k < 200; ++k) {
      const double mid = std::sqrt(lo * hi);
      (g(mid) > 0 ? lo : hi) = mid;
    }
    return lo;
  };
  const double fc_avg = solve([&](double f) { return std::abs(loop(f)) - 1; }, 1e3, 45e3);
  const double f180_avg =
      solve([&](double f) { return loop(f).imag() < 0 || loop(f).real() > 0 ? 1 : -1; }, 1e3, 45e3);
  EXPECT_NEAR(fc, fc_avg, 0.03 * fc_avg);
  EXPECT_NEAR(pm, 180 + std::arg(loop(fc_avg)) * 180 / 3.141592653589793, 1.5);
  EXPECT_NEAR(f180, f180_avg, 0.03 * f180_avg);
  EXPECT_NEAR(gm, -20 * std::log10(std::abs(loop(f180_avg))), 0.3);
}

TEST_F(SwitchingAcCli, CheckTransientAgrees) {
  const auto r = nsspice("ac " + example("ac_loop_gain.cir") +
                         " --period 10u --inject vinj --freq 2k 30k 5 --save 'v(out)' "
                         "-o c.csv --check-transient 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("transient check: 2 frequencies (sine of 0.001 on vinj)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("MISMATCH"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("not settled"), std::string::npos) << r.output;
}

TEST_F(SwitchingAcCli, BadInputIsRejectedWithoutAFile) {
  const std::string base = "ac " + example("ac_vm_buck.cir") + " --period 10u -o x.csv ";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--inject vx --freq 100 1k 5", "--inject vx: no independent voltage or current source"},
      {"--inject vc --freq 0 1k 5", "a logarithmic sweep needs fstart > 0 Hz"},
      {"--inject vc --freq 1k 100 5", "expected 0 <= fstart <= fstop"},
      {"--inject vc --freq 100 1k 0", "the point count must be >= 1"},
      {"--inject vc --freq 100 1k 5 --map theta", "linearizes the event map"},
      {"--inject vc --freq 100 1k", "--freq"},
      {"--inject vc --freq 100 1k 5 --map exact", "--map exact: expected event or theta"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = nsspice(base + c.args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
  }
  write("isrc.cir", "i\nI1 0 a DC 1m\nR1 a 0 1k\nC1 a 0 1u\n.end\n");
  const auto r =
      nsspice("ac isrc.cir --period 1m --inject i1 --freq 10 100 3 --loop-gain -o x.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--loop-gain: the injection source must be a voltage source"),
            std::string::npos)
      << r.output;
}

TEST_F(SwitchingAcCli, AnUnstableOrbitIsASimulationFailureWithItsCause) {
  // The peak-current-mode example at Vin = 8 V without slope compensation: D ≈ 0.63, the current
  // loop's multiplier is below −1.
  std::string text = read_file(std::string(NSSPICE_EXAMPLES_DIR) + "/analyses/ac_pcm_buck.cir");
  text.replace(text.find("Vin in 0 DC 12"), 14, "Vin in 0 DC 8");
  write("unstable.cir", text);
  const auto r = nsspice("ac unstable.cir --period 10u --inject vc --freq 100 1k 3 -o u.csv");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no periodic steady state (subharmonic, infeasible)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Floquet multiplier -"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "u.csv"));
}

}  // namespace
}  // namespace nsspice::testing
