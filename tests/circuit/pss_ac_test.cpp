// Small-signal response about the periodic steady state (circuit/pss_ac.hpp): a circuit without
// switching equals its transfer function; a voltage-mode buck equals the averaged model (exact for
// the response at the excitation frequency, H_0, of a trailing-edge modulator); a peak-current-
// mode buck equals Ridley's sampled-data model up to fs/2, subharmonic peaking included; the
// loop gain of a closed-loop buck equals the averaged loop gain; and a brute-force transient
// with a sine injected agrees. Every PSS here runs on the event map (PssOptions::map set
// explicitly), independent of the default stepping of `run`.
#include "circuit/pss_ac.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <numbers>
#include <sstream>

#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

double db(cd z) { return 20 * std::log10(std::abs(z)); }
// The phase difference of a and b in degrees, in (−180, 180].
double degrees_between(cd a, cd b) { return std::arg(a / b) * 180 / kPi; }

struct Case {
  testing::Elaborated e;
  Assembled a;
  PssOptions options;
  PssResult pss;
  Case(const std::string& text, double period) : e(testing::elaborate_text(text)) {
    EXPECT_FALSE(e.diags.has_errors()) << e.text();
    a = assemble(e.circuit);
    options.period = period;
    options.map = PssMap::kEvent;
    pss = periodic_steady_state(e.circuit, a, options);
    EXPECT_TRUE(pss.ok()) << pss.summary.message;
  }
  Eigen::Index unknown(const std::string& name) const {
    const auto it = std::find(a.unknown_names.begin(), a.unknown_names.end(), name);
    EXPECT_NE(it, a.unknown_names.end()) << name;
    return it - a.unknown_names.begin();
  }
  // The phasors of the unknowns `names` per unit perturbation of `source`, at each f.
  std::vector<std::vector<cd>> response(const std::string& source, const std::vector<double>& f,
                                        const std::vector<std::string>& names) const {
    SwitchingAcOptions o;
    o.source = source_index(e.circuit, a, source);
    o.frequencies = f;
    std::vector<std::vector<cd>> out;
    const SwitchingAcResult r =
        switching_ac(e.circuit, a, pss, options, o,
                     [&](double, const Eigen::VectorXcd& x, const Eigen::VectorXcd&) {
                       std::vector<cd> row;
                       for (const auto& n : names) row.push_back(x[unknown(n)]);
                       out.push_back(row);
                     });
    EXPECT_TRUE(r.ok()) << r.summary.message;
    EXPECT_LT(r.max_residual, 1e-9);
    return out;
  }
  double mean(const std::string& name) const {
    double sum = 0;
    long count = 0;
    run_periods(e.circuit, a, pss, options, 1,
                [&](double, const Eigen::VectorXd& x, const Eigen::VectorXd&) {
                  sum += x[unknown(name)];
                  ++count;
                });
    return sum / static_cast<double>(count);
  }
};

std::vector<double> log_sweep(double f1, double f2, int n) {
  std::vector<double> f;
  for (int k = 0; k < n; ++k) f.push_back(f1 * std::pow(f2 / f1, k / (n - 1.0)));
  return f;
}

TEST(SwitchingAc, CircuitWithoutSwitchingEqualsItsTransferFunction) {
  // The RLC of examples/analyses/ac_rlc.cir: v(out)/v(in) = 1/(1 − ω²LC + jωRC). Its "orbit" is
  // the operating point; the harmonic average is the phasor. Radau steps of T/200 = 50 ns: the
  // collocation polynomial's error (ωh)⁴ stays below 1e-6 up to 100 kHz.
  const Case c("rlc\nV1 in 0 DC 0 AC 1\nR1 in a 10\nL1 a out 1m\nC1 out 0 1u\n.end\n", 10e-6);
  const auto f = log_sweep(100, 100e3, 13);
  const auto h = c.response("v1", f, {"v(out)"});
  for (size_t k = 0; k < f.size(); ++k) {
    const double w = 2 * kPi * f[k];
    const cd exact = 1.0 / cd(1 - w * w * 1e-3 * 1e-6, w * 10 * 1e-6);
    EXPECT_LT(std::abs(h[k][0] - exact), 1e-6 * std::abs(exact)) << "f = " << f[k];
  }
}

