// analysis_command.hpp: .op, .dc and .ac runs, from the loaded netlist to the file, the plot and
// the report.
#include "app/cli/analysis_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "app/cli/param_sweep.hpp"
#include "app/io/analysis_writer.hpp"
#include "app/io/element_columns.hpp"
#include "app/io/output_file.hpp"
#include "app/io/signals.hpp"
#include "app/measure/sweep_measures.hpp"
#include "app/plot/analysis_plot.hpp"
#include "app/plot/plot_gnuplot.hpp"

namespace nsspice::app {
namespace {

using circuit::AnalysisResult;

// Options of the transient alone: an error for another analysis rather than silently unused.
std::string transient_only_option(const RunOptions& o) {
  if (o.grid) return "--grid";
  if (o.step) return "--step";
  if (o.theta) return "--theta";
  if (!o.method.empty()) return "--method";
  if (o.evrtol) return "--evrtol";
  if (o.dump_step > 0 || o.dump_time) return "--dump-mlcp";
  if (!o.signals.empty() || !o.panels.empty()) return "--signals/--panel (plot the --save signals)";
  return {};
}

struct Output {
  std::string path, plot_path;
  OutputFormat format = OutputFormat::kCsv;
  std::vector<size_t> columns;  // indices into the signal table
  std::vector<std::string> names;
};

std::optional<Output> output_of(const RunOptions& o, const LoadedNetlist& loaded,
                                const circuit::SignalTable& signals, std::string& error) {
  if (const std::string opt = transient_only_option(o); !opt.empty()) {
    error = fmt::format("{} applies to a .tran run only", opt);
    return std::nullopt;
  }
  if (error = o.validate(); !error.empty()) return std::nullopt;
  const auto files = run_files(o, loaded, error);
  if (!files) return std::nullopt;
  Output out{files->output_path, files->plot_path, files->format, {}, {}};
  auto columns = chosen_signals(o, loaded, signals.names, error);
  if (!columns) return std::nullopt;
  out.columns = std::move(*columns);
  for (size_t k : out.columns) out.names.push_back(signals.names[k]);
  return out;
}

// Each device's pair modes in pair order (one pass over the pairs).
std::vector<std::vector<char>> device_modes(const circuit::Assembled& a,
                                            const std::vector<char>& mode, size_t devices) {
  std::vector<std::vector<char>> out(devices);
  for (size_t j = 0; j < a.pair_device.size() && j < mode.size(); ++j)
    if (const int d = a.pair_device[j]; d >= 0 && static_cast<size_t>(d) < devices)
      out[static_cast<size_t>(d)].push_back(mode[j]);
  return out;
}

int finish_plot(const RunOptions& o, PlotRequest& plot, int code) {
  if (plot.output.empty() && !o.show) return code;
  if (const std::string why = write_plot(plot); !why.empty()) {
    print_error(fmt::format("plot '{}': {}", plot.output, why));
    return code ? code : kOutputFailed;
  }
  return code;
}

std::string title_of(const LoadedNetlist& loaded, const RunOptions& o) {
  return loaded.circuit.title.empty() ? o.netlist : loaded.circuit.title;
}

void report(const RunOptions& o, const char* what, const AnalysisResult& r, const Output& out,
            double wall) {
  if (o.quiet) return;
  fmt::print("{}: {} point{} in {:.3g} s\n", what, r.points, r.points == 1 ? "" : "s", wall);
  if (r.pivots > 0 || r.mode_changes > 0)
    fmt::print("  {:<18} {} pivots, {} mode changes\n", "static MLCP", r.pivots, r.mode_changes);
  if (r.max_residual > 0) fmt::print("  {:<18} {:.2g}\n", "max residual", r.max_residual);
  fmt::print("  {:<18} {} ({})\n", "output", out.path, format_name(out.format));
  if (!out.plot_path.empty()) fmt::print("  {:<18} {}\n", "plot", out.plot_path);
}

// How an analysis found its answer (AnalysisResult::notes).
void print_notes(const AnalysisResult& r) {
  for (const auto& n : r.notes) fmt::print(stderr, "nsspice: note: {}\n", n);
  for (const auto& w : r.warnings) fmt::print(stderr, "nsspice: warning: {}\n", w);
}

int write_failed(const std::string& path) {
  print_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  return kOutputFailed;
}

int run_op(const RunOptions& o, const LoadedNetlist& loaded, const circuit::Assembled& a,
           const circuit::SignalTable& signals, const Output& out) {
  const auto start = std::chrono::steady_clock::now();
  circuit::StaticSolution op;
  const AnalysisResult r = circuit::operating_point(loaded.circuit, a, op);
  if (!r.ok()) {
    print_error(r.summary.message);
    return kSimulationFailed;
  }
  print_notes(r);
  if (!o.quiet) fmt::print("{}", format_operating_point(loaded.circuit, a, signals, op));
  AnalysisWriter writer(out.format);
  if (!writer.open(out.path, loaded.circuit.title, {"Operating Point", false, {}, out.names}))
    return write_failed(out.path);
  std::vector<double> values;
  signals.evaluate(op.x, op.lambda, out.columns, values);
  writer.row({}, values);
  if (!writer.close()) return write_failed(out.path);
  if (!out.plot_path.empty())
    fmt::print(stderr, "nsspice: note: an operating point is one point: no plot written\n");
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Output shown = out;
  shown.plot_path.clear();
  report(o, "operating point", r, shown, wall);
  return 0;
}

// The measurements of a .dc or an .ac run: its .meas dc|ac cards and those without an analysis
// (a card that cannot be measured is a warning at its place, and left out), then the --meas
// texts (an error: nullopt, `error` set). Along the first sweep's value, or the frequency.
std::optional<SweepMeasures> sweep_measures(const RunOptions& o, const LoadedNetlist& loaded,
                                            bool ac, const std::vector<std::string>& names,
                                            std::string& error) {
  const circuit::Circuit& c = loaded.circuit;
  const std::string which = ac ? "ac" : "dc";
  MeasureScale scale{"f", "Hz", false};
  if (!ac)
    scale = {c.dc[0].source, c.dc[0].parameter ? "" : c.dc[0].source[0] == 'i' ? "A" : "V", false};
  SweepMeasures out(scale, names, ac);
  // Why `spec` is not measured on this run ("" if it is); td= is dropped, as ngspice ignores it.
  const auto check = [&](MeasureSpec& spec, std::string& note) -> std::string {
    if (!spec.analysis.empty() && spec.analysis != which)
      return fmt::format("'{}' measures a .{} run, and this run is .{}", spec.text, spec.analysis,
                         which);
    if (!ac && c.dc.size() > 1)
      return fmt::format(
          "measurement '{}': a nested .dc (two sweeps) is not measured: measure "
          "one sweep (a .step of the outer one repeats it)",
          spec.name);
    if (spec.when.td != 0 || spec.targ.td != 0) {
      note = fmt::format(
          "measurement '{}': td= is a delay in time; a .meas {} ignores it (as "
          "ngspice does)",
          spec.name, which);
      spec.when.td = spec.targ.td = 0;
    }
    return {};
  };
  for (size_t k = 0; k < loaded.sweep_measures.size(); ++k) {
    MeasureSpec spec = loaded.sweep_measures[k];
    if (!spec.analysis.empty() && spec.analysis != which) continue;  // warn_other_measures
    std::string note, why = check(spec, note);
    if (!note.empty()) netlist_warning(loaded, loaded.sweep_measure_spans[k], note);
    if (why.empty() && out.add(spec, why)) continue;
    netlist_warning(loaded, loaded.sweep_measure_spans[k], why + "; the measurement is left out");
  }
  for (const auto& text : o.measures) {
    auto spec = parse_measure(text, error);
    if (!spec) return std::nullopt;
    std::string note;
    if (error = check(*spec, note); !error.empty()) return std::nullopt;
    if (!note.empty()) fmt::print(stderr, "nsspice: warning: {}\n", note);
    if (!out.add(*spec, error)) return std::nullopt;
  }
  return out;
}

// Feeds one point's values of the signals the measurements read (.ac: complex).
template <typename Vector>
void feed_point(SweepMeasures& measures, double scale, const circuit::SignalTable& table,
                const Vector& x, const Vector& l, std::vector<double>& re,
                std::vector<double>& im) {
  if (measures.empty()) return;
  if constexpr (std::is_same_v<Vector, Eigen::VectorXcd>) {
    table.evaluate(x.real(), l.real(), measures.signals(), re);
    table.evaluate(x.imag(), l.imag(), measures.signals(), im);
  } else {
    table.evaluate(x, l, measures.signals(), re);
  }
  measures.feed(scale, re, im);
}

// The results after the report, and --meas-json; the exit code so far.
int finish_measures(const RunOptions& o, const SweepMeasures& measures, int code) {
  const auto measured = measures.results();
  code = write_meas_json(o, measured, code);
  print_measures(measured, o.quiet);
  return code;
}

// ngspice's scale of a DC sweep: v(v-sweep) for a V source, i(i-sweep) for an I source; a
// second (outer) sweep is a column of its own, "<source>-sweep".
std::vector<std::pair<std::string, std::string>> dc_scale(const circuit::Circuit& c) {
  std::vector<std::pair<std::string, std::string>> scale;
  for (size_t k = 0; k < c.dc.size(); ++k) {
    if (c.dc[k].parameter) {  // ngspice names a parameter sweep's scale after the parameter
      scale.emplace_back(c.dc[k].source, c.dc[k].source);
      continue;
    }
    const char letter = c.dc[k].source[0] == 'i' ? 'i' : 'v';
    const std::string csv =
        k == 0 ? fmt::format("{}-sweep", letter) : fmt::format("{}-sweep", c.dc[k].source);
    scale.emplace_back(fmt::format("{}({})", letter, csv), csv);
  }
  return scale;
}

int run_dc(const RunOptions& o, const LoadedNetlist& loaded, const circuit::Assembled& a,
           const circuit::SignalTable& signals, const Output& out) {
  const auto start = std::chrono::steady_clock::now();
  const circuit::Circuit& c = loaded.circuit;
  std::string error;
  auto measures = sweep_measures(o, loaded, false, signals.names, error);
  if (!measures) {
    print_error(error);
    return kBadInput;
  }
  std::vector<double> re, im;
  AnalysisWriter writer(out.format);
  if (!writer.open(out.path, c.title,
                   {"DC transfer characteristic", false, dc_scale(c), out.names}))
    return write_failed(out.path);
  PlotRequest plot;
  plot.title = title_of(loaded, o);
  plot.output = out.plot_path;
  plot.show = o.show;
  DcSweepCurves curves(out.names);
  const bool nested = c.dc.size() > 1;
  double outer_value = 0;
  std::vector<double> values;
  const auto point = [&](std::span<const double> sweep, const Eigen::VectorXd& x,
                         const Eigen::VectorXd& l, const circuit::SignalTable& table) {
    table.evaluate(x, l, out.columns, values);
    writer.row(sweep, values);
    if (!curves.started() || (nested && sweep[1] != outer_value)) {
      if (nested) outer_value = sweep[1];
      curves.start(nested ? fmt::format("{}={:g}", c.dc[1].source, sweep[1]) : "");
    }
    curves.point(sweep[0], values);
    feed_point(*measures, sweep[0], table, x, l, re, im);
  };
  const bool by_parameter =
      std::any_of(c.dc.begin(), c.dc.end(), [](const auto& sweep) { return sweep.parameter; });
  const AnalysisResult r =
      by_parameter
          ? param_dc_sweep(loaded, signals.names, point)
          : circuit::dc_sweep(c, a,
                              [&](std::span<const double> sweep, const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& l) { point(sweep, x, l, signals); });
  std::move(curves).draw(
      plot, c.dc[0].parameter
                ? c.dc[0].source
                : fmt::format("{} [{}]", c.dc[0].source, c.dc[0].source[0] == 'i' ? "A" : "V"));
  const bool written = writer.close();
  if (!r.ok()) {
    print_error(fmt::format("DC sweep stopped: {}", r.summary.message));
    return kSimulationFailed;
  }
  if (!written) return write_failed(out.path);
  print_notes(r);
  int code = finish_plot(o, plot, 0);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report(o, "DC sweep", r, out, wall);
  return finish_measures(o, *measures, code);
}

int run_ac(const RunOptions& o, const LoadedNetlist& loaded, const circuit::Assembled& loaded_a,
           const circuit::SignalTable& signals, const Output& out) {
  const auto start = std::chrono::steady_clock::now();
  std::string error;
  auto measures = sweep_measures(o, loaded, true, signals.names, error);
  if (!measures) {
    print_error(error);
    return kBadInput;
  }
  circuit::StaticSolution op;
  if (const AnalysisResult r = circuit::operating_point(loaded.circuit, loaded_a, op); !r.ok()) {
    print_error(r.summary.message);
    return kSimulationFailed;
  } else {
    print_notes(r);
  }
  // The junction capacitances and the MOSFETs' LAMBDA conductances at the operating point
  // (SPICE's small-signal model), in a copy: only capacitances change and conductances are
  // added between existing nodes, so the operating point and the signals (names, pairs) are
  // those of the loaded circuit.
  circuit::Circuit c = loaded.circuit;
  const std::string charges = circuit::small_signal_charges(c, op);
  const std::string outputs = circuit::small_signal_output_conductances(c, op);
  const circuit::Assembled a = circuit::assemble(c);
  if (!charges.empty()) fmt::print(stderr, "nsspice: note: {}\n", charges);
  if (!outputs.empty()) fmt::print(stderr, "nsspice: note: {}\n", outputs);
  AnalysisWriter writer(out.format);
  if (!writer.open(out.path, c.title,
                   {"AC Analysis", true, {{"frequency", "frequency"}}, out.names}))
    return write_failed(out.path);
  PlotRequest plot;
  plot.title = title_of(loaded, o);
  plot.output = out.plot_path;
  plot.show = o.show;
  BodeCurves bode(out.names);
  std::vector<double> re, im, measured_re, measured_im;
  std::vector<std::complex<double>> z;
  const AnalysisResult r = circuit::ac_sweep(
      c, a, op, [&](double f, const Eigen::VectorXcd& x, const Eigen::VectorXcd& l) {
        signals.evaluate(x.real(), l.real(), out.columns, re);
        signals.evaluate(x.imag(), l.imag(), out.columns, im);
        z.resize(re.size());
        for (size_t k = 0; k < re.size(); ++k) z[k] = {re[k], im[k]};
        const double scale[1] = {f};
        writer.row(scale, z);
        bode.point(f, z);
        feed_point(*measures, f, signals, x, l, measured_re, measured_im);
      });
  const bool written = writer.close();
  if (!r.ok()) {
    print_error(fmt::format("AC analysis stopped: {}", r.summary.message));
    return kSimulationFailed;
  }
  if (!written) return write_failed(out.path);
  std::move(bode).draw(plot);
  const int code = finish_plot(o, plot, 0);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report(o, "AC analysis", r, out, wall);
  return finish_measures(o, *measures, code);
}

}  // namespace

std::optional<std::vector<size_t>> chosen_signals(const RunOptions& o, const LoadedNetlist& loaded,
                                                  const std::vector<std::string>& names,
                                                  std::string& error) {
  if (!o.save.empty()) return select_signals(split_signals(o.save), names, "--save", error);
  std::vector<size_t> out;
  for (const auto& name : card_signals(loaded, names)) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) {
      out.push_back(static_cast<size_t>(it - names.begin()));
    } else {
      fmt::print(stderr, "nsspice: note: '{}' is written by .tran only; left out of {}\n", name,
                 o.netlist);
    }
  }
  // All, but the charge unknowns qs(x) (q(x)/s, docs/devices.md): q(x) is the charge.
  if (out.empty())
    for (size_t k = 0; k < names.size(); ++k)
      if (!names[k].starts_with("qs(")) out.push_back(k);
  return out;
}

