#pragma once
// `nsspice run NETLIST`: parse, elaborate, simulate the .tran, stream the waveforms to a CSV or
// SPICE raw file (optionally a subset, optionally resampled), measure, plot, report.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/transient.hpp"
#include "netlist/flatten.hpp"

namespace nsspice::app {

class MpiSession;

struct RunOptions {
  std::string netlist;
  std::string output;               // default: <netlist stem>.csv in the current directory
  std::string format;               // "", csv, raw, rawascii ("" = by the extension of output)
  std::string save;                 // columns of the file, comma separated (default: all signals)
  std::optional<double> grid;       // resample the file on this uniform step
  std::string plot;                 // optional .png/.svg/.pdf
  bool plot_default = false;        // --plot without a file: <netlist stem>.png
  std::string signals;              // plot selection, comma separated; default: all node voltages
  std::vector<std::string> panels;  // plot panels, each comma separated
  bool show = false;
  std::string zoom;                   // --zoom last:N ("": automatic, last 5 periods)
  std::string size;                   // --size WxH (pixels; "": from the content)
  std::string view;                   // --view FILE.html: the waveform viewer
  bool view_default = false;          // --view without a file: <netlist stem>.html
  std::vector<std::string> measures;  // --meas texts
  std::string meas_json;
  std::optional<double> theta;
  std::optional<double> step;
  std::string lcp_solver;           // "" = the netlist's .options lcpsolver
  std::string method;               // "" = the netlist's .options method; theta or event
  std::optional<double> evrtol;     // event-driven tolerance (overrides .options evrtol)
  long dump_step = 0;               // --dump-mlcp K (> 0)
  std::optional<double> dump_time;  // --dump-mlcp-time T
  std::optional<double> max_rows;   // --max-rows N: the most rows the file may get
  bool quiet = false;
  bool ideal = false;  // --ideal: SPICE diodes as the ideal diode (.options idealize)
  bool progress = true;
  // Sweeps and Monte Carlo (app/cli/sweep_command.hpp): --step-param NAME=v1,v2,..., --runs N,
  // --seed S, --jobs J (0 = every core), --spec 'MEAS LO HI'.
  std::vector<std::string> step_params;
  long runs = 0;
  std::uint64_t seed = 1;
  int jobs = 0;
  std::vector<std::string> specs;
  // --run K or --run A:B: only runs A..B (from 1) of the sweep, with the values and draws
  // they have in the whole sweep; empty: every run.
  std::optional<std::pair<std::size_t, std::size_t>> run_range;
  MpiSession* mpi = nullptr;  // --mpi: the session main started (app/sweep/mpi_runs.hpp)
  std::string analysis;       // --analysis tran|op|dc|ac ("" = chosen from the netlist's cards)

  // Empty when the command line's own numbers are in range (--grid, --dump-mlcp,
  // --dump-mlcp-time), else the option and its allowed range. theta, step and evrtol are
  // checked with the netlist's values (circuit/tran_settings.hpp), by the run plan.
  std::string validate() const;
};

// Returns the process exit code (0 success, 1 bad input, 2 simulation failure, 3 output failure).
// A netlist with .step cards, or options asking for a sweep or Monte Carlo runs, goes to
// sweep_command.
int run_command(const RunOptions& options);

struct LoadedNetlist;
struct MeasureResult;
class WaveformWriter;

// The measurements asked for, printed after the report: with -q too (-q silences the report, not
// the results), without their heading then.
void print_measures(const std::vector<MeasureResult>& measured, bool quiet);
// --meas-json FILE, when asked for; returns the exit code so far (kOutputFailed when it could not
// be written and the code was 0).
int write_meas_json(const RunOptions& options, const std::vector<MeasureResult>& measured,
                    int code);

// One run of a sweep: the plan made for `options` (its output file), the transient streamed
// into that file, or into `writer` when given (opened with the plan's file name: a writer in
// memory, as the Python module's); no report, no plot, nothing printed. `stop_signal` is polled
// after every row: a signal number (SIGINT, SIGTERM) stops the run there. `code` is 0, or 1
// (the plan), 2 (the simulation stopped), 3 (the file) or 128 + signal (interrupted: the file
// ends on the last whole row), with `message` saying why.
// What the runs of a sweep share (SweepShare, sweep_command.hpp): the nominal circuit's assembly
// pattern, on which a run's circuit is restamped when its stamps fit it, and the θ-stepper's
// symbolic analyses of that pattern, used by a restamped run. Read-only; outlives the runs.
struct RunShare {
  const circuit::AssemblyPattern* pattern = nullptr;
  const solvers::StepperAnalyses* analyses = nullptr;
  const netlist::FlatTemplate* flat = nullptr;  // the netlist flattened once (sweep_run)
};

// How a sweep's run's matrices were made: restamped on the sweep's pattern, or assembled anew
// (its structure differs from the pattern's); kNone: not a sweep's run, or its netlist failed.
enum class RunAssembly { kNone, kRestamped, kRebuilt };
// How a sweep's run's netlist was flattened: from the sweep's flat template (its values
// evaluated again on the nominal's flat cards), or anew from the parsed tree (no template, or
// an expression failed with the run's values: the whole path gives every diagnostic).
enum class RunFlatten { kNone, kTemplate, kAnew };

struct RunOutcome {
  int code = 0;
  std::string message;
  std::vector<MeasureResult> measures;
  long rows = 0;
  double t_end = 0;
  std::vector<std::string> warnings;
  std::string output_path;
  circuit::TransientResult transient;  // statistics, step rule, events (the run report)
  // A Monte Carlo run's drawn values, in the order drawn (LoadOptions::drawn).
  std::vector<std::pair<std::string, double>> drawn;
  std::uint64_t rows_hash = 0;  // Simulated::rows_hash
  double stepping_seconds = 0;  // the transient's wall time (assembly included)
  RunAssembly assembly = RunAssembly::kNone;
  bool shared_analysis = false;  // the θ-stepper factored with RunShare::analyses
  RunFlatten flatten = RunFlatten::kNone;
  std::string rebuilt_because;  // kRebuilt: how its structure differs ("9 unknowns, the ...")
};
// With `share`, the circuit is restamped on share->pattern when its stamps fit (then the
// stepper uses share->analyses), else assembled anew; the results are the same bit for bit.
RunOutcome run_to_file(const RunOptions& options, const LoadedNetlist& loaded,
                       const std::function<int()>& stop_signal, WaveformWriter* writer = nullptr,
                       const RunShare* share = nullptr);

}  // namespace nsspice::app
