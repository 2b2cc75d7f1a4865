#include "app/plot/plot_gnuplot.hpp"

#include <fmt/format.h>
#include <gnuplot-iostream.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr int kColors = 8;
constexpr size_t kDecimateAbove = 8000;

struct TimeUnit {
  double scale;
  const char* label;
};

TimeUnit time_unit(double t_span) {
  if (t_span < 1e-6) return {1e9, "ns"};
  if (t_span < 1e-3) return {1e6, "µs"};
  if (t_span < 1.0) return {1e3, "ms"};
  return {1.0, "s"};
}

std::string terminal_for(const std::string& path, int height) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg")
    return fmt::format("svg size 1200,{} dynamic enhanced font 'Sans,12' background rgb 'white'",
                       height);
  if (ext == ".pdf")
    return fmt::format("pdfcairo size 8in,{:.2f}in enhanced font 'Sans,10'", height / 150.0);
  return fmt::format("pngcairo size 1200,{} enhanced font 'Sans,11'", height);
}

// A file name in a single-quoted gnuplot string: quotes doubled, nothing else.
std::string quote_path(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out;
}

// A double-quoted gnuplot string for enhanced text (newlines kept as line breaks).
std::string esc_dq(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\\' || c == '_' || c == '^' || c == '{' || c == '}' || c == '@' || c == '&' ||
               c == '~') {
      out += "\\\\";
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// The points of a series inside [from, to], plus one on each side (the line reaches the edge).
PlotSeries windowed(const PlotSeries& s, double from, double to) {
  if (s.t.empty() || (s.t.front() >= from && s.t.back() <= to)) return s;
  const auto lo = std::lower_bound(s.t.begin(), s.t.end(), from) - s.t.begin();
  const auto hi = std::upper_bound(s.t.begin(), s.t.end(), to) - s.t.begin();
  const auto a = static_cast<size_t>(std::max<long>(0, lo - 1));
  const auto b = static_cast<size_t>(std::min<long>(static_cast<long>(s.t.size()), hi + 1));
  PlotSeries out = s;
  out.t.assign(s.t.begin() + static_cast<long>(a), s.t.begin() + static_cast<long>(b));
  out.y.assign(s.y.begin() + static_cast<long>(a), s.y.begin() + static_cast<long>(b));
  return out;
}

// A single-quoted gnuplot string for enhanced text: quotes doubled, markup escaped.
std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\'') {
      out += "''";
      continue;
    }
    if (c == '_' || c == '^' || c == '{' || c == '}' || c == '@' || c == '&' || c == '~')
      out += '\\';
    out += c;
  }
  return out;
}

struct Axis {
  std::string label;
  double scale = 1;
};

// An engineering prefix for values up to `peak`: the scaled peak lies in [1, 1000).
std::pair<double, const char*> prefix_for(double peak) {
  static constexpr std::pair<double, const char*> kPrefixes[] = {
      {1e12, "p"}, {1e9, "n"}, {1e6, "µ"}, {1e3, "m"}, {1, ""}, {1e-3, "k"}, {1e-6, "M"}};
  if (!(peak > 0) || !std::isfinite(peak)) return {1, ""};
  for (const auto& [scale, name] : kPrefixes)
    if (peak * scale < 1000 * (1 + 1e-9)) return {scale, name};
  return {1e-6, "M"};
}

// Points outside [t_lo, t_hi] (a zoom window) do not count for the scale.
struct Window {
  double lo = -INFINITY, hi = INFINITY;
};

Axis make_axis(const std::string& quantity, const std::string& unit,
               const std::vector<const PlotSeries*>& series, bool log, Window w) {
  if (unit.empty()) return {quantity, 1};
  double peak = 0;
  for (const auto* s : series)
    for (size_t i = 0; i < s->y.size(); ++i)
      if (std::isfinite(s->y[i]) && s->t[i] >= w.lo && s->t[i] <= w.hi)
        peak = std::max(peak, std::abs(s->y[i]));
  const auto [scale, prefix] = log ? std::pair<double, const char*>{1, ""} : prefix_for(peak);
  return {fmt::format("{} [{}{}]", quantity, prefix, unit), scale};
}

// Left axis (and right one for the currents of a panel that mixes voltages and currents).
void panel_axes(const PlotPanel& panel, Window w, Axis& left, Axis& right, bool& two_axes) {
  std::vector<const PlotSeries*> v, i, all;
  bool any_other = false;
  for (const auto& s : panel.series) {
    const auto kind = signal_kind(s.name);
    (kind == SignalKind::kVoltage ? v : i).push_back(&s);
    any_other = any_other || kind == SignalKind::kOther;
    all.push_back(&s);
  }
  two_axes = panel.ylabel.empty() && !any_other && !v.empty() && !i.empty();
  if (!panel.ylabel.empty()) {
    left = make_axis(panel.ylabel, panel.unit, all, panel.log_y, w);
  } else if (any_other) {
    left = {"", 1};
  } else if (!v.empty()) {
    left = make_axis("voltage", "V", v, panel.log_y, w);
    if (two_axes) right = make_axis("current", "A", i, panel.log_y, w);
  } else {
    left = make_axis("current", "A", i, panel.log_y, w);
  }
}

