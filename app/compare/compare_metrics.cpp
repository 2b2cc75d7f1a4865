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

// The index of the time in `times` (sorted, not empty) nearest to `t`; of two as near, the earlier.
size_t nearest(const std::vector<double>& times, double t) {
  const auto hi =
      static_cast<size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  if (hi == 0) return 0;
  if (hi == times.size()) return hi - 1;
  return t - times[hi - 1] <= times[hi] - t ? hi - 1 : hi;
}

// Pairs reference and other events of the same direction that are each other's nearest: one to
// one, and an event whose nearest partner is nearer to another event of its own run stays
// unpaired (its counterpart is outside the window, or one run switched once more), instead of
// pairing with the next period's.
void match_events(SignalDiff& d) {
  std::vector<double> ref[2], other[2];  // the times of each direction, [on]
  for (const auto& e : d.ref_events) ref[e.on].push_back(e.t);
  for (const auto& e : d.other_events) other[e.on].push_back(e.t);
  size_t seen[2] = {0, 0};
  double sum = 0;
  for (const auto& e : d.ref_events) {
    const size_t i = seen[e.on]++;
    const std::vector<double>&r = ref[e.on], &o = other[e.on];
    if (o.empty()) continue;
    const size_t j = nearest(o, r[i]);
    if (nearest(r, o[j]) != i) continue;
    const double offset = o[j] - r[i];
    d.offsets.push_back(offset);
    sum += offset;
    d.max_offset = std::max(d.max_offset, std::abs(offset));
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
  // (t_a, t_b]: an instant at the window's start is the one that ends an automatic start-up.
  auto within = [&](std::vector<SwitchEvent> ev) {
    std::erase_if(ev,
                  [&](const SwitchEvent& e) { return e.t <= grid.front() || e.t > grid.back(); });
    return ev;
  };
  d.ref_events = within(switching_instants(ref_t, ref_y, d.threshold));
  d.other_events = within(switching_instants(other_t, other_y, d.threshold));
  match_events(d);
  return d;
}

}  // namespace nsspice::app
