// Default plot layout and switching-period detection (plot_layout.hpp).
#include "app/plot/plot_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

constexpr double kLevelBand = 0.10, kTwoLevelShare = 0.90, kMinLevelShare = 0.05;
constexpr int kMinPeriods = 4;
constexpr double kPeriodTolerance = 0.05, kOverlapTolerance = 0.01;
constexpr int kOverlapSamples = 400;
constexpr size_t kLevelSamples = 20000;

std::pair<double, double> finite_range(std::span<const double> y) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : y)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  return {lo, hi};
}

double peak_of(const PlotSeries& s) {
  const auto [lo, hi] = finite_range(s.y);
  return lo > hi ? 0 : std::max(std::abs(lo), std::abs(hi));
}

// Linear interpolation of s at time t (s.t ascending, non-empty).
double value_at(const PlotSeries& s, double t) {
  const auto it = std::lower_bound(s.t.begin(), s.t.end(), t);
  if (it == s.t.begin()) return s.y.front();
  if (it == s.t.end()) return s.y.back();
  const auto k = static_cast<size_t>(it - s.t.begin());
  const double t0 = s.t[k - 1], t1 = s.t[k];
  return t1 > t0 ? s.y[k - 1] + (s.y[k] - s.y[k - 1]) * (t - t0) / (t1 - t0) : s.y[k];
}

bool lies_on(const PlotSeries& a, const PlotSeries& b, double range) {
  if (a.t.empty() || b.t.empty() || !(range > 0)) return false;
  const double t0 = std::max(a.t.front(), b.t.front()), t1 = std::min(a.t.back(), b.t.back());
  if (!(t1 > t0)) return false;
  for (int k = 0; k <= kOverlapSamples; ++k) {
    const double t = t0 + (t1 - t0) * k / kOverlapSamples;
    if (std::abs(value_at(a, t) - value_at(b, t)) > kOverlapTolerance * range) return false;
  }
  return true;
}

// Marks the traces lying on an earlier one of the panel as dashed (drawn over a wide one).
void mark_overlaps(PlotPanel& panel) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : panel.series) {
    const auto [a, b] = finite_range(s.y);
    lo = std::min(lo, a), hi = std::max(hi, b);
  }
  for (size_t k = 1; k < panel.series.size(); ++k)
    for (size_t j = 0; j < k; ++j)
      if (!panel.series[j].dashed && lies_on(panel.series[j], panel.series[k], hi - lo)) {
        panel.series[k].dashed = true;
        break;
      }
}

// Groups series of one kind by scale, largest peak first.
void group_by_scale(std::vector<PlotSeries> group, bool thin, std::vector<PlotPanel>& out) {
  std::stable_sort(group.begin(), group.end(), [](const PlotSeries& a, const PlotSeries& b) {
    return peak_of(a) > peak_of(b);
  });
  PlotPanel panel;
  double top = 0;
  for (auto& s : group) {
    const double peak = peak_of(s);
    // An all-zero trace (an idle source's current) joins the panel before it: no panel of its own.
    const bool scale_break = !thin && peak > 0 && peak * kScaleRatio < top;
    if (!panel.series.empty() && (panel.series.size() >= kMaxPerPanel || scale_break)) {
      out.push_back(std::move(panel));
      panel = PlotPanel{};
    }
    if (panel.series.empty()) top = peak;
    panel.thin = thin;
    panel.series.push_back(std::move(s));
  }
  if (!panel.series.empty()) out.push_back(std::move(panel));
}

}  // namespace

bool is_two_level(std::span<const double> y) {
  // At most kLevelSamples evenly spaced samples; the levels are the 1st and 99th percentiles, so
  // that an overshoot spike does not move them.
  std::vector<double> v;
  const size_t stride = 1 + y.size() / kLevelSamples;
  for (size_t i = 0; i < y.size(); i += stride)
    if (std::isfinite(y[i])) v.push_back(y[i]);
  if (v.size() < 8) return false;
  const size_t k_lo = v.size() / 100, k_hi = v.size() - 1 - v.size() / 100;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k_lo), v.end());
  const double lo = v[k_lo];
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k_hi), v.end());
  const double hi = v[k_hi];
  if (!(hi > lo)) return false;
  const double band = kLevelBand * (hi - lo);
  size_t low = 0, high = 0;
  for (double x : v) {
    if (std::abs(x - lo) <= band) ++low;
    if (std::abs(x - hi) <= band) ++high;
  }
  const auto share = [&v](size_t k) {
    return static_cast<double>(k) / static_cast<double>(v.size());
  };
  return share(low + high) >= kTwoLevelShare && share(low) >= kMinLevelShare &&
         share(high) >= kMinLevelShare;
}

std::vector<PlotPanel> arrange_panels(std::vector<PlotSeries> series) {
  std::vector<PlotSeries> volts, amps, other, switching;
  for (auto& s : series) {
    if (s.t.empty()) continue;
    if (is_two_level(s.y)) {
      switching.push_back(std::move(s));
      continue;
    }
    const auto kind = signal_kind(s.name);
    (kind == SignalKind::kVoltage   ? volts
     : kind == SignalKind::kCurrent ? amps
                                    : other)
        .push_back(std::move(s));
  }
  std::vector<PlotPanel> panels;
  group_by_scale(std::move(volts), false, panels);
  group_by_scale(std::move(amps), false, panels);
  group_by_scale(std::move(other), false, panels);
  // Switching signals keep the order they were named in (a gate chain reads top to bottom).
  for (size_t k = 0; k < switching.size(); k += kMaxPerPanel) {
    PlotPanel p;
    p.thin = true;
    for (size_t j = k; j < std::min(switching.size(), k + kMaxPerPanel); ++j)
      p.series.push_back(std::move(switching[j]));
    panels.push_back(std::move(p));
  }
  for (auto& p : panels)
    if (!p.thin) mark_overlaps(p);
  return panels;
}

