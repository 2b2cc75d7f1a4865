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

SignalDiff diff_signal(const std::string& name, const std::vector<double>& ref_t,
                       const std::vector<double>& ref_y, const std::vector<double>& other_t,
                       const std::vector<double>& other_y, const std::vector<double>& grid,
                       bool switching, double rel_threshold) {
  SignalDiff d;
  d.name = name;
  double sum2 = 0;
  d.diff.reserve(grid.size());
  for (double t : grid) {
    const double r = interpolate(ref_t, ref_y, t), o = interpolate(other_t, other_y, t);
    const double e = o - r;
    d.diff.push_back(e);
    d.scale = std::max(d.scale, std::abs(r));
    sum2 += e * e;
    if (std::abs(e) > d.max_abs) d.max_abs = std::abs(e), d.t_max = t;
  }
  d.rms = grid.empty() ? 0 : std::sqrt(sum2 / static_cast<double>(grid.size()));
  d.rel = d.scale > 0 ? d.max_abs / d.scale : d.max_abs;
  if (!switching || grid.empty()) return d;
  d.switching = true;
  d.threshold = std::max(rel_threshold * d.scale, 1e-12);
  // Events within the common span only.
  auto within = [&](std::vector<SwitchEvent> ev) {
    std::erase_if(ev, [&](const SwitchEvent& e) { return e.t > grid.back(); });
    return ev;
  };
  d.ref_events = within(switching_instants(ref_t, ref_y, d.threshold));
  d.other_events = within(switching_instants(other_t, other_y, d.threshold));
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
  return d;
}

}  // namespace nsspice::app
