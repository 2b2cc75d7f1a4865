#pragma once
// Default plot layout chosen for the circuit, and the switching period behind the zoom panel.
//
// Panels by kind and scale: the two-level signals (PWM nodes, gate and comparator outputs) in
// thin panels of their own; the others by kind (voltages, currents, other), largest peak first,
// a new panel when a peak is below 1/kScaleRatio of the panel's largest one (so a 10 mV ripple
// is not flattened under a 400 V bus) or when the panel holds kMaxPerPanel traces. A trace that
// lies on an earlier one of its panel (within 1 % of the panel's range everywhere) is drawn
// dashed over a wide translucent one, so both stay visible.
//
// Two-level: with the levels the 1st and 99th percentiles of the samples, at least 90 % of the
// samples within 10 % of their distance from one level, and each level holding at least 5 %.
//
// Switching period: the up-crossings of the mid level (min + max)/2 with a hysteresis of 10 % of
// the range, each located by linear interpolation between the samples around it; periodic when
// the last kMinPeriods intervals agree within 5 % of their median.
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "app/plot/plot_gnuplot.hpp"

namespace nsspice::app {

constexpr size_t kMaxPerPanel = 6;
constexpr double kScaleRatio = 20;
constexpr size_t kMaxDefaultSignals = 16;  // plotted without --signals/--panel/.print

bool is_two_level(std::span<const double> y);

// The series arranged into panels (see the top of this file). Empty series are dropped.
std::vector<PlotPanel> arrange_panels(std::vector<PlotSeries> series);

// The median period of a periodic switching waveform (samples t ascending), or nullopt.
struct SwitchingPeriod {
  double period = 0;
  double last_edge = 0;  // time of the last up-crossing
};
std::optional<SwitchingPeriod> switching_period(std::span<const double> t,
                                                std::span<const double> y);

// The window [from, to] of the last `periods` periods of the run (plus 5 % of a period), ending
// at t_end; nullopt when the run is shorter than 4·periods periods (unless `forced`).
struct TimeWindow {
  double from = 0, to = 0;
};
std::optional<TimeWindow> last_periods_window(const SwitchingPeriod& s, double t_begin,
                                              double t_end, int periods, bool forced);

// "12 more signals are not plotted: choose them with --signals or --panel" (empty if none).
std::string left_out_note(size_t left_out);

}  // namespace nsspice::app

namespace nsspice::app {

// `--zoom last:N` (N periods; 0 or "off": no zoom column). nullopt: not of that form.
std::optional<int> parse_zoom(const std::string& text);

// `--size WxH` in pixels (W in [320, 8000], H in [0, 8000]; H 0: from the content). nullopt:
// not of that form.
std::optional<std::pair<int, int>> parse_plot_size(const std::string& text);

// Adds the zoom column on the last `periods` periods of the first signal (switching panels
// first) that switches periodically; `forced` (--zoom given): also for a run shorter than
// 4·periods periods. Returns a note when forced but no periodic switching was found.
std::string add_switching_zoom(PlotRequest& request, int periods, bool forced);

}  // namespace nsspice::app
