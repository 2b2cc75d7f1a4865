// The plot's data reduction and default layout: min/max decimation against the undecimated
// waveform, two-level detection, panels by kind and scale, the switching period behind the zoom
// column, and the geometry that keeps legends inside the image.
#include "app/plot/plot_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "app/plot/decimate.hpp"
#include "app/plot/gnuplot_runner.hpp"
#include "app/plot/plot_geometry.hpp"
#include "app/plot/plot_gnuplot.hpp"

namespace nsspice::app {
namespace {

// A PWM node: period T, duty cycle drifting 0.2 → 0.8, one-sample rise and fall, a small ripple
// on each level and one single-sample spike; n samples over [0, periods·T].
struct Pwm {
  std::vector<double> t, y;
};
Pwm pwm(size_t n, int periods, double T = 10e-6) {
  Pwm w;
  const double span = periods * T;
  for (size_t i = 0; i < n; ++i) {
    const double t = span * static_cast<double>(i) / static_cast<double>(n - 1);
    const double phase = std::fmod(t / T, 1.0), duty = 0.2 + 0.6 * t / span;
    double y = phase < duty ? 12.0 : 0.0;
    y += 0.05 * std::sin(2 * std::numbers::pi * 37 * t / T);
    w.t.push_back(t);
    w.y.push_back(y);
  }
  w.y[n / 3] = 15.5;  // a spike the eye must see
  return w;
}

// Local extremes of y: samples not below (above) both neighbours and above (below) one of them.
std::vector<size_t> local_extremes(const std::vector<double>& y) {
  std::vector<size_t> out;
  for (size_t i = 1; i + 1 < y.size(); ++i) {
    const bool max = y[i] >= y[i - 1] && y[i] >= y[i + 1] && (y[i] > y[i - 1] || y[i] > y[i + 1]);
    const bool min = y[i] <= y[i - 1] && y[i] <= y[i + 1] && (y[i] < y[i - 1] || y[i] < y[i + 1]);
    if (max || min) out.push_back(i);
  }
  return out;
}

TEST(Decimate, KeepsEveryLocalExtremeOfAPwmWithinItsPixelColumn) {
  const Pwm w = pwm(200000, 40);
  const int columns = 900;
  const double t0 = w.t.front(), t1 = w.t.back(), width = (t1 - t0) / columns;
  const DecimatedSeries d = decimate(w.t, w.y, t0, t1, columns);
  ASSERT_LE(d.t.size(), 2u * columns + 1);
  // Column envelopes of the reference and of the decimated series.
  auto column = [&](double t) { return std::min(columns - 1, static_cast<int>((t - t0) / width)); };
  std::vector<double> ref_lo(columns, INFINITY), ref_hi(columns, -INFINITY), lo = ref_lo,
                                                                             hi = ref_hi;
  for (size_t i = 0; i < w.t.size(); ++i) {
    const int c = column(w.t[i]);
    ref_lo[c] = std::min(ref_lo[c], w.y[i]), ref_hi[c] = std::max(ref_hi[c], w.y[i]);
  }
  for (size_t i = 0; i < d.t.size(); ++i) {
    const int c = column(d.t[i]);
    lo[c] = std::min(lo[c], d.y[i]), hi[c] = std::max(hi[c], d.y[i]);
  }
  for (int c = 0; c < columns; ++c) {
    EXPECT_EQ(lo[c], ref_lo[c]) << "column " << c;
    EXPECT_EQ(hi[c], ref_hi[c]) << "column " << c;
  }
  // Every local extreme of the undecimated waveform is drawn: its column reaches it.
  const auto extremes = local_extremes(w.y);
  ASSERT_GT(extremes.size(), 1000u);
  for (size_t i : extremes) {
    const int c = column(w.t[i]);
    ASSERT_TRUE(lo[c] <= w.y[i] && w.y[i] <= hi[c]) << "extreme at t = " << w.t[i];
  }
  // The spike and both rails are kept exactly.
  EXPECT_EQ(*std::max_element(d.y.begin(), d.y.end()), 15.5);
  EXPECT_EQ(*std::min_element(d.y.begin(), d.y.end()), *std::min_element(w.y.begin(), w.y.end()));
  // Kept points are samples of the waveform, in time order.
  EXPECT_TRUE(std::is_sorted(d.t.begin(), d.t.end()));
  for (size_t i = 0; i < d.t.size(); ++i) {
    const auto k = std::lower_bound(w.t.begin(), w.t.end(), d.t[i]) - w.t.begin();
    ASSERT_EQ(w.y[static_cast<size_t>(k)], d.y[i]);
  }
}

TEST(Decimate, PlainStrideDecimationWouldLoseTheExtremes) {
  // The reference check above is not vacuous: keeping every k-th sample misses the spike.
  const Pwm w = pwm(200000, 40);
  std::vector<double> strided;
  for (size_t i = 0; i < w.y.size(); i += 111) strided.push_back(w.y[i]);
  EXPECT_LT(*std::max_element(strided.begin(), strided.end()), 15.0);
}

TEST(Decimate, FewerSamplesThanColumnsPassUnchanged) {
  const Pwm w = pwm(500, 5);
  const DecimatedSeries d = decimate(w.t, w.y, w.t.front(), w.t.back(), 1000);
  EXPECT_EQ(d.t, w.t);
  EXPECT_EQ(d.y, w.y);
}

TEST(Decimate, TailBufferKeepsTheLastSamplesInOrder) {
  TailBuffer tail(100);
  for (int i = 0; i < 1050; ++i) tail.add(i, 2.0 * i);
  const DecimatedSeries s = tail.samples();
  ASSERT_EQ(s.t.size(), 100u);
  for (size_t k = 0; k < 100; ++k) {
    EXPECT_EQ(s.t[k], 950.0 + k);
    EXPECT_EQ(s.y[k], 2.0 * (950.0 + k));
  }
}

std::vector<double> sampled(size_t n, double (*f)(double)) {
  std::vector<double> y;
  for (size_t i = 0; i < n; ++i) y.push_back(f(static_cast<double>(i) / static_cast<double>(n)));
  return y;
}

TEST(PlotLayout, TwoLevelDetection) {
  EXPECT_TRUE(is_two_level(pwm(20000, 20).y));
  EXPECT_FALSE(is_two_level(sampled(1000, [](double x) { return std::sin(20 * x); })));
  // A step early in the run stays at one level: not a switching signal.
  EXPECT_FALSE(is_two_level(sampled(1000, [](double x) { return x < 0.01 ? 0.0 : 5.0; })));
  // A triangle (an inductor current) is not two-level.
  EXPECT_FALSE(
      is_two_level(sampled(1000, [](double x) { return std::abs(std::fmod(40 * x, 2.0) - 1.0); })));
  EXPECT_FALSE(is_two_level(std::vector<double>(100, 3.0)));
}

PlotSeries series(const std::string& name, const std::vector<double>& y) {
  PlotSeries s;
  s.name = name;
  for (size_t i = 0; i < y.size(); ++i) s.t.push_back(1e-6 * static_cast<double>(i));
  s.y = y;
  return s;
}

TEST(PlotLayout, PanelsByKindAndScaleWithTheSwitchingNodeAlone) {
  const size_t n = 4000;
  const auto pw = pwm(n, 20);
  std::vector<PlotSeries> in = {
      series("v(in)", std::vector<double>(n, 12.0)),
      series("v(sw)", pw.y),
      series("v(out)", sampled(n, [](double x) { return 5 * (1 - std::exp(-20 * x)); })),
      series("i(l1)", sampled(n, [](double x) { return 1 + 0.2 * std::sin(300 * x); })),
      series("v(sense)", sampled(n, [](double x) { return 0.01 * std::sin(50 * x); })),
      series("i(vidle)", std::vector<double>(n, 0.0)),
  };
  const auto panels = arrange_panels(in);
  ASSERT_EQ(panels.size(), 4u);
  auto names = [](const PlotPanel& p) {
    std::string s;
    for (const auto& x : p.series) s += x.name + " ";
    return s;
  };
  EXPECT_EQ(names(panels[0]), "v(in) v(out) ");
  EXPECT_EQ(names(panels[1]), "v(sense) ");        // 10 mV: not flattened under 12 V
  EXPECT_EQ(names(panels[2]), "i(l1) i(vidle) ");  // an all-zero trace gets no panel of its own
  EXPECT_EQ(names(panels[3]), "v(sw) ");
  EXPECT_TRUE(panels[3].thin);
  EXPECT_FALSE(panels[0].thin);
}

TEST(PlotLayout, ATraceOnAnotherIsDrawnDashed) {
  const size_t n = 1000;
  auto wave = [](double x) { return std::sin(6 * x) * std::exp(-x); };
  auto panels = arrange_panels({series("v(c)", sampled(n, wave)), series("v(b)", sampled(n, wave)),
                                series("v(a)", sampled(n, [](double x) { return 0.5 * x; }))});
  ASSERT_EQ(panels.size(), 1u);
  ASSERT_EQ(panels[0].series.size(), 3u);
  EXPECT_FALSE(panels[0].series[0].dashed);
  EXPECT_TRUE(panels[0].series[1].dashed);   // v(b) lies on v(c)
  EXPECT_FALSE(panels[0].series[2].dashed);  // v(a) does not
}

TEST(PlotLayout, ManySwitchingSignalsAreSplitNotDropped) {
  std::vector<PlotSeries> in;
  for (int k = 0; k < 12; ++k)
    in.push_back(series("v(o" + std::to_string(k) + ")", pwm(2000, 10).y));
  const auto panels = arrange_panels(in);
  size_t total = 0;
  for (const auto& p : panels) {
    EXPECT_LE(p.series.size(), kMaxPerPanel);
    total += p.series.size();
  }
  EXPECT_EQ(total, 12u);
}

TEST(PlotLayout, SwitchingPeriodAndTheLastPeriodsWindow) {
  const double T = 10e-6;
  const Pwm w = pwm(100000, 200, T);
  const auto p = switching_period(w.t, w.y);
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(p->period, T, 1e-3 * T);
  const auto win = last_periods_window(*p, w.t.front(), w.t.back(), 5, false);
  ASSERT_TRUE(win.has_value());
  EXPECT_NEAR(win->to - win->from, 5.05 * T, 5e-3 * T);  // the period is estimated to 1e-3
  EXPECT_EQ(win->to, w.t.back());
  EXPECT_LE(win->to, w.t.back());
  // Too short a run for an automatic zoom on 5 periods; forced, it is made.
  const Pwm short_run = pwm(10000, 12, T);
  const auto q = switching_period(short_run.t, short_run.y);
  ASSERT_TRUE(q.has_value());
  EXPECT_FALSE(last_periods_window(*q, 0, short_run.t.back(), 5, false).has_value());
  EXPECT_TRUE(last_periods_window(*q, 0, short_run.t.back(), 5, true).has_value());
  // Two-level but not periodic: a random telegraph signal (fixed seed).
  std::vector<double> telegraph;
  unsigned state = 12345;
  double level = 0;
  for (size_t i = 0; i < w.t.size(); ++i) {
    state = state * 1103515245u + 12345u;
    if ((state >> 16) % 997 == 0) level = 5 - level;
    telegraph.push_back(level);
  }
  EXPECT_FALSE(switching_period(w.t, telegraph).has_value());
}

TEST(PlotLayout, ParseZoom) {
  EXPECT_EQ(parse_zoom("last:5"), 5);
  EXPECT_EQ(parse_zoom("off"), 0);
  EXPECT_FALSE(parse_zoom("last:").has_value());
  EXPECT_FALSE(parse_zoom("first:3").has_value());
  EXPECT_FALSE(parse_zoom("last:x").has_value());
}

bool inside(const Rect& r, const PlotGeometry& g) {
  return r.left >= 0 && r.right <= g.width && r.top >= 0 && r.bottom <= g.height &&
         r.left <= r.right && r.top <= r.bottom;
}

TEST(PlotGeometry, LegendsStayInsideTheImageAtEverySize) {
  for (int width : {0, 480, 640, 800, 1200, 1920, 3000})
    for (size_t name_length : {4u, 12u, 30u, 80u})
      for (size_t panels : {1u, 3u, 7u})
        for (const bool zoom : {false, true})
          for (size_t traces : {1u, 6u, 14u}) {
            PlotRequest rq;
            rq.title = "a title\nsecond line";
            rq.width = width;
            if (zoom) rq.zoom = PlotRequest::Zoom{0, 1, "last 5 periods"};
            rq.note = "3 more signals are not plotted";
            rq.events.push_back({0.5, "jump"});
            for (size_t p = 0; p < panels; ++p) {
              PlotPanel panel;
              panel.thin = p % 2 == 1;
              for (size_t k = 0; k < traces; ++k)
                panel.series.push_back(
                    {(k % 2 ? "i(" : "v(") + std::string(name_length, 'n') + ")", {0, 1}, {0, 1}});
              rq.panels.push_back(panel);
            }
            const PlotGeometry g = plot_geometry(rq);
            ASSERT_EQ(g.panels.size(), panels);
            for (const auto& pg : g.panels) {
              SCOPED_TRACE(::testing::Message() << width << " " << name_length << " " << panels
                                                << " " << zoom << " " << traces);
              EXPECT_TRUE(inside(pg.main, g));
              EXPECT_TRUE(inside(pg.key, g));
              EXPECT_TRUE(inside(pg.zoom, g));
              // The legend fits its row and stays right of the plots.
              EXPECT_LE(pg.key.bottom, pg.main.bottom);
              EXPECT_GE(pg.key.left, std::max(pg.main.right, pg.zoom.right));
              // Its widest label fits the box.
              const double label =
                  static_cast<double>(std::min(name_length + 10, g.label_chars)) * g.char_width;
              EXPECT_LE(pg.key.left + label, pg.key.right);
            }
            EXPECT_TRUE(inside(g.strip, g));
          }
}

TEST(PlotGeometry, ATallerImageStretchesTheRowsAShorterOneKeepsTheLegends) {
  PlotRequest rq;
  rq.title = "t";
  for (size_t traces : {2u, 12u}) {
    PlotPanel p;
    for (size_t k = 0; k < traces; ++k) p.series.push_back({"v(a)", {0, 1}, {0, 1}});
    rq.panels.push_back(p);
  }
  const PlotGeometry natural = plot_geometry(rq);
  rq.height = natural.height + 400;
  const PlotGeometry tall = plot_geometry(rq);
  EXPECT_EQ(tall.height, rq.height);
  EXPECT_GT(tall.panels[0].main.bottom - tall.panels[0].main.top,
            natural.panels[0].main.bottom - natural.panels[0].main.top + 100);
  EXPECT_LE(tall.panels[1].main.bottom + 58, tall.height);  // the x axis still fits
  rq.height = 200;  // too short for 14 legend lines: the legends win
  const PlotGeometry shorter = plot_geometry(rq);
  EXPECT_EQ(shorter.height, natural.height);
  for (const auto& pg : shorter.panels) EXPECT_LE(pg.key.bottom, pg.main.bottom);
}

TEST(PlotGeometry, ParsePlotSize) {
  EXPECT_EQ(parse_plot_size("1600x900"), (std::pair{1600, 900}));
  EXPECT_EQ(parse_plot_size("800x0"), (std::pair{800, 0}));
  EXPECT_FALSE(parse_plot_size("100x100").has_value());  // narrower than 320
  EXPECT_FALSE(parse_plot_size("1600").has_value());
  EXPECT_FALSE(parse_plot_size("ax9").has_value());
}

TEST(PlotGeometry, LabelsAreCutWithAMark) {
  EXPECT_EQ(fit_label("v(out)", 10), "v(out)");
  EXPECT_EQ(fit_label("v(a_very_long_node_name)", 8), "v(a_ver…");
}

}  // namespace
}  // namespace nsspice::app

namespace nsspice::app {
namespace {

TEST(GnuplotOutput, WarningsAreDroppedErrorsKept) {
  // gnuplot 5.4's own words.
  EXPECT_EQ(gnuplot_errors("         Warning: empty y2 range [0:0], adjusting to [-1:1]\n"), "");
  EXPECT_EQ(gnuplot_errors("set output 'no/such/dir/x.png'\n"
                           "                              ^\n"
                           "         line 2: cannot open file; output not changed\n"),
            "cannot open file; output not changed");
  EXPECT_EQ(gnuplot_errors("plot '-' using 1:2 with linez\n"
                           "                       ^\n"
                           "         line 7: unrecognized plot type\n"
                           "         warning: Skipping data file with no valid points\n"),
            "unrecognized plot type");
  EXPECT_EQ(gnuplot_errors(""), "");
}

}  // namespace
}  // namespace nsspice::app
