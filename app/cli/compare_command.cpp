#include "app/cli/compare_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#include "app/cli/interrupt.hpp"
#include "app/cli/simulation.hpp"
#include "app/cli/view_command.hpp"
#include "app/compare/compare_analysis.hpp"
#include "app/compare/compare_report.hpp"
#include "app/compare/compare_setup.hpp"
#include "app/compare/compare_signals.hpp"
#include "app/compare/ngspice_ladder.hpp"
#include "app/compare/ngspice_peer.hpp"
#include "app/compare/ngspice_runner.hpp"
#include "app/compare/peer_file.hpp"
#include "app/compare/spice_params.hpp"
#include "app/compare/user_models.hpp"
#include "app/io/element_columns.hpp"
#include "app/io/file_write.hpp"
#include "app/io/signals.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "circuit/elaborate.hpp"
#include "circuit/tran_settings.hpp"
#include "netlist/flatten.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Is `signal` i(X) or p(X) of one of `elements`?
bool of_element(const std::string& signal, const std::vector<std::string>& elements) {
  return std::any_of(elements.begin(), elements.end(), [&](const std::string& e) {
    return signal == "i(" + e + ")" || signal == "p(" + e + ")";
  });
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Which question (compare_command.hpp); "" error when the options ask for one the netlist
// cannot answer.
Question choose_question(const CompareOptions& o, const circuit::Circuit& c, std::string& error) {
  if (o.methods) return Question::kMethods;
  if (!o.against.empty()) return Question::kFile;
  const bool spice = has_spice_models(c);
  if (o.models == "user" && !spice)
    error =
        "--models user: the netlist has no SPICE model card (a diode with IS/N/RS..., a level-1 "
        "MOSFET): there is nothing of yours for ngspice to run; leave --models out";
  if (o.models == "user") return Question::kUserModels;
  if (o.models == "regularized" || o.sweep || !spice) return Question::kRegularized;
  return Question::kUserModels;
}

// The viewer of both runs: the reference's samples, and the peer's interpolated (linearly) at
// their times as "<signal> <peer>".
int write_compare_view(const std::string& path, const CompareResult& r, const Waveforms& ns,
                       const Waveforms& ng, const std::vector<std::string>& signals) {
  Waveforms both;
  both.time = ns.time;
  for (const auto& name : signals) {
    const auto a = ns.index(name), b = ng.index(name);
    if (!a || !b) continue;
    both.names.push_back(name);
    both.columns.push_back(ns.columns[*a]);
    std::vector<double> resampled;
    resampled.reserve(ns.time.size());
    for (double t : ns.time) resampled.push_back(interpolate(ng.time, ng.columns[*b], t));
    both.names.push_back(name + " " + r.peer_label);
    both.columns.push_back(std::move(resampled));
  }
  std::vector<MeasureResult> measured = r.meas_nsspice;
  for (auto m : r.meas_ngspice) {
    m.name += " (" + r.peer_label + ")";
    measured.push_back(std::move(m));
  }
  return write_view_file(path, both, r.title,
                         fmt::format("{}: {} and {}", r.netlist, r.ref_label, r.peer_label),
                         format_compare(r), measured);
}

}  // namespace

std::string CompareOptions::validate() const {
  if (!(timeout_seconds > 0) || !std::isfinite(timeout_seconds))
    return fmt::format("--timeout {:g}: must be positive (seconds)", timeout_seconds);
  if (!(stall_seconds > 0) || !std::isfinite(stall_seconds))
    return fmt::format("--stall {:g}: must be positive (seconds)", stall_seconds);
  if (!(switch_threshold > 0 && switch_threshold < 1))
    return fmt::format("--switch-threshold {:g}: must be in (0, 1)", switch_threshold);
  if (grid && !(*grid > 0 && std::isfinite(*grid)))
    return fmt::format("--grid {:g}: must be positive (a step in seconds)", *grid);
  if (startup && !(*startup >= 0 && std::isfinite(*startup)))
    return fmt::format("--startup {:g}: must be >= 0 (seconds) or 'auto'", *startup);
  for (double n : sweep_n)
    if (!(n > 0) || !std::isfinite(n)) return fmt::format("--sweep-n {:g}: must be positive", n);
  if (!models.empty() && models != "user" && models != "regularized")
    return fmt::format("--models {}: must be 'user' or 'regularized'", models);
  if (methods && !against.empty()) return "--methods and --against exclude each other";
  if (sweep && (methods || !against.empty()))
    return "--sweep-ideality runs ngspice: not with --methods or --against";
  if (sweep && models == "user")
    return "--sweep-ideality asks question 2 (regularized devices): not with --models user";
  if (!map.empty() && against.empty())
    return "--map renames the signals of --against FILE: give --against";
  for (const auto& m : map)
    if (!parse_map(m)) return fmt::format("--map '{}': expected FILE_NAME=NSSPICE_NAME", m);
  return translate.validate();
}

