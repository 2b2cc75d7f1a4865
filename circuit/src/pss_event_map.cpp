// The event-driven period map and its exact Jacobian (pss_event_map.hpp):
//
//   Φ(x0) = x(T) of solvers::EventDriven from (x0, q0 = E x0), fixed steps h = T/N;
//   J = ∂Φ_D/∂x_D = the monodromy of the recorded orbit (PeriodLinearization: per-mode Radau
//       transition matrices, the saltation of every state-dependent instant, the selections),
//   or, with PssOptions::finite_difference (or where the linearization is not defined: an
//   accumulation of events, a grazing instant), the forward difference of pss_theta_map.cpp.
#include "circuit/src/pss_event_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "circuit/src/initial_point.hpp"

namespace nsspice::circuit::detail {

// The mode-selection step δ, as a fraction of the span (T): the integrator's default, and the
// coarse one taken (PssOptions::select_step = 0) where a period at the default holds an
// accumulation of events.
constexpr double kSelectStep = 1e-9;
constexpr double kCoarseSelectStep = 1e-5;
// Steps per period of the event map without --steps.
constexpr long kDefaultSteps = 200;
// A breakpoint within this fraction of T below T is T.
constexpr double kBreakpointSnap = 1e-12;

solvers::EventOptions event_map_options(const Circuit& circuit, const PssOptions& o) {
  solvers::EventOptions eo;
  eo.t_start = 0;
  eo.t_stop = o.period;
  eo.fixed_step = true;
  eo.switch_state_from_mode = true;  // a period continues the one before
  const long steps = o.steps_per_period > 0 ? o.steps_per_period : kDefaultSteps;
  eo.h_max = o.period / static_cast<double>(steps);
  eo.h_init = eo.h_max;
  eo.rtol = circuit.event.rtol;
  eo.atol = circuit.event.atol;
  eo.time_tol = circuit.event.time_tol;
  eo.select_step = o.select_step > 0 ? o.select_step : kSelectStep;
  eo.lcp_solver = circuit.lcp_solver;
  return eo;
}

EventMap::EventMap(const Assembled& a, const solvers::EventOptions& options, bool finite_difference,
                   bool coarsen)
    : a_(a),
      mlcs_(a.mlcs),
      options_(options),
      finite_difference_(finite_difference),
      coarsen_(coarsen) {
  const double period = options.t_stop;
  mlcs_.next_breakpoint = [inner = a.mlcs.next_breakpoint, period](double t) {
    const double bp = inner ? inner(t) : std::numeric_limits<double>::infinity();
    return bp > period * (1 - kBreakpointSnap) ? std::max(bp, period) : bp;
  };
  h_ = options.h_max;
  theta_ = 0;
  exact_ = !finite_difference;
}

solvers::Summary step_failure(const Assembled& a, solvers::Status status,
                              const std::string& message, double t, const std::vector<int>& pairs,
                              const std::vector<char>& mode, double h) {
  const ModeDiagnosis why = explain_mode(a, h, mode);
  return {
      status,
      fmt::format("at t = {:.9g} s of a period: {}", t, why.with(message + pair_list(a, pairs))),
      failure_devices(a, why, pairs), t};
}

solvers::Summary EventMap::run(const PssState& from, PssState& to, const PssObserver* observer,
                               double t_offset) {
  solvers::Summary s = run_once(from, to, observer, t_offset);
  if (!s.solved() || !accumulation_ || !coarsen_ || observer != nullptr) return s;
  // The selections at δ = 1e-9·T did not settle the mode at some instant (an accumulation of
  // events handed to the θ-scheme): a phase faster than the Radau steps resolve (a diode bridge
  // whose commutation passes through a 1 MΩ conductance for 100 ps, hidden beside E/δ). The
  // coarse δ lets the selection's backward-Euler steps pass through it; kept if its period has
  // no accumulation (decided once per map).
  coarsen_ = false;
  const double fine = options_.select_step;
  options_.select_step = kCoarseSelectStep;
  PssState coarse;
  s = run_once(from, coarse, nullptr, t_offset);
  if (s.solved() && !accumulation_) {
    to = std::move(coarse);
    coarsened_ = true;
    return s;
  }
  options_.select_step = fine;
  return run_once(from, to, nullptr, t_offset);
}

solvers::Summary EventMap::run_once(const PssState& from, PssState& to, const PssObserver* observer,
                                    double t_offset) {
  ++count_;
  const int n = a_.mlcs.n, m = a_.mlcs.m;
  solvers::EventDriven integrator(mlcs_, options_);
  orbit_.clear();
  long selections = 0;
  const auto record = [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                          const Eigen::VectorXd&) {
    OrbitPoint p;
    p.t = t;
    p.z.resize(n + m);
    p.z << x, lambda;
    p.mode = integrator.mode();
    if (integrator.applied_selections() != selections) {
      selections = integrator.applied_selections();
      const auto& steps = integrator.selection_modes();
      p.selection.assign(steps.begin(), steps.end());
    }
    orbit_.push_back(std::move(p));
    if (observer != nullptr) (*observer)(t + t_offset, x, lambda);
    return true;
  };
  const solvers::EventOutcome out =
      integrator.run(from.x, a_.mlcs.E * from.x, from.lambda, from.mode, record);
  start_ = from.x;
  if (!out.ok()) {
    orbit_.clear();
    return step_failure(a_, out.status, out.message, out.t, out.pairs, integrator.mode(), h_);
  }
  accumulation_ = !integrator.stats().fallbacks.empty();
  const OrbitPoint& last = orbit_.back();
  to = {last.z.head(n), last.z.tail(m), integrator.mode()};
  return solved();
}

std::unique_ptr<PeriodLinearization> EventMap::linearize() const {
  const char* accumulation =
      "the period contains an accumulation of events (chattering or a sliding mode on a "
      "switch), integrated by the theta-scheme: it has no linearization";
  return std::make_unique<PeriodLinearization>(a_, orbit_, options_.t_stop, options_.h_max,
                                               options_.select_step * options_.t_stop,
                                               accumulation_ ? accumulation : "");
}

solvers::Summary EventMap::jacobian(const PssState& from, const PssState& to, Eigen::MatrixXd& j) {
  if (finite_difference_) return finite_difference_jacobian(*this, a_, from, to, j);
  if (orbit_.empty() || start_.size() != from.x.size() || start_ != from.x) {
    PssState again;
    if (solvers::Summary s = run(from, again); !s.solved()) return s;
  }
  const auto lin = linearize();
  if (lin->monodromy(j)) return solved();
  ++fallbacks_;  // the Newton step still has a Jacobian: the forward difference
  fallback_reason_ = lin->error();
  return finite_difference_jacobian(*this, a_, from, to, j);
}

std::string EventMap::mode_sequence() const {
  std::string out;
  const std::vector<char>* last = nullptr;
  for (const auto& p : orbit_) {
    if (last != nullptr && p.mode == *last) continue;
    if (!out.empty()) out += ' ';
    for (char c : p.mode) out += c ? '1' : '0';
    last = &p.mode;
  }
  return out;
}

MadeMap make_event_map(const Circuit& circuit, const Assembled& a, const PssOptions& options) {
  const solvers::EventOptions eo = event_map_options(circuit, options);
  if (std::string why = eo.validate(); !why.empty())
    return {nullptr, solvers::invalid_input("the event map: " + std::move(why))};
  return {std::make_unique<EventMap>(a, eo, options.finite_difference, options.select_step == 0),
          solved()};
}

MadeMap make_period_map(const Circuit& circuit, const Assembled& a, const PssOptions& options) {
  return options.map == PssMap::kEvent ? make_event_map(circuit, a, options)
                                       : make_theta_map(circuit, a, options);
}

}  // namespace nsspice::circuit::detail
