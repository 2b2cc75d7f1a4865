#include "app/cli/run_command.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "app/io/async_sink.hpp"
#include "app/io/event_log.hpp"
#include "app/measure/measure.hpp"
#include "app/io/output_file.hpp"
#include "app/cli/plot_command.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "app/cli/progress.hpp"
#include "app/cli/report.hpp"
#include "app/io/signals.hpp"
#include "app/cli/simulation.hpp"
#include "circuit/names.hpp"
#include "solvers/lcp/lcp_dump.hpp"

namespace nsspice::app {
namespace {

// Counts the rows that reach the file.
class RowCounter : public RowSink {
 public:
  explicit RowCounter(RowSink& out) : out_(out) {}
  void row(double t, std::span<const double> values) override {
    ++rows_;
    out_.row(t, values);
  }
  void finish() override { out_.finish(); }
  long rows() const { return rows_; }

 private:
  RowSink& out_;
  long rows_ = 0;
};

// Every point of the run: measurements, plot series (decimated), the file chain.
class RunSink : public RowSink {
 public:
  RunSink(MeasureSet& measures, RowSink& file) : measures_(measures), file_(file) {}
  void plot(std::vector<PlotPanel>* panels, std::vector<std::vector<size_t>> layout, double t0,
            double t1) {
    panels_ = panels;
    layout_ = std::move(layout);
    for (const auto& cols : layout_)
      for (size_t k = 0; k < cols.size(); ++k) decimators_.emplace_back(t0, t1);
  }
  void row(double t, std::span<const double> values) override {
    measures_.feed(t, values);
    file_.row(t, values);
    if (panels_ == nullptr) return;
    size_t d = 0;
    for (size_t p = 0; p < layout_.size(); ++p)
      for (size_t k = 0; k < layout_[p].size(); ++k)
        decimators_[d++].add(t, values[layout_[p][k]], (*panels_)[p].series[k]);
  }
  void finish() override {
    file_.finish();
    if (panels_ == nullptr) return;
    size_t d = 0;
    for (size_t p = 0; p < layout_.size(); ++p)
      for (size_t k = 0; k < layout_[p].size(); ++k)
        decimators_[d++].finish((*panels_)[p].series[k]);
  }

