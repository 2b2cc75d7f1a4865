// Measurements against hand-computed values, and the uniform-grid resampler.
#include "app/measure/measure.hpp"

#include <cmath>
#include <numbers>

#include "app/io/output_file.hpp"
#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

using app::MeasureResult;

// Feeds y(t) sampled at n + 1 points on [0, t_end] (column "v(x)"; "v(y)" = 2 y) to one
// measurement.
template <typename F>
MeasureResult measure(const std::string& text, F y, double t_end = 1.0, int n = 1000) {
  std::string error;
  auto spec = app::parse_measure(text, error);
  EXPECT_TRUE(spec) << error;
  if (!spec) return {};
  auto m = app::Measurement::bind(*spec, {"v(x)", "v(y)"}, error);
  EXPECT_TRUE(m) << error;
  if (!m) return {};
  for (int i = 0; i <= n; ++i) {
    const double t = t_end * i / n;
    const double v[2] = {y(t), 2 * y(t)};
    m->feed(t, v);
  }
  return m->result();
}

double value(const MeasureResult& r) {
  EXPECT_TRUE(r.value) << r.failure;
  return r.value.value_or(NAN);
}

TEST(Measure, WindowAggregatesOfARamp) {
  auto ramp = [](double t) { return 3 * t; };
  // Exact for a piecewise-linear waveform, window ends between samples.
  EXPECT_NEAR(value(measure("avg v(x) from=0.2005 to=0.6", ramp)), 3 * 0.40025, 1e-12);
  EXPECT_NEAR(value(measure("integ v(x) from=0 to=1", ramp)), 1.5, 1e-12);
  // rms of 3t on [0, 1] = 3/sqrt(3) = sqrt(3)
  EXPECT_NEAR(value(measure("rms v(x)", ramp)), std::sqrt(3.0), 1e-12);
  const auto mx = measure("max v(x) from=0.1 to=0.3", ramp);
  EXPECT_NEAR(value(mx), 0.9, 1e-12);
  EXPECT_NEAR(mx.at.value_or(NAN), 0.3, 1e-12);
  EXPECT_NEAR(value(measure("min v(x) from=0.1 to=0.3", ramp)), 0.3, 1e-12);
  EXPECT_NEAR(value(measure("pp v(x) from=0.1 to=0.3", ramp)), 0.6, 1e-12);
  EXPECT_EQ(measure("integ v(x)", ramp).unit, "V·s");
}

// ngspice's MIN_AT / MAX_AT: the time of the window's extreme, in seconds. A sine sampled at
// 2000 points on two periods has its peaks on sample points: the first maximum at T/4, the
// minimum inside [T, 2T] at T + 3T/4. (The name MAX_AT was an error before.)
TEST(Measure, MinAtAndMaxAtAreTheTimesOfTheExtremes) {
  const double f = 50, w = 2 * std::numbers::pi * f, T = 1 / f;
  auto sine = [&](double t) { return 10 * std::sin(w * t); };
  const auto mx = measure("tymax max_at v(x) from=0 to=20m", sine, 2 * T, 2000);
  EXPECT_EQ(mx.name, "tymax");
  EXPECT_EQ(mx.unit, "s");
  EXPECT_NEAR(value(mx), T / 4, 1e-12);
  EXPECT_NEAR(value(measure("MIN_AT v(x) from=20m to=40m", sine, 2 * T, 2000)), T + 3 * T / 4,
              1e-12);
  EXPECT_EQ(measure("min_at v(x)", sine, 2 * T, 2000).name, "min_at_v(x)");
}