namespace {

// One compare, phase after phase; each phase returns 0 or the exit code to stop with.
class CompareRun {
 public:
  CompareRun(const CompareOptions& o, const InterruptScope& interrupt)
      : o_(o), interrupt_(interrupt), stop_([&interrupt] { return interrupt.requested(); }) {}

  int run() {
    for (auto phase : {&CompareRun::load, &CompareRun::reference, &CompareRun::choose_signals,
                       &CompareRun::write_reference, &CompareRun::peer})
      if (const int code = (this->*phase)(); code != 0) return code;
    compare();
    if (const int code = sweep(); code != 0) return code;
    return finish();
  }

 private:
  const CompareOptions& o_;
  const InterruptScope& interrupt_;
  std::function<bool()> stop_;
  std::string ngspice_;
  std::unique_ptr<LoadedNetlist> loaded_;
  std::unique_ptr<LoadedNetlist> refitted_;  // loaded_ with refitted models (refit_ranges)
  Question question_ = Question::kRegularized;
  UserModels user_models_;
  CompareResult r_;
  Waveforms ns_, peer_;
  Waveforms ns_file_;  // nsspice's run as it came (nsspice.raw), written once the options are
                       // checked: a bad --signals or --meas leaves no directory
  Simulated sim_;
  std::string dir_;
  double load_seconds_ = 0;  // parse, flatten, elaborate
  int code_ = 0;             // 3 (a file not written) before 2 (nsspice failed)
  std::vector<MeasureSpec> specs_;
  std::vector<std::string> plot_signals_, wanted_;
  std::vector<std::string> ns_notes_;
  std::vector<std::string> left_out_;  // nsspice's elements not in ngspice's deck  // what compare
                                       // changed of nsspice's signals
  std::set<std::string> switching_;
  TranslateOptions translate_;
  AnalysisOptions analysis_;

