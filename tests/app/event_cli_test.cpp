// `run --method event` (docs/event-driven.md): the event log beside the waveform, the run
// report, dense-output grid points, and clear errors for bad method options.
#include <cmath>

#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const char* kRect =
    "rectifier\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nC1 out 0 10u\nR1 out 0 1k\n.model DI D\n"
    ".tran 100u 30m\n.end\n";

class EventCli : public AppTest {};

TEST_F(EventCli, EventLogAndReport) {
  write("rect.cir", kRect);
  const CliRun r = nsspice("run rect.cir -o rect.csv --method event --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("event-driven, Radau IIA"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("d1         on->off  (guard)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rect.events.csv"), std::string::npos) << r.output;
  const std::string log = read_file(dir_ / "rect.events.csv");
  ASSERT_EQ(log.rfind("time,device,transition,cause,impulse,jump_signal,jump_from,jump_to,pair\n", 0),
            0u)
      << log;
  // The diode turns off where C dv/dt + v/R = 0: tan(ωt) = −ωRC, t = (π − atan(ωRC))/ω.
  const double w = 2 * M_PI * 50, t_off = (M_PI - std::atan(w * 1e-2)) / w;
  // The first row is the mode selected at t = 0 (the diode conducts as the sine rises).
  EXPECT_NE(log.find("\n0,d1,off->on,start,"), std::string::npos) << log;
  const size_t line = log.find(",start,") == std::string::npos
                          ? log.find('\n') + 1
                          : log.find('\n', log.find(",start,")) + 1;
  const double t_first = std::stod(log.substr(line));
  EXPECT_NEAR(t_first, t_off, 1e-9 * t_off) << log;
  EXPECT_NE(log.find(",d1,on->off,guard,0,,0,0,\n", line), std::string::npos) << log;
}

TEST_F(EventCli, GridAddsDenseOutputPoints) {
  write("rect.cir", kRect);
  const CliRun r = nsspice("run rect.cir -o g.csv --method event --grid 1m -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string error;
  const auto wv = app::read_waveforms((dir_ / "g.csv").string(), error);
  ASSERT_TRUE(wv) << error;
  int on_grid = 0;
  for (size_t i = 0; i < wv->points(); ++i) {
    const double k = std::round(wv->time[i] / 1e-3);
    if (std::abs(wv->time[i] - 1e-3 * k) > 1e-15) continue;
    ++on_grid;
    // While the diode conducts (the first quarter period) the output is the input.
    if (wv->time[i] > 0 && wv->time[i] <= 5e-3) {
      EXPECT_NEAR(wv->columns[1][i], 10 * std::sin(2 * M_PI * 50 * wv->time[i]), 1e-6);
    }
  }
  EXPECT_EQ(on_grid, 31);
  EXPECT_GT(wv->points(), 31u) << "the integrator's points too";
}

// Without --grid the file has a row every TSTEP (the collocation polynomials' dense output)
// besides the integrator's points: the peak and the average read from the file itself are the
// solution's, within 0.2 % of a converged reference (the fixed-step θ-scheme at h = 0.05 µs).
TEST_F(EventCli, PeakAndAverageReadFromTheFile) {
  const std::string body =
      "half-wave\nV1 in 0 SIN(0 10 1k 0 0 17)\nD1 in out DI\nC1 out 0 1u\nR1 out 0 1k\n"
      ".model DI D\n";
  write("hw.cir", body + ".tran 10u 3m\n.end\n");
  write("ref.cir", body + ".options step=0.05u\n.tran 0.05u 3m\n.end\n");
  ASSERT_EQ(nsspice("run hw.cir -o hw.csv --method event -q").exit_code, 0);
  ASSERT_EQ(nsspice("run ref.cir -o ref.csv -q").exit_code, 0);
  std::string error;
  const auto ev = app::read_waveforms((dir_ / "hw.csv").string(), error);
  ASSERT_TRUE(ev) << error;
  const auto ref = app::read_waveforms((dir_ / "ref.csv").string(), error);
  ASSERT_TRUE(ref) << error;
  auto stats = [](const app::Waveforms& w, double& peak, double& average) {
    const auto& t = w.time;
    const auto& v = w.columns[*w.index("v(out)")];
    peak = 0;
    double area = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      peak = std::max(peak, v[i]);
      if (i > 0 && t[i - 1] >= 1e-3) area += 0.5 * (v[i] + v[i - 1]) * (t[i] - t[i - 1]);
    }
    average = area / 2e-3;
  };
  double peak = 0, average = 0, peak_ref = 0, average_ref = 0;
  stats(*ev, peak, average);
  stats(*ref, peak_ref, average_ref);
  EXPECT_NEAR(peak, peak_ref, 2e-3 * peak_ref);
  EXPECT_NEAR(average, average_ref, 2e-3 * average_ref);
  for (size_t i = 1; i < ev->points(); ++i)
    EXPECT_LE(ev->time[i] - ev->time[i - 1], 10e-6 * (1 + 1e-9)) << "at " << ev->time[i];
}

TEST_F(EventCli, BadMethodOptionsAreErrors) {
  write("bad.cir",
        "bad\nR1 a 0 1\nV1 a 0 1\n.options method=events evrtol=2\n.tran 1m 10m\n.end\n");
  const CliRun r = nsspice("run bad.cir -q");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(
      r.output.find("unknown METHOD 'events'; expected theta or event (or SPICE's trap, gear) "
                    "(did you mean 'event'?)"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("evrtol must be below 1, got 2"), std::string::npos) << r.output;
  write("ok.cir", "ok\nR1 a 0 1\nV1 a 0 1\n.tran 1m 10m\n.end\n");
  const CliRun m = nsspice("run ok.cir --method exact -q");
  EXPECT_EQ(m.exit_code, 1) << m.output;
  EXPECT_NE(m.output.find("--method 'exact': expected theta or event"), std::string::npos)
      << m.output;
}

}  // namespace
}  // namespace nsspice::testing