 private:
  MeasureSet& measures_;
  RowSink& file_;
  std::vector<PlotPanel>* panels_ = nullptr;
  std::vector<std::vector<size_t>> layout_;
  std::vector<SeriesDecimator> decimators_;
};

// The signals (indices into the circuit's own names) that the file, the plot, the measurements
// or the differential columns read; `n_all` counts those plus the differential columns.
std::vector<size_t> needed_signals(size_t n_all, size_t n_signals,
                                   const std::vector<size_t>& columns,
                                   const std::vector<std::vector<size_t>>* layout,
                                   const MeasureSet& measures,
                                   const std::vector<DerivedColumn>& derived) {
  std::vector<char> used(n_all, 0);
  for (size_t c : columns) used[c] = 1;
  if (layout != nullptr)
    for (const auto& panel : *layout)
      for (size_t c : panel) used[c] = 1;
  measures.mark_columns(used);
  for (size_t k = 0; k < derived.size() && n_signals + k < n_all; ++k) {
    if (!used[n_signals + k]) continue;
    if (derived[k].plus >= 0) used[static_cast<size_t>(derived[k].plus)] = 1;
    if (derived[k].minus >= 0) used[static_cast<size_t>(derived[k].minus)] = 1;
  }
  std::vector<size_t> out;
  for (size_t k = 0; k < n_signals; ++k)
    if (used[k]) out.push_back(k);
  return out;
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

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
  if (solvers::write_lcp_dump(path, c.lcp.M, c.lcp.q, prov, &error)) return true;
  print_error(error);
  return false;
}

}  // namespace

int run_command(const RunOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  const auto loaded = load_netlist(o.netlist);
  if (!loaded) return kBadInput;
  const circuit::Circuit& circuit = loaded->circuit;
  const circuit::Assembled assembled = circuit::assemble(circuit);
  const circuit::SignalTable signals = circuit::make_signals(circuit, assembled);
  const std::string stem = std::filesystem::path(o.netlist).stem().string();

  // Everything the user asked for is checked before anything is written.
  std::string error;
  circuit::TransientOptions topt{.theta = o.theta, .h = o.step};
  if (!o.lcp_solver.empty()) {
    topt.lcp_solver = solvers::parse_lcp_solver(o.lcp_solver);
    if (!topt.lcp_solver) {
      print_error(fmt::format(
          "--lcp-solver '{}': unknown method{}; expected auto, lemke, murty, enum, pgs or newton",
          o.lcp_solver,
          circuit::did_you_mean(o.lcp_solver,
                                {"auto", "lemke", "murty", "enum", "pgs", "newton"})));
      return kBadInput;
    }
  }
  if (!o.method.empty()) {
    if (o.method != "theta" && o.method != "event") {
      print_error(fmt::format("--method '{}': expected theta or event{}", o.method,
                              circuit::did_you_mean(o.method, {"theta", "event"})));
      return kBadInput;
    }
    topt.method = o.method == "event" ? circuit::TranMethod::kEvent : circuit::TranMethod::kTheta;
  }
  const bool event_driven = topt.method.value_or(circuit.method) == circuit::TranMethod::kEvent;
  topt.event_rtol = o.evrtol;
  if (event_driven && (o.dump_step > 0 || o.dump_time)) {
    print_error(
        "--dump-mlcp writes a step of the theta-scheme; it does not apply to --method event");
    return kBadInput;
  }
  topt.dump_step = o.dump_step;
  topt.dump_time = o.dump_time;
  auto measures_or = all_measures(*loaded, o.measures);
  if (!measures_or) return kBadInput;
  std::vector<MeasureSpec> specs = std::move(*measures_or);
  // Differential voltages v(a,b) asked for anywhere become extra columns.
  // The file's signals: --save, else the netlist's .print/.save/.probe cards, else all.
  std::string save = o.save;
  for (const auto& name : o.save.empty() ? loaded->saved : std::vector<std::string>{})
    save += (save.empty() ? "" : ",") + name;
  std::vector<std::string> wanted = split_signals(save + "," + o.signals);
  for (const auto& p : o.panels)
    for (auto& name : split_signals(p)) wanted.push_back(std::move(name));
  for (const auto& spec : specs) wanted.insert(wanted.end(), {spec.signal, spec.when_signal});
  const auto derived = differential_columns(wanted, signals.names);
  std::vector<std::string> all_names = signals.names;
  for (const auto& d : derived) all_names.push_back(d.name);

  const std::string plot_path = !o.plot.empty() ? o.plot : o.plot_default ? stem + ".png" : "";
  const bool plotting = !plot_path.empty() || o.show;
  if (!plot_path.empty() && !plot_extension_ok(plot_path)) {
    print_error(fmt::format("--plot '{}': the file must end in .png, .svg or .pdf", plot_path));
    return kBadInput;
  }
  const auto layout = panel_layout(o.panels, o.signals, all_names, false, error);
  if (!layout) {
    print_error(error);
    return kBadInput;
  }
  std::vector<size_t> columns;
  if (!save.empty()) {
    auto idx = select_signals(split_signals(save), all_names,
                              o.save.empty() ? ".print/.save" : "--save", error);
    if (!idx) {
      print_error(error);
      return kBadInput;
    }
    columns = *idx;
  } else {
    for (size_t k = 0; k < signals.names.size(); ++k) columns.push_back(k);
  }
  if (o.grid && !(*o.grid > 0)) {
    print_error(fmt::format("--grid {}: the step must be positive", *o.grid));
    return kBadInput;
  }
  MeasureSet measures;
  for (const auto& spec : specs) {
    if (!measures.add(spec, all_names, error)) {
      print_error(error);
      return kBadInput;
    }
  }
  const std::string output = o.output.empty() ? stem + ".csv" : o.output;
  const auto format = output_format(output, o.format, error);
  if (!format) {
    print_error(error);
    return kBadInput;
  }

  auto writer = make_writer(*format);
  std::vector<std::string> names;
  for (size_t k : columns) names.push_back(all_names[k]);
  if (!writer->open(output, circuit.title, names)) {
    print_error(fmt::format("cannot write '{}': {}", output, std::strerror(errno)));
    return kOutputFailed;
  }
  RowCounter counter(*writer);
  std::unique_ptr<GridResampler> resampler;
  RowSink* file_chain = &counter;
  if (o.grid && event_driven) {
    topt.output_step = *o.grid;  // the integrator's dense output, besides its own points
  } else if (o.grid) {
    resampler = std::make_unique<GridResampler>(counter, *o.grid,
                                                source_breakpoints(assembled, circuit.tran->tstop));
    file_chain = resampler.get();
  }
  ColumnSelector selector(*file_chain, columns);
  RunSink sink(measures, selector);
  PlotRequest plot;
  plot.title = circuit.title.empty() ? o.netlist : circuit.title;
  plot.output = plot_path;
  plot.show = o.show;
  if (plotting) {
    for (const auto& cols : *layout) {
      PlotPanel panel;
      for (size_t k : cols) panel.series.push_back({all_names[k], {}, {}});
      plot.panels.push_back(std::move(panel));
    }
    sink.plot(&plot.panels, *layout, circuit.tran->tstart, circuit.tran->tstop);
  }

  DerivedSink with_derived(sink, derived);
  // Everything downstream of the signal values (derived signals, measurements, plot series,
  // formatting and writing the file) runs on a second thread, overlapped with the stepping;
  // the stepping evaluates only the signals read downstream.
  const std::vector<size_t> needed =
      needed_signals(all_names.size(), signals.names.size(), columns, plotting ? &*layout : nullptr,
                     measures, derived);
  const bool subset = needed.size() < signals.names.size();
  AsyncSink async(with_derived, subset ? needed : std::vector<size_t>(), signals.names.size());
  Progress progress(circuit.tran->tstop, o.progress && !o.quiet);
  const Simulated sim = simulate(
      circuit, assembled, signals, topt, async, [&](double t) { progress.update(t); },
      subset ? std::span<const size_t>(needed) : std::span<const size_t>());
  progress.finish();
  async.finish();
  const bool written = writer->close();
  const long rows = counter.rows();
  const auto& result = sim.result;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const auto meas_results = measures.results();
  // Marks on the plot: state jumps (θ-scheme), every logged event (event-driven).
  for (double t : result.stats.impulse_times) plot.events.push_back({t, "jump"});
  if (result.events.size() <= 60)  // more would hide the curves
    for (const auto& e : result.events)
      plot.events.push_back({e.t, e.device.empty() ? e.transition : e.device});

  int code = 0;
  std::string dump_path, events_path;
  if (result.method == circuit::TranMethod::kEvent) {
    events_path = event_log_path(output);
    if (!write_event_log(events_path, result.events)) {
      print_error(fmt::format("cannot write '{}': {}", events_path, std::strerror(errno)));
      code = kOutputFailed;
    }
  }
  if (o.dump_step > 0 || o.dump_time) {
    if (!result.captured) {
      print_error("--dump-mlcp: the run did not reach the requested step");
      code = kOutputFailed;
    } else if (!write_step_dump(o, output, result, dump_path)) {
      code = kOutputFailed;
    }
  }
  auto report = [&] {
    if (o.quiet) return;
    fmt::print("{}", format_report(result, wall, sim.wall_seconds, output, rows));
    fmt::print("  {:<18} {}{}\n", "format", format_name(*format),
               !o.grid        ? std::string()
               : event_driven ? fmt::format(", plus dense output every {:g} s", *o.grid)
                              : fmt::format(", resampled on h = {:g} s", *o.grid));
    if (!events_path.empty()) fmt::print("  {:<18} {}\n", "event log", events_path);
    if (!plot_path.empty() && code == 0) fmt::print("  {:<18} {}\n", "plot", plot_path);
    if (!dump_path.empty()) fmt::print("  {:<18} {}\n", "LCP dump", dump_path);
    if (!meas_results.empty()) fmt::print("measurements\n{}", format_measures(meas_results));
  };
  if (!result.ok) {
    print_error(fmt::format("simulation stopped: {}", result.error));
    fmt::print(stderr, "nsspice: note: '{}' holds the {} valid rows computed up to t = {:.9g} s\n",
               output, rows, result.t_end);
    code = kSimulationFailed;
  } else if (!written) {
    print_error(fmt::format("writing '{}' failed: {}", output, std::strerror(errno)));
    return kOutputFailed;
  }
  if (!o.meas_json.empty() &&
      !write_text(o.meas_json, fmt::format("{{\n  \"netlist\": {},\n  \"measurements\": {}\n}}\n",
                                           json_string(o.netlist), measures_json(meas_results)))) {
    print_error(fmt::format("cannot write '{}'", o.meas_json));
    code = code ? code : kOutputFailed;
  }
  if (plotting && rows > 0) {
    if (const std::string why = write_plot(plot); !why.empty()) {
      print_error(fmt::format("plot '{}': {}", plot_path, why));
      code = code ? code : kOutputFailed;
    } else if (o.show && !display_available()) {
      fmt::print(stderr, "nsspice: note: no display ($DISPLAY unset): --show ignored\n");
    }
  }
  report();
  return code;
}

}  // namespace nsspice::app
