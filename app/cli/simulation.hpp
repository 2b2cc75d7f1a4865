#pragma once
// What `run` and `compare` share: loading a netlist (parse, flatten, elaborate, with every
// diagnostic printed) and running its transient into a RowSink.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"
#include "app/measure/measure.hpp"
#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "circuit/elaborate.hpp"
#include "circuit/transient.hpp"
#include "netlist/ast.hpp"
#include "netlist/flatten.hpp"
#include "netlist/source.hpp"

namespace nsspice::app {

inline constexpr int kBadInput = 1;
inline constexpr int kSimulationFailed = 2;
inline constexpr int kOutputFailed = 3;
inline constexpr int kPeerMissing = 4;

struct LoadedNetlist {
  netlist::SourceManager sources;
  circuit::Circuit circuit;
  // The netlist's .meas tran cards and those without an analysis (MeasureSpec::analysis): what
  // a transient run measures.
  std::vector<MeasureSpec> measures;
  std::vector<netlist::SourceSpan> measure_spans;  // where each of them is written
  // Its .meas dc and .meas ac cards and those without an analysis, in order, with where each is
  // written: what a .dc or an .ac run measures (measures_of()).
  std::vector<MeasureSpec> sweep_measures;
  std::vector<netlist::SourceSpan> sweep_measure_spans;
  // Signals of its .print/.save/.probe cards in order, once each ("v(a)", "i(r1)", "all"),
  // with where they are written (resolved against the run's signals by card_signals()).
  std::vector<netlist::Word> saved;
  // The output file named by a .control block's wrdata/write ("" if none): used when the
  // command line gives no -o.
  std::string output_file;
  std::vector<netlist::StepCard> steps;  // .step cards (values evaluated), in order
  // The parsed tree, flattened again by whatever rebuilds the circuit with other values (a .dc
  // over a .param, the runs of a sweep or a Monte Carlo: LoadOptions::reuse).
  std::optional<netlist::Netlist> parsed;
};

// What one run of a sweep or Monte Carlo changes in the netlist it loads.
struct LoadOptions {
  bool require_tran = true;
  std::map<std::string, double> params;  // top-level .param values (lower-case names)
  // Monte Carlo draws for the distribution functions (netlist::FlattenOptions::draw).
  std::function<double(bool normal)> draw;
  // When set (with `draw`), receives each drawn value in the order drawn: its name and value
  // (netlist::FlattenOptions::drawn; PSpice's DEV/LOT: "model.param", "model@device.param").
  std::vector<std::pair<std::string, double>>* drawn = nullptr;
  std::map<std::string, double> source_values;  // V/I source (lower-case name) → DC value
  // (model, parameter) in lower case → value, as if written on the .model card.
  std::map<std::pair<std::string, std::string>, double> model_params;
  std::optional<double> temp;  // .step temp: the temperature [°C], as if the last .temp card
  // Receives the diagnostics (as printed) instead of stderr when set.
  std::string* diagnostics = nullptr;
  // When set, receives the stepped sources and models that are not in the netlist (an error
  // whatever the values: a sweep stops before its first run).
  std::vector<std::string>* missing_targets = nullptr;
  // Flatten this netlist's parsed tree (with its sources) again instead of reading the file:
  // the netlist is parsed once for all the runs of a sweep.
  const LoadedNetlist* reuse = nullptr;
  // Flatten from this template instead (netlist::FlatTemplate: the runs of a sweep; `reuse` is
  // then not read). On an expression that fails with these values load_netlist returns
  // nullptr with the errors met and *flat_failed set: load again without it for every
  // diagnostic.
  const netlist::FlatTemplate* flat = nullptr;
  bool* flat_failed = nullptr;
  // Which .model cards are elaborated: those an element uses, or every one (nsspice models --all).
  circuit::ModelCards models = circuit::ModelCards::kUsed;
  // Models fitted over these current ranges (lower-case name → range: a refit after a run that
  // left the estimated ones; circuit::PwlSettings::refit).
  std::map<std::string, circuit::PwlRefit> pwl_refit;
};

// Parses, flattens and elaborates; diagnostics go to stderr. nullptr when the netlist has errors
// or (require_tran) no .tran card: the caller exits with kBadInput.
std::unique_ptr<LoadedNetlist> load_netlist(const std::string& path, bool require_tran = true);
std::unique_ptr<LoadedNetlist> load_netlist(const std::string& path, const LoadOptions& options);

// The source breakpoints in [0, t_stop] (PULSE/PWL corners): kept exactly by --grid.
std::vector<double> source_breakpoints(const circuit::Assembled& assembled, double t_stop);

struct Simulated {
  circuit::TransientResult result;
  long rows = 0;
  double t_last = 0;        // the time of the last point handed to the sink
  double wall_seconds = 0;  // the transient (assembly included), not the parse
  // FNV-1a over the 64-bit words of every point handed to the sink (t and its values, as bits):
  // equal for two runs whose points are equal bit for bit (a sweep's check that a stepped value
  // mattered).
  std::uint64_t rows_hash = 14695981039346656037ULL;
};

// Assembles and runs the transient; every point goes to `sink` (all of `signals.names`, or with
// `only` non-empty just those signals, in that order), then `progress` is told the time (for a
// progress bar; may be empty). After each point `stop` (may be empty) is asked whether to go
// on: true stops the run there (result.stopped; an interrupt or a failed output file).
Simulated simulate(const circuit::Circuit& circuit, const circuit::Assembled& assembled,
                   const circuit::SignalTable& signals, const circuit::TransientOptions& options,
                   RowSink& sink, const std::function<void(double)>& progress = {},
                   std::span<const size_t> only = {}, const std::function<bool()>& stop = {});

// Runs of one transient at most when its models are refitted (refit_ranges): the first and the
// repeats.
inline constexpr int kPwlRuns = 3;

// After run `pass`: the converted SPICE models whose junctions left their estimated current
// range (circuit::PwlRangeMiss, not a range the user set) get a refit over the range that covers
// what the run met and the previous fit's range, and the diodes whose junction charge (the VDMOS
// transistors whose gate-drain charge CGD) was off SPICE's (circuit::JunctionChargeMiss) their
// charge in segments over the voltages they met
// (PwlRefit::charge), and the MOSFETs whose LAMBDA factor was off the run's charge-weighted
// one (circuit::LambdaMiss) that factor (PwlRefit::lambda), merged into `refit`, each said
// in a note on stderr (into `notes` instead when given: a sweep's run). True when something
// changed: the caller repeats the run with load_refitted.
bool refit_ranges(const circuit::TransientResult& result, int pass,
                  std::map<std::string, circuit::PwlRefit>& refit,
                  std::vector<std::string>* notes = nullptr);

// `loaded`'s netlist elaborated again with the models of `refit` fitted over their ranges (and
// its diodes idealized again with `ideal`); its diagnostics, printed by the first load, are not
// printed again. nullptr, with the reason printed, if it does not load.
std::unique_ptr<LoadedNetlist> load_refitted(const std::string& path, const LoadedNetlist& loaded,
                                             const std::map<std::string, circuit::PwlRefit>& refit,
                                             bool ideal);

void print_error(const std::string& message);
// "file:line:col: warning: message" with the source line and a caret, on stderr.
void netlist_warning(const LoadedNetlist& loaded, netlist::SourceSpan span, std::string message);

// The netlist's .meas cards followed by the command line's --meas texts; nullopt (the error
// printed) if a text does not parse.
std::optional<std::vector<MeasureSpec>> all_measures(const LoadedNetlist& loaded,
                                                     const std::vector<std::string>& texts);

}  // namespace nsspice::app
