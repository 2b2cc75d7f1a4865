// The event-driven transient (.options method=event): options from the netlist, the initial
// point, solvers::EventDriven, and the event log with device names (docs/event-driven.md).
#include <fmt/format.h>

#include <algorithm>

#include "circuit/explain.hpp"
#include "circuit/src/inductor_cuts.hpp"
#include "circuit/src/initial_point.hpp"
#include "circuit/src/step_bounds.hpp"
#include "circuit/src/unstable_start.hpp"
#include "circuit/tran_settings.hpp"
#include "circuit/transient.hpp"

namespace nsspice::circuit {
namespace {

std::vector<EventLogEntry> event_log(const Assembled& a,
                                     const std::vector<solvers::EventRecord>& records) {
  std::vector<EventLogEntry> out;
  out.reserve(records.size());
  for (const auto& r : records) {
    EventLogEntry e;
    e.t = r.t;
    e.cause = solvers::to_string(r.cause);
    if (r.pair >= 0) {
      e.device = a.pair_names[static_cast<size_t>(r.pair)];
      if (static_cast<size_t>(r.pair) < a.pair_roles.size())
        e.pair = a.pair_roles[static_cast<size_t>(r.pair)];
      e.transition = r.on ? "off->on" : "on->off";
    } else {
      e.transition = "jump";
    }
    e.impulse = r.impulse;
    if (r.jump_unknown >= 0) {
      e.jump_signal = a.unknown_names[static_cast<size_t>(r.jump_unknown)];
      e.jump_from = r.jump_from;
      e.jump_to = r.jump_to;
    }
    out.push_back(std::move(e));
  }
  return out;
}

// A row per cut (inductor_cuts.hpp) in the event log, after the events of its time: device the
// inductor, transition "cut", cause "switch S", impulse the flux L·Δi (V·s), the jump of i(L).
void add_cuts(const std::vector<detail::InductorCut>& cuts, std::vector<EventLogEntry>& log) {
  for (const auto& c : cuts) {
    EventLogEntry e;
    e.t = c.t;
    e.device = c.inductor;
    e.transition = "cut";
    e.cause = "switch " + c.switches;
    e.impulse = c.impulse();
    e.jump_signal = "i(" + c.inductor + ")";
    e.jump_from = c.i_before;
    e.jump_to = c.i_after;
    const auto at = std::upper_bound(log.begin(), log.end(), c.t,
                                     [](double t, const EventLogEntry& x) { return t < x.t; });
    log.insert(at, std::move(e));
  }
}

}  // namespace

TransientResult run_event_transient(const Circuit& circuit, const Assembled& assembled,
                                    const TransientOptions& options, const Observer& observer) {
  TransientResult result;
  result.method = TranMethod::kEvent;
  if (!circuit.tran) {
    result.fail(solvers::Status::kInvalidInput,
                "no .tran card: nothing to simulate (add e.g. '.tran 1u 1m')");
    return result;
  }
  const TranSettings settings = resolve_tran_settings(circuit, options);
  solvers::EventOptions eo;
  eo.t_start = 0;
  eo.t_stop = settings.tstop;
  eo.rtol = settings.event_rtol;
  eo.atol = settings.event_atol;
  eo.time_tol = settings.event_time_tol;
  // The largest step: --step, else .options evmaxstep, else the .tran TMAX (0: the default).
  eo.h_max = settings.event_h_max;
  eo.h_init = settings.output_step;
  eo.fixed_step = options.event_fixed_step;
  // Zeno intervals go to the θ-scheme with the netlist's θ in steps of the shortest source time
  // scale, at most a 10⁴th of the run; modes numerically singular at the step asked for go to
  // the error-controlled θ-scheme with the netlist's tolerances, its steps bounded as in a
  // θ-scheme run (TMAX, else a 50th of the run, and the sources' content). Nothing here comes
  // from TSTEP, which is a print interval.
  const double span = settings.tstop - settings.tstart;
  const double bound = detail::source_step_bound(circuit).first;
  eo.fallback_h = std::min(bound, span / 1e4);
  eo.fallback_h_max = std::min(settings.tmax > 0 ? settings.tmax : span / 50, bound);
  eo.fallback_theta = settings.theta;
  eo.fallback_reltol = settings.stepping.reltol;
  eo.fallback_atol = detail::error_floors(assembled, settings.stepping);
  // Dense output: --grid, else points every print interval from the collocation polynomials, so
  // that the file has no gap longer than that (peaks and averages read from it are the
  // solution's).
  eo.output_step = options.output_step > 0 ? options.output_step
                   : options.dense_output  ? settings.output_step
                                           : 0.0;
  eo.output_from = settings.tstart;
  eo.lcp_solver = settings.lcp_solver;
  result.theta = eo.fallback_theta;
  result.event_rtol = eo.rtol;
  if (std::string why = eo.validate(); !why.empty()) {
    result.fail(solvers::Status::kInvalidInput, std::move(why));
    return result;
  }
  if (eo.fixed_step && !(eo.h_max > 0)) {
    result.fail(solvers::Status::kInvalidInput,
                "fixed steps need a step (--step or .options evmaxstep)");
    return result;
  }
  detail::InitialPoint init = detail::initial_point(circuit, assembled);
  if (!init.error.empty()) {
    result.fail(init.status, init.error, 0.0, init.devices);
    return result;
  }
  result.warnings.insert(result.warnings.end(), init.warnings.begin(), init.warnings.end());
  if (!circuit.tran->uic)
    detail::leave_unstable_equilibrium(circuit, assembled, settings.tstop - settings.tstart, init,
                                       result.warnings);
  solvers::EventDriven integrator(assembled.mlcs, eo);
  const double t_from = settings.tstart - 1e-9 * settings.tstop;
  // Inductor currents cut by opening switches: the point before and the mode then.
  const detail::CutDetector cuts(circuit, assembled);
  std::vector<detail::InductorCut> cut_list;
  Eigen::VectorXd x_prev;
  std::vector<char> mode_prev;
  double t_prev = 0;
  const solvers::EventOutcome outcome = integrator.run(
      init.x, init.q, init.lambda, init.mode,
      [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
          const Eigen::VectorXd& xdot) {
        if (cuts.active()) {
          if (x_prev.size() == x.size())
            cuts.check(t_prev, x_prev, x, cuts.opened(mode_prev, integrator.mode()), cut_list);
          t_prev = t;
          x_prev = x;
          mode_prev = integrator.mode();
        }
        result.t_end = t;
        if (t < t_from) return true;
        ++result.points;
        result.stopped = !observer(t, x, lambda, xdot);
        return !result.stopped;
      });
  result.event_stats = integrator.stats();
  result.events = event_log(assembled, integrator.events());
  add_cuts(cut_list, result.events);
  detail::report_cuts(cut_list, result.warnings);
  result.h = eo.h_max;
  if (!outcome.ok()) {
    // A singular mode: the elements of its singular block (the pencil (E, G) of a mode whose
    // DAE has no unique solution is singular for every step, so one δ serves).
    const double delta = settings.output_step;
    const ModeDiagnosis why = explain_mode(assembled, delta, integrator.mode());
    result.fail(
        outcome.status,
        fmt::format("at t = {:.12g} s: {}", outcome.t,
                    why.with(outcome.message + detail::pair_list(assembled, outcome.pairs))),
        outcome.t, detail::failure_devices(assembled, why, outcome.pairs));
  }
  return result;
}

}  // namespace nsspice::circuit
