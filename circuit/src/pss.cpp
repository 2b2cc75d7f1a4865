// Periodic steady state (circuit/pss.hpp; docs/theory.md §13): the checks of the input, the
// warm-up, shooting-Newton on the chosen period map (pss_newton.cpp, pss_map.hpp), the count of
// periods a plain transient needs, and the output of the orbit.
#include "circuit/pss.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "circuit/src/initial_point.hpp"
#include "circuit/src/pss_event_map.hpp"
#include "circuit/src/pss_map.hpp"
#include "circuit/src/pss_trigger.hpp"

namespace nsspice::circuit {
namespace {

using detail::PssState;

constexpr double kFloor = 1e-9;  // V or A: the smallest scale of ‖x‖∞ in relative tests

double scale_of(const Eigen::VectorXd& x) { return std::max(x.cwiseAbs().maxCoeff(), kFloor); }

// "" when every source is periodic in T from t = 0 (sampled at 97 points of [0, T) and its
// breakpoints there, compared with t + T and t + 2T), else which one is not and where.
std::string aperiodic_source(const Circuit& circuit, const Assembled& a, double period) {
  for (size_t k = 0; k < a.sources.size(); ++k) {
    const Waveform& w = a.sources[k];
    std::vector<double> times;
    for (int i = 0; i < 97; ++i) times.push_back(period * i / 97.0);
    for (double t = waveform_next_breakpoint(w, -1e-300); t < period;
         t = waveform_next_breakpoint(w, t))
      times.push_back(t);
    for (double t : times) {
      const double v = waveform_value(w, t);
      for (int m = 1; m <= 2; ++m) {
        const double u = waveform_value(w, t + m * period);
        if (std::abs(u - v) <= 1e-9 * std::max({1.0, std::abs(u), std::abs(v)})) continue;
        const int d = a.source_device[k];
        return fmt::format(
            "source '{}' is not periodic in T = {:g} s from t = 0: {:g} at t = {:g} s, {:g} at "
            "t + {}T (a PULSE's period must divide T; a SIN's "
            "frequency a multiple of 1/T)",
            d >= 0 ? device_name(circuit.devices[static_cast<size_t>(d)]) : std::string("?"),
            period, v, t, u, m);
      }
    }
  }
  return {};
}

}  // namespace

namespace detail {

std::vector<Eigen::Index> dynamic_columns(const solvers::SparseMatrix& e) {
  std::vector<Eigen::Index> out;
  for (int k = 0; k < e.outerSize(); ++k) {
    bool any = false;
    for (solvers::SparseMatrix::InnerIterator it(e, k); it; ++it) any = any || it.value() != 0;
    if (any) out.push_back(k);
  }
  return out;
}

Eigen::VectorXd part(const Eigen::VectorXd& x, const std::vector<Eigen::Index>& d) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(d.size()));
  for (size_t k = 0; k < d.size(); ++k) out[static_cast<Eigen::Index>(k)] = x[d[k]];
  return out;
}

PssState displaced(const PssState& s, const std::vector<Eigen::Index>& d,
                   const Eigen::VectorXd& delta, double alpha) {
  PssState out = s;
  for (size_t k = 0; k < d.size(); ++k) out.x[d[k]] += alpha * delta[static_cast<Eigen::Index>(k)];
  return out;
}

}  // namespace detail

const char* to_string(PssFailure failure) {
  switch (failure) {
    case PssFailure::kNone:
      return "none";
    case PssFailure::kInput:
      return "input";
    case PssFailure::kInitialPoint:
      return "no initial point";
    case PssFailure::kStep:
      return "step failed";
    case PssFailure::kNoOrbit:
      return "no periodic orbit";
    case PssFailure::kModeSequence:
      return "mode sequence not converging";
    case PssFailure::kSubharmonic:
      return "subharmonic";
    case PssFailure::kUnstable:
      return "unstable orbit";
    case PssFailure::kNotIsolated:
      return "orbit not isolated";
    case PssFailure::kLinearization:
      return "no linearization";
    case PssFailure::kNoCrossing:
      return "no crossing";
    case PssFailure::kPeriod:
      return "period not converging";
  }
  return "?";
}

solvers::Status status_of(PssFailure failure) {
  switch (failure) {
    case PssFailure::kNone:
      return solvers::Status::kSolved;
    case PssFailure::kInput:
      return solvers::Status::kInvalidInput;
    case PssFailure::kNoOrbit:
    case PssFailure::kModeSequence:
    case PssFailure::kPeriod:
      return solvers::Status::kNoConvergence;
    case PssFailure::kSubharmonic:
    case PssFailure::kUnstable:
    case PssFailure::kNoCrossing:
      return solvers::Status::kInfeasible;
    case PssFailure::kInitialPoint:
    case PssFailure::kStep:
    case PssFailure::kNotIsolated:
    case PssFailure::kLinearization:
      return solvers::Status::kNumericalFailure;
  }
  return solvers::Status::kNumericalFailure;
}