PlotSeries decimated(const PlotSeries& s) {
  if (s.t.size() <= kDecimateAbove || s.points) return s;
  PlotSeries out = s;
  out.t.clear();
  out.y.clear();
  SeriesDecimator d(s.t.front(), s.t.back(), static_cast<int>(kDecimateAbove / 2));
  for (size_t i = 0; i < s.t.size(); ++i) d.add(s.t[i], s.y[i], out);
  d.finish(out);
  return out;
}

std::string build_script(const PlotRequest& rq, const std::string& terminal, int height) {
  const bool time_axis = rq.xlabel.empty();
  double t_lo = INFINITY, t_hi = -INFINITY;
  for (const auto& p : rq.panels)
    for (const auto& s : p.series)
      if (!s.t.empty()) t_lo = std::min(t_lo, s.t.front()), t_hi = std::max(t_hi, s.t.back());
  if (time_axis && rq.t_from) t_lo = *rq.t_from;
  if (time_axis && rq.t_to) t_hi = *rq.t_to;
  const TimeUnit unit =
      time_axis
          ? time_unit(rq.t_from || rq.t_to ? t_hi - t_lo : std::max(std::abs(t_hi), std::abs(t_lo)))
          : TimeUnit{1.0, ""};
  std::string g;
  auto out = std::back_inserter(g);
  if (!terminal.empty()) fmt::format_to(out, "set terminal {}\n", terminal);
  if (!rq.output.empty()) fmt::format_to(out, "set output '{}'\n", quote_path(rq.output));
  const size_t n = rq.panels.size();
  const bool two_line_title = rq.title.find('\n') != std::string::npos;
  const double top = 1.0 - (two_line_title ? 80.0 : 60.0) / height, bottom = 55.0 / height;
  // A right-hand axis (currents beside voltages) needs room between the plot and the legends.
  bool any_right_axis = false;
  for (const auto& panel : rq.panels) {
    Axis left, right;
    bool two = false;
    panel_axes(panel, time_axis ? Window{t_lo, t_hi} : Window{}, left, right, two);
    any_right_axis = any_right_axis || two;
  }
  const double plot_right = any_right_axis ? 0.78 : 0.845;
  g += "set border lw 1.2\nset tics nomirror\nset grid lc rgb '#dddddd' lw 1\n";
  fmt::format_to(out, "set key at screen {},graph 1 left top box opaque samplen 2.5 spacing 1.1\n",
                 any_right_axis ? 0.86 : 0.855);
  if (rq.log_x) g += "set logscale x\n";
  if (time_axis && t_hi > t_lo)
    fmt::format_to(out, "set xrange [{}:{}]\n", t_lo * unit.scale, t_hi * unit.scale);
  fmt::format_to(out,
                 "set multiplot layout {},1 title \"{}\" font ',13' margins 0.075,{},{},{} "
                 "spacing 0,0.025\n",
                 n, esc_dq(rq.title), plot_right, bottom, top);
  int next_color = 0;
  for (size_t p = 0; p < n; ++p) {
    const PlotPanel& panel = rq.panels[p];
    bool two_axes = false;
    Axis left, right;
    panel_axes(panel, time_axis ? Window{t_lo, t_hi} : Window{}, left, right, two_axes);
    g += "unset arrow\nunset label\nunset y2tics\nunset y2label\nset ytics nomirror\n";
    g += panel.log_y ? "set logscale y\nset format y '10^{%L}'\n"
                     : "unset logscale y\nset format y '%g'\n";
    fmt::format_to(out, "set ylabel '{}'\n", esc(left.label));
    if (two_axes) fmt::format_to(out, "set y2label '{}'\nset y2tics\n", esc(right.label));
    if (p + 1 < n) {
      g += "set format x ''\nunset xlabel\n";
    } else {
      g += rq.log_x ? "set format x '10^{%L}'\n" : "set format x '%g'\n";
      fmt::format_to(out, "set xlabel '{}'\n",
                     time_axis ? fmt::format("time [{}]", unit.label) : esc(rq.xlabel));
    }
    for (const auto& e : rq.events) {
      fmt::format_to(out,
                     "set arrow from {0},graph 0 to {0},graph 1 nohead dt 3 lw 1 lc rgb "
                     "'#888888' back\n",
                     e.t * unit.scale);
      if (p == 0 && !e.label.empty() && rq.events.size() <= 12)
        fmt::format_to(out,
                       "set label '{}' at {},graph 1 offset 0,0.6 center font ',8' tc rgb "
                       "'#666666'\n",
                       esc(e.label), e.t * unit.scale);
    }
    g += "plot ";
    // In an overlay (some series dashed) the solid ones are wide and translucent, so that the
    // dashed curve drawn over them stays visible where the two agree.
    const bool overlay = std::any_of(panel.series.begin(), panel.series.end(),
                                     [](const PlotSeries& s) { return s.dashed; });
    for (size_t k = 0; k < panel.series.size(); ++k) {
      const PlotSeries& s = panel.series[k];
      const int color = (s.color >= 0 ? s.color : next_color++) % kColors;
      const bool y2 = two_axes && signal_kind(s.name) == SignalKind::kCurrent;
      const bool wide = overlay && !s.dashed;
      const std::string rgb =
          wide ? fmt::format("#70{}", kPalette[color] + 1) : std::string(kPalette[color]);
      fmt::format_to(out, "{}'-' using 1:2 axes x1{} with {} lw {} lc rgb '{}'{}{} title '{}'",
                     k ? ", " : "", y2 ? "y2" : "y1", s.points ? "linespoints" : "lines",
                     wide       ? 4.0
                     : s.dashed ? 1.6
                                : 1.8,
                     rgb, s.dashed ? " dt (5,3)" : "", s.points ? " pt 7 ps 1.1" : "",
                     esc(s.name + (y2 ? " (right)" : "")));
    }
    g += "\n";
    for (const auto& s0 : panel.series) {
      const PlotSeries s = decimated(time_axis ? windowed(s0, t_lo, t_hi) : s0);
      const bool y2 = two_axes && signal_kind(s.name) == SignalKind::kCurrent;
      const double ys = y2 ? right.scale : left.scale;
      for (size_t i = 0; i < s.t.size(); ++i)
        if (std::isfinite(s.y[i]) && (!panel.log_y || s.y[i] > 0))
          fmt::format_to(out, "{:.10g} {:.10g}\n", s.t[i] * unit.scale, s.y[i] * ys);
      g += "e\n";
    }
  }
  g += "unset multiplot\n";
  return g;
}

}  // namespace