TEST(Measure, SineAverageRmsAndCrossings) {
  const double f = 50, w = 2 * std::numbers::pi * f;
  auto sine = [&](double t) { return 10 * std::sin(w * t); };
  const double T = 1 / f;
  // Over whole periods: avg 0, rms 10/sqrt(2); sampled at 1000 points per period.
  EXPECT_NEAR(value(measure("avg v(x) from=0 to=40m", sine, 2 * T, 2000)), 0, 1e-9);
  EXPECT_NEAR(value(measure("rms v(x)", sine, 2 * T, 2000)), 10 / std::sqrt(2.0), 1e-4);
  EXPECT_NEAR(value(measure("pp v(x)", sine, 2 * T, 2000)), 20, 1e-3);
  // 10 sin(wt) = 5 rising: t = asin(0.5)/w + k T; second rise at T + T/12.
  const auto when = measure("tc when v(x)=5 rise=2", sine, 2 * T, 2000);
  EXPECT_EQ(when.name, "tc");
  EXPECT_EQ(when.unit, "s");
  EXPECT_NEAR(value(when), T + T / 12, 1e-6);
  // falls: first at T/2 - T/12
  EXPECT_NEAR(value(measure("when v(x)=5 fall=1", sine, 2 * T, 2000)), T / 2 - T / 12, 1e-6);
  // cross=3: T/12, 5T/12, 13T/12
  EXPECT_NEAR(value(measure("when v(x)=5 cross=3", sine, 2 * T, 2000)), 13 * T / 12, 1e-6);
  EXPECT_NEAR(value(measure("when v(x)=5 rise=last", sine, 2 * T, 2000)), 13 * T / 12, 1e-6);
  EXPECT_NEAR(value(measure("when v(x)=5 rise=1 td=10m", sine, 2 * T, 2000)), 13 * T / 12, 1e-6);
  EXPECT_NEAR(value(measure("find v(x) at=5m", sine, 2 * T, 2000)), 10, 1e-4);
  // v(y) = 2 v(x): where v(x) first rises through 5, v(y) = 10.
  EXPECT_NEAR(value(measure("find v(y) when v(x)=5", sine, 2 * T, 2000)), 10, 1e-9);
  const auto never = measure("when v(x)=11", sine, 2 * T, 2000);
  EXPECT_FALSE(never.value);
  EXPECT_NE(never.failure.find("never crosses 11"), std::string::npos) << never.failure;
}

// TRIG/TARG on 10 sin(ωt), T = 20 ms, 1000 points per period: v(x) rises through 5 at T/12 + kT
// and falls at 5T/12 + kT; v(y) = 2 v(x) crosses 10 at the same instants. The crossing instants
// are interpolated as `when` does; on this sine that is within 1e-6 s (as the when tests).
// A signal that sits exactly at the level at computed points: a pulse from 0 to 5 measured at 5
// (its top) and a triangle touching 0. Its departure to the other side is a crossing, so rises
// and falls alternate: the pulse's fall at 5 was never counted ("never crosses 5 (fall 1)"),
// cross=2 was its next rise (4 ms, not the fall at 2 ms), and the triangle never rose.
TEST(Measure, DepartureFromExactlyTheLevelIsACrossing) {
  auto pulse = [](double t) {  // 0; up to 5 over 1..1.1 ms; 5 until 2 ms; down to 0 by 2.1 ms
    const long k = std::lround(t * 1e5) % 300;  // the samples are 10 µs apart: exact values
    return k < 100   ? 0.0
           : k < 110 ? 0.5 * static_cast<double>(k - 100)
           : k < 200 ? 5.0
           : k < 210 ? 0.5 * static_cast<double>(210 - k)
                     : 0.0;
  };
  EXPECT_NEAR(value(measure("when v(x)=5 rise=1", pulse, 8e-3, 800)), 1.1e-3, 1e-12);
  EXPECT_NEAR(value(measure("when v(x)=5 fall=1", pulse, 8e-3, 800)), 2e-3, 1e-12);
  EXPECT_NEAR(value(measure("when v(x)=5 cross=2", pulse, 8e-3, 800)), 2e-3, 1e-12);
  EXPECT_NEAR(value(measure("when v(x)=5 cross=3", pulse, 8e-3, 800)), 4.1e-3, 1e-12);
  // The top's last point evaluated within rounding of 5 (a PULSE at its corner time) is at 5.
  auto rounded = [&](double t) { return std::lround(t * 1e5) == 200 ? 5 - 4e-12 : pulse(t); };
  EXPECT_NEAR(value(measure("when v(x)=5 fall=1", rounded, 8e-3, 800)), 2e-3, 1e-12);
  // At 0, where the run starts: the first departure only sets the side.
  EXPECT_NEAR(value(measure("when v(x)=0 fall=1", pulse, 8e-3, 800)), 2.1e-3, 1e-12);
  EXPECT_NEAR(value(measure("when v(x)=0 rise=1", pulse, 8e-3, 800)), 4e-3, 1e-12);
  auto triangle = [](double t) { return std::abs(1 - std::fmod(t, 2.0)); };  // 1 → 0 → 1 ...
  EXPECT_NEAR(value(measure("when v(x)=0 fall=1", triangle, 4.0, 400)), 1.0, 1e-12);
  EXPECT_NEAR(value(measure("when v(x)=0 rise=1", triangle, 4.0, 400)), 1.0, 1e-12);
  EXPECT_NEAR(value(measure("when v(x)=0 cross=3", triangle, 4.0, 400)), 3.0, 1e-12);
  // A run that starts at the level: no crossing there.
  auto ramp = [](double t) { return t; };
  EXPECT_FALSE(measure("when v(x)=0 rise=1", ramp).value);
  EXPECT_NEAR(value(measure("trig v(x) val=0.5 rise=1 targ v(y) val=1 rise=1", ramp)), 0, 1e-12);
}