void PssResult::fail(PssFailure why, std::string message) {
  fail(why, status_of(why), std::move(message));
}

void PssResult::fail(PssFailure why, solvers::Status status, std::string message) {
  failure = why;
  RunOutcome::fail(status, std::move(message));
}

void PssResult::fail(PssFailure why, const solvers::Summary& cause, const std::string& context) {
  failure = why;
  RunOutcome::fail(cause.status, context + cause.message, cause.time, cause.devices);
}

std::string PssOptions::validate() const {
  if (!(period > 0) || !std::isfinite(period))
    return fmt::format("the {}period must be > 0 s, got {:g}", trigger ? "guessed " : "", period);
  if (trigger && trigger->signal.empty()) return "the trigger needs a signal";
  if (trigger && map != PssMap::kEvent)
    return "a trigger needs the event map (the period is an unknown: the theta map would move "
           "its step grid with it and puts the switching instants on that grid)";
  if (trigger && !std::isfinite(trigger->level))
    return fmt::format("the trigger level must be finite, got {:g}", trigger->level);
  if (!(stabilization >= 0) || !std::isfinite(stabilization))
    return fmt::format("the stabilization time must be >= 0 s, got {:g}", stabilization);
  if (!(tol > 0 && tol < 1)) return fmt::format("the tolerance must be in (0, 1), got {:g}", tol);
  if (warmup_periods < 0) return "the warm-up periods must be >= 0";
  if (max_newton < 1) return "at least one Newton iteration";
  if (steps_per_period < 0)
    return fmt::format("the steps per period must be >= 1, got {}", steps_per_period);
  if (!(select_step == 0 || (select_step > 0 && select_step < 1e-3)))
    return fmt::format("the selection step must be 0 (automatic) or in (0, 1e-3) of T, got {:g}",
                       select_step);
  if (finite_difference && map != PssMap::kEvent)
    return "the finite-difference Jacobian is an option of the event map (the theta map always "
           "uses it)";
  return {};
}

namespace {

// The comparators of the circuit ("'e1', 'e2'"), "" when there is none.
std::string comparators(const Circuit& circuit) {
  std::string out;
  for (const Device& d : circuit.devices)
    if (std::holds_alternative<Comparator>(d))
      out += fmt::format("{}'{}'", out.empty() ? "" : ", ", device_name(d));
  return out;
}

// The θ map failed to converge: why, in terms of the circuit, then the event map's result.
PssResult theta_fallback(const Circuit& circuit, const Assembled& a, const PssOptions& o,
                         const PssResult& theta) {
  const std::string relays = comparators(circuit);
  std::string why = fmt::format("{}: {}", to_string(theta.failure), theta.summary.message);
  if (!relays.empty())
    why = fmt::format(
        "the theta map switches the ideal comparator{} {} on its step grid (h = {:.4g} s): the "
        "duty cycle is quantized to h, the period map is piecewise constant in the switching "
        "instants, and the discretized loop need not have a period-T orbit at all (a fixed-step "
        "transient of it may keep cycling over several periods instead of settling); Newton got "
        "no closer than {:.3g} relative; the theta map said: {}",
        relays.find(',') != std::string::npos ? "s" : "", relays, theta.h,
        theta.history.empty() ? 0.0 : *std::min_element(theta.history.begin(), theta.history.end()),
        why);
  PssOptions event = o;
  event.map = PssMap::kEvent;
  event.steps_per_period = 0;  // the event map's own default (its steps need not be the .tran's)
  PssResult r = periodic_steady_state(circuit, a, event);
  r.theta_fallback = why;
  r.periods_simulated += theta.periods_simulated;
  if (!r.ok()) r.summary.message += "; before it, " + why;
  return r;
}

PssResult autonomous_steady_state(const Circuit& circuit, const Assembled& a, const PssOptions& o) {
  PssResult r;
  if (std::string why = o.validate(); !why.empty()) {
    r.fail(PssFailure::kInput, std::move(why));
    return r;
  }
  Eigen::VectorXd gamma;
  if (std::string why = detail::trigger_vector(a, o.trigger->signal, gamma); !why.empty()) {
    r.fail(PssFailure::kInput, std::move(why));
    return r;
  }
  const double horizon = o.stabilization + (o.warmup_periods + 50.0) * o.period;
  if (const std::string v = detail::varying_source(circuit, a, horizon); !v.empty()) {
    r.fail(PssFailure::kInput,
           fmt::format("a trigger (an autonomous PSS) needs every source constant, but {} (a "
                       "circuit driven by a periodic source takes a period, not a trigger)",
                       v));
    return r;
  }
  const detail::InitialPoint init = detail::initial_point(circuit, a);
  if (!init.error.empty()) {
    r.fail(PssFailure::kInitialPoint, {init.status, init.error, init.devices, 0.0});
    return r;
  }
  r.exact_jacobian = !o.finite_difference;
  r.theta = 0;
  detail::shoot_autonomous(circuit, a, o, gamma, {init.x, init.lambda, init.mode}, r);
  PssOptions at = o;
  at.period = r.period > 0 ? r.period : o.period;
  r.h = detail::event_map_options(circuit, at).h_max;
  return r;
}

}  // namespace

