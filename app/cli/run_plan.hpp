#pragma once
// The plan of one `nsspice run`: the command line, the netlist's .tran/.options and the defaults
// merged once (circuit/tran_settings.hpp), every option checked, and everything the run writes
// decided (file, format, columns, derived columns, the signals the stepping evaluates, plot
// panels, measurements) BEFORE any file is opened. A bad option is bad input: the plan is not
// made and the error names the option and its allowed range.
#include <optional>
#include <string>
#include <vector>

#include "app/cli/run_command.hpp"
#include "app/cli/simulation.hpp"
#include "app/io/output_file.hpp"
#include "app/io/signals.hpp"
#include "app/measure/measure.hpp"
#include "circuit/tran_settings.hpp"
#include "circuit/transient.hpp"

namespace nsspice::app {

// What the user asked to see, by name (the input of make_output_plan).
struct OutputRequest {
  std::string save;         // the file's signals, comma separated ("" = every signal)
  std::string save_option;  // where `save` came from, for messages: "--save" or ".print/.save"
  std::string signals;      // --signals (plot selection)
  std::vector<std::string> panels;    // --panel lists
  std::vector<MeasureSpec> measures;  // the netlist's .meas, then --meas
  bool plotting = false;              // a plot is written or shown
  // The first `card_measures` of `measures` are the netlist's .meas cards: one that cannot be
  // bound is left out (OutputPlan::left_out) rather than an error.
  size_t card_measures = 0;
  // For i(X) and p(X) columns (element currents and powers); nullptr: only v(a,b).
  const circuit::Circuit* circuit = nullptr;
  // The run's rate signals ddt(u) (circuit::SignalTable::rate_names): after the circuit's
  // signals, read by i(C) columns, written only when asked for.
  std::vector<std::string> rate_names;
};

// Where every signal of the run goes. Indices are into `all_names`.
struct OutputPlan {
  std::vector<std::string> all_names;       // the circuit's signals, then the derived columns
  std::vector<DerivedColumn> derived;       // v(a,b), i(X), p(X) asked for somewhere
  std::vector<size_t> columns;              // the file's columns
  std::vector<std::vector<size_t>> layout;  // plot panels (empty when not plotting)
  bool auto_layout = false;                 // layout[0] is arranged by kind and scale after the run
  size_t plot_left_out = 0;                 // signals the default plot selection leaves out
  MeasureSet measures;                      // bound to all_names
  // The circuit's signals that the file, plot, measurements or derived columns read, ascending;
  // the stepping evaluates only these.
  std::vector<size_t> needed;
  size_t signal_count = 0;  // the circuit's own signals and rates (all_names without the derived)
  // .meas cards left out: (index into OutputRequest::measures, why).
  std::vector<std::pair<size_t, std::string>> left_out;
  bool subset() const { return needed.size() < signal_count; }
};

// The output plan of a run over `signal_names` (the circuit's signals). nullopt with `error`
// (naming the option) when a name is unknown or a measurement cannot be bound.
std::optional<OutputPlan> make_output_plan(const OutputRequest& request,
                                           const std::vector<std::string>& signal_names,
                                           std::string& error);

// The files of a run: the output (-o, else the file of a .control block's wrdata/write, else
// <netlist stem>.csv), its format (--format, else by extension) and the plot file (--plot;
// "" = none). nullopt with `error` for an unknown --format or a plot that is not .png/.svg/.pdf.
struct RunFiles {
  std::string output_path;
  OutputFormat format = OutputFormat::kCsv;
  std::string plot_path;
};
std::optional<RunFiles> run_files(const RunOptions& options, const LoadedNetlist& loaded,
                                  std::string& error);

// The analysis of a `run` (decided here only): --analysis, else the netlist's .tran, else its
// .ac, .dc or .op (the first present in that order). A .op next to the analysis that runs is
// printed too (print_op); the netlist's other analysis cards are named in `others` (a note).
enum class AnalysisKind { kTran, kOp, kDc, kAc, kPss };
struct AnalysisChoice {
  AnalysisKind kind = AnalysisKind::kTran;
  bool print_op = false;
  std::vector<std::string> others;  // ".ac", ".dc": present, not run
};
// nullopt with `error` when the netlist has no analysis card, or --analysis is unknown or names
// one that the netlist lacks.
std::optional<AnalysisChoice> choose_analysis(const std::string& option,
                                              const circuit::Circuit& circuit,
                                              const std::string& netlist_path, std::string& error);
const char* analysis_card(AnalysisKind kind);  // ".tran", ".op", ".dc", ".ac"

struct RunPlan {
  circuit::TranSettings tran;           // resolved and validated
  circuit::TransientOptions overrides;  // the command line's, as the transient driver takes them
  OutputPlan output;
  std::string output_path;  // the waveform file
  OutputFormat format = OutputFormat::kCsv;
  std::string plot_path;  // "" = no plot file
  bool plotting = false;  // a plot is written or shown
  std::optional<double> grid;
  bool event_driven = false;
};

// The whole plan, or nullopt with `error` (one message naming the option and its allowed
// range). Opens no file, prints nothing. `rate_names`: the run's rate signals
// (OutputRequest::rate_names).
std::optional<RunPlan> make_run_plan(const RunOptions& options, const LoadedNetlist& loaded,
                                     const std::vector<std::string>& signal_names,
                                     std::string& error,
                                     const std::vector<std::string>& rate_names = {});

// The .meas cards the plan left out (OutputPlan::left_out): a warning at each card, on stderr
// (a run), or as lines "file:line:col: why" (a sweep's run: RunOutcome::warnings, each distinct
// one printed once after the runs with the runs that gave it).
void warn_left_out(const LoadedNetlist& loaded, const OutputPlan& output);
std::vector<std::string> left_out_lines(const LoadedNetlist& loaded, const OutputPlan& output);

}  // namespace nsspice::app