TEST(Measure, TrigTargCountsTdAtLastAndWindow) {
  const double T = 20e-3, w = 2 * std::numbers::pi / T;
  auto sine = [&](double t) { return 10 * std::sin(w * t); };
  auto delay = [&](const std::string& text) { return value(measure(text, sine, 2 * T, 2000)); };
  const double tol = 1e-6;
  EXPECT_NEAR(delay("per trig v(x) val=5 rise=1 targ v(x) val=5 rise=2"), T, tol);
  EXPECT_NEAR(delay("trig v(x) val=5 rise=1 targ v(x) val=5 fall=1"), T / 3, tol);
  EXPECT_NEAR(delay("trig v(x) val=5 cross=1 targ v(x) val=5 cross=3"), T, tol);
  // Without rise/fall/cross: the first crossing, as `when`.
  EXPECT_NEAR(delay("trig v(x) val=5 targ v(x) val=-5"), 7 * T / 12 - T / 12, tol);
  // td: the trig's first rise after 10 ms is the second one; the last rise is 13T/12.
  EXPECT_NEAR(delay("trig v(x) val=5 rise=1 td=10m targ v(x) val=5 rise=last"), 0, tol);
  EXPECT_NEAR(delay("trig v(x) val=5 fall=last targ v(x) val=5 rise=1"), T / 12 - 17 * T / 12, tol);
  // Negative: TARG before TRIG; another signal for TARG.
  const auto neg = measure("trig v(x) val=5 fall=2 targ v(y) val=10 rise=1", sine, 2 * T, 2000);
  EXPECT_NEAR(value(neg), T / 12 - 17 * T / 12, tol);
  EXPECT_EQ(neg.unit, "s");
  EXPECT_NEAR(neg.at.value_or(NAN), T / 12, tol);  // at = t_targ
  EXPECT_EQ(neg.name, "delay_v(y)");
  // at= on either side: the time itself.
  EXPECT_NEAR(delay("trig at=5m targ v(x) val=5 fall=1"), 5 * T / 12 - 5e-3, tol);
  EXPECT_NEAR(delay("trig v(x) val=5 rise=1 targ at=15m"), 15e-3 - T / 12, tol);
  EXPECT_NEAR(delay("trig at=1m targ at=4m"), 3e-3, 1e-15);
  // from= on one side applies to both (ngspice): both events counted from 10 ms.
  EXPECT_NEAR(delay("trig v(x) val=5 rise=1 from=10m targ v(x) val=5 fall=1"), T / 3, tol);
  EXPECT_NEAR(delay("trig v(x) val=5 rise=1 targ v(x) val=5 fall=1 from=10m"), T / 3, tol);
  // to=: the second rise (21.7 ms) is outside [0, 20 ms].
  const auto late =
      measure("trig v(x) val=5 rise=1 targ v(x) val=5 rise=2 to=20m", sine, 2 * T, 2000);
  EXPECT_FALSE(late.value);
  EXPECT_EQ(late.failure, "targ: v(x) has only 1 rise through 5 in [0, 0.02] s (rise 2)");
}