namespace detail {

std::string trigger_vector(const Assembled& a, const std::string& signal,
                           Eigen::VectorXd& gamma_d) {
  std::string s;
  for (char c : signal)
    if (c != ' ') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto d = dynamic_columns(a.mlcs.E);
  gamma_d = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d.size()));
  const auto add = [&](const std::string& name, double sign) -> std::string {
    if (name == "v(0)" || name == "v(gnd)") return {};
    const auto it = std::find(a.unknown_names.begin(), a.unknown_names.end(), name);
    if (it == a.unknown_names.end())
      return fmt::format("trigger signal '{}': the circuit has no {} '{}'", signal,
                         name[0] == 'v' ? "node" : "inductor or source current",
                         name.substr(2, name.size() - 3));
    const auto col = it - a.unknown_names.begin();
    const auto k = std::find(d.begin(), d.end(), col);
    if (k == d.end())
      return fmt::format(
          "trigger signal '{}': {} is not a state of the circuit (only capacitor voltages and "
          "inductor currents carry the orbit; trigger on a node with a capacitor, or an "
          "inductor's current)",
          signal, name);
    gamma_d[k - d.begin()] += sign;
    return {};
  };
  const bool voltage = s.starts_with("v("), current = s.starts_with("i(");
  if ((!voltage && !current) || !s.ends_with(")") || s.size() < 4)
    return fmt::format("trigger signal '{}': expected v(node), v(node1,node2) or i(inductor)",
                       signal);
  const std::string inner = s.substr(2, s.size() - 3);
  const auto comma = inner.find(',');
  if (comma == std::string::npos) return add(s, 1);
  if (current) return fmt::format("trigger signal '{}': i(...) takes one name", signal);
  if (std::string e = add("v(" + inner.substr(0, comma) + ")", 1); !e.empty()) return e;
  return add("v(" + inner.substr(comma + 1) + ")", -1);
}

std::string varying_source(const Circuit& circuit, const Assembled& a, double horizon) {
  for (size_t k = 0; k < a.sources.size(); ++k) {
    const Waveform& w = a.sources[k];
    const double v0 = waveform_value(w, 0);
    std::vector<double> times;  // the first breakpoints and 997 points of [0, horizon]
    for (double t = waveform_next_breakpoint(w, -1e-300); t < horizon && times.size() < 64;
         t = waveform_next_breakpoint(w, t))
      times.push_back(t * (1 + 1e-9) + 1e-300);
    for (int i = 1; i <= 997; ++i) times.push_back(horizon * i / 997.0);
    std::sort(times.begin(), times.end());
    const auto bad = std::find_if(times.begin(), times.end(), [&](double t) {
      return std::abs(waveform_value(w, t) - v0) > 1e-12 * std::max(1.0, std::abs(v0));
    });
    if (bad == times.end()) continue;
    const int d = a.source_device[k];
    return fmt::format(
        "source '{}' is {:g} at t = 0 and {:g} at t = {:g} s",
        d >= 0 ? device_name(circuit.devices[static_cast<size_t>(d)]) : std::string("?"), v0,
        waveform_value(w, *bad), *bad);
  }
  return {};
}

}  // namespace detail

std::string time_varying_source(const Circuit& circuit, const Assembled& a, double horizon) {
  return detail::varying_source(circuit, a, horizon);
}