std::string device_state(const circuit::Device& device, const std::vector<char>& m) {
  if (const auto* d = std::get_if<circuit::Diode>(&device)) {
    if (m.size() == 2 && d->model.bv > 0)
      return m[0] ? "conducting" : m[1] ? "breakdown" : "blocking";
    if (m.size() == 1) return m[0] ? "conducting" : "blocking";
  }
  if (std::holds_alternative<circuit::Switch>(device) && m.size() == 1) return m[0] ? "on" : "off";
  std::string modes;
  for (char b : m) modes += b ? '1' : '0';
  return "pair modes " + modes;
}

std::string format_operating_point(const circuit::Circuit& circuit, const circuit::Assembled& a,
                                   const circuit::SignalTable& signals,
                                   const circuit::StaticSolution& op) {
  std::vector<double> values;
  signals.evaluate(op.x, op.lambda, values);
  for (double& v : values)
    if (v == 0) v = 0;  // no "-0"
  std::string out = "operating point\n  node voltages\n";
  for (int k = 0; k < a.node_count; ++k)
    out += fmt::format("    {:<20} {:>14.6g} V\n", signals.names[static_cast<size_t>(k)],
                       values[static_cast<size_t>(k)]);
  // The branch currents, then the stored charges q(x) (in C; their unknowns qs(x) = q(x)/s
  // are not currents, and not shown).
  std::string currents, charges;
  for (int k = a.node_count; k < a.mlcs.n; ++k) {
    const std::string& name = signals.names[static_cast<size_t>(k)];
    if (!name.starts_with("qs(")) {
      currents += fmt::format("    {:<20} {:>14.6g} A\n", name, values[static_cast<size_t>(k)]);
      continue;
    }
    std::string q = name;
    q.erase(1, 1);  // "qs(x)" -> "q(x)"
    const auto it = std::find(signals.names.begin(), signals.names.end(), q);
    if (it != signals.names.end())
      charges += fmt::format("    {:<20} {:>14.6g} C\n", q,
                             values[static_cast<size_t>(it - signals.names.begin())]);
  }
  if (!currents.empty()) out += "  branch currents\n" + currents;
  if (!charges.empty()) out += "  stored charges\n" + charges;
  bool header = false;
  const std::vector<std::vector<char>> modes = device_modes(a, op.mode, circuit.devices.size());
  std::unordered_map<std::string_view, size_t> signal_index;  // the first of each name
  for (size_t k = signals.names.size(); k-- > 0;) signal_index[signals.names[k]] = k;
  for (size_t d = 0; d < circuit.devices.size(); ++d) {
    const std::vector<char>& m = modes[d];
    if (m.empty()) continue;
    if (!header) out += "  devices\n";
    header = true;
    const std::string& name = circuit::device_name(circuit.devices[d]);
    const auto it = signal_index.find("i(" + name + ")");
    const std::string current =
        it == signal_index.end() ? std::string() : fmt::format("i = {:.6g} A", values[it->second]);
    out +=
        fmt::format("    {:<20} {:<14} {}\n", name, device_state(circuit.devices[d], m), current);
  }
  return out;
}

