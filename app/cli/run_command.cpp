#include "app/cli/run_command.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <tuple>

#include "app/cli/analysis_command.hpp"
#include "app/cli/interrupt.hpp"
#include "app/cli/models_command.hpp"
#include "app/cli/plot_command.hpp"
#include "app/cli/progress.hpp"
#include "app/cli/pss_command.hpp"
#include "app/cli/report.hpp"
#include "app/cli/run_plan.hpp"
#include "app/cli/simulation.hpp"
#include "app/cli/sweep_command.hpp"
#include "app/cli/view_command.hpp"
#include "app/io/async_sink.hpp"
#include "app/io/event_log.hpp"
#include "app/io/file_write.hpp"
#include "app/io/output_file.hpp"
#include "app/io/signals.hpp"
#include "app/measure/measure.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "app/plot/plot_layout.hpp"
#include "circuit/elaborate.hpp"
#include "netlist/diagnostics.hpp"
#include "solvers/lcp/lcp_dump.hpp"
#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::app {
namespace {

// Thrown on the writer's thread when the waveform file could not be written: the AsyncSink
// stops, the stepping sees AsyncSink::failed() and stops too, finish() rethrows this.
class OutputLost : public std::runtime_error {
 public:
  OutputLost() : std::runtime_error("the waveform file could not be written") {}
};

// Counts the rows that reach the file; throws OutputLost once the writer has failed.
class RowCounter : public RowSink {
 public:
  explicit RowCounter(WaveformWriter& out) : out_(out) {}
  void row(double t, std::span<const double> values) override {
    ++rows_;
    out_.row(t, values);
    if (out_.failed()) throw OutputLost();
  }
  void finish() override { out_.finish(); }
  long rows() const { return rows_; }

 private:
  WaveformWriter& out_;
  long rows_ = 0;
};

// Every point of the run: measurements, plot series (decimated, plus the raw tail for a zoom
// column), the file chain.
class RunSink : public RowSink {
 public:
  RunSink(MeasureSet& measures, RowSink& file) : measures_(measures), file_(file) {}
  void plot(std::vector<PlotPanel>* panels, std::vector<std::vector<size_t>> layout, double t0,
            double t1) {
    panels_ = panels;
    layout_ = std::move(layout);
    for (const auto& cols : layout_)
      for (size_t k = 0; k < cols.size(); ++k) {
        decimators_.emplace_back(t0, t1);
        tails_.emplace_back();
      }
  }
  void row(double t, std::span<const double> values) override {
    measures_.feed(t, values);
    file_.row(t, values);
    if (panels_ == nullptr) return;
    size_t d = 0;
    for (size_t p = 0; p < layout_.size(); ++p)
      for (size_t k = 0; k < layout_[p].size(); ++k, ++d) {
        PlotSeries& s = (*panels_)[p].series[k];
        const double y = values[layout_[p][k]];
        decimators_[d].add(t, y, s.t, s.y);
        tails_[d].add(t, y);
      }
  }
  void finish() override {
    file_.finish();
    if (panels_ == nullptr) return;
    size_t d = 0;
    for (size_t p = 0; p < layout_.size(); ++p)
      for (size_t k = 0; k < layout_[p].size(); ++k, ++d) {
        PlotSeries& s = (*panels_)[p].series[k];
        decimators_[d].finish(s.t, s.y);
        s.detail = tails_[d].samples();
      }
  }

