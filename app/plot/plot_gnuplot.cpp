// write_plot (plot_gnuplot.hpp): the gnuplot script of a request, run by gnuplot_runner.hpp.
// Rows and columns come from plot_geometry.hpp; each panel is placed with screen margins, so the
// main and zoom columns of a row share their top and bottom, and every column its x range.
#include "app/plot/plot_gnuplot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/io/signals.hpp"
#include "app/plot/gnuplot_runner.hpp"
#include "app/plot/plot_geometry.hpp"

namespace nsspice::app {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr int kColors = 8;

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

std::string terminal_for(const std::string& path, const PlotGeometry& g) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg")
    return fmt::format("svg size {},{} dynamic enhanced font 'Sans,11' background rgb 'white'",
                       g.width, g.height);
  if (ext == ".pdf")  // 150 pixels per inch; 6.5 pt keeps the pixel metrics of the png
    return fmt::format("pdfcairo size {:.3f}in,{:.3f}in enhanced font 'Sans,6.5'", g.width / 150.0,
                       g.height / 150.0);
  return fmt::format("pngcairo size {},{} enhanced font 'Sans,11'", g.width, g.height);
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

// The samples of (t, y) inside [from, to], plus one on each side (the line reaches the edge).
DecimatedSeries windowed(const std::vector<double>& t, const std::vector<double>& y, double from,
                         double to) {
  const auto lo = std::lower_bound(t.begin(), t.end(), from) - t.begin();
  const auto hi = std::upper_bound(t.begin(), t.end(), to) - t.begin();
  const auto a = std::max<long>(0, lo - 1);
  const auto b = std::min<long>(static_cast<long>(t.size()), hi + 1);
  DecimatedSeries out;
  if (a >= b) return out;
  out.t.assign(t.begin() + a, t.begin() + b);
  out.y.assign(y.begin() + a, y.begin() + b);
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

struct PanelAxes {
  Axis left, right;
  bool two_axes = false;
};

// Left axis (and right one for the currents of a panel that mixes voltages and currents).
PanelAxes panel_axes(const PlotPanel& panel, Window w) {
  std::vector<const PlotSeries*> v, i, all;
  bool any_other = false;
  for (const auto& s : panel.series) {
    const auto kind = signal_kind(s.name);
    (kind == SignalKind::kVoltage ? v : i).push_back(&s);
    any_other = any_other || kind == SignalKind::kOther;
    all.push_back(&s);
  }
  PanelAxes a;
  a.two_axes = panel.ylabel.empty() && !any_other && !v.empty() && !i.empty();
  if (!panel.ylabel.empty()) {
    a.left = make_axis(panel.ylabel, panel.unit, all, panel.log_y, w);
  } else if (any_other) {
    a.left = {"", 1};
  } else if (!v.empty()) {
    a.left = make_axis("voltage", "V", v, panel.log_y, w);
    if (a.two_axes) a.right = make_axis("current", "A", i, panel.log_y, w);
  } else {
    a.left = make_axis("current", "A", i, panel.log_y, w);
  }
  return a;
}

// One column of a row: where it is, its x range and unit, and whether it carries the x labels.
struct Column {
  Rect rect;
  double from = 0, to = 0;  // data x range
  TimeUnit unit{1, ""};
  bool zoom = false;
};

void margins(std::string& g, const PlotGeometry& geo, const Rect& r) {
  fmt::format_to(std::back_inserter(g),
                 "set lmargin at screen {:.5f}\nset rmargin at screen {:.5f}\n"
                 "set tmargin at screen {:.5f}\nset bmargin at screen {:.5f}\n",
                 geo.sx(r.left), geo.sx(r.right), geo.sy(r.top), geo.sy(r.bottom));
}

void x_axis(std::string& g, const PlotRequest& rq, const Column& c, bool bottom) {
  auto out = std::back_inserter(g);
  const bool time_axis = rq.xlabel.empty();
  if (time_axis && c.to > c.from)
    fmt::format_to(out, "set xrange [{:.10g}:{:.10g}]\n", c.from * c.unit.scale,
                   c.to * c.unit.scale);
  else
    g += "set autoscale x\n";
  if (!bottom) {
    g += "set format x ''\nunset xlabel\n";
    return;
  }
  g += rq.log_x ? "set format x '10^{%L}'\n" : "set format x '%g'\n";
  const std::string label = !time_axis ? esc(rq.xlabel)
                            : c.zoom
                                ? fmt::format("time [{}], {}", c.unit.label, esc(rq.zoom->label))
                                : fmt::format("time [{}]", c.unit.label);
  fmt::format_to(out, "set xlabel '{}'\n", label);
}

void plot_panel(std::string& g, const PlotRequest& rq, const PlotGeometry& geo, size_t p,
                const Column& c, bool bottom, int& next_color) {
  auto out = std::back_inserter(g);
  const PlotPanel& panel = rq.panels[p];
  const bool time_axis = rq.xlabel.empty();
  const Window w = time_axis ? Window{c.from, c.to} : Window{};
  const PanelAxes ax = panel_axes(panel, w);
  margins(g, geo, c.zoom ? geo.panels[p].zoom : geo.panels[p].main);
  g += "unset y2tics\nunset y2label\nset ytics nomirror\nset autoscale y\nset autoscale y2\n";
  g += panel.log_y ? "set logscale y\nset format y '10^{%L}'\n"
                   : "unset logscale y\nset format y '%g'\n";
  fmt::format_to(out, "set ylabel '{}'\n", esc(ax.left.label));
  if (ax.two_axes) fmt::format_to(out, "set y2label '{}'\nset y2tics\n", esc(ax.right.label));
  x_axis(g, rq, c, bottom);
  if (c.zoom) {
    g += "unset key\n";
  } else {
    const Rect& k = geo.panels[p].key;
    fmt::format_to(out,
                   "set key at screen {:.5f},screen {:.5f} left top Left reverse box opaque "
                   "samplen 2.5 spacing 1.1\n",
                   geo.sx(k.left), geo.sy(k.top));
  }
  // Per pixel column of the panel: the min and the max of each series (decimate.hpp).
  const int columns = std::max(50, static_cast<int>((c.rect.right - c.rect.left)));
  // In an overlay (some series dashed) the solid ones are wide and translucent, so that the
  // dashed curve drawn over them stays visible where the two agree.
  const bool overlay = std::any_of(panel.series.begin(), panel.series.end(),
                                   [](const PlotSeries& s) { return s.dashed; });
  g += "plot ";
  int color = next_color;
  for (size_t k = 0; k < panel.series.size(); ++k) {
    const PlotSeries& s = panel.series[k];
    const int col = (s.color >= 0 ? s.color : color++) % kColors;
    const bool y2 = ax.two_axes && signal_kind(s.name) == SignalKind::kCurrent;
    const bool wide = overlay && !s.dashed;
    const std::string rgb =
        wide ? fmt::format("#70{}", kPalette[col] + 1) : std::string(kPalette[col]);
    const std::string title =
        s.in_legend ? fmt::format("title '{}'",
                                  esc(fit_label(s.name + (y2 ? " (right)" : ""), geo.label_chars)))
                    : std::string("notitle");
    fmt::format_to(out, "{}'-' using 1:2 axes x1{} with {} lw {} lc rgb '{}'{}{} {}", k ? ", " : "",
                   y2 ? "y2" : "y1", s.points ? "linespoints" : "lines",
                   wide       ? 4.0
                   : s.dashed ? 1.6
                              : 1.5,
                   rgb, s.dashed ? " dt (5,3)" : "", s.points ? " pt 7 ps 1.1" : "", title);
  }
  g += "\n";
  for (const auto& s : panel.series) {
    const bool use_detail = c.zoom && !s.detail.t.empty();
    const std::vector<double>& t = use_detail ? s.detail.t : s.t;
    const std::vector<double>& y = use_detail ? s.detail.y : s.y;
    DecimatedSeries d;
    if (!time_axis || s.points) {
      d.t = t, d.y = y;
    } else {
      const DecimatedSeries inside = windowed(t, y, c.from, c.to);
      d = inside.t.size() > static_cast<size_t>(2 * columns)
              ? decimate(inside.t, inside.y, c.from, c.to, columns)
              : inside;
    }
    const bool y2 = ax.two_axes && signal_kind(s.name) == SignalKind::kCurrent;
    const double ys = y2 ? ax.right.scale : ax.left.scale;
    size_t drawn = 0;
    for (size_t i = 0; i < d.t.size(); ++i)
      if (std::isfinite(d.y[i]) && (!panel.log_y || d.y[i] > 0)) {
        fmt::format_to(out, "{:.10g} {:.10g}\n", d.t[i] * c.unit.scale, d.y[i] * ys);
        ++drawn;
      }
    // An empty block would make gnuplot fail the whole plot; one invisible point keeps the
    // legend entry.
    if (drawn == 0) g += "NaN NaN\n";
    g += "e\n";
  }
  next_color = color;
}

void plot_strip(std::string& g, const PlotRequest& rq, const PlotGeometry& geo, const Column& c) {
  auto out = std::back_inserter(g);
  margins(g, geo, c.zoom ? geo.strip_zoom : geo.strip);
  g += "unset y2tics\nunset y2label\nunset logscale y\nset yrange [0:1]\nunset ytics\nunset key\n";
  // The strip's name right-aligned in the margin left of it (a y label would overlap the frame).
  g += "unset ylabel\n";
  if (!c.zoom)
    fmt::format_to(
        out, "set label 1003 \"events\\n({})\" at screen {:.5f},screen {:.5f} right font ',9'\n",
        rq.events.size(), geo.sx(geo.strip.left - 6),
        geo.sy((geo.strip.top + geo.strip.bottom) / 2));
  x_axis(g, rq, c, true);
  g += "plot '-' using 1:2 with impulses lw 1.2 lc rgb '#d62728' notitle, "
       "'-' using 1:2 with impulses lw 1 lc rgb '#555555' notitle\n";
  for (const bool jump : {true, false}) {
    size_t n = 0;
    for (const auto& e : rq.events)
      if ((e.label == "jump") == jump && e.t >= c.from && e.t <= c.to) {
        fmt::format_to(out, "{:.10g} 1\n", e.t * c.unit.scale);
        ++n;
      }
    if (n == 0) g += "NaN NaN\n";
    g += "e\n";
  }
  g += "set ytics\nset autoscale y\nunset label 1003\n";
}

std::string build_script(const PlotRequest& rq, const PlotGeometry& geo) {
  const bool time_axis = rq.xlabel.empty();
  double t_lo = INFINITY, t_hi = -INFINITY;
  for (const auto& p : rq.panels)
    for (const auto& s : p.series)
      if (!s.t.empty()) t_lo = std::min(t_lo, s.t.front()), t_hi = std::max(t_hi, s.t.back());
  if (time_axis && rq.t_from) t_lo = *rq.t_from;
  if (time_axis && rq.t_to) t_hi = *rq.t_to;
  std::vector<Column> columns;
  Column main;
  main.from = t_lo, main.to = t_hi;
  main.unit = time_axis ? time_unit(rq.t_from || rq.t_to ? t_hi - t_lo
                                                         : std::max(std::abs(t_hi), std::abs(t_lo)))
                        : TimeUnit{1.0, ""};
  columns.push_back(main);
  if (rq.zoom && geo.zoom && time_axis) {
    Column z;
    z.zoom = true;
    z.from = rq.zoom->from, z.to = rq.zoom->to;
    z.unit = time_unit(std::max(std::abs(z.from), std::abs(z.to)));
    columns.push_back(z);
  }
  std::string g;
  auto out = std::back_inserter(g);
  g += "set border lw 1.2\nset tics nomirror\nset grid lc rgb '#dddddd' lw 1\n";
  if (rq.log_x) g += "set logscale x\n";
  g += "set multiplot\n";
  fmt::format_to(out, "set label 1001 \"{}\" at screen 0.5,screen {:.5f} center font ',13'\n",
                 esc_dq(rq.title), geo.sy(22));
  if (!rq.note.empty())
    fmt::format_to(out,
                   "set label 1002 '{}' at screen {:.5f},screen {:.5f} left font ',10' tc rgb "
                   "'#a04000'\n",
                   esc(rq.note), geo.sx(12), geo.sy(geo.height - 14.0));
  const size_t n = rq.panels.size();
  for (const Column& c : columns) {
    int next_color = 0;
    for (size_t p = 0; p < n; ++p) {
      const bool bottom = p + 1 == n && (rq.events.empty() || !time_axis);
      plot_panel(
          g, rq, geo, p,
          Column{c.zoom ? geo.panels[p].zoom : geo.panels[p].main, c.from, c.to, c.unit, c.zoom},
          bottom, next_color);
      if (p == 0) g += "unset label 1001\nunset label 1002\n";
    }
    if (!rq.events.empty() && time_axis)
      plot_strip(g, rq, geo,
                 Column{c.zoom ? geo.strip_zoom : geo.strip, c.from, c.to, c.unit, c.zoom});
  }
  g += "unset multiplot\n";
  return g;
}

}  // namespace

std::string window_outside(std::optional<double> from, std::optional<double> to, double lo,
                           double hi, const std::string& what) {
  if (!from || !to || (*from<hi&& * to> lo)) return {};
  return fmt::format("--window {:g},{:g} lies outside {} (t = {:g} .. {:g} s): nothing to draw",
                     *from, *to, what, lo, hi);
}

bool display_available() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x != nullptr && *x != 0) || (w != nullptr && *w != 0);
}

std::string plot_script(const PlotRequest& request) {
  return build_script(request, plot_geometry(request));
}

std::string write_plot(const PlotRequest& request) {
  size_t points = 0;
  for (const auto& p : request.panels)
    for (const auto& s : p.series) points += s.t.size();
  if (request.panels.empty() || points == 0) return "nothing to plot";
  const PlotGeometry geo = plot_geometry(request);
  try {
    if (!request.output.empty()) {
      std::error_code ec;
      std::filesystem::remove(request.output, ec);  // a stale file must not pass for this one
      const std::string errors =
          run_gnuplot(fmt::format("set terminal {}\nset output '{}'\n{}set output\n",
                                  terminal_for(request.output, geo), gnuplot_quoted(request.output),
                                  build_script(request, geo)),
                      false);
      if (!errors.empty()) {
        std::filesystem::remove(request.output, ec);  // gnuplot's partial file is no plot
        return fmt::format("gnuplot: {}", errors);
      }
    }
    if (request.show && display_available()) {
      const std::string errors = run_gnuplot(build_script(request, geo), true);
      if (!errors.empty()) return fmt::format("gnuplot: {}", errors);
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

}  // namespace nsspice::app
