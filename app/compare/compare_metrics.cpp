#include "app/compare/compare_metrics.hpp"

#include <algorithm>
#include <cmath>

namespace nsspice::app {

std::vector<double> uniform_grid(double t_begin, double t_end, double h) {
  std::vector<double> g;
  if (!(t_end >= t_begin) || !(h > 0)) return g;
  const auto n = static_cast<long>(std::floor((t_end - t_begin) / h * (1 + 1e-12)));
  g.reserve(static_cast<size_t>(n) + 2);
  for (long k = 0; k <= n; ++k) g.push_back(t_begin + static_cast<double>(k) * h);
  if (t_end - g.back() > 1e-9 * h) g.push_back(t_end);
  return g;
}

std::vector<double> union_grid(const std::vector<double>& a, const std::vector<double>& b,
                               double t_begin, double t_end) {
  std::vector<double> g;
  if (!(t_end >= t_begin)) return g;
  auto inside = [&](const std::vector<double>& t) {
    return std::pair(std::upper_bound(t.begin(), t.end(), t_begin),
                     std::lower_bound(t.begin(), t.end(), t_end));
  };
  const auto [a0, a1] = inside(a);
  const auto [b0, b1] = inside(b);
  g.reserve(static_cast<size_t>((a1 - a0) + (b1 - b0)) + 2);
  g.push_back(t_begin);
  std::merge(a0, a1, b0, b1, std::back_inserter(g));
  g.push_back(t_end);
  const double tiny = 1e-12 * std::max(t_end - t_begin, 1e-300);
  size_t n = 1;
  for (size_t i = 1; i < g.size(); ++i)
    if (g[i] - g[n - 1] > tiny) g[n++] = g[i];
  g.resize(n);
  if (g.size() > 1 && t_end - g.back() <= tiny) g.back() = t_end;
  return g;
}

std::vector<SwitchEvent> switching_instants(const std::vector<double>& t,
                                            const std::vector<double>& y, double threshold) {
  std::vector<SwitchEvent> out;
  for (size_t i = 1; i < t.size(); ++i) {
    const double a = std::abs(y[i - 1]) - threshold, b = std::abs(y[i]) - threshold;
    if ((a < 0) == (b < 0)) continue;
    const double f = a != b ? a / (a - b) : 1.0;
    out.push_back({t[i - 1] + f * (t[i] - t[i - 1]), b >= 0});
  }
  return out;
}

namespace {

// Matches every reference event with the nearest other event of the same direction.
void match_events(SignalDiff& d) {
  double sum = 0;
  for (const auto& e : d.ref_events) {
    double best = INFINITY;
    for (const auto& o : d.other_events)
      if (o.on == e.on && std::abs(o.t - e.t) < std::abs(best)) best = o.t - e.t;
    if (!std::isfinite(best)) continue;
    d.offsets.push_back(best);
    sum += best;
    d.max_offset = std::max(d.max_offset, std::abs(best));
  }
  d.mean_offset = d.offsets.empty() ? 0 : sum / static_cast<double>(d.offsets.size());
}

}  // namespace

SignalDiff diff_signal(const std::string& name, const std::vector<double>& ref_t,
                       const std::vector<double>& ref_y, const std::vector<double>& other_t,
                       const std::vector<double>& other_y, const std::vector<double>& grid,
                       bool switching, double rel_threshold) {
  SignalDiff d;
  d.name = name;
  double integral = 0;
  d.diff.reserve(grid.size());
  for (size_t i = 0; i < grid.size(); ++i) {
    const double t = grid[i];
    const double r = interpolate(ref_t, ref_y, t), o = interpolate(other_t, other_y, t);
    const double e = o - r;
    d.diff.push_back(e);
    d.scale = std::max(d.scale, std::abs(r));
    if (i > 0) integral += 0.5 * (e * e + d.diff[i - 1] * d.diff[i - 1]) * (t - grid[i - 1]);
    if (std::abs(e) > d.max_abs) d.max_abs = std::abs(e), d.t_max = t;
  }
  const double span = grid.empty() ? 0 : grid.back() - grid.front();
  d.rms = span > 0 ? std::sqrt(integral / span) : d.max_abs;
  d.rel = d.scale > 0 ? d.max_abs / d.scale : d.max_abs;
  if (!switching || grid.empty()) return d;
  d.switching = true;
  d.threshold = std::max(rel_threshold * d.scale, 1e-12);
  auto within = [&](std::vector<SwitchEvent> ev) {
    std::erase_if(ev,
                  [&](const SwitchEvent& e) { return e.t < grid.front() || e.t > grid.back(); });
    return ev;
  };
  d.ref_events = within(switching_instants(ref_t, ref_y, d.threshold));
  d.other_events = within(switching_instants(other_t, other_y, d.threshold));
  match_events(d);
  return d;
}

}  // namespace nsspice::app