std::optional<SwitchingPeriod> switching_period(std::span<const double> t,
                                                std::span<const double> y) {
  const auto [lo, hi] = finite_range(y);
  if (!(hi > lo) || t.size() != y.size()) return std::nullopt;
  const double mid = (lo + hi) / 2, hyst = kLevelBand * (hi - lo);
  std::vector<double> edges;
  bool armed = false;  // been below mid − hyst since the last up-crossing
  for (size_t k = 1; k < y.size(); ++k) {
    if (y[k] < mid - hyst) armed = true;
    if (armed && y[k - 1] < mid && y[k] >= mid) {
      const double dt = t[k] - t[k - 1], dy = y[k] - y[k - 1];
      edges.push_back(t[k - 1] + (dy > 0 ? dt * (mid - y[k - 1]) / dy : 0));
      armed = false;
    }
  }
  if (edges.size() < static_cast<size_t>(kMinPeriods) + 1) return std::nullopt;
  std::vector<double> last;
  for (size_t k = edges.size() - kMinPeriods; k < edges.size(); ++k)
    last.push_back(edges[k] - edges[k - 1]);
  std::vector<double> sorted = last;
  std::nth_element(sorted.begin(), sorted.begin() + kMinPeriods / 2, sorted.end());
  const double median = sorted[kMinPeriods / 2];
  if (!(median > 0)) return std::nullopt;
  for (double d : last)
    if (std::abs(d - median) > kPeriodTolerance * median) return std::nullopt;
  return SwitchingPeriod{median, edges.back()};
}

std::optional<TimeWindow> last_periods_window(const SwitchingPeriod& s, double t_begin,
                                              double t_end, int periods, bool forced) {
  if (periods <= 0 || !(s.period > 0)) return std::nullopt;
  if (!forced && (t_end - t_begin) < 4.0 * periods * s.period) return std::nullopt;
  // Anchored at the end of the run (a drifting waveform may stop crossing its mid level before).
  const double pad = 0.05 * s.period;
  TimeWindow w{t_end - periods * s.period - pad, t_end};
  w.from = std::max(w.from, t_begin);
  w.to = std::min(w.to, t_end);
  if (!(w.to > w.from)) return std::nullopt;
  return w;
}

std::string left_out_note(size_t left_out) {
  if (left_out == 0) return {};
  return fmt::format("{} more signal{} not plotted: choose with --signals or --panel", left_out,
                     left_out == 1 ? " is" : "s are");
}

}  // namespace nsspice::app

namespace nsspice::app {

std::optional<int> parse_zoom(const std::string& text) {
  const std::string t = lower(text);
  if (t == "off" || t == "none") return 0;
  if (t.rfind("last:", 0) != 0 || t.size() == 5) return std::nullopt;
  int n = 0;
  for (char c : t.substr(5)) {
    if (c < '0' || c > '9' || n > 100000) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::optional<std::pair<int, int>> parse_plot_size(const std::string& text) {
  const auto x = lower(text).find('x');
  if (x == std::string::npos) return std::nullopt;
  auto number = [](const std::string& s) -> std::optional<int> {
    if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::stoi(s);
  };
  const auto w = number(text.substr(0, x)), h = number(text.substr(x + 1));
  if (!w || !h || *w < 320 || *w > 8000 || *h > 8000) return std::nullopt;
  return std::pair{*w, *h};
}

std::string add_switching_zoom(PlotRequest& rq, int periods, bool forced) {
  if (periods <= 0 || !rq.xlabel.empty()) return {};
  double t_begin = INFINITY, t_end = -INFINITY;
  for (const auto& p : rq.panels)
    for (const auto& s : p.series)
      if (!s.t.empty())
        t_begin = std::min(t_begin, s.t.front()), t_end = std::max(t_end, s.t.back());
  if (rq.t_from) t_begin = std::max(t_begin, *rq.t_from);
  if (rq.t_to) t_end = std::min(t_end, *rq.t_to);
  for (const bool thin : {true, false})
    for (const auto& p : rq.panels) {
      if (p.thin != thin) continue;
      for (const auto& s : p.series) {
        const std::vector<double>& t = s.detail.t.empty() ? s.t : s.detail.t;
        const std::vector<double>& y = s.detail.t.empty() ? s.y : s.detail.y;
        const auto lo =
            static_cast<size_t>(std::lower_bound(t.begin(), t.end(), t_begin) - t.begin());
        const auto hi =
            static_cast<size_t>(std::upper_bound(t.begin(), t.end(), t_end) - t.begin());
        if (hi < lo + 8) continue;
        const auto period = switching_period(std::span<const double>(t).subspan(lo, hi - lo),
                                             std::span<const double>(y).subspan(lo, hi - lo));
        if (!period) continue;
        const auto w = last_periods_window(*period, t_begin, t_end, periods, forced);
        if (!w) return {};
        rq.zoom = PlotRequest::Zoom{
            w->from, w->to,
            fmt::format("last {} period{} of {}", periods, periods == 1 ? "" : "s", s.name)};
        return {};
      }
    }
  return forced ? "--zoom: no periodic switching found in the plotted signals; no zoom column"
                : std::string();
}

}  // namespace nsspice::app