// Voltage-mode buck (trailing-edge PWM: an ideal comparator against a sawtooth), the averaged
// model: v̂o/v̂c = Vin·Fm·Z/(Z + Ron + sL), v̂o/v̂in = D·Z/(Z + Ron + sL), Z = R ∥ (Resr + 1/sC),
// with the modulator's exact D and Fm: the switch is on from the ramp's fall through vc (tf·vc
// before T, the ramp falling in tf after its 5 ns top) to its rise through vc (vc·tr after the
// period's start): D = vc (tr + tf)/T, Fm = (tr + tf)/T per volt.
void check_voltage_mode(double ron, double esr) {
  const double vin = 12, vc = 0.45, tr = 9.99e-6, tf = 5e-9, period = 10e-6, l = 100e-6,
               c_out = 100e-6, r = 5;
  const std::string text =
      "* voltage-mode buck (LTspice style)\n.param vin=12 vc=0.45 ron=" + std::to_string(ron) +
      " esr=" + std::to_string(esr) +
      "\nV1 in 0 {vin}\nVc ctl 0 {vc}\nVramp ramp 0 PULSE(0 1 0 9.99u 5n 5n 10u)\n"
      "E1 g 0 ctl ramp CMP\nS1 in sw g 0 SWI\nD1 0 sw DI\nL1 sw out 100u\nC1 out c 100u\n"
      "Resr c 0 {esr}\nR1 out 0 5\n.model CMP COMP(VLOW=0 VHIGH=1)\n"
      ".model SWI SW(VT=0.5 RON={ron})\n.model DI D(RON={ron})\n.tran 10n 1m\n.end\n";
  const Case c(text, period);
  ASSERT_TRUE(c.pss.ok());
  const double d = vc * (tr + tf) / period, fm = (tr + tf) / period;
  const auto f = log_sweep(100, 20e3, 15);  // to fs/5
  const auto control = c.response("vc", f, {"v(out)", "i(l1)"});
  const auto line = c.response("v1", f, {"v(out)", "i(l1)"});
  for (size_t k = 0; k < f.size(); ++k) {
    const cd s(0, 2 * kPi * f[k]);
    const cd z = 1.0 / (1.0 / r + 1.0 / (esr + 1.0 / (s * c_out)));
    const cd stage = z / (z + ron + s * l);  // v_out per volt of the averaged switch node
    const cd vo_c = vin * fm * stage, vo_l = d * stage;
    const cd il_c = vin * fm / (z + ron + s * l), il_l = d / (z + ron + s * l);
    SCOPED_TRACE(::testing::Message() << "f = " << f[k] << " Hz, ron " << ron << ", esr " << esr);
    // The issue asks 0.5 dB / 5° below fs/10 and 1 dB / 10° up to fs/5; the modulator is linear
    // in H_0 and the match is far closer.
    for (const auto& [got, want] : {std::pair{control[k][0], vo_c}, std::pair{control[k][1], il_c},
                                    std::pair{line[k][0], vo_l}, std::pair{line[k][1], il_l}}) {
      EXPECT_NEAR(db(got), db(want), 0.02);
      EXPECT_NEAR(degrees_between(got, want), 0.0, 0.2);
    }
  }
}

TEST(SwitchingAc, VoltageModeBuckEqualsTheAveragedModel) { check_voltage_mode(1e-3, 1e-3); }

TEST(SwitchingAc, VoltageModeBuckWithLossesEqualsTheAveragedModel) {
  check_voltage_mode(0.05, 0.02);
}

// Peak-current-mode buck: a latch (an ideal switch with hysteresis, set by a clock pulse, reset
// by the current comparator), sense gain Ri, compensation ramp Se. Ridley's sampled-data model
// (R. B. Ridley, "A new, continuous-time model for current-mode control", IEEE TPEL 6(2), 1991):
//   d̂ = Fm (v̂c − Ri He(s) î + kr v̂o),  Fm = 1/((Sn + Se) T),  kr = T Ri/(2L),
//   He(s) = sT/(e^{sT} − 1),
// with the averaged buck power stage (sL î = Vin d̂ − v̂o, v̂o = Z î); and its third-order
// closed form  v̂o/v̂c = (R/Ri)/(1 + (RT/L)(mc D' − ½)) · Fh(s)/(1 + s/ωp),
//   Fh = 1/(1 + s/(ωn Qp) + s²/ωn²), ωn = π/T, Qp = 1/(π(mc D' − ½)), mc = 1 + Se/Sn,
//   ωp = 1/(RC) + (T/(LC))(mc D' − ½).
struct Ridley {
  double vin, vo, l, c, r, t, ri, se;
  cd sampled(double f) const {
    const cd s(0, 2 * kPi * f);
    const double sn = ri * (vin - vo) / l, fm = 1 / ((sn + se) * t), kr = t * ri / (2 * l);
    const cd he = f > 0 ? s * t / (std::exp(s * t) - 1.0) : cd(1);
    const cd z = r / (1.0 + s * r * c);
    return z * fm / ((s * l + z) / vin + fm * ri * he - fm * kr * z);
  }
  cd third_order(double f) const {
    const cd s(0, 2 * kPi * f);
    const double sn = ri * (vin - vo) / l, mc = 1 + se / sn, dp = 1 - vo / vin;
    const double qp = 1 / (kPi * (mc * dp - 0.5)), wn = kPi / t;
    const double wp = 1 / (r * c) + t / (l * c) * (mc * dp - 0.5);
    const cd fh = 1.0 / (1.0 + s / (wn * qp) + s * s / (wn * wn));
    return (r / ri) / (1 + r * t / l * (mc * dp - 0.5)) * fh / (1.0 + s / wp);
  }
};

