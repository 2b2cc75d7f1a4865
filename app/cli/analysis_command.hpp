#pragma once
// `nsspice run` of an .op, .dc or .ac analysis (docs/analyses.md): the operating point printed
// (and written with -o), the DC sweep or the AC response written as CSV or SPICE raw, plotted
// with --plot (a Bode plot for .ac). The choice of the analysis is the run plan's
// (choose_analysis in run_plan.hpp).
#include <optional>
#include <string>
#include <vector>

#include "app/cli/run_command.hpp"
#include "app/cli/run_plan.hpp"
#include "app/cli/simulation.hpp"
#include "circuit/analysis.hpp"
#include "circuit/transient.hpp"

namespace nsspice::app {

// Runs `choice.kind` (not kTran) on the loaded netlist; the process exit code.
int analysis_command(const RunOptions& options, const LoadedNetlist& loaded,
                     const AnalysisChoice& choice);

// The operating point as printed: node voltages, branch currents, then each nonsmooth device's
// state and current.
std::string format_operating_point(const circuit::Circuit& circuit,
                                   const circuit::Assembled& assembled,
                                   const circuit::SignalTable& signals,
                                   const circuit::StaticSolution& op);

// A device's state at the operating point ("conducting", "blocking", "breakdown", "on", "off",
// or the modes of its pairs), from the modes of its complementarity pairs.
std::string device_state(const circuit::Device& device, const std::vector<char>& pair_modes);

// The signals of the file and the plot (indices into `names`): --save, else the netlist's
// .print/.save/.probe signals among `names`, else all. nullopt with `error` for an unknown --save.
std::optional<std::vector<size_t>> chosen_signals(const RunOptions& options,
                                                  const LoadedNetlist& loaded,
                                                  const std::vector<std::string>& names,
                                                  std::string& error);

// A warning at each .meas card a run of `kind` does not measure: one written for another analysis
// (a .meas ac card on a .tran run), and every card on an .op run. (.meas cards without an
// analysis measure whichever analysis runs, as LTspice's.)
void warn_other_measures(const LoadedNetlist& loaded, AnalysisKind kind);

// Prints the operating point of the loaded netlist (the .op next to a .tran); false, with the
// error printed, when it has none.
bool print_operating_point(const LoadedNetlist& loaded);

}  // namespace nsspice::app