// A piecewise-linear waveform is interpolated exactly: v(x) = 3t, levels between the samples.
TEST(Measure, TrigTargIsExactOnARamp) {
  auto ramp = [](double t) { return 3 * t; };
  const auto r = measure("trig v(x) val=0.30015 rise=1 targ v(y) val=4.20021 rise=1", ramp);
  EXPECT_NEAR(value(r), 0.700035 - 0.10005, 1e-12);
}

// The 10 %–90 % rise time of an RC step y = 1 − exp(−t/τ) is τ ln 9. Linear interpolation
// between samples h apart puts each crossing within h² max|y''| / (8 |y'(t_c)|) ≤ h² e^{h/τ}/(8τ)
// of the true one (y''/y' = −1/τ; the max over one segment is at most e^{h/τ} times the value
// at t_c), so the difference of two is within h² e^{h/τ}/(4τ).
TEST(Measure, TrigTargRiseTimeOfAnRcStep) {
  const double tau = 1e-3;
  auto step = [&](double t) { return 1 - std::exp(-t / tau); };
  for (int n : {500, 5000}) {
    const double h = 5 * tau / n;
    const double bound = h * h * std::exp(h / tau) / (4 * tau);
    const auto r =
        measure("tr trig v(x) val=0.1 rise=1 targ v(x) val=0.9 rise=1", step, 5 * tau, n);
    EXPECT_NEAR(value(r), tau * std::log(9.0), bound) << "n = " << n;
    EXPECT_GT(std::abs(value(r) - tau * std::log(9.0)), bound / 100) << "n = " << n;
  }
}

// An event that never happens: a failure saying which side and why, no value (as `when`).
TEST(Measure, TrigTargEventThatNeverHappensFails) {
  const double T = 20e-3, w = 2 * std::numbers::pi / T;
  auto sine = [&](double t) { return 10 * std::sin(w * t); };
  const auto targ = measure("trig v(x) val=5 rise=1 targ v(x) val=11 rise=1", sine, 2 * T, 2000);
  EXPECT_FALSE(targ.value);
  EXPECT_EQ(targ.failure, "targ: v(x) never crosses 11 (rise 1)");
  const auto trig = measure("trig v(x) val=5 rise=3 targ v(x) val=5 fall=1", sine, 2 * T, 2000);
  EXPECT_FALSE(trig.value);
  EXPECT_EQ(trig.failure, "trig: v(x) has only 2 rises through 5 (rise 3)");
  const auto td = measure("trig v(x) val=5 rise=1 td=30m targ at=1m", sine, 2 * T, 2000);
  EXPECT_EQ(td.failure, "trig: v(x) never crosses 5 after td = 0.03 s (rise 1)");
  const auto at = measure("trig at=50m targ v(x) val=5 fall=1", sine, 2 * T, 2000);
  EXPECT_FALSE(at.value);
  EXPECT_EQ(at.failure, "trig: t = 0.05 s is outside the run");
  const std::string j = app::measures_json({targ});
  EXPECT_NE(j.find("\"value\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"failure\": \"targ: v(x) never crosses 11 (rise 1)\""), std::string::npos)
      << j;
}

// A .meas card's tokens that do not parse: the message, and the token at fault.
struct SyntaxCase {
  std::vector<std::string> tokens;
  const char* message;
  size_t token;
};