void warn_other_measures(const LoadedNetlist& loaded, AnalysisKind kind) {
  const std::string run = analysis_card(kind == AnalysisKind::kPss ? AnalysisKind::kTran : kind);
  const auto warn = [&](const MeasureSpec& spec, const netlist::SourceSpan& span) {
    if (kind == AnalysisKind::kOp)
      netlist_warning(loaded, span,
                      fmt::format("measurement '{}' is not made: .meas cards measure .tran, .dc "
                                  "and .ac runs, and this run is .op",
                                  spec.name));
    else if (!spec.analysis.empty() && "." + spec.analysis != run)
      netlist_warning(loaded, span,
                      fmt::format("measurement '{}' of .{} is not made: this run is {} (one "
                                  "analysis per run: --analysis {})",
                                  spec.name, spec.analysis, run, spec.analysis));
  };
  for (size_t k = 0; k < loaded.measures.size(); ++k)
    warn(loaded.measures[k], loaded.measure_spans[k]);
  for (size_t k = 0; k < loaded.sweep_measures.size(); ++k)
    if (!loaded.sweep_measures[k].analysis.empty())  // those without are in `measures` too
      warn(loaded.sweep_measures[k], loaded.sweep_measure_spans[k]);
}

bool print_operating_point(const LoadedNetlist& loaded) {
  const circuit::Assembled a = circuit::assemble(loaded.circuit);
  const circuit::SignalTable signals = circuit::make_signals(loaded.circuit, a);
  circuit::StaticSolution op;
  const AnalysisResult r = circuit::operating_point(loaded.circuit, a, op);
  if (!r.ok()) {
    print_error(fmt::format(".op: {}", r.summary.message));
    return false;
  }
  print_notes(r);
  fmt::print("{}", format_operating_point(loaded.circuit, a, signals, op));
  return true;
}

