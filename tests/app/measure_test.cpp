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

}  // namespace
}  // namespace nsspice::testing