std::string pcm_buck(double vin, double vc, double ramp) {
  return "* peak current mode buck: latch set by the clock, reset by the comparator\n"
         "Vin in 0 DC " +
         std::to_string(vin) + "\nVc vc 0 DC " + std::to_string(vc) + "\nVramp ramp 0 PULSE(0 " +
         std::to_string(ramp) +
         " 0 9.99u 5n 5n 10u)\nVclk clk 0 PULSE(0 1 0 5n 5n 40n 10u)\n"
         "E3 vcomp 0 vc ramp 1\nH1 cs 0 Vsense 0.1\nE1 rst 0 cs vcomp CMP\nE2 s 0 clk rst 1\n"
         "S1 in sw s 0 SWL\nD1 0 sw DI\nL1 sw a 20u\nVsense a out DC 0\nC1 out 0 100u\n"
         "R1 out 0 2.5\n.model CMP COMP(VLOW=0 VHIGH=1)\n.model SWL SW(VT=0 VH=0.5)\n"
         ".model DI D\n.end\n";
}

void check_peak_current_mode(double vc, double ramp) {
  const Case c(pcm_buck(12, vc, ramp), 10e-6);
  ASSERT_TRUE(c.pss.ok());
  const Ridley model{12, c.mean("v(out)"), 20e-6, 100e-6, 2.5, 10e-6, 0.1, ramp / 9.99e-6};
  // The current loop's sampled-data pole: the period map's multiplier −(Sf − Se)/(Sn + Se).
  const double sn = 0.1 * (12 - model.vo) / 20e-6, sf = 0.1 * model.vo / 20e-6;
  const double alpha = -(sf - model.se) / (sn + model.se);
  bool found = false;
  for (cd mu : c.pss.multipliers) found = found || std::abs(mu - alpha) < 0.02 * std::abs(alpha);
  EXPECT_TRUE(found) << "no Floquet multiplier near " << alpha;
  auto f = log_sweep(100, 45e3, 16);
  f.push_back(50e3);  // fs/2
  const auto h = c.response("vc", f, {"v(out)"});
  for (size_t k = 0; k < f.size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "f = " << f[k] << " Hz, ramp " << ramp << " V");
    // The sampled-data model: measured within 0.05 dB; the issue asks 1 dB.
    EXPECT_NEAR(db(h[k][0]), db(model.sampled(f[k])), 0.1);
    EXPECT_NEAR(degrees_between(h[k][0], model.sampled(f[k])), 0.0, 1.0);
    // The third-order approximation (He by its quadratic): within 1 dB up to fs/2.
    EXPECT_NEAR(db(h[k][0]), db(model.third_order(f[k])), 1.0);
  }
}

TEST(SwitchingAc, PeakCurrentModeBuckEqualsRidleysModelWithCompensation) {
  check_peak_current_mode(0.325, 0.125);  // mc = 1.36, Qp = 1.09
}

TEST(SwitchingAc, PeakCurrentModeBuckPeaksAtHalfTheSwitchingFrequency) {
  // No compensation ramp at D = 0.42: Qp = 3.8, the response rises towards fs/2 (the
  // subharmonic pole pair), and the current loop's multiplier is −D/D' = −0.71.
  check_peak_current_mode(0.273, 0.0);
  const Case c(pcm_buck(12, 0.273, 0.0), 10e-6);
  const auto h = c.response("vc", {30e3, 50e3}, {"v(out)"});
  EXPECT_GT(db(h[1][0]), db(h[0][0]) + 3.0);
}