void expect_syntax_errors(const std::vector<SyntaxCase>& cases) {
  for (const auto& c : cases) {
    std::string error;
    size_t token = 99;
    EXPECT_FALSE(app::parse_measure(c.tokens, "m", error, &token)) << c.message;
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
    EXPECT_EQ(token, c.token) << error;
  }
}

// Bad TRIG/TARG syntax: the message, and the token at fault (a .meas card's tokens).
TEST(Measure, TrigTargSyntaxErrorsNameTheToken) {
  expect_syntax_errors({
      {{"trig", "v(a)", "rise=1", "targ", "v(b)", "val=1"}, "trig v(a) needs val=LEVEL", 0},
      {{"targ", "v(b)", "val=1", "rise=1"}, "'targ' without a 'trig' before it", 0},
      {{"trig", "v(a)", "val=1", "rise=0", "targ", "v(b)", "val=1"}, "rise= must be 1, 2, ...", 3},
      {{"trig", "v(a)", "val=1", "targ", "v(b)", "val=1", "foo=2"},
       "'foo=' is not a targ keyword (val, td, rise, fall, cross, at, from, to)",
       6},
      {{"trig", "v(a)", "val=1", "rise=1"}, "'trig' needs a 'targ' clause after it", 3},
      {{"trig", "val=1", "targ", "v(b)", "val=1"},
       "expected SIGNAL val=LEVEL or at=T after 'trig'",
       0},
      {{"trig", "at=1m", "rise=1", "targ", "v(b)", "val=1"}, "trig at=T is the time itself", 0},
      {{"trig", "v(a)", "val=x", "targ", "v(b)", "val=1"}, "'val=x': not a number", 2},
      {{"trig", "v(a)", "val=1", "targ"}, "expected SIGNAL val=LEVEL or at=T after 'targ'", 3},
      {{"trig", "v(a)", "val=1", "targ", "v(b)", "val=1", "from=2m", "to=1m"},
       "to= must be after from=",
       3},
  });
}

TEST(Measure, SyntaxErrorsAreClear) {
  std::string error;
  EXPECT_FALSE(app::parse_measure("avarage v(x)", error));
  EXPECT_NE(error.find("expected avg, rms"), std::string::npos) << error;
  EXPECT_FALSE(app::parse_measure("avg v(x) from=abc", error));
  EXPECT_NE(error.find("not a number"), std::string::npos) << error;
  EXPECT_FALSE(app::parse_measure("when v(x) 2", error));
  EXPECT_FALSE(app::parse_measure("avg v(x) from=2m to=1m", error));
  EXPECT_FALSE(app::parse_measure("find v(x)", error));
  // A .meas card's tokens (the parser's split) parse as well.
  auto spec =
      app::parse_measure(std::vector<std::string>{"when", "v(out)=2.5", "rise=2"}, "t1", error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->name, "t1");
  EXPECT_EQ(spec->when.level, 2.5);
  EXPECT_EQ(spec->when.count, 2);
  std::optional<app::Measurement> bound =
      app::Measurement::bind(*spec, std::vector<std::string>{"v(oot)"}, error);
  EXPECT_FALSE(bound);
  EXPECT_NE(error.find("did you mean 'v(oot)'"), std::string::npos) << error;
}

