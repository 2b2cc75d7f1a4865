// RC, RL and series RLC against their closed-form solutions; observed order of the θ-scheme
// when h is halved: ≈ 1 for θ = 1 (backward Euler), ≈ 2 for θ = ½ (trapezoidal rule).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "checks.hpp"
#include "helpers.hpp"

namespace nsspice::testing {
namespace {

struct Case {
  std::string name;
  std::string netlist;  // "{h}" is replaced by the step
  std::string signal;
  std::function<double(double)> exact;
  double t_check;
};

// v_C(t) = V0 e^{−t/RC}, R = 1k, C = 1µ, V0 = 1 V.
Case rc() {
  return {"rc", "RC discharge\nC1 a 0 1u IC=1\nR1 a 0 1k\n.tran {h} 3m UIC\n.end\n", "v(a)",
          [](double t) { return std::exp(-t / 1e-3); }, 1e-3};
}
// i_L(t) = V/R (1 − e^{−tR/L}), V = 2 V, R = 10 Ω, L = 10 mH.
Case rl() {
  return {"rl", "RL charge\nV1 in 0 DC 2\nR1 in a 10\nL1 a 0 10m IC=0\n.tran {h} 3m UIC\n.end\n",
          "i(l1)", [](double t) { return 0.2 * (1 - std::exp(-t * 10 / 10e-3)); }, 1e-3};
}
// Series RLC, C charged to V0 = 1 V: v_C = V0 e^{−αt}(cos ω_d t + α/ω_d sin ω_d t),
// α = R/2L, ω_d = sqrt(1/LC − α²); R = 10 Ω, L = 10 mH, C = 1 µF.
Case rlc() {
  const double a = 10 / (2 * 10e-3), wd = std::sqrt(1 / (10e-3 * 1e-6) - a * a);
  return {"rlc", "series RLC\nC1 a 0 1u IC=1\nR1 a b 10\nL1 b 0 10m IC=0\n.tran {h} 2m UIC\n.end\n",
          "v(a)",
          [a, wd](double t) {
            return std::exp(-a * t) * (std::cos(wd * t) + a / wd * std::sin(wd * t));
          },
          1.5e-3};
}

double error_at(const Case& c, double h, double theta) {
  std::string text = c.netlist;
  text.replace(text.find("{h}"), 3, fmt::format("{}", h));
  circuit::TransientOptions opt;
  opt.theta = theta;
  const Waveforms r = simulate_fixed(text, opt);
  EXPECT_TRUE(r.result.ok()) << r.result.summary.message;
  const auto v = r.series(c.signal);
  for (size_t k = 0; k < r.t.size(); ++k)
    if (std::abs(r.t[k] - c.t_check) < 1e-3 * h) return std::abs(v[k] - c.exact(r.t[k]));
  ADD_FAILURE() << "no point at t = " << c.t_check;
  return 0;
}

class LinearOrder : public ::testing::TestWithParam<std::tuple<int, double>> {};

TEST_P(LinearOrder, ObservedOrderMatchesTheta) {
  const auto [which, theta] = GetParam();
  const Case c = which == 0 ? rc() : which == 1 ? rl() : rlc();
  const double h = c.name == "rlc" ? 4e-6 : 10e-6;
  const double e1 = error_at(c, h, theta), e2 = error_at(c, h / 2, theta),
               e3 = error_at(c, h / 4, theta);
  const double p1 = std::log2(e1 / e2), p2 = std::log2(e2 / e3);
  const double expected = theta == 1.0 ? 1.0 : 2.0;
  EXPECT_NEAR(p1, expected, 0.15) << c.name << " errors " << e1 << " " << e2 << " " << e3;
  EXPECT_NEAR(p2, expected, 0.15) << c.name << " errors " << e1 << " " << e2 << " " << e3;
  // And the error itself is small: the scheme converges to the exact solution.
  EXPECT_LT(e3, theta == 1.0 ? 5e-2 : 2e-4) << c.name;  // BE damps the RLC: 2.7 % at 1 µs
}

INSTANTIATE_TEST_SUITE_P(RcRlRlc, LinearOrder,
                         ::testing::Combine(::testing::Values(0, 1, 2),
                                            ::testing::Values(1.0, 0.5)));

TEST(Linear, RlcEnergyNeverIncreases) {
  for (double theta : {0.5, 0.75, 1.0}) {
    circuit::TransientOptions opt;
    opt.theta = theta;
    const Waveforms r =
        simulate_fixed(rlc().netlist.replace(rlc().netlist.find("{h}"), 3, "5u"), opt);
    ASSERT_TRUE(r.result.ok());
    expect_energy_non_increasing(r);
  }
}

TEST(Linear, DcOperatingPointOfADivider) {
  // No UIC: the run starts from the DC point, v(b) = 10·2k/3k, and stays there.
  const Waveforms r =
      simulate_fixed("divider\nV1 a 0 10\nR1 a b 1k\nR2 b 0 2k\nC1 b 0 1u\n.tran 1u 10u\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  for (double v : r.series("v(b)")) EXPECT_NEAR(v, 20.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.at("i(v1)", 0), -10.0 / 3000.0, 1e-15);
}

// A PULSE longer than its period (tr + pw + tf > per: the PWM carrier written with tr = tf =
// per/2 and pw = 1n) is cut at each period's end, where the next pulse starts, as ngspice does;
// it was taken as a single pulse, so the carrier stayed at v1 after its first period and an
// inverter's bridge never switched again (exit 0). pw = 0 is TSTOP (ngspice), said in the warning.
TEST(Sources, PulseLongerThanItsPeriodIsCutAtEachPeriod) {
  for (const char* pw : {"1n", "0"}) {
    const Waveforms r =
        simulate(fmt::format("t\nV1 tri 0 PULSE(-1 1 0 50u 50u {} 100u)\nR1 tri 0 "
                             "1k\nC1 tri 0 1p\n.tran 1u 350u\n.end\n",
                             pw));
    ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
    EXPECT_NE(r.diagnostics.find("warning: PULSE: tr + pw + tf = "), std::string::npos)
        << r.diagnostics;
    EXPECT_EQ(r.diagnostics.find("pw = 0 is TSTOP") != std::string::npos, std::string(pw) == "0")
        << r.diagnostics;
    const auto v = r.series("v(tri)");
    for (size_t k = 0; k < r.t.size(); ++k) {
      const double u = std::fmod(r.t[k], 100e-6);
      if (u < 1e-9 || u > 100e-6 - 1e-9) continue;  // at the cut, either side
      // Rise over 50 µs, then (pw = 1n) fall over 50 µs cut 1 ns short, or (pw = TSTOP) hold.
      double expected = -1 + 2 * u / 50e-6;
      if (u > 50e-6) expected = std::string(pw) == "0" ? 1.0 : 1 - 2 * (u - 50.001e-6) / 50e-6;
      if (u > 50e-6 && u < 50.001e-6) expected = 1.0;
      EXPECT_NEAR(v[k], expected, 1e-9) << "pw " << pw << ", t = " << r.t[k];
    }
  }
}

}  // namespace
}  // namespace nsspice::testing