bool display_available() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x != nullptr && *x != 0) || (w != nullptr && *w != 0);
}

std::string write_plot(const PlotRequest& request) {
  size_t points = 0;
  for (const auto& p : request.panels)
    for (const auto& s : p.series) points += s.t.size();
  if (request.panels.empty() || points == 0) return "nothing to plot";
  const int n = static_cast<int>(request.panels.size());
  const int height = n == 1 ? 700 : std::max(700, 250 * n + 130);
  try {
    if (!request.output.empty()) {
      Gnuplot gp("gnuplot");
      gp << build_script(request, terminal_for(request.output, height), height) << "set output\n";
    }
    if (request.show && display_available()) {
      Gnuplot window("gnuplot -persist");
      PlotRequest on_screen = request;
      on_screen.output.clear();
      window << build_script(on_screen, "", height);
    }
  } catch (const std::exception& e) {
    return fmt::format("gnuplot failed: {}", e.what());
  }
  if (request.output.empty()) return {};
  std::error_code ec;
  if (!std::filesystem::exists(request.output, ec) ||
      std::filesystem::file_size(request.output, ec) == 0)
    return "gnuplot did not write the plot (is gnuplot installed?)";
  return {};
}

SeriesDecimator::SeriesDecimator(double t_begin, double t_end, int buckets)
    : t0_(t_begin), width_(std::max(t_end - t_begin, 1e-300) / std::max(buckets, 1)) {}

void SeriesDecimator::add(double t, double y, PlotSeries& out) {
  const auto b = static_cast<long>(std::floor((t - t0_) / width_));
  if (b != bucket_ && n_ > 0) flush(out);
  bucket_ = b;
  if (n_ == 0 || y < y_lo_) t_lo_ = t, y_lo_ = y;
  if (n_ == 0 || y > y_hi_) t_hi_ = t, y_hi_ = y;
  t_last_ = t, y_last_ = y;
  ++n_;
}

void SeriesDecimator::flush(PlotSeries& out) {
  if (n_ == 0) return;
  auto push = [&](double t, double y) {
    out.t.push_back(t);
    out.y.push_back(y);
  };
  if (t_lo_ == t_hi_ && y_lo_ == y_hi_) {
    push(t_lo_, y_lo_);
  } else if (t_lo_ <= t_hi_) {
    push(t_lo_, y_lo_), push(t_hi_, y_hi_);
  } else {
    push(t_hi_, y_hi_), push(t_lo_, y_lo_);
  }
  n_ = 0;
}

void SeriesDecimator::finish(PlotSeries& out) {
  const double t_last = t_last_, y_last = y_last_;
  const bool any = n_ > 0 || !out.t.empty();
  flush(out);
  if (any && (out.t.empty() || out.t.back() != t_last || out.y.back() != y_last)) {
    out.t.push_back(t_last);
    out.y.push_back(y_last);
  }
}

}  // namespace nsspice::app