// Points from t = 0.5 on, as a run with .tran TSTART 0.5 writes them (v(x) = 3t): a window or an
// instant before the first point is a failure naming both times (AVG FROM=0.2 was the average
// over 0.5..1, 2.25 instead of 1.8, and MIN FROM=0 was 1.5 at 0.5, without a word); a crossing
// before it is said to be not found in the points from 0.5 on.
TEST(Measure, AWindowBeforeTheFirstPointFails) {
  const auto late = [](const std::string& text) {
    std::string error;
    auto spec = app::parse_measure(text, error);
    EXPECT_TRUE(spec) << error;
    auto m = app::Measurement::bind(*spec, {"v(x)", "v(y)"}, error);
    EXPECT_TRUE(m) << error;
    for (int i = 0; i <= 500; ++i) {
      const double t = 0.5 + 0.001 * i, v[2] = {3 * t, 6 * t};
      m->feed(t, v);
    }
    return m->result();
  };
  const auto avg = late("avg v(x) from=0.2 to=1");
  EXPECT_FALSE(avg.value);
  EXPECT_EQ(avg.failure,
            "from=0.2 s is before the first point, t = 0.5 s (the rows start at the .tran "
            "TSTART): only the points from there on are measured; lower TSTART to 0.2 s or "
            "measure from 0.5 s on");
  EXPECT_FALSE(late("min v(x) from=0").value);
  EXPECT_NEAR(value(late("avg v(x) from=0.5 to=1")), 2.25, 1e-12);
  EXPECT_NEAR(value(late("max v(x)")), 3.0, 1e-12);  // no window: the points fed
  EXPECT_NE(late("find v(x) at=0.1").failure.find("at=0.1 s is before the first point"),
            std::string::npos);
  EXPECT_NE(late("trig at=0.1 targ v(x) val=2").failure.find("at=0.1 s is before"),
            std::string::npos);
  EXPECT_EQ(late("when v(x)=1").failure,
            "v(x) never crosses 1 (cross 1) in the points from t = 0.5 s on");
  EXPECT_NEAR(value(late("when v(x)=2")), 2.0 / 3, 1e-12);
}

// ngspice's WHEN v(a)=v(b): the instants the two signals cross (v(a) − v(b) through 0; rise:
// v(a) going above v(b)); it was the error "expected a number for the level". On v(x) = t − 0.3,
// v(y) = 2 v(x): they cross once, at t = 0.3, where v(y) rises above v(x).
TEST(Measure, WhenOneSignalCrossesAnother) {
  auto line = [](double t) { return t - 0.3; };
  EXPECT_NEAR(value(measure("when v(y)=v(x) rise=1", line)), 0.3, 1e-12);
  EXPECT_NEAR(value(measure("when v(x)=v(y) fall=1", line)), 0.3, 1e-12);
  EXPECT_NEAR(value(measure("when v(x) = y", line)), 0.3, 1e-12);  // a bare node name
  EXPECT_FALSE(measure("when v(x)=v(y) rise=1", line).value);
  EXPECT_NEAR(value(measure("find v(y) when v(y)=v(x)*3", line)), 0.0, 1e-12);
  std::string error;
  EXPECT_FALSE(app::parse_measure("when v(x)=", error));
  EXPECT_NE(error.find("expected a number (or a second signal) for the level"), std::string::npos)
      << error;
  EXPECT_FALSE(app::parse_measure("when v(x)=rise=1", error));
}

// FROM, TO, AT, TD ... with the value but no '=' (ngspice: "equal sign missing"): an error at the
// keyword that says what to write, not a signal made of the words ("v(out)from2mto3m").
TEST(Measure, KeywordsWithoutEqualsNameTheFix) {
  expect_syntax_errors({
      {{"AVG", "V(out)", "FROM", "2m", "TO", "3m"},
       "'FROM 2m TO 3m': the values need '=' (ngspice: 'equal sign missing'): write FROM=2m "
       "TO=3m",
       2},
      {{"avg", "V(out)*I(R1)", "from=1m", "to", "3m"}, "'to 3m': the values need '='", 3},
      {{"find", "v(out)", "at", "2.25m"}, "write at=2.25m", 2},
      {{"trig", "v(a)", "val", "0.5", "rise", "1", "targ", "v(b)", "val=1"},
       "write val=0.5 rise=1",
       2},
      {{"trig", "at", "1m", "targ", "v(b)", "val=1"}, "write at=1m", 1},
      {{"when", "v(x)=1", "cross", "last"}, "write cross=last", 2},
  });
  std::string error;
  auto spec =
      app::parse_measure(std::vector<std::string>{"avg", "v(out)", "from=2m", "to=3m"}, "m", error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->signal, "v(out)");
}