  // The netlist's transient into `w` (every signal), stopped by an interrupt; with its refitted
  // models when a run has left their estimated ranges (reference()).
  Simulated run_into(Waveforms& w, const circuit::TransientOptions& options) const {
    const circuit::Circuit& c = refitted_ ? refitted_->circuit : loaded_->circuit;
    const circuit::Assembled assembled = circuit::assemble(c);
    const circuit::SignalTable table = circuit::make_signals(c, assembled);
    w.title = c.title;
    w.names = table.names;
    WaveformCollector collector(w);
    return simulate(c, assembled, table, options, collector, {}, {}, stop_);
  }
  const circuit::Circuit& circuit() const {
    return refitted_ ? refitted_->circuit : loaded_->circuit;
  }
  // The v(a,b), i(X), p(X) asked for that a run lacks, computed from its signals; not the
  // currents of the elements the translation left out (ngspice's models hold them).
  void derive(Waveforms& w, const std::vector<std::string>& left_out) const {
    std::vector<std::string> wanted;
    for (const auto& s : wanted_)
      if (!of_element(s, left_out)) wanted.push_back(s);
    add_columns(w, derived_columns(wanted, w.names, circuit()));
  }
  int load();
  int reference();
  int choose_signals();
  int write_reference();
  int peer();
  int ngspice_peer();
  int file_peer();
  int methods_peer();
  void compare();
  int sweep();
  int finish();
  int report();
  LadderOptions ladder_options(const std::string& tag) const {
    LadderOptions lo;
    lo.ngspice = ngspice_;
    lo.dir = dir_;
    lo.tag = tag;
    lo.timeout_seconds = o_.timeout_seconds;
    lo.stall_seconds = o_.stall_seconds;
    lo.t_start = r_.t_start;
    lo.t_stop = r_.t_stop;
    lo.escalate = o_.escalate;
    lo.stop = stop_;
    return lo;
  }
  int exit_code() const;
};

int CompareRun::load() {
  const bool needs_ngspice = !o_.methods && o_.against.empty();
  if (needs_ngspice) {
    const auto found = find_executable(o_.ngspice);
    if (!found) {
      print_error(fmt::format(
          "ngspice not found ('{}' is not on PATH): compare runs the real ngspice binary in "
          "batch mode. Install it (Debian: apt-get install ngspice) or pass --ngspice "
          "/path/to/ngspice",
          o_.ngspice));
      return kPeerMissing;
    }
    ngspice_ = *found;
  }
  const auto t0 = Clock::now();
  loaded_ = load_netlist(o_.netlist);
  load_seconds_ = seconds_since(t0);  // nsspice's wall time includes its parse
  if (!loaded_) return kBadInput;
  std::string error;
  question_ = choose_question(o_, loaded_->circuit, error);
  if (!error.empty()) {
    print_error(error);
    return kBadInput;
  }
  r_.question = question_;
  if (question_ == Question::kRegularized && has_spice_diodes(loaded_->circuit)) {
    circuit::idealize_diodes(loaded_->circuit);
    r_.idealized = true;
  }
  if (question_ == Question::kUserModels && loaded_->parsed) {
    netlist::SourceManager sources = loaded_->sources;
    netlist::Diagnostics diags;
    user_models_ = collect_user_models(netlist::flatten(*loaded_->parsed, sources, diags));
  }
  circuit::TransientOptions overrides;
  overrides.theta = o_.theta;
  overrides.h = o_.step;
  if (const std::string why =
          circuit::resolve_tran_settings(loaded_->circuit, overrides).validate();
      !why.empty()) {
    print_error(why);
    return kBadInput;
  }
  if (!o_.view.empty())
    if (const std::string why = view_path_error(o_.view, "--view"); !why.empty()) {
      print_error(why);
      return kBadInput;
    }
  if (const auto& tran = loaded_->circuit.tran;
      tran && o_.startup && *o_.startup >= tran->tstop - tran->tstart) {
    // It left no time to compare, and the verdict said "no signal in common" with exit 0.
    print_error(
        fmt::format("--startup {:g}: skips the whole run (TSTART .. TSTOP = {:g} .. {:g} s): "
                    "nothing left to compare",
                    *o_.startup, tran->tstart, tran->tstop));
    return kBadInput;
  }
  if (const auto& tran = loaded_->circuit.tran)
    if (const std::string why = window_outside(o_.t_from, o_.t_to, tran->tstart, tran->tstop,
                                               "the run's TSTART .. TSTOP");
        !why.empty()) {
      print_error(why);
      return kBadInput;
    }
  return 0;
}

int CompareRun::reference() {
  const auto t0 = Clock::now();
  const circuit::Circuit& c = loaded_->circuit;
  // A run whose converted SPICE junctions leave their estimated current ranges is repeated with
  // those models refitted, as `run` does: the comparison is of the answer nsspice stands by.
  std::map<std::string, circuit::PwlRefit> refit;
  for (int pass = 1;; ++pass) {
    sim_ = run_into(ns_, {.theta = o_.theta, .h = o_.step});
    if (pass == kPwlRuns || !sim_.result.ok() || sim_.result.stopped ||
        !refit_ranges(sim_.result, pass, refit))
      break;
    refitted_ = load_refitted(o_.netlist, *loaded_, refit, r_.idealized);
    if (!refitted_) return kBadInput;
    ns_ = Waveforms{};
  }
  r_.netlist = o_.netlist;
  r_.title = c.title.empty() ? o_.netlist : c.title;
  r_.nsspice.wall_seconds =
      question_ == Question::kMethods ? sim_.wall_seconds : load_seconds_ + seconds_since(t0);
  r_.nsspice.points = static_cast<long>(ns_.points());
  r_.nsspice.t_end = sim_.result.t_end;
  r_.nsspice.failed = !sim_.result.ok();
  r_.nsspice.failure = sim_.result.summary.message;
  r_.h = sim_.result.h;
  r_.theta = sim_.result.theta;
  r_.step_rule = sim_.result.step_rule;
  r_.t_start = c.tran->tstart;
  r_.t_stop = c.tran->tstop;
  r_.diode_model = o_.translate.diode_model;
  r_.switch_model = o_.translate.switch_model;
  r_.options = o_.translate.options;
  if (question_ == Question::kMethods) r_.ref_label = "θ-scheme";
  dir_ = o_.out_dir.empty() ? fs::path(o_.netlist).stem().string() + "-compare" : o_.out_dir;
  ns_file_ = ns_;
  return 0;
}

int CompareRun::write_reference() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    print_error(fmt::format("cannot create '{}': {}", dir_, ec.message()));
    return kOutputFailed;
  }
  const std::string raw = (fs::path(dir_) / "nsspice.raw").string();
  if (const std::string why = write_run_raw(raw, loaded_->circuit.title, ns_file_); why.empty()) {
    r_.files.push_back(raw);
  } else {
    print_error(why);
    code_ = kOutputFailed;
  }
  ns_file_ = Waveforms{};
  return 0;
}

