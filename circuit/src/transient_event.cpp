// The event-driven transient (.options method=event): options from the netlist, the initial
// point, solvers::EventDriven, and the event log with device names (docs/event-driven.md).
#include <fmt/format.h>

#include <algorithm>

#include "circuit/src/initial_point.hpp"
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

}  // namespace

TransientResult run_event_transient(const Circuit& circuit, const Assembled& assembled,
                                    const TransientOptions& options, const Observer& observer) {
  TransientResult result;
  result.method = TranMethod::kEvent;
  if (!circuit.tran) {
    result.error = "no .tran card: nothing to simulate (add e.g. '.tran 1u 1m')";
    return result;
  }
  const TranSpec& tran = *circuit.tran;
  solvers::EventOptions eo;
  eo.t_start = 0;
  eo.t_stop = tran.tstop;
  eo.rtol = options.event_rtol.value_or(circuit.event.rtol);
  eo.atol = circuit.event.atol;
  eo.time_tol = circuit.event.time_tol;
  // The largest step: --step, else .options evmaxstep, else the .tran TMAX (0: the default).
  eo.h_max = options.h.value_or(circuit.event.h_max > 0 ? circuit.event.h_max : tran.tmax);
  eo.h_init = tran.tstep;
  eo.fixed_step = options.event_fixed_step;
  // Zeno intervals go to the θ-scheme with the .tran step and the netlist's θ.
  eo.fallback_h = tran.tstep;
  eo.fallback_theta = options.theta.value_or(circuit.theta);
  // Dense output: --grid, else points every TSTEP from the collocation polynomials, so that the
  // file has no gap longer than TSTEP (peaks and averages read from it are the solution's).
  eo.output_step = options.output_step > 0 ? options.output_step
                   : options.dense_output  ? tran.tstep
                                           : 0.0;
  eo.output_from = tran.tstart;
  eo.lcp_solver = options.lcp_solver.value_or(circuit.lcp_solver);
  result.theta = eo.fallback_theta;
  result.event_rtol = eo.rtol;
  if (std::string why = eo.validate(); !why.empty()) {
    result.error = why;
    return result;
  }
  if (eo.fixed_step && !(eo.h_max > 0)) {
    result.error = "fixed steps need a step (--step or .options evmaxstep)";
    return result;
  }
  detail::InitialPoint init = detail::initial_point(circuit, assembled);
  if (!init.error.empty()) {
    result.error = init.error;
    return result;
  }
  solvers::EventDriven integrator(assembled.mlcs, eo);
  const double t_from = tran.tstart - 1e-9 * tran.tstop;
  const solvers::EventOutcome outcome =
      integrator.run(init.x, init.q, init.lambda, init.mode,
                     [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda) {
                       result.t_end = t;
                       if (t < t_from) return true;
                       ++result.points;
                       return observer(t, x, lambda);
                     });
  result.event_stats = integrator.stats();
  result.events = event_log(assembled, integrator.events());
  result.h = eo.h_max;
  if (!outcome.ok)
    result.error = fmt::format("at t = {:.12g} s: {}{}", outcome.t, outcome.message,
                               detail::pair_list(assembled, outcome.pairs));
  result.ok = result.error.empty();
  return result;
}

}  // namespace nsspice::circuit