// LTspice's power measurement: arithmetic of signals at every point (v(x)·v(y) = 2 sin² here,
// average 1 over whole periods; with blanks, as the card's tokens may split it), a function of
// one, and a param of the measurements before it.
TEST(Measure, ArithmeticOfSignalsAndParam) {
  auto sine = [](double t) { return std::sin(2 * std::numbers::pi * 3 * t); };
  EXPECT_NEAR(value(measure("avg v(x)*v(y)", sine, 1.0, 20000)), 1.0, 1e-6);
  EXPECT_NEAR(value(measure("p avg -v(x) * v(y)", sine, 1.0, 20000)), -1.0, 1e-6);
  EXPECT_NEAR(value(measure("avg abs(v(x))", sine, 1.0, 20000)), 2 / std::numbers::pi, 1e-6);
  EXPECT_NEAR(value(measure("avg par('v(x)*v(y)')", sine, 1.0, 20000)), 1.0, 1e-6);  // ngspice
  // Arithmetic that is not finite somewhere is a failed measurement, not a printed nan.
  const MeasureResult nan = measure("avg v(x)/0", sine);
  EXPECT_FALSE(nan.value);
  EXPECT_NE(nan.failure.find("the value is not finite"), std::string::npos) << nan.failure;
  EXPECT_NEAR(value(measure("max v(y)/2 + 1", sine)), 2.0, 1e-6);
  EXPECT_NEAR(value(measure("when v(x)*4=2 rise=1", sine, 1.0, 20000)),
              std::asin(0.5) / (2 * std::numbers::pi * 3), 1e-6);

  app::MeasureSet set;
  std::string error;
  const std::vector<std::string> names{"v(x)", "v(y)"};
  for (const char* text :
       {"pout avg v(x)*v(y)", "pin rms v(y)", "eff param pout/pin", "pct param='100*eff'"}) {
    const std::string name = std::string(text).substr(0, std::string(text).find(' '));
    auto spec = app::parse_measure(
        std::vector<std::string>{std::string(text).substr(name.size() + 1)}, name, error);
    ASSERT_TRUE(spec) << error;
    ASSERT_TRUE(set.add(*spec, names, error)) << error;
  }
  for (int i = 0; i <= 20000; ++i) {
    const double t = i / 20000.0, v[2] = {sine(t), 2 * sine(t)};
    set.feed(t, v);
  }
  const auto results = set.results();
  ASSERT_EQ(results.size(), 4u);
  EXPECT_NEAR(value(results[2]), 1.0 / std::sqrt(2.0), 1e-6);  // 1 / (2/√2)
  EXPECT_NEAR(value(results[3]), 100 / std::sqrt(2.0), 1e-4);

  // A name that is no measurement before it, and a signal that is no column, are errors.
  auto spec = app::parse_measure(std::vector<std::string>{"param pout/pn"}, "bad", error);
  ASSERT_TRUE(spec) << error;
  EXPECT_FALSE(set.add(*spec, names, error));
  EXPECT_NE(error.find("'pn' is not a measurement before it (did you mean 'pin'?)"),
            std::string::npos)
      << error;
  error.clear();
  spec = app::parse_measure("avg v(x)*v(z)", error);
  ASSERT_TRUE(spec) << error;
  EXPECT_FALSE(app::Measurement::bind(*spec, names, error));
  EXPECT_NE(error.find("unknown signal 'v(z)'"), std::string::npos) << error;
}

// LTspice's TRIG V(in)=0.5 (VAL= left out) is TRIG V(in) VAL=0.5; ngspice's @d1[id] is i(d1)
// in a measurement as in .save.
TEST(Measure, LtspiceTrigFormAndDeviceQuantities) {
  std::string error;
  const auto lt = app::parse_measure("trig v(x)=0.25 rise=1 targ v(y)=1.5 fall=1", error);
  ASSERT_TRUE(lt) << error;
  const auto ng = app::parse_measure("trig v(x) val=0.25 rise=1 targ v(y) val=1.5 fall=1", error);
  ASSERT_TRUE(ng) << error;
  EXPECT_EQ(lt->when.signal, "v(x)");
  EXPECT_EQ(lt->when.level, ng->when.level);
  EXPECT_EQ(lt->when.edge, ng->when.edge);
  EXPECT_EQ(lt->targ.signal, "v(y)");
  EXPECT_EQ(lt->targ.level, ng->targ.level);
  EXPECT_EQ(lt->targ.edge, ng->targ.edge);
  const auto at = app::parse_measure("max @d1[id]", error);
  ASSERT_TRUE(at) << error;
  EXPECT_EQ(at->signal, "i(d1)");
  EXPECT_FALSE(app::parse_measure("trig v(x)=oops rise=1 targ v(y) val=1", error));
  EXPECT_NE(error.find("expected a number for the level of v(x)"), std::string::npos) << error;
}