int analysis_command(const RunOptions& o, const LoadedNetlist& loaded,
                     const AnalysisChoice& choice) {
  const circuit::Assembled a = circuit::assemble(loaded.circuit);
  const circuit::SignalTable signals = circuit::make_signals(loaded.circuit, a);
  std::string error;
  const auto out = output_of(o, loaded, signals, error);
  if (!out) {
    print_error(error);
    return kBadInput;
  }
  if (choice.print_op && choice.kind != AnalysisKind::kOp && !o.quiet &&
      !print_operating_point(loaded))
    return kSimulationFailed;
  if (choice.kind == AnalysisKind::kOp && (!o.measures.empty() || !o.meas_json.empty())) {
    print_error("--meas measures a .tran, .dc or .ac run; this run is .op");
    return kBadInput;
  }
  switch (choice.kind) {
    case AnalysisKind::kOp:
      return run_op(o, loaded, a, signals, *out);
    case AnalysisKind::kDc:
      return run_dc(o, loaded, a, signals, *out);
    case AnalysisKind::kAc:
      return run_ac(o, loaded, a, signals, *out);
    case AnalysisKind::kTran:
    case AnalysisKind::kPss:
      break;
  }
  print_error("internal: analysis_command called for .tran or .pss");
  return kBadInput;
}

}  // namespace nsspice::app