// A closed-loop buck (an ideal comparator against a ramp; the error amplifier a VCVS of gain k)
// with an injection source Vinj in series between the output and the feedback node.
const char* kLoop =
    "* closed-loop buck with an injection source\nVin in 0 DC 10\nVref ref 0 DC 5\n"
    "Vramp ramp 0 PULSE(0 1 0 9.98u 10n 10n 10u)\nVinj fb out DC 0\nE2 verr 0 ref fb 0.2\n"
    "Voff off 0 DC 0.5\nE3 verr2 verr off 0 1\nE1 ctl 0 verr2 ramp CMP\nS1 in sw ctl 0 SWI\n"
    "D1 0 sw DI\nL1 sw out 100u\nC1 out 0 10u\nR1 out 0 10\n.model CMP COMP(VLOW=0 VHIGH=1)\n"
    ".model SWI SW(VT=0.5)\n.model DI D\n.end\n";

TEST(SwitchingAc, LoopGainEqualsTheAveragedLoopGain) {
  // T = −v(out)/v(fb) (the injection source's − and + nodes) ≈ k·Vin·Fm/(1 + sL/R + s²LC) with
  // Fm = (tr + tf)/T of the ramp. Not exactly: the comparator sees the output's ripple (its
  // slope at the turn-off instant changes the modulator's gain), which the averaged model
  // ignores; measured 0.07 dB here (AgreesWithABruteForceTransient checks the exact value).
  const Case c(kLoop, 10e-6);
  ASSERT_TRUE(c.pss.ok());
  const auto f = log_sweep(100, 20e3, 12);
  const auto h = c.response("vinj", f, {"v(out)", "v(fb)"});
  const double fm = (9.98e-6 + 10e-9) / 10e-6;
  for (size_t k = 0; k < f.size(); ++k) {
    const cd s(0, 2 * kPi * f[k]);
    const cd averaged = 0.2 * 10 * fm / (1.0 + s * 100e-6 / 10.0 + s * s * 100e-6 * 10e-6);
    const cd t = -h[k][0] / h[k][1];
    SCOPED_TRACE(::testing::Message() << "f = " << f[k] << " Hz");
    EXPECT_NEAR(db(t), db(averaged), 0.2);
    EXPECT_NEAR(degrees_between(t, averaged), 0.0, 2.0);
    // The injected voltage splits: v(fb) − v(out) = 1.
    EXPECT_LT(std::abs(h[k][1] - h[k][0] - 1.0), 1e-9);
  }
}

// check_by_transient against the small-signal response at the frequencies it used (f' =
// fs·p/q), for the unknowns `names`.
void expect_check_agrees(const Case& c, const std::string& source, const std::vector<double>& f,
                         const std::vector<std::string>& names, double db_tol, double deg_tol,
                         double amplitude = 1e-3) {
  TransientCheckOptions o;
  o.source = source_index(c.e.circuit, c.a, source);
  o.frequencies = f;
  o.amplitude = amplitude;
  const TransientCheckResult t = check_by_transient(c.e.circuit, c.a, c.pss, c.options, o);
  ASSERT_TRUE(t.ok()) << t.summary.message;
  ASSERT_EQ(t.points.size(), f.size());
  std::vector<double> used;
  for (size_t k = 0; k < f.size(); ++k) {
    EXPECT_TRUE(t.points[k].settled);
    EXPECT_GE(t.points[k].q, 3);
    EXPECT_NEAR(t.points[k].f, f[k], 1e-2 * f[k]);
    used.push_back(t.points[k].f);
  }
  const auto h = c.response(source, used, names);
  for (size_t k = 0; k < used.size(); ++k)
    for (size_t s = 0; s < names.size(); ++s) {
      const cd tran = t.points[k].x[c.unknown(names[s])];
      SCOPED_TRACE(::testing::Message() << "f = " << used[k] << " Hz, " << names[s]);
      EXPECT_NEAR(db(tran), db(h[k][s]), db_tol);
      EXPECT_NEAR(degrees_between(tran, h[k][s]), 0.0, deg_tol);
    }
}

TEST(SwitchingAc, AgreesWithABruteForceTransient) {
  // A 1 mV sine on the injection source of the closed loop, windows of whole periods of T and 1/f
  // until the state's fundamental settles to 1e-4.
  const Case c(kLoop, 10e-6);
  ASSERT_TRUE(c.pss.ok());
  expect_check_agrees(c, "vinj", {1.5e3, 37e3}, {"v(out)", "v(fb)"}, 0.01, 0.1);
}

TEST(SwitchingAc, AgreesWithABruteForceTransientAboveHalfTheSwitchingFrequency) {
  // The peak-current-mode buck at 0.7 and 2.3 times fs (measured within 0.006 dB, 0.06°).
  const Case c(pcm_buck(12, 0.273, 0.0), 10e-6);
  ASSERT_TRUE(c.pss.ok());
  expect_check_agrees(c, "vc", {70e3, 230e3}, {"v(out)", "i(l1)"}, 0.05, 0.5);
}

