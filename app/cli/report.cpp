#include "app/cli/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "app/io/event_log.hpp"

namespace nsspice::app {
namespace {

// The event mode's θ-scheme intervals: the Zeno ones (the first kShown, then a count), and the
// ones asked for by a numerically singular stage matrix in one line.
template <typename Line>
void fallback_lines(const std::vector<solvers::FallbackInterval>& fallbacks, Line& line) {
  constexpr size_t kShown = 5;
  size_t zeno = 0, singular = 0;
  double singular_time = 0, h_min = 0;
  for (const auto& f : fallbacks) {
    if (f.singular_h > 0) {
      h_min = singular++ ? std::min(h_min, f.singular_h) : f.singular_h;
      singular_time += f.t_end - f.t_begin;
      continue;
    }
    if (zeno++ < kShown)
      line("Zeno fallback",
           fmt::format("{} events accumulated: theta-scheme over t = {:.9g} .. {:.9g} s", f.events,
                       f.t_begin, f.t_end));
  }
  if (zeno > kShown) line("Zeno fallback", fmt::format("... {} more intervals", zeno - kShown));
  if (singular > 0)
    line(
        "stiff fallback",
        fmt::format("{} intervals, {:.3g} s in all, theta-scheme where the mode's stage matrix was "
                    "numerically singular at the step asked for (down to {:.3g} s)",
                    singular, singular_time, h_min));
}

}  // namespace

std::string format_report(const circuit::TransientResult& r, double wall, double stepping,
                          const std::string& output, long rows) {
  const auto& s = r.stats;
  std::string out;
  auto line = [&](std::string_view key, const std::string& value) {
    out += fmt::format("  {:<18} {}\n", key, value);
  };
  // The heading says how the run ended (solvers/status.hpp's vocabulary).
  out += fmt::format("run report ({})\n",
                     r.stopped            ? std::string("interrupted")
                     : r.summary.solved() ? std::string("completed")
                     : r.ok()
                         ? std::string("completed, inaccurate")
                         : fmt::format("stopped early: {}", solvers::to_string(r.summary.status)));
  if (r.method == circuit::TranMethod::kEvent) {
    const auto& e = r.event_stats;
    line("scheme",
         fmt::format("event-driven, Radau IIA (order 5), evrtol = {:.3g}, t = 0 .. {:.6g} s",
                     r.event_rtol, r.t_end));
    line("steps",
         fmt::format("{} accepted, {} rejected; {} Radau solves, {} factorizations{}", e.steps,
                     e.rejected, e.radau_steps, e.factorizations,
                     e.fallback_steps ? fmt::format("; {} theta-scheme steps", e.fallback_steps)
                                      : std::string()));
    line("events", fmt::format("{} located ({} step-map evaluations), {} mode changes, {} mode "
                               "selections, {} state jumps",
                               e.events, e.refinements, e.mode_changes, e.selections, e.jumps));
    fallback_lines(e.fallbacks, line);
    if (!r.events.empty()) out += "  event log\n" + format_event_log(r.events, 12);
    line("wall time", fmt::format("{:.3f} s; stepping {:.3f} s", wall, stepping));
    line("output", fmt::format("{} ({} rows)", output, rows));
    return out;
  }
  line("scheme", fmt::format("theta = {}, t = 0 .. {:.6g} s", r.theta, r.t_end));
  line("step choice", r.step_rule);
  line("steps", fmt::format("{} accepted, {} rejected ({} backward-Euler restarts, {} breakpoints)",
                            s.steps, s.rejected_steps, s.restart_steps, s.breakpoints));
  if (s.damped_ringing > 0)
    line("ringing", fmt::format("{} times the trapezoidal rule's (-1)^k mode in an algebraic "
                                "unknown was damped by backward-Euler steps",
                                s.damped_ringing));
  if (s.rounding_steps > 0)
    line("rounding", fmt::format("{} step error estimates above tolerance were within the "
                                 "rounding noise of the step's terms E x/(θh) and passed "
                                 "(theory.md §11.2)",
                                 s.rounding_steps));
  if (s.steps > 0 && s.h_largest > 0)
    line("step sizes", fmt::format("{:.3g} .. {:.3g} s", s.h_smallest, s.h_largest));
  if (s.located_events > 0)
    line("switching",
         fmt::format("{} instants located inside steps ({} extra solves){}", s.located_events,
                     s.location_solves,
                     s.located_kinks > 0 ? fmt::format("; {} of them segment changes of PWL models",
                                                       s.located_kinks)
                                         : std::string()));
  if (s.switch_jumps > 0)
    line("switch jumps",
         fmt::format("{} instants of switch openings solved for their state jump ({} solves; {} "
                     "needed vanishing steps; theory.md §5.7)",
                     s.switch_jumps, s.jump_solves, s.vanishing_jumps));
  if (s.kink_steps > 0)
    line("PWL kinks", fmt::format("{} steps across segment changes of PWL models, taken without "
                                  "location or restart (.options pwlkinks=smooth; a junction "
                                  "charge's knots below 0 V always)",
                                  s.kink_steps));
  if (s.fallback_steps > 0)
    line("accumulations", fmt::format("{} backward-Euler steps without location over {:.6g} s "
                                      "(chattering or sliding)",
                                      s.fallback_steps, s.fallback_time));
  line("LCP solves",
       fmt::format("{} with pivoting, {} pivots, {} mode changes{}{}", s.lemke_calls, s.pivots,
                   s.mode_changes,
                   s.answer_reuses > 0
                       ? fmt::format("; {} answered without pivoting by the mode that the last "
                                     "pivoting from the same mode reached",
                                     s.answer_reuses)
                       : std::string(),
                   s.transform_hits > 0
                       ? fmt::format("; {} pivotings on a kept transform", s.transform_hits)
                       : std::string()));
  if (s.singular_answers > 0)
    line("singular modes",
         fmt::format("{} steps answered in a mode whose circuit matrix is singular (a node "
                     "floating between blocking junctions, pinned by the pivot basis where a pair "
                     "is at its edge; theory.md §6.4)",
                     s.singular_answers));
  if (s.held_solves > 0)
    line("switch diodes", fmt::format("{} solves held diodes across closed ideal switches off "
                                      "(their current is the switch's; solvers.md §8)",
                                      s.held_solves));
  std::string methods;
  for (size_t k = 1; k < s.lcp_methods.size(); ++k)
    if (s.lcp_methods[k] > 0)
      methods += fmt::format("{}{} {}", methods.empty() ? "" : ", ", s.lcp_methods[k],
                             solvers::to_string(static_cast<solvers::LcpSolverKind>(k)));
  if (s.lcp_methods[0] > 0) methods += fmt::format(", {} unanswered", s.lcp_methods[0]);
  if (!methods.empty()) line("LCP methods", methods);
  line("factorizations",
       fmt::format("{} full + {} refactorizations; cache {} hits / {} misses{}", s.factorizations,
                   s.refactorizations, s.cache_hits, s.cache_misses,
                   s.low_rank_modes > 0 ? fmt::format("; {} modes by low-rank updates ({} solves)",
                                                      s.low_rank_modes, s.low_rank_solves)
                                        : std::string()));
  const double dense_mb = 8.0 * static_cast<double>(s.max_dense_order) *
                          static_cast<double>(s.max_dense_order) / 1048576.0;
  line("memory",
       fmt::format("factor caches at most {:.1f} MB (budget {:.0f} MB) over {} step sizes ({} off "
                   "the ladder; {} at once); mode structures {:.1f} MB; dense matrices of the LCP "
                   "solves {}",
                   s.factor_peak_bytes / 1048576.0, s.factor_budget_bytes / 1048576.0,
                   s.step_solvers, s.odd_step_solvers, s.max_live_solvers,
                   s.structure_bytes / 1048576.0,
                   s.max_dense_order > 0
                       ? fmt::format("{} built, largest {}x{} ({:.3g} MB)", s.dense_allocations,
                                     s.max_dense_order, s.max_dense_order, dense_mb)
                       : std::string("none")));
  line("complementarity",
       fmt::format(
           "max relative residual {:.2g}{}", s.max_residual,
           s.inaccurate ? fmt::format(", {} inaccurate steps", s.inaccurate) : std::string()));
  if (!s.impulse_times.empty())
    line("impulses", fmt::format("{} impulsive step(s), first at t = {:.6g} s (state jump)",
                                 s.impulse_times.size(), s.impulse_times.front()));
  const double steps = s.steps ? static_cast<double>(s.steps) : 1.0;
  line("wall time", fmt::format("{:.3f} s ({:.2f} µs/step); stepping {:.3f} s ({:.2f} µs/step)",
                                wall, 1e6 * wall / steps, stepping, 1e6 * stepping / steps));
  line("output", fmt::format("{} ({} rows)", output, rows));
  return out;
}

}  // namespace nsspice::app