// What the user asked for is checked before the other side runs.
int CompareRun::choose_signals() {
  auto measures = all_measures(*loaded_, o_.measures);
  if (!measures) return kBadInput;
  specs_ = std::move(*measures);
  switching_ = switching_signals(loaded_->circuit);
  plot_signals_ = split_signals(o_.signals);
  wanted_ = plot_signals_;
  for (const auto& spec : specs_)
    for (auto& name : spec.signals()) wanted_.push_back(std::move(name));
  for (const netlist::Word& w : loaded_->saved)  // .save/.print/.probe
    if (w.lower != "all" && w.lower != "allv" && w.lower != "alli") wanted_.push_back(w.lower);
  if (question_ == Question::kUserModels)
    replace_columns(ns_, diode_terminal_currents(circuit(), user_models_, ns_.names, ns_notes_));
  derive(ns_, {});
  if (plot_signals_.empty())
    plot_signals_ = judged_signals(wanted_, ns_.names, switching_, loaded_->circuit);
  for (const auto& s : plot_signals_)
    if (!ns_.index(s)) {
      print_error(fmt::format("unknown signal '{}' in --signals{}", s,
                              netlist::did_you_mean(s, ns_.names)));
      return kBadInput;
    }
  // A --meas of a signal nsspice's run lacks is bad input, as in `run` (a .meas card's is a
  // warning there and a failed measurement here); it was reported as failed with exit 0.
  MeasureSet bound;
  for (size_t i = 0; i < specs_.size(); ++i)
    if (std::string why;
        !bound.add(specs_[i], ns_.names, why) && i + o_.measures.size() >= specs_.size()) {
      print_error(why);
      return kBadInput;
    }
  return 0;
}

int CompareRun::peer() {
  analysis_.startup = o_.startup;
  analysis_.grid = o_.grid;
  analysis_.switch_threshold = o_.switch_threshold;
  analysis_.switching = switching_;
  analysis_.steady_signals = plot_signals_;
  analysis_.period = source_period(loaded_->circuit, r_.t_stop - r_.t_start);
  const int code = question_ == Question::kFile      ? file_peer()
                   : question_ == Question::kMethods ? methods_peer()
                                                     : ngspice_peer();
  if (code == 0) derive(peer_, left_out_);
  return code;
}