TEST(Measure, JsonIsWellFormed) {
  std::vector<MeasureResult> r = {{"a", "avg v(x)", 1.5, {}, "V", ""},
                                  {"b\"q", "when v(x)=9", {}, {}, "s", "never"}};
  const std::string j = app::measures_json(r);
  EXPECT_NE(j.find("\"value\": 1.5"), std::string::npos) << j;
  EXPECT_NE(j.find("\"b\\\"q\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"value\": null"), std::string::npos) << j;
}

TEST(GridResampler, UniformGridWithBreakpointsKept) {
  app::Waveforms out;
  app::WaveformCollector collect(out);
  // Samples every 0.3 of y = 10 t, plus a computed point on a breakpoint at 1.05.
  app::GridResampler grid(collect, 0.5, {1.05});
  for (double t : {0.0, 0.3, 0.6, 0.9, 1.05, 1.35, 1.65}) {
    const double v[1] = {10 * t};
    grid.row(t, v);
  }
  grid.finish();
  const std::vector<double> want_t = {0, 0.5, 1.0, 1.05, 1.5, 1.65};
  ASSERT_EQ(out.time.size(), want_t.size());
  for (size_t i = 0; i < want_t.size(); ++i) {
    EXPECT_NEAR(out.time[i], want_t[i], 1e-15);
    EXPECT_NEAR(out.columns[0][i], 10 * want_t[i], 1e-12);
  }
}

// DERIV: the slope of the piecewise-linear waveform at its instant; at a point between two
// segments the mean of their slopes, so that t² sampled evenly gives 2t exactly there.
TEST(Measure, DerivIsTheSlopeOfThePiecewiseLinearWaveform) {
  auto ramp = [](double t) { return 3 * t; };
  EXPECT_NEAR(value(measure("deriv v(x) at=0.2005", ramp)), 3, 1e-9);
  auto square = [](double t) { return t * t; };
  EXPECT_NEAR(value(measure("deriv v(x) at=0.5", square)), 1.0, 1e-9);  // a point: central
  // Inside the segment [0.5, 0.501]: its chord, (t1² − t0²)/(t1 − t0) = t0 + t1.
  EXPECT_NEAR(value(measure("deriv v(x) at=0.5005", square)), 1.001, 1e-9);
  // At the crossing of 2t² through 0.5 (t = 0.5, a point): the same central difference.
  const auto w = measure("slope deriv v(x) when v(y)=0.5", square);
  EXPECT_NEAR(value(w), 1.0, 1e-9);
  EXPECT_NEAR(w.at.value_or(NAN), 0.5, 1e-12);
  EXPECT_EQ(w.unit, "V/s");
  EXPECT_EQ(w.name, "slope");
  // At the first point only one segment: its slope.
  EXPECT_NEAR(value(measure("deriv v(x) at=0", square)), 0.001, 1e-9);
  std::string error;
  EXPECT_FALSE(app::parse_measure("deriv v(x)", error));
  EXPECT_NE(error.find("'deriv' needs at=T or when SIGNAL=LEVEL"), std::string::npos) << error;
  EXPECT_FALSE(app::parse_measure("deriv v(x) at=1 from=0", error));
  EXPECT_NE(error.find("'from=' does not apply here"), std::string::npos) << error;
}

}  // namespace
}  // namespace nsspice::testing