PssResult periodic_steady_state(const Circuit& circuit, const Assembled& a, const PssOptions& o) {
  if (o.trigger) return autonomous_steady_state(circuit, a, o);
  PssResult r;
  r.map = o.map;
  r.period = o.period;
  if (std::string why = o.validate(); !why.empty()) {
    r.fail(PssFailure::kInput, std::move(why));
    return r;
  }
  const detail::MadeMap made = detail::make_period_map(circuit, a, o);
  if (!made.map) {
    r.fail(PssFailure::kInput, made.failure);
    return r;
  }
  detail::PeriodMap& map = *made.map;
  r.h = map.h();
  r.theta = map.theta();
  r.exact_jacobian = map.exact_jacobian();
  if (std::string why = aperiodic_source(circuit, a, o.period); !why.empty()) {
    r.fail(PssFailure::kInput, std::move(why));
    return r;
  }
  const detail::InitialPoint init = detail::initial_point(circuit, a);
  if (!init.error.empty()) {
    r.fail(PssFailure::kInitialPoint, {init.status, init.error, init.devices, 0.0});
    return r;
  }
  PssState s{init.x, init.lambda, init.mode}, next;
  if (o.max_transient_periods > 0) r.transient_periods = periods_to_settle(circuit, a, o);
  for (int k = 0; k < o.warmup_periods; ++k) {
    if (const solvers::Summary run = map.run(s, next); !run.solved()) {
      r.fail(PssFailure::kStep, run, "warm-up: ");
      r.periods_simulated = map.count();
      return r;
    }
    s = std::move(next);
  }
  detail::shoot(map, a, o, s, r);
  r.periods_simulated = map.count();
  if (!r.ok() && o.map == PssMap::kTheta &&
      (r.failure == PssFailure::kModeSequence || r.failure == PssFailure::kNoOrbit))
    return theta_fallback(circuit, a, o, r);
  r.jacobian_fallbacks = map.fallbacks();
  r.fallback_reason = map.fallback_reason();
  r.select_step = map.select_step();
  // A transient from the initial point decays like ρ^k (ρ the largest |μ|) from its distance d0
  // to the orbit: about ln(tol/d0)/ln ρ periods (linear estimate; the start-up may differ).
  if (r.ok() && !r.multipliers.empty()) {
    const auto d = detail::dynamic_columns(a.mlcs.E);
    const double d0 =
        (detail::part(init.x, d) - detail::part(r.x0, d)).cwiseAbs().maxCoeff() / scale_of(r.x0);
    const double rho = std::abs(r.multipliers[0]);
    if (d0 > o.tol && rho > 0 && rho < 1)
      r.transient_estimate = std::ceil(std::log(o.tol / d0) / std::log(rho));
  }
  return r;
}

long periods_to_settle(const Circuit& circuit, const Assembled& a, const PssOptions& o) {
  const detail::InitialPoint init = detail::initial_point(circuit, a);
  if (!init.error.empty() || !o.validate().empty()) return -1;
  const detail::MadeMap made = detail::make_period_map(circuit, a, o);
  if (!made.map) return -1;
  PssState t{init.x, init.lambda, init.mode}, next;
  for (long k = 1; k <= o.max_transient_periods; ++k) {
    if (!made.map->run(t, next).solved()) return -1;
    const bool done = (next.x - t.x).cwiseAbs().maxCoeff() <= o.tol * scale_of(next.x);
    t = std::move(next);
    if (done) return k;
  }
  return -1;
}

solvers::Summary run_periods(
    const Circuit& circuit, const Assembled& a, const PssResult& pss, const PssOptions& options,
    int periods,
    const std::function<void(double, const Eigen::VectorXd&, const Eigen::VectorXd&)>& observer) {
  PssOptions o = options;
  o.map = pss.map;
  if (pss.period > 0) o.period = pss.period;
  if (pss.map == PssMap::kEvent && !pss.theta_fallback.empty()) o.steps_per_period = 0;
  if (pss.select_step > 0) o.select_step = pss.select_step;  // the orbit's own map
  const detail::MadeMap made = detail::make_period_map(circuit, a, o);
  if (!made.map) return made.failure;
  PssState s{pss.x0, pss.lambda0, pss.mode0}, next;
  double last_t = -1;
  // Each period's start is the end of the one before (already observed); times increase.
  const detail::PssObserver forward = [&](double t, const Eigen::VectorXd& x,
                                          const Eigen::VectorXd& l) {
    if (t <= last_t) return;
    last_t = t;
    observer(t, x, l);
  };
  for (int k = 0; k < periods; ++k) {
    if (solvers::Summary run = made.map->run(s, next, &forward, o.period * k); !run.solved())
      return run;
    s = std::move(next);
  }
  return detail::solved();
}

}  // namespace nsspice::circuit
