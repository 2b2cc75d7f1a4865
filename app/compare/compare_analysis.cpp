#include "app/compare/compare_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace nsspice::app {
namespace {

// The reference's first switching instant (any of `switching`), if any.
std::optional<double> first_switch(const Waveforms& ref, const std::set<std::string>& switching,
                                   double threshold) {
  std::optional<double> first;
  for (const auto& name : switching) {
    const auto k = ref.index(name);
    if (!k) continue;
    double peak = 0;
    for (double y : ref.columns[*k]) peak = std::max(peak, std::abs(y));
    const auto ev =
        switching_instants(ref.time, ref.columns[*k], std::max(threshold * peak, 1e-12));
    if (!ev.empty() && (!first || ev.front().t < *first)) first = ev.front().t;
  }
  return first;
}

std::vector<SteadyMetrics> steady_table(const Waveforms& ref, const Waveforms& peer,
                                        const std::vector<std::string>& signals,
                                        const SteadyWindow& w) {
  std::vector<SteadyMetrics> out;
  for (const auto& name : signals) {
    const auto a = ref.index(name), b = peer.index(name);
    if (a && b)
      out.push_back(
          steady_metrics(name, ref.time, ref.columns[*a], peer.time, peer.columns[*b], w));
  }
  return out;
}

std::vector<double> time_base(const Waveforms& ref, const Waveforms& peer, double from, double to,
                              const AnalysisOptions& o) {
  return o.grid ? uniform_grid(from, to, *o.grid) : union_grid(ref.time, peer.time, from, to);
}

std::vector<SignalDiff> diffs_on(const Waveforms& ref, const Waveforms& peer,
                                 const std::vector<double>& grid,
                                 const std::vector<std::string>& only, const AnalysisOptions& o) {
  std::vector<SignalDiff> out;
  if (grid.size() < 2) return out;
  for (size_t k = 0; k < ref.names.size(); ++k) {
    const std::string& name = ref.names[k];
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    const auto j = peer.index(name);
    if (!j) continue;
    out.push_back(diff_signal(name, ref.time, ref.columns[k], peer.time, peer.columns[*j], grid,
                              o.switching.contains(name), o.switch_threshold));
  }
  return out;
}

}  // namespace

void analyse(CompareResult& r, const Waveforms& ref, const Waveforms& peer,
             const AnalysisOptions& o) {
  if (ref.time.empty() || peer.time.empty()) return;
  const double begin = std::max(ref.time.front(), peer.time.front());
  const double end = std::min(ref.time.back(), peer.time.back());
  if (o.startup) {
    r.startup = *o.startup;
    r.startup_how = "--startup";
  } else {
    const auto first = first_switch(ref, o.switching, o.switch_threshold);
    r.startup = auto_startup(r.t_start, r.t_stop, first);
    const double run = r.t_stop - r.t_start;
    r.startup_how = r.startup >= 0.1 * run * (1 - 1e-12) ? "10 % of the run, the most auto skips"
                    : first && r.startup > 0.01 * run    ? "up to the first switching instant"
                                                         : "1 % of the run";
  }
  r.t_from = std::max(begin, r.t_start + r.startup);
  r.t_to = end;
  if (!(r.t_to > r.t_from)) return;
  r.grid = time_base(ref, peer, r.t_from, r.t_to, o);
  r.time_base = o.grid ? fmt::format("uniform, step {}", eng(*o.grid, "s"))
                       : std::string("both runs' samples");
  r.diffs = diffs_on(ref, peer, r.grid, {}, o);
  // A uniform grid that cannot resolve a period samples the waveforms at a few phases: the
  // max|err| table then misses the edges and the ripple (a buck's v(sw) differed by 12.5 V on
  // both runs' samples, by 42.5 mV on --grid 1m), and says so.
  if (o.grid && o.period && *o.grid > 0.5 * o.period->period)
    r.notes.push_back(fmt::format(
        "--grid {} is coarser than half the period of {} ({}): the time base ({} points) cannot "
        "resolve a period, so the max|err| and rms columns miss the edges and the ripple (the "
        "steady-state table is on each run's own samples)",
        eng(*o.grid, "s"), o.period->source, eng(o.period->period, "s"), r.grid.size()));
  if (r.peer.failed || r.nsspice.failed) return;
  r.steady = steady_window(o.period, r.t_from, r.t_to);
  r.steady_metrics = steady_table(ref, peer, o.steady_signals, r.steady);
  if (!r.steady_metrics.empty() && r.steady.from > r.t_from &&
      std::all_of(r.steady_metrics.begin(), r.steady_metrics.end(),
                  [](const SteadyMetrics& m) { return m.constant(); })) {
    r.steady = whole_window(r.steady, r.t_from, r.t_to);
    r.steady_metrics = steady_table(ref, peer, o.steady_signals, r.steady);
  }
}

std::vector<SignalDiff> sweep_diffs(const CompareResult& r, const Waveforms& ref,
                                    const Waveforms& peer, const std::vector<std::string>& signals,
                                    const AnalysisOptions& o) {
  if (ref.time.empty() || peer.time.empty()) return {};
  const double to = std::min({r.t_stop, ref.time.back(), peer.time.back()});
  const double from = std::max({r.t_start + r.startup, ref.time.front(), peer.time.front()});
  if (!(to > from)) return {};
  return diffs_on(ref, peer, time_base(ref, peer, from, to, o), signals, o);
}

std::vector<std::optional<double>> measure_differences(const std::vector<MeasureSpec>& specs,
                                                       const std::vector<MeasureResult>& a,
                                                       const std::vector<MeasureResult>& b,
                                                       const Waveforms& ref, double run) {
  std::vector<std::optional<double>> out;
  for (size_t i = 0; i < specs.size() && i < a.size() && i < b.size(); ++i) {
    if (!a[i].value || !b[i].value) {
      out.emplace_back();
      continue;
    }
    double peak = 0;
    const auto names = specs[i].signals();
    if (const auto k = names.empty() ? std::nullopt : ref.index(names.front()))
      for (double y : ref.columns[*k]) peak = std::max(peak, std::abs(y));
    const std::string& unit = a[i].unit;
    const double floor = kQuietShare * (unit == "s"                            ? run
                                        : unit.find("·s") != std::string::npos ? peak * run
                                                                               : peak);
    const double scale = std::max(std::abs(*a[i].value), floor);
    const double d = std::abs(*b[i].value - *a[i].value);
    out.emplace_back(scale > 0 ? d / scale : d > 0 ? 1.0 : 0.0);
  }
  return out;
}

std::vector<MeasureResult> measure(const std::vector<MeasureSpec>& specs, const Waveforms& w) {
  // One set (a param reads the measurements before it); a spec that does not bind keeps its
  // place with the error as its failure.
  MeasureSet set;
  std::vector<std::optional<size_t>> place(specs.size());
  std::vector<std::string> errors(specs.size());
  size_t bound = 0;
  for (size_t i = 0; i < specs.size(); ++i)
    if (set.add(specs[i], w.names, errors[i])) place[i] = bound++;
  std::vector<double> row(w.names.size());
  for (size_t i = 0; i < w.points(); ++i) {
    for (size_t k = 0; k < row.size(); ++k) row[k] = w.columns[k][i];
    set.feed(w.time[i], row);
  }
  const std::vector<MeasureResult> results = set.results();
  std::vector<MeasureResult> out;
  for (size_t i = 0; i < specs.size(); ++i)
    out.push_back(place[i] ? results[*place[i]]
                           : MeasureResult{specs[i].name, specs[i].text, {}, {}, "", errors[i]});
  return out;
}

}  // namespace nsspice::app
