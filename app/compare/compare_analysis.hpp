#pragma once
// The comparison of two runs of one netlist (reference: nsspice; peer: ngspice, a file, or
// nsspice's event mode), as compare_metrics.hpp and steady_state.hpp define it:
//
//   common interval  [max(t0_ref, t0_peer), min(t_end_ref, t_end_peer)]
//   window           the common interval without the start-up: [t0 + t_skip, t_end]
//   time base        both runs' samples in the window (or a uniform grid, --grid)
//   per signal       max|e|, where, RMS, switching offsets (SignalDiff)
//   steady state     averages and ripples of the chosen signals over the last periods, when the
//                    peer reached TSTOP (a partial run has no steady state to speak of)
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/compare/compare_report.hpp"
#include "app/compare/steady_state.hpp"
#include "app/io/waveforms.hpp"

namespace nsspice::app {

struct AnalysisOptions {
  std::optional<double> startup;  // --startup T; nullopt: auto (steady_state.hpp)
  std::optional<double> grid;     // --grid H; nullopt: both runs' samples
  double switch_threshold = 1e-3;
  std::set<std::string> switching;          // signals whose switching instants are reported
  std::vector<std::string> steady_signals;  // the steady-state table's signals
  std::optional<SourcePeriod> period;       // of the circuit's sources
};

// Fills r's window, time base, diffs and steady state from the two runs (r.t_start, r.t_stop
// and r.peer set before).
void analyse(CompareResult& r, const Waveforms& ref, const Waveforms& peer,
             const AnalysisOptions& o);

// The diffs of `signals` only (a sweep row), on the window r.t_from .. min(r.t_to, the peer's
// end).
std::vector<SignalDiff> sweep_diffs(const CompareResult& r, const Waveforms& ref,
                                    const Waveforms& peer, const std::vector<std::string>& signals,
                                    const AnalysisOptions& o);

// The measurements on one run; a spec whose signals the run lacks gives a failed result.
std::vector<MeasureResult> measure(const std::vector<MeasureSpec>& specs, const Waveforms& w);

// |b − a| / scale per measurement (nullopt when either failed): scale = |a|, at least
// kQuietShare of the measured signal's largest |value| in `ref` (times `run` for an integral),
// of the run's length `run` for a time.
std::vector<std::optional<double>> measure_differences(const std::vector<MeasureSpec>& specs,
                                                       const std::vector<MeasureResult>& a,
                                                       const std::vector<MeasureResult>& b,
                                                       const Waveforms& ref, double run);

}  // namespace nsspice::app
