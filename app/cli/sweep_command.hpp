#pragma once
// Sweeps and Monte Carlo for `nsspice run` (docs/sweeps.md):
//   * the dimensions: the netlist's .step cards, then --step-param options (one of the same name
//     replaces the card); the runs: their Cartesian product (app/sweep/sweep_points.hpp), each
//     point repeated --runs N times with fresh draws of the distribution functions when N > 0;
//   * execution: --jobs J threads (default: every core), or with --mpi the ranks of an MPI job
//     (app/sweep/mpi_runs.hpp; J threads per rank, default 1); each run evaluates its values
//     and draws on the netlist flattened once (SweepShare's netlist::FlatTemplate; anew from
//     the parsed tree when an expression fails with its values) and elaborates it; its
//     matrices are restamped on the nominal circuit's sparsity pattern (SweepShare) when its
//     structure is the nominal's, and its θ-stepper then factors with the symbolic analyses made
//     once for that pattern, else they are assembled and analyzed anew (the report counts both); it
//     is simulated into its own file; nothing is shared between runs but read-only data (the
//     options, the parsed tree, the flat template, the pattern and analyses), so a run's result
//     does not depend on J, on the ranks or on the order of completion;
//   * files: a .raw output holds one plot per run, in run order (ngspice's multi-plot raw);
//     a .csv output gives one file per run, <stem>.run<K>.csv (K from 1); `-o DIR/` puts
//     <netlist stem>.run<K>.csv in DIR. <output stem>.meas.csv holds one row per run
//     (app/sweep/sweep_tables.hpp);
//   * report: runs done and failed (each failure with its values and reason), the summary of
//     each measurement and, with --spec 'NAME LO HI', its yield; --plot draws the runs over
//     each other and, for Monte Carlo, a histogram per measurement (app/sweep/sweep_plot.hpp).
// Exit 0 when every run succeeded, 2 when one failed (the others still ran and were written),
// 1 for bad input (nothing run), 3 when a file could not be written.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/run_command.hpp"
#include "app/cli/simulation.hpp"
#include "app/sweep/sweep_points.hpp"

namespace nsspice::app {

class WaveformWriter;

// The runs of a sweep.
struct SweepPlan {
  // .param values of every run, under the dimensions' own (the Python module's params=).
  std::map<std::string, double> params;
  std::vector<SweepDimension> dims;
  std::vector<SweepRun> runs;
  bool monte_carlo = false;
  std::uint64_t seed = 1;
};

// nullopt for bad input, with `printed` holding the error as `run` prints it (a .step card's
// diagnostic with its line and caret, or "nsspice: error: ...").
std::optional<SweepPlan> make_sweep_plan(const RunOptions& options, const LoadedNetlist& nominal,
                                         std::string& printed);

// What every run of a sweep shares, made once from the nominal netlist before the runs: its
// parsed tree flattened once (netlist::FlatTemplate, with the parameter names of the plan's
// runs; none when the nominal has no parsed tree), the nominal circuit's assembly pattern
// (circuit::AssemblyPattern) and the θ-stepper's symbolic analyses of it
// (solvers::StepperAnalyses). Read-only once made: the runs of every thread use it at once.
class SweepShare {
 public:
  SweepShare(const LoadedNetlist& nominal, const SweepPlan& plan);
  RunShare share() const { return {&pattern_, &analyses_, flat_ ? &*flat_ : nullptr}; }

 private:
  std::optional<netlist::FlatTemplate> flat_;
  circuit::AssemblyPattern pattern_;
  solvers::StepperAnalyses analyses_;
};

// Run k of `plan`: the nominal netlist's parsed tree flattened with the run's values and draws
// (LoadOptions::reuse; with `share`, from its flat template, and anew when an expression fails
// with the run's values: RunOutcome::flatten), elaborated and simulated by run_to_file with
// `options` (whose output is the run's file), or into `writer`; with `share`, restamped on its
// pattern when the run's structure is the nominal's (RunOutcome::assembly). A run whose netlist has
// errors gets code 1, its diagnostics in `diagnostics`.
RunOutcome sweep_run(const RunOptions& options, const LoadedNetlist& nominal, const SweepPlan& plan,
                     std::size_t k, const std::function<int()>& stop_signal,
                     std::string& diagnostics, WaveformWriter* writer = nullptr,
                     const RunShare* share = nullptr);

// The values of run k, for messages and legends: "r=500 c=1e-06", "trial 3".
std::string run_label(const SweepPlan& plan, std::size_t k);

int sweep_command(const RunOptions& options, const LoadedNetlist& nominal);

}  // namespace nsspice::app
