// plot_geometry (plot_geometry.hpp): the rows and columns of a plot, in pixels.
#include "app/plot/plot_geometry.hpp"

#include <algorithm>
#include <vector>

#include "app/io/signals.hpp"
#include "app/plot/plot_gnuplot.hpp"

namespace nsspice::app {
namespace {

// Font metrics of the terminals as plot_gnuplot.cpp sets them (Sans 11 px on a 1200 px wide
// image), rounded up: a label measured here is never narrower than drawn.
constexpr double kCharWidth = 7.5, kLineHeight = 19;
constexpr double kLeftAxis = 80, kRightAxis = 72, kColumnGap = 84, kEdge = 12;
constexpr double kKeySample = 42, kKeyPadding = 18;
constexpr double kRowHeight = 230, kThinRowHeight = 110, kRowGap = 10, kStripHeight = 34;
constexpr double kXAxis = 58, kNoteLine = 22;
constexpr size_t kMaxLabelChars = 32;
constexpr double kMinPlots = 160;  // the least width of a plot column

bool has_right_axis(const PlotPanel& p) {
  if (!p.ylabel.empty()) return false;
  bool v = false, i = false;
  for (const auto& s : p.series) {
    const auto k = signal_kind(s.name);
    if (k == SignalKind::kOther) return false;
    (k == SignalKind::kVoltage ? v : i) = true;
  }
  return v && i;
}

}  // namespace

std::string fit_label(const std::string& label, size_t chars) {
  if (label.size() <= chars || chars < 2) return label;
  return label.substr(0, chars - 1) + "…";
}

PlotGeometry plot_geometry(const PlotRequest& rq) {
  PlotGeometry g;
  const bool zoom = rq.zoom.has_value();
  g.width = rq.width > 0 ? rq.width : zoom ? 1500 : 1200;
  g.char_width = kCharWidth;
  g.line_height = kLineHeight;
  bool right_axis = false;
  size_t longest = 6;
  for (const auto& p : rq.panels) {
    right_axis = right_axis || has_right_axis(p);
    for (const auto& s : p.series) longest = std::max(longest, s.name.size() + 8);  // " (right)"
  }
  // The legend column: the longest label, cut so that the plots keep kMinPlots pixels; a zoom
  // column is left out of an image too narrow for both.
  const double gap = kColumnGap + (right_axis ? kRightAxis : 0);
  g.zoom = zoom && g.width >= 2 * kMinPlots + gap + kLeftAxis + kEdge + 200;
  const double fixed = kLeftAxis + (right_axis ? kRightAxis : 16) + kEdge + kKeySample +
                       kKeyPadding + (g.zoom ? gap + kMinPlots : 0);
  const double room = (g.width - fixed - kMinPlots) / kCharWidth;
  g.label_chars = std::clamp<size_t>(room > 4 ? static_cast<size_t>(room) : 4, 4,
                                     std::min(longest, kMaxLabelChars));
  const double key_width = kKeySample + kKeyPadding + g.label_chars * kCharWidth;
  const double key_left = g.width - kEdge - key_width;
  const double plots_right = key_left - (right_axis ? kRightAxis : 16);
  double main_right = plots_right, zoom_left = plots_right;
  if (g.zoom) {
    const double span = plots_right - kLeftAxis - gap;
    main_right = kLeftAxis + span * 0.62;
    zoom_left = main_right + gap;
  }
  // A thin row only beside full ones (a plot of switching signals alone gets full rows).
  const bool any_full =
      std::any_of(rq.panels.begin(), rq.panels.end(), [](const PlotPanel& p) { return !p.thin; });
  // Row heights: the row's kind or its legend, whichever is taller; a taller requested image
  // stretches them in proportion (a shorter one does not shrink them below their legends).
  const double top = rq.title.find('\n') != std::string::npos ? 64 : 44;
  const double bottom = (rq.events.empty() ? 0 : kStripHeight + kRowGap) + kXAxis +
                        (rq.note.empty() ? 0 : kNoteLine) + kEdge;
  std::vector<double> legend, height;
  double rows = 0;
  for (const auto& p : rq.panels) {
    const auto entries = std::count_if(p.series.begin(), p.series.end(),
                                       [](const PlotSeries& s) { return s.in_legend; });
    legend.push_back(static_cast<double>(entries) * kLineHeight + 12);
    height.push_back(std::max(p.thin && any_full ? kThinRowHeight : kRowHeight, legend.back()));
    rows += height.back() + kRowGap;
  }
  const double rows_room = rq.height - top - bottom + kRowGap;
  const double stretch = rows > 0 && rows_room > rows ? rows_room / rows : 1.0;
  double y = top;
  for (size_t k = 0; k < rq.panels.size(); ++k) {
    const double h = (height[k] + kRowGap) * stretch - kRowGap;
    PanelGeometry pg;
    pg.main = {kLeftAxis, main_right, y, y + h};
    pg.zoom =
        g.zoom ? Rect{zoom_left, plots_right, y, y + h} : Rect{plots_right, plots_right, y, y};
    pg.key = {key_left, key_left + key_width, y, y + legend[k]};
    g.panels.push_back(pg);
    y += h + kRowGap;
  }
  if (!rq.events.empty()) {
    g.strip = {kLeftAxis, main_right, y, y + kStripHeight};
    g.strip_zoom = g.zoom ? Rect{zoom_left, plots_right, y, y + kStripHeight}
                          : Rect{plots_right, plots_right, y, y};
    y += kStripHeight + kRowGap;
  }
  y += kXAxis - kRowGap;
  if (!rq.note.empty()) y += kNoteLine;
  g.height = std::max(rq.height, static_cast<int>(y + kEdge));
  return g;
}

}  // namespace nsspice::app
