// Periodic steady state (circuit/pss.hpp; docs/theory.md §13): the checks of the input, the
// warm-up, shooting-Newton on the chosen period map (pss_newton.cpp, pss_map.hpp), the count of
// periods a plain transient needs, and the output of the orbit.
#include "circuit/pss.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/initial_point.hpp"
#include "circuit/src/pss_map.hpp"

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

}  // namespace detail

const char* to_string(PssFailure failure) {
  switch (failure) {
    case PssFailure::kNone:
      return "none";
    case PssFailure::kInput:
      return "input";
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
  }
  return "?";
}

std::string PssOptions::validate() const {
  if (!(period > 0) || !std::isfinite(period))
    return fmt::format("the period must be > 0 s, got {:g}", period);
  if (!(tol > 0 && tol < 1)) return fmt::format("the tolerance must be in (0, 1), got {:g}", tol);
  if (warmup_periods < 0) return "the warm-up periods must be >= 0";
  if (max_newton < 1) return "at least one Newton iteration";
  if (steps_per_period < 0)
    return fmt::format("the steps per period must be >= 1, got {}", steps_per_period);
  if (finite_difference && map != PssMap::kEvent)
    return "the finite-difference Jacobian is an option of the event map (the theta map always "
           "uses it)";
  return {};
}

PssResult periodic_steady_state(const Circuit& circuit, const Assembled& a, const PssOptions& o) {
  PssResult r;
  r.map = o.map;
  r.failure = PssFailure::kInput;
  if (r.error = o.validate(); !r.error.empty()) return r;
  const auto map = detail::make_period_map(circuit, a, o, r.error);
  if (!map) return r;
  r.h = map->h();
  r.theta = map->theta();
  r.exact_jacobian = map->exact_jacobian();
  if (r.error = aperiodic_source(circuit, a, o.period); !r.error.empty()) return r;
  const detail::InitialPoint init = detail::initial_point(circuit, a);
  if (!init.error.empty()) {
    r.error = init.error;
    return r;
  }
  r.failure = PssFailure::kNone;
  PssState s{init.x, init.lambda, init.mode}, next;
  if (o.max_transient_periods > 0) r.transient_periods = periods_to_settle(circuit, a, o);
  std::string error;
  for (int k = 0; k < o.warmup_periods; ++k) {
    if (!map->run(s, next, error)) {
      r.failure = PssFailure::kStep;
      r.error = "warm-up: " + error;
      r.periods_simulated = map->count();
      return r;
    }
    s = std::move(next);
  }
  detail::shoot(*map, a, o, s, r);
  r.periods_simulated = map->count();
  r.jacobian_fallbacks = map->fallbacks();
  r.fallback_reason = map->fallback_reason();
  // A transient from the initial point decays like ρ^k (ρ the largest |μ|) from its distance d0
  // to the orbit: about ln(tol/d0)/ln ρ periods (linear estimate; the start-up may differ).
  if (r.ok && !r.multipliers.empty()) {
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
  std::string error;
  if (!init.error.empty() || !o.validate().empty()) return -1;
  const auto map = detail::make_period_map(circuit, a, o, error);
  if (!map) return -1;
  PssState t{init.x, init.lambda, init.mode}, next;
  for (long k = 1; k <= o.max_transient_periods; ++k) {
    if (!map->run(t, next, error)) return -1;
    const bool done = (next.x - t.x).cwiseAbs().maxCoeff() <= o.tol * scale_of(next.x);
    t = std::move(next);
    if (done) return k;
  }
  return -1;
}

bool run_periods(
    const Circuit& circuit, const Assembled& a, const PssResult& pss, const PssOptions& options,
    int periods,
    const std::function<void(double, const Eigen::VectorXd&, const Eigen::VectorXd&)>& observer,
    std::string& error) {
  const auto map = detail::make_period_map(circuit, a, options, error);
  if (!map) return false;
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
    if (!map->run(s, next, error, &forward, options.period * k)) return false;
    s = std::move(next);
  }
  return true;
}

}  // namespace nsspice::circuit