TEST(SwitchingAc, ResonantConverterAgreesWithABruteForceTransient) {
  // examples/analyses/pss_resonant.cir: its orbit's map selects modes over δ = 1e-5·T (the bridge
  // commutates through Rn = 1 MΩ for ~100 ps; at 1e-9·T the period had no linearization and the
  // analysis stopped). The check's windows take the same δ; measured within 0.02 dB, 0.04°
  // (1 kHz) and 0.002 dB, 0.01° (40 kHz) with a 10 mV sine (with 1 mV, v(p)'s fundamental at
  // 1 kHz, 0.7 µV against 8 V, is at the integrator's tolerance: 0.18 dB off).
  std::ifstream in(std::string(NSSPICE_EXAMPLES_DIR) + "/analyses/pss_resonant.cir");
  std::stringstream text;
  text << in.rdbuf();
  const Case c(text.str(), 10e-6);
  ASSERT_TRUE(c.pss.ok());
  EXPECT_EQ(c.pss.select_step, 1e-5);
  expect_check_agrees(c, "vsq", {1e3, 40e3}, {"v(p)", "v(c)", "i(lr)"}, 0.05, 0.2, 1e-2);
}

// The sweep and the check end in the status vocabulary of solvers/status.hpp: bad options and a
// missing steady state are invalid input; a check whose fundamental cannot settle within its
// periods is inaccurate (an answer, flagged), naming the frequency.
TEST(SwitchingAcStatus, InvalidInputAndAnUnsettledCheckAreNamed) {
  const Case c(kLoop, 10e-6);
  ASSERT_TRUE(c.pss.ok());
  const int vinj = source_index(c.e.circuit, c.a, "vinj");
  const auto ignore = [](double, const Eigen::VectorXcd&, const Eigen::VectorXcd&) {};
  SwitchingAcOptions ac;
  ac.source = vinj;
  ac.frequencies = {-1.0};
  SwitchingAcResult r = switching_ac(c.e.circuit, c.a, c.pss, c.options, ac, ignore);
  EXPECT_EQ(r.summary.status, solvers::Status::kInvalidInput);
  EXPECT_NE(r.summary.message.find("frequencies must be >= 0 Hz"), std::string::npos);
  PssResult failed = c.pss;
  failed.fail(PssFailure::kUnstable, "unstable");
  ac.frequencies = {1e3};
  r = switching_ac(c.e.circuit, c.a, failed, c.options, ac, ignore);
  EXPECT_EQ(r.summary.status, solvers::Status::kInvalidInput);
  EXPECT_NE(r.summary.message.find("needs a periodic steady state"), std::string::npos);
  r = switching_ac(c.e.circuit, c.a, c.pss, c.options, ac, ignore);
  EXPECT_EQ(r.summary.status, solvers::Status::kSolved) << r.summary.message;
  EXPECT_EQ(r.points, 1);

  TransientCheckOptions check;
  check.source = vinj;
  check.frequencies = {1.5e3};
  check.amplitude = 0;
  TransientCheckResult t = check_by_transient(c.e.circuit, c.a, c.pss, c.options, check);
  EXPECT_EQ(t.summary.status, solvers::Status::kInvalidInput);
  EXPECT_NE(t.summary.message.find("amplitude must be > 0"), std::string::npos);
  check.amplitude = 1e-3;
  t = check_by_transient(c.e.circuit, c.a, failed, c.options, check);
  EXPECT_EQ(t.summary.status, solvers::Status::kInvalidInput);
  // A result never computed (it starts solved) holds no orbit.
  t = check_by_transient(c.e.circuit, c.a, PssResult{}, c.options, check);
  EXPECT_EQ(t.summary.status, solvers::Status::kInvalidInput);
  EXPECT_EQ(switching_ac(c.e.circuit, c.a, PssResult{}, c.options, ac, ignore).summary.status,
            solvers::Status::kInvalidInput);
  // At most 100 periods: one window of q = 67 periods, so the fundamental cannot be seen to
  // repeat.
  check.max_periods = 100;
  t = check_by_transient(c.e.circuit, c.a, c.pss, c.options, check);
  ASSERT_EQ(t.points.size(), 1u);
  EXPECT_FALSE(t.points[0].settled);
  EXPECT_EQ(t.summary.status, solvers::Status::kInaccurate) << t.summary.message;
  EXPECT_TRUE(t.ok());
  EXPECT_NE(t.summary.message.find(
                "did not settle to 0.0001 within 100 periods at 1492.54 Hz (67 periods)"),
            std::string::npos)
      << t.summary.message;
}

}  // namespace
}  // namespace nsspice::circuit