int CompareRun::ngspice_peer() {
  translate_ = o_.translate;
  translate_.tmax = ngspice_tmax(loaded_->circuit, sim_.result);
  if (question_ == Question::kUserModels) translate_.user_models = &user_models_;
  LadderError error;
  auto side =
      run_ngspice_peer(loaded_->circuit, translate_, ladder_options("ngspice"), !o_.quiet, error);
  if (!side) {
    print_error(error.message);
    return error.code;
  }
  r_.notes = side->translation.notes;
  left_out_ = side->translation.left_out;
  r_.notes.insert(r_.notes.end(), ns_notes_.begin(), ns_notes_.end());
  for (const auto& s : wanted_)
    if (ns_.index(s) && of_element(s, left_out_))
      r_.notes.push_back(fmt::format(
          "{}: an element nsspice adds for its PWL form; ngspice's deck has no such element "
          "(its model holds it): ngspice has no {}",
          s, s));
  r_.user_cards = side->translation.user_cards;
  r_.regularized = side->translation.regularized;
  r_.peer = std::move(side->run);
  peer_ = std::move(side->data);
  const Attempt& used = r_.peer.attempts[r_.peer.used_attempt];
  for (const char* ext : {".cir", ".raw", ".log"})
    r_.files.push_back((fs::path(dir_) / (used.files + ext)).string());
  return 0;
}

int CompareRun::file_peer() {
  r_.peer_label = "file";
  r_.against = o_.against;
  std::vector<std::pair<std::string, std::string>> map;
  for (const auto& m : o_.map) map.push_back(*parse_map(m));
  std::string error;
  auto file = read_peer_file(o_.against, ns_.names, map, error);
  if (!file) {
    print_error(fmt::format("--against: {}", error));
    return kBadInput;
  }
  r_.unmatched_peer = file->unmatched;
  r_.peer = file_peer_run(*file, o_.against, r_.t_stop, r_.notes);
  peer_ = std::move(file->data);
  return 0;
}

int CompareRun::methods_peer() {
  r_.peer_label = "event";
  circuit::TransientOptions event_options;
  event_options.theta = o_.theta;
  event_options.method = circuit::TranMethod::kEvent;
  const Simulated event = run_into(peer_, event_options);
  r_.peer.wall_seconds = event.wall_seconds;
  r_.peer.points = static_cast<long>(peer_.points());
  r_.peer.t_end = event.result.t_end;
  r_.peer.failed = !event.result.ok() || event.result.t_end < r_.t_stop * (1 - 1e-9);
  r_.peer.failure = event.result.ok() ? "stopped" : event.result.summary.message;
  const std::string raw = (fs::path(dir_) / "event.raw").string();
  if (const std::string why = write_run_raw(raw, peer_.title, peer_); why.empty())
    r_.files.push_back(raw);
  else
    print_error(why), code_ = kOutputFailed;
  return 0;
}

void CompareRun::compare() {
  analyse(r_, ns_, peer_, analysis_);
  r_.meas_nsspice = measure(specs_, ns_);
  r_.meas_ngspice = measure(specs_, peer_);
  r_.meas_rel =
      measure_differences(specs_, r_.meas_nsspice, r_.meas_ngspice, ns_, r_.t_stop - r_.t_start);
}

int CompareRun::sweep() {
  if (!o_.sweep || interrupt_.requested()) return 0;
  std::string error;
  auto base = SpiceParams::parse(o_.translate.diode_model, error);
  if (!base) {
    print_error("--diode-model " + error);
    return kBadInput;
  }
  for (double n : o_.sweep_n) {
    if (interrupt_.requested()) break;
    SpiceParams m = *base;
    m.set("n", n);
    TranslateOptions to = translate_;
    to.diode_model = m.str();
    LadderError failure;
    auto side = run_ngspice_peer(loaded_->circuit, to, ladder_options(fmt::format("sweep_n{}", n)),
                                 !o_.quiet, failure);
    if (!side) {
      print_error(failure.message);
      return failure.code;
    }
    derive(side->data, side->translation.left_out);
    SweepRow row{n, m.str(), std::move(side->run), {}};
    row.diffs = sweep_diffs(r_, ns_, side->data, plot_signals_, analysis_);
    r_.sweep.push_back(std::move(row));
  }
  return 0;
}

int CompareRun::exit_code() const {
  if (code_ != 0) return code_;
  if (r_.nsspice.failed) return kSimulationFailed;
  if (const int signal = interrupt_.signal(); signal != 0) return interrupted_exit_code(signal);
  const bool sweep_failed = std::any_of(r_.sweep.begin(), r_.sweep.end(),
                                        [](const SweepRow& row) { return row.ngspice.failed; });
  if (r_.peer.failed && question_ == Question::kMethods) return kSimulationFailed;
  return r_.peer.failed || sweep_failed ? kPeerFailed : 0;
}

