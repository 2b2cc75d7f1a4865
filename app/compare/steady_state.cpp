#include "app/compare/steady_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/compare/compare_report.hpp"
#include "app/io/waveforms.hpp"

namespace nsspice::app {
namespace {

double period_of(const circuit::Waveform& w) {
  if (const auto* p = std::get_if<circuit::Pulse>(&w)) return p->per;
  if (const auto* s = std::get_if<circuit::Sin>(&w)) return s->freq > 0 ? 1 / s->freq : 0;
  if (const auto* l = std::get_if<circuit::Pwl>(&w))
    return l->repeat >= 0 && l->repeat_count == 0 && !l->t.empty() ? l->t.back() - l->repeat : 0;
  return 0;
}

template <class Source>
void consider(const Source& s, double t_run, std::optional<SourcePeriod>& best) {
  const double p = period_of(s.wave);
  if (p > 0 && p < t_run && (!best || p > best->period)) best = SourcePeriod{p, s.name};
}

struct Window {
  double integral = 0, min = INFINITY, max = -INFINITY, peak = 0;
};

// ∫ y dt, min, max and max |y| of the linear interpolant of (t, y) over [a, b].
Window integrate(const std::vector<double>& t, const std::vector<double>& y, double a, double b) {
  Window w;
  auto add = [&](double v) {
    w.min = std::min(w.min, v), w.max = std::max(w.max, v);
    w.peak = std::max(w.peak, std::abs(v));
  };
  double t0 = a, y0 = interpolate(t, y, a);
  add(y0);
  const auto first = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), a) - t.begin());
  for (size_t i = first; i < t.size() && t[i] < b; ++i) {
    w.integral += 0.5 * (y0 + y[i]) * (t[i] - t0);
    t0 = t[i], y0 = y[i];
    add(y0);
  }
  const double yb = interpolate(t, y, b);
  w.integral += 0.5 * (y0 + yb) * (b - t0);
  add(yb);
  return w;
}

}  // namespace

std::optional<SourcePeriod> source_period(const circuit::Circuit& c, double t_run) {
  std::optional<SourcePeriod> best;
  for (const auto& d : c.devices) {
    if (const auto* v = std::get_if<circuit::VoltageSource>(&d)) consider(*v, t_run, best);
    if (const auto* i = std::get_if<circuit::CurrentSource>(&d)) consider(*i, t_run, best);
  }
  return best;
}

double auto_startup(double t_begin, double t_end, std::optional<double> first_switch) {
  const double run = t_end - t_begin;
  double skip = 0.01 * run;
  if (first_switch) skip = std::max(skip, *first_switch - t_begin);
  return std::min(skip, 0.1 * run);
}

SteadyWindow steady_window(const std::optional<SourcePeriod>& period, double t_from, double t_to) {
  SteadyWindow w;
  w.to = t_to;
  const double span = t_to - t_from;
  if (period && span >= period->period * (1 - 1e-9)) {
    w.period = period->period;
    w.periods = static_cast<int>(std::min(5.0, std::floor(span / w.period * (1 + 1e-9))));
    w.from = std::max(t_from, t_to - w.periods * w.period);
    w.how = fmt::format("last {} period{} of {} ({})", w.periods, w.periods > 1 ? "s" : "",
                        eng(w.period, "s"), period->source);
    return w;
  }
  w.from = t_to - 0.1 * span;
  w.how = period ? fmt::format("last 10 % of the window (less than one period of {} ({}))",
                               eng(period->period, "s"), period->source)
                 : std::string("last 10 % of the window (no periodic source)");
  return w;
}

SteadyWindow whole_window(const SteadyWindow& constant, double t_from, double t_to) {
  SteadyWindow w;
  w.from = t_from;
  w.to = t_to;
  w.whole = true;
  w.how = fmt::format(
      "none (every judged signal is constant over the {}, t = {} .. {}): the whole window",
      constant.how, eng(constant.from, "s"), eng(constant.to, "s"));
  return w;
}

bool SteadyMetrics::constant() const {
  return pp_ref <= kConstant * run_peak && pp_other <= kConstant * run_peak;
}

double SteadyMetrics::rel_avg() const {
  const double d = std::abs(avg_other - avg_ref);
  return scale > 0 ? d / scale : d;
}
double SteadyMetrics::rel_pp() const {
  const double d = std::abs(pp_other - pp_ref);
  return scale > 0 ? d / scale : d;
}

SteadyMetrics steady_metrics(const std::string& name, const std::vector<double>& ref_t,
                             const std::vector<double>& ref_y, const std::vector<double>& other_t,
                             const std::vector<double>& other_y, const SteadyWindow& window) {
  SteadyMetrics m;
  m.name = name;
  const double span = window.to - window.from;
  const Window r = integrate(ref_t, ref_y, window.from, window.to);
  const Window o = integrate(other_t, other_y, window.from, window.to);
  m.avg_ref = span > 0 ? r.integral / span : interpolate(ref_t, ref_y, window.to);
  m.avg_other = span > 0 ? o.integral / span : interpolate(other_t, other_y, window.to);
  m.pp_ref = r.max - r.min;
  m.pp_other = o.max - o.min;
  double run_peak = 0;
  for (double y : ref_y) run_peak = std::max(run_peak, std::abs(y));
  m.scale = std::max(r.peak, kQuietShare * run_peak);
  m.run_peak = run_peak;
  return m;
}

}  // namespace nsspice::app