 private:
  MeasureSet& measures_;
  RowSink& file_;
  std::vector<PlotPanel>* panels_ = nullptr;
  std::vector<std::vector<size_t>> layout_;
  std::vector<SeriesDecimator> decimators_;
  std::vector<TailBuffer> tails_;
};

// `<output stem>.step<K>.lcp` next to the output: the step's LCP as solved, with provenance.
bool write_step_dump(const RunOptions& o, const std::string& output,
                     const circuit::TransientResult& r, std::string& path) {
  const circuit::CapturedLcp& c = *r.captured;
  std::filesystem::path p(output);
  p.replace_filename(fmt::format("{}.step{}.lcp", p.stem().string(), c.step));
  path = p.string();
  std::string mode, base;
  for (char b : c.lcp.mode) mode += b ? '1' : '0';
  for (char b : c.lcp.base_mode) base += b ? '1' : '0';
  const solvers::Provenance prov = {
      {"netlist", o.netlist},
      {"step", std::to_string(c.step)},
      {"t", fmt::format("{:.17g}", c.t)},
      {"t_next", fmt::format("{:.17g}", c.t_next)},
      {"h", fmt::format("{:.17g}", r.h)},
      {"theta", fmt::format("{:.17g}", r.theta)},
      {"theta_h", fmt::format("{:.17g}", c.theta_h)},
      {"base_mode", base},
      {"mode", mode},
      {"solved_by", c.lcp.pivoted ? std::string(solvers::to_string(c.lcp.method))
                                  : std::string("mode system (no pivoting)")},
      {"form", "principal pivot transform at base_mode, row/column equilibrated"},
      {"source", o.dump_step > 0 ? fmt::format("nsspice run --dump-mlcp {}", o.dump_step)
                                 : fmt::format("nsspice run --dump-mlcp-time {:g}", *o.dump_time)}};
  std::string error;
  errno = 0;
  if (solvers::write_lcp_dump(path, c.lcp.M, c.lcp.q, prov, &error)) return true;
  const int reason = errno;  // the stream's failed write or open
  print_error(reason != 0 ? fmt::format("{}: {}", error, std::strerror(reason)) : error);
  return false;
}

// The files besides the waveforms: event log, LCP dump, measurements as JSON, plot. Returns the
// exit code so far (`code`, or kOutputFailed when one of them could not be written).
struct SideFiles {
  std::string events_path, dump_path, view_path;
};

int write_side_files(const RunOptions& o, const RunPlan& plan, const circuit::TransientResult& r,
                     SideFiles& files, int code) {
  if (r.method == circuit::TranMethod::kEvent) {
    files.events_path = event_log_path(plan.output_path);
    if (const std::string why = write_event_log(files.events_path, r.events); !why.empty()) {
      print_error(why);
      code = kOutputFailed;
    }
  }
  if (o.dump_step > 0 || o.dump_time) {
    if (!r.captured) {
      print_error("--dump-mlcp: the run did not reach the requested step");
      code = kOutputFailed;
    } else if (!write_step_dump(o, plan.output_path, r, files.dump_path)) {
      code = kOutputFailed;
    }
  }
  return code;
}

void print_report(const RunOptions& o, const RunPlan& plan, const Simulated& sim, double wall,
                  long rows, const SideFiles& files, int code) {
  if (o.quiet) return;
  fmt::print("{}", format_report(sim.result, wall, sim.wall_seconds, plan.output_path, rows));
  fmt::print("  {:<18} {}{}\n", "format", format_name(plan.format),
             !plan.grid          ? std::string()
             : plan.event_driven ? fmt::format(", plus dense output every {:g} s", *plan.grid)
                                 : fmt::format(", resampled on h = {:g} s", *plan.grid));
  if (!files.events_path.empty()) fmt::print("  {:<18} {}\n", "event log", files.events_path);
  if (!plan.plot_path.empty() && code == 0) fmt::print("  {:<18} {}\n", "plot", plan.plot_path);
  if (!files.dump_path.empty()) fmt::print("  {:<18} {}\n", "LCP dump", files.dump_path);
  if (!files.view_path.empty()) fmt::print("  {:<18} {}\n", "viewer", files.view_path);
}

// The device model conversions (SPICE → PWL, idealized) and bias knots, after the report.
void print_conversions(const RunOptions& o, const circuit::Circuit& circuit) {
  const std::string lines = format_conversions(circuit);
  if (!o.quiet && !lines.empty()) fmt::print("device models\n{}", lines);
}

// The plot request: one panel per layout entry, marks at state jumps and logged events.
PlotRequest plot_request(const RunOptions& o, const RunPlan& plan, const std::string& title) {
  PlotRequest plot;
  plot.title = title.empty() ? o.netlist : title;
  plot.output = plan.plot_path;
  plot.show = o.show;
  if (const auto size = parse_plot_size(o.size)) std::tie(plot.width, plot.height) = *size;
  for (const auto& cols : plan.output.layout) {
    PlotPanel panel;
    for (size_t k : cols) panel.series.push_back({plan.output.all_names[k], {}, {}});
    plot.panels.push_back(std::move(panel));
  }
  return plot;
}

// Marks on the event strip: state jumps and logged events (at most kMaxMarks, evenly chosen).
void mark_events(const circuit::TransientResult& result, PlotRequest& plot) {
  constexpr size_t kMaxMarks = 20000;
  const auto& jumps = result.stats.impulse_times;
  for (size_t k = 0; k < jumps.size(); k += 1 + jumps.size() / kMaxMarks)
    plot.events.push_back({jumps[k], "jump"});
  const auto& events = result.events;
  for (size_t k = 0; k < events.size(); k += 1 + events.size() / kMaxMarks)
    plot.events.push_back(
        {events[k].t, events[k].device.empty() ? events[k].transition : events[k].device});
}

// The default layout (by kind and scale), the zoom column and the note on left-out signals,
// once the series are known.
void arrange_plot(const RunOptions& o, const RunPlan& plan, PlotRequest& plot) {
  if (plan.output.auto_layout && !plot.panels.empty()) {
    std::vector<PlotSeries> series;
    for (auto& p : plot.panels)
      for (auto& s : p.series) series.push_back(std::move(s));
    plot.panels = arrange_panels(std::move(series));
  }
  const auto periods = o.zoom.empty() ? std::optional<int>(5) : parse_zoom(o.zoom);
  if (const auto note = add_switching_zoom(plot, periods.value_or(0), !o.zoom.empty());
      !note.empty())
    fmt::print(stderr, "nsspice: note: {}\n", note);
  plot.note = left_out_note(plan.output.plot_left_out);
  if (!plot.note.empty()) fmt::print(stderr, "nsspice: note: plot: {}\n", plot.note);
}

struct Streamed {
  long rows = 0;             // rows given to the writer
  bool output_lost = false;  // the writer failed: the run was stopped there
};

// The chain from the stepper to the file: (async) → derived columns → measurements and plot
// series → column selection → (grid resampling) → row counter → writer. Runs the transient,
// stopping after the current row on an interrupt or when the file cannot be written.
Simulated stream_run(const circuit::Circuit& circuit, const circuit::Assembled& assembled,
                     const circuit::SignalTable& signals, RunPlan& plan, bool progress_bar,
                     const std::function<bool()>& stop, WaveformWriter& writer, PlotRequest& plot,
                     Streamed& streamed) {
  RowCounter counter(writer);
  std::unique_ptr<GridResampler> resampler;
  RowSink* file_chain = &counter;
  if (plan.grid && !plan.event_driven) {
    resampler = std::make_unique<GridResampler>(counter, *plan.grid,
                                                source_breakpoints(assembled, circuit.tran->tstop));
    file_chain = resampler.get();
  }
  ColumnSelector selector(*file_chain, plan.output.columns);
  RunSink sink(plan.output.measures, selector);
  if (plan.plotting)
    sink.plot(&plot.panels, plan.output.layout, circuit.tran->tstart, circuit.tran->tstop);
  DerivedSink with_derived(sink, plan.output.derived);
  // Everything downstream of the signal values runs on a second thread, overlapped with the
  // stepping; the stepping evaluates only the signals read downstream.
  // (The rate signals are never among the full evaluation's: a plan that reads one is a subset.)
  const bool subset = plan.output.subset() || plan.output.signal_count > signals.names.size();
  AsyncSink async(with_derived, subset ? plan.output.needed : std::vector<size_t>(),
                  plan.output.signal_count);
  Progress progress(circuit.tran->tstop, progress_bar);
  Simulated sim = simulate(
      circuit, assembled, signals, plan.overrides, async, [&](double t) { progress.update(t); },
      subset ? std::span<const size_t>(plan.output.needed) : std::span<const size_t>(),
      [&] { return stop() || async.failed(); });
  progress.finish();
  try {
    async.finish();  // drains the queue: every row computed reaches the file
  } catch (const OutputLost&) {
    streamed.output_lost = true;
  }
  streamed.rows = counter.rows();
  return sim;
}

// Closes the waveform file and says why the run stopped, if it did: the file could not be
// written (exit 3), the simulation failed (exit 2). Exit codes when several apply: 3 before 2
// before 128 + signal (interrupted); docs/output.md, "Exit codes". Returns the code so far.
int report_stop(const std::string& path, const Simulated& sim, WaveformWriter& writer,
                const Streamed& streamed, int code) {
  const bool written = writer.close() && !streamed.output_lost;
  if (!written) {
    print_error(fmt::format("{}{}", write_failure(path, writer.error_number()),
                            streamed.output_lost
                                ? fmt::format(" (the run was stopped at t = {:.9g} s)", sim.t_last)
                                : std::string()));
    code = kOutputFailed;
  }
  const auto& result = sim.result;
  if (!result.ok()) {
    print_error(fmt::format("simulation stopped: {}", result.summary.message));
    if (written)
      fmt::print(stderr,
                 "nsspice: note: '{}' holds the {} valid rows computed up to t = {:.9g} s\n", path,
                 streamed.rows, result.t_end);
    code = code ? code : kSimulationFailed;
  }
  return code;
}

// Writes (and shows) the plot; returns the exit code so far.
int finish_plot(const RunOptions& o, const PlotRequest& plot, int code) {
  if (const std::string why = write_plot(plot); !why.empty()) {
    print_error(fmt::format("plot '{}': {}", plot.output, why));
    return code ? code : kOutputFailed;
  }
  if (o.show && !display_available())
    fmt::print(stderr, "nsspice: note: no display ($DISPLAY unset): --show ignored\n");
  return code;
}

// The viewer of the run: its file read back, the report and the measurements.
int write_run_view(const RunOptions& o, const RunPlan& plan, const std::string& title,
                   const std::string& report, const std::vector<MeasureResult>& measured,
                   SideFiles& files) {
  const std::string path =
      !o.view.empty() ? o.view : std::filesystem::path(o.netlist).stem().string() + ".html";
  std::string error;
  const auto data = read_waveforms(plan.output_path, error);
  if (!data) {
    print_error(fmt::format("--view: {}", error));
    return kOutputFailed;
  }
  const int code =
      write_view_file(path, *data, title.empty() ? o.netlist : title,
                      fmt::format("{} → {}", o.netlist, plan.output_path), report, measured);
  if (code == 0) files.view_path = path;
  return code;
}

// Empty when the LCP method and --dump-mlcp suit the circuit's number of complementarity pairs
// (mode_mlcp.hpp: named methods and dumps form the dense transform of all pairs), else the
// option and why not.
std::string dense_limits(const RunOptions& o, const RunPlan& plan,
                         const circuit::Assembled& assembled) {
  if (plan.event_driven) return {};
  int free_pairs = 0;
  for (int j = 0; j < assembled.mlcs.m; ++j)
    free_pairs += assembled.mlcs.forced.empty() || !assembled.mlcs.forced[j] ? 1 : 0;
  const solvers::LcpSolverKind kind = plan.tran.lcp_solver;
  if (std::string why = solvers::named_method_limit(free_pairs, kind); !why.empty())
    return fmt::format("{}{}: {}", o.lcp_solver.empty() ? ".options lcpsolver=" : "--lcp-solver ",
                       solvers::to_string(kind), why);
  if (o.dump_step > 0 || o.dump_time) {
    if (std::string why = solvers::dump_limit(free_pairs, kind); !why.empty())
      return fmt::format("{}: {}", o.dump_step > 0 ? "--dump-mlcp" : "--dump-mlcp-time", why);
  }
  return {};
}

// After the (last) run: warnings, side files, the file closed and why it stopped, the
// measurements, the plot, the viewer and the report; returns the exit code.
int finish_run(const RunOptions& o, RunPlan& plan, const circuit::Circuit& circuit,
               const Simulated& sim, WaveformWriter& writer, const Streamed& streamed,
               PlotRequest& plot, const InterruptScope& interrupt, double wall) {
  const long rows = streamed.rows;
  const auto& result = sim.result;
  const auto measured = plan.output.measures.results();
  mark_events(result, plot);
  for (const auto& w : result.warnings) fmt::print(stderr, "nsspice: warning: {}\n", w);
  SideFiles files;
  int code = write_side_files(o, plan, result, files, 0);
  code = report_stop(plan.output_path, sim, writer, streamed, code);
  code = write_meas_json(o, measured, code);
  if (const int signal = interrupt.signal(); signal != 0) {
    // Interrupted (during the run or after it): no plot, the user asked to stop.
    fmt::print(stderr, "nsspice: interrupted at t = {:.9g} s; {} holds {} rows ({})\n", sim.t_last,
               plan.output_path, rows, signal_name(signal));
    code = code ? code : interrupted_exit_code(signal);
  } else if (plan.plotting && rows > 0) {
    arrange_plot(o, plan, plot);
    code = finish_plot(o, plot, code);
  }
  if ((!o.view.empty() || o.view_default) && rows > 0 && code != kBadInput) {
    const std::string report =
        format_report(sim.result, wall, sim.wall_seconds, plan.output_path, rows);
    const int view_code = write_run_view(o, plan, circuit.title, report, measured, files);
    code = code ? code : view_code;
  }
  print_report(o, plan, sim, wall, rows, files, code);
  print_measures(measured, o.quiet);
  print_conversions(o, circuit);
  return code;
}

}  // namespace