int CompareRun::finish() {
  r_.verdict = verdict_line(r_);
  const std::string plot = o_.plot.empty() ? (fs::path(dir_) / "compare.png").string() : o_.plot;
  // An interrupted compare is not plotted: the user asked it to stop.
  if (peer_.points() > 0 && ns_.points() > 0 && !interrupt_.requested()) {
    if (auto why = write_compare_plot(r_, ns_, peer_, plot_signals_, plot, o_.t_from, o_.t_to);
        !why.empty()) {
      print_error(fmt::format("plot '{}': {}", plot, why));
      code_ = code_ ? code_ : kOutputFailed;
    } else {
      r_.files.push_back(plot);
    }
  }
  if (!r_.sweep.empty() && !interrupt_.requested()) {
    const std::string sweep_plot = (fs::path(dir_) / "sweep.png").string();
    if (auto why = write_sweep_plot(r_, plot_signals_, sweep_plot); why.empty())
      r_.files.push_back(sweep_plot);
    else
      print_error(fmt::format("plot '{}': {}", sweep_plot, why));
  }
  const std::string json = o_.json.empty() ? (fs::path(dir_) / "compare.json").string() : o_.json;
  if (std::string why = write_whole_file(json, compare_json(r_)); why.empty()) {
    r_.files.push_back(json);
  } else {
    print_error(why);
    code_ = kOutputFailed;
  }
  if (!o_.view.empty() || o_.view_default) {
    const std::string view = o_.view.empty() ? (fs::path(dir_) / "compare.html").string() : o_.view;
    const int view_code = write_compare_view(view, r_, ns_, peer_, plot_signals_);
    if (view_code == 0) r_.files.push_back(view);
    code_ = code_ ? code_ : view_code;
  }
  return report();
}

int CompareRun::report() {
  if (!o_.quiet) fmt::print("{}", format_compare(r_));
  // -q silences the report, never the measurements asked for, nor the verdict.
  if (o_.quiet && !r_.meas_nsspice.empty())
    fmt::print("{}\n{}{}\n{}", r_.ref_label, format_measures(r_.meas_nsspice), r_.peer_label,
               format_measures(r_.meas_ngspice));
  if (o_.quiet) fmt::print("verdict: {}\n", r_.verdict);
  if (r_.nsspice.failed) print_error(fmt::format("nsspice stopped: {}", r_.nsspice.failure));
  if (const int signal = interrupt_.signal(); signal != 0) {
    fmt::print(stderr, "nsspice: interrupted at t = {:.9g} s; {} holds {} rows{} ({})\n",
               sim_.t_last, (fs::path(dir_) / "nsspice.raw").string(), ns_.points(),
               r_.peer.failed ? "; " + r_.peer.failure : "", signal_name(signal));
  } else if (r_.peer.failed) {
    print_error(fmt::format("{} did not reach TSTOP = {}: {}{} ({}); {}", r_.peer_label,
                            eng(r_.t_stop, "s"), stopped_text(r_.peer),
                            r_.peer.attempts.size() > 1 ? fmt::format(" in the best of {} attempts",
                                                                      r_.peer.attempts.size())
                                                        : "",
                            r_.peer.failure,
                            r_.has_window() ? "the comparison covers only the time both reached"
                                            : "there is nothing to compare"));
  }
  for (const auto& row : r_.sweep)
    if (row.ngspice.failed && !interrupt_.requested())
      print_error(fmt::format("--sweep-ideality: ngspice did not reach TSTOP for N = {:g}: {}",
                              row.n, row.ngspice.failure));
  return exit_code();
}

}  // namespace

int compare_command(const CompareOptions& o) {
  // SIGINT/SIGTERM stop nsspice's run after the current row, or ngspice (app/cli/interrupt.hpp).
  const InterruptScope interrupt;
  if (const std::string why = o.validate(); !why.empty()) {
    print_error(why);
    return kBadInput;
  }
  CompareRun run(o, interrupt);
  return run.run();
}

}  // namespace nsspice::app