// The measurements asked for: printed with -q too (-q silences the report, not the results).
void print_measures(const std::vector<MeasureResult>& measured, bool quiet) {
  if (measured.empty()) return;
  fmt::print("{}{}", quiet ? "" : "measurements\n", format_measures(measured));
}

// --meas-json FILE, every write checked; returns the exit code so far.
int write_meas_json(const RunOptions& o, const std::vector<MeasureResult>& measured, int code) {
  if (o.meas_json.empty()) return code;
  const nlohmann::ordered_json j = {{"netlist", o.netlist},
                                    {"measurements", measures_json_value(measured)}};
  const std::string json = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (const std::string why = write_whole_file(o.meas_json, json); !why.empty()) {
    print_error(why);
    return code ? code : kOutputFailed;
  }
  return code;
}

int run_command(const RunOptions& o) {
  // From here on SIGINT/SIGTERM stop the run after the current row (app/cli/interrupt.hpp).
  const InterruptScope interrupt;
  const auto wall_start = std::chrono::steady_clock::now();
  LoadOptions load;
  load.require_tran = false;
  // Monte Carlo runs draw their own values; the nominal netlist (the plan) then says nothing of
  // the distributions' nominal values.
  if (o.runs > 0) load.draw = [](bool) { return 0.0; };
  const auto loaded = load_netlist(o.netlist, load);
  if (!loaded) return kBadInput;
  if (o.ideal) circuit::idealize_diodes(loaded->circuit);
  std::string error;
  const auto choice = choose_analysis(o.analysis, loaded->circuit, o.netlist, error);
  if (!choice) {
    print_error(error);
    return kBadInput;
  }
  warn_other_measures(*loaded, choice->kind);
  if (!loaded->steps.empty() || !o.step_params.empty() || o.runs > 0 || o.mpi != nullptr ||
      o.run_range) {
    if (choice->kind != AnalysisKind::kTran && !loaded->steps.empty()) {
      // A .step card: the error at it. The runs of a sweep are transients (their files,
      // .meas.csv and statistics); a .dc or .ac per run is not built.
      const char* what = analysis_card(choice->kind);
      netlist::Diagnostics diags;
      diags.error(loaded->steps.front().span,
                  fmt::format(".step sweeps the .tran analysis only, and this netlist runs its {} "
                              "(one analysis per run): add a .tran card (--analysis tran), or "
                              "run the {} without the .step (a .dc sweeps a .param itself: "
                              "'.dc PARAM START STOP STEP')",
                              what, what));
      std::cerr << diags.format(loaded->sources);
      return kBadInput;
    }
    if (choice->kind != AnalysisKind::kTran) {
      print_error(
          fmt::format("sweeps and Monte Carlo (.step, --step-param, --runs) run the .tran "
                      "analysis; '{}' would run its {}: add a .tran card, or run the {} "
                      "without the sweep",
                      o.netlist, analysis_card(choice->kind), analysis_card(choice->kind)));
      return kBadInput;
    }
    return sweep_command(o, *loaded);
  }
  for (const auto& card : choice->others)
    fmt::print(stderr,
               "nsspice: note: the netlist's {} is not run (one analysis per run: "
               "--analysis {})\n",
               card, card.substr(1));
  if (choice->kind == AnalysisKind::kPss) {
    PssCommandOptions pss;
    pss.run = o;
    return pss_command(pss, *loaded);
  }
  if (choice->kind != AnalysisKind::kTran) return analysis_command(o, *loaded, *choice);
  if (choice->print_op && !o.quiet && !print_operating_point(*loaded)) return kSimulationFailed;
  // A run whose converted SPICE junctions left their estimated current ranges is repeated with
  // those models fitted over the ranges it met (refit_ranges), at most kPwlRuns runs in all.
  std::unique_ptr<LoadedNetlist> refitted;
  std::map<std::string, circuit::PwlRefit> refit;
  for (int pass = 1;; ++pass) {
    const LoadedNetlist& current = refitted ? *refitted : *loaded;
    const circuit::Circuit& circuit = current.circuit;
    const circuit::Assembled assembled = circuit::assemble(circuit);
    const circuit::SignalTable signals = circuit::make_signals(circuit, assembled);
    // Everything the user asked for is merged and checked before anything is written.
    auto plan = make_run_plan(o, current, signals.names, error, signals.rate_names);
    if (!plan || !(error = dense_limits(o, *plan, assembled)).empty()) {
      print_error(error);
      return kBadInput;
    }
    if (pass == 1) warn_left_out(current, plan->output);  // once, not again for a refit
    auto writer = make_writer(plan->format);
    std::vector<std::string> names;
    for (size_t k : plan->output.columns) names.push_back(plan->output.all_names[k]);
    if (!writer->open(plan->output_path, circuit.title, names)) {
      print_error(write_failure(plan->output_path, errno));
      return kOutputFailed;
    }
    PlotRequest plot = plot_request(o, *plan, circuit.title);
    Streamed streamed;
    const Simulated sim = stream_run(
        circuit, assembled, signals, *plan, o.progress && !o.quiet,
        [&] { return interrupt.requested(); }, *writer, plot, streamed);
    if (pass < kPwlRuns && sim.result.ok() && !sim.result.stopped && !streamed.output_lost &&
        interrupt.signal() == 0 && refit_ranges(sim.result, pass, refit)) {
      writer->close();  // written again by the next run
      refitted = load_refitted(o.netlist, *loaded, refit, o.ideal);
      if (!refitted) return kBadInput;
      continue;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return finish_run(o, *plan, circuit, sim, *writer, streamed, plot, interrupt, wall);
  }
}

RunOutcome run_to_file(const RunOptions& o, const LoadedNetlist& loaded,
                       const std::function<int()>& stop_signal, WaveformWriter* into,
                       const RunShare* share) {
  RunOutcome out;
  const circuit::Circuit& circuit = loaded.circuit;
  std::optional<circuit::Assembled> restamped;
  if (share != nullptr && share->pattern != nullptr)
    restamped = circuit::restamp(circuit, *share->pattern);
  out.assembly = restamped          ? RunAssembly::kRestamped
                 : share != nullptr ? RunAssembly::kRebuilt
                                    : RunAssembly::kNone;
  const circuit::Assembled assembled =
      restamped ? std::move(*restamped) : circuit::assemble(circuit);
  if (out.assembly == RunAssembly::kRebuilt) {
    const circuit::AssemblyPattern& p = *share->pattern;
    const auto& mlcs = assembled.mlcs;
    out.rebuilt_because =
        mlcs.n != p.unknowns()
            ? fmt::format("{} unknowns, the nominal circuit {}", mlcs.n, p.unknowns())
        : mlcs.m != p.pairs()
            ? fmt::format("{} complementarity pairs, the nominal circuit {}", mlcs.m, p.pairs())
            : std::string("other matrix entries than the nominal circuit's");
  }
  const circuit::SignalTable signals = circuit::make_signals(circuit, assembled);
  auto plan = make_run_plan(o, loaded, signals.names, out.message, signals.rate_names);
  if (!plan) {
    out.code = kBadInput;
    return out;
  }
  if (restamped) plan->overrides.analyses = share->analyses;
  out.output_path = plan->output_path;
  std::unique_ptr<WaveformWriter> own = into != nullptr ? nullptr : make_writer(plan->format);
  WaveformWriter& writer = into != nullptr ? *into : *own;
  std::vector<std::string> names;
  for (size_t k : plan->output.columns) names.push_back(plan->output.all_names[k]);
  if (!writer.open(plan->output_path, circuit.title, names)) {
    out.code = kOutputFailed;
    out.message = write_failure(plan->output_path, writer.error_number());
    return out;
  }
  PlotRequest plot;
  Streamed streamed;
  Simulated sim = stream_run(
      circuit, assembled, signals, *plan, false, [&] { return stop_signal() != 0; }, writer, plot,
      streamed);
  out.rows = streamed.rows;
  const bool written = writer.close() && !streamed.output_lost;
  out.measures = plan->output.measures.results();
  out.warnings = left_out_lines(loaded, plan->output);  // printed once after the runs
  out.warnings.insert(out.warnings.end(), sim.result.warnings.begin(), sim.result.warnings.end());
  out.t_end = sim.result.t_end;
  if (!written) {
    out.code = kOutputFailed;
    out.message = write_failure(plan->output_path, writer.error_number());
  } else if (!sim.result.ok()) {
    out.code = kSimulationFailed;
    out.message = fmt::format("simulation stopped at t = {:.9g} s: {}", sim.result.t_end,
                              sim.result.summary.message);
  } else if (const int signal = stop_signal(); signal != 0) {
    out.code = interrupted_exit_code(signal);
    out.message = fmt::format("interrupted at t = {:.9g} s by {}", sim.t_last, signal_name(signal));
  }
  out.stepping_seconds = sim.wall_seconds;
  out.shared_analysis = sim.result.shared_analysis;
  out.rows_hash = sim.rows_hash;
  out.transient = std::move(sim.result);
  return out;
}

}  // namespace nsspice::app
