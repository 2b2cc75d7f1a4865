// make_output_plan and make_run_plan (run_plan.hpp): every choice of a run, made and checked
// before any file is opened.
#include "app/cli/run_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/cli/plot_command.hpp"
#include "app/cli/view_command.hpp"
#include "app/io/element_columns.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::app {
namespace {

// Marks the circuit signals read by the file, the plot, the measurements and the derived
// columns; returns them ascending.
std::vector<size_t> needed_signals(const OutputPlan& p) {
  std::vector<char> used(p.all_names.size(), 0);
  for (size_t c : p.columns) used[c] = 1;
  for (const auto& panel : p.layout)
    for (size_t c : panel) used[c] = 1;
  p.measures.mark_columns(used);
  for (size_t k = 0; k < p.derived.size() && p.signal_count + k < used.size(); ++k) {
    if (!used[p.signal_count + k]) continue;
    for (size_t c : p.derived[k].inputs()) used[c] = 1;
  }
  std::vector<size_t> out;
  for (size_t k = 0; k < p.signal_count; ++k)
    if (used[k]) out.push_back(k);
  return out;
}

// --method and --lcp-solver into the command line's overrides.
bool parse_choices(const RunOptions& o, circuit::TransientOptions& t, std::string& error) {
  if (!o.lcp_solver.empty()) {
    t.lcp_solver = solvers::parse_lcp_solver(o.lcp_solver);
    if (!t.lcp_solver) {
      error = fmt::format(
          "--lcp-solver '{}': unknown method{}; expected auto, lemke, murty, enum, pgs or newton",
          o.lcp_solver,
          netlist::did_you_mean(o.lcp_solver, {"auto", "lemke", "murty", "enum", "pgs", "newton"}));
      return false;
    }
  }
  if (!o.method.empty()) {
    if (o.method != "theta" && o.method != "event") {
      error = fmt::format("--method '{}': expected theta or event{}", o.method,
                          netlist::did_you_mean(o.method, {"theta", "event"}));
      return false;
    }
    t.method = o.method == "event" ? circuit::TranMethod::kEvent : circuit::TranMethod::kTheta;
  }
  return true;
}

// --save, else the netlist's .print/.save/.probe signals; the plot and the measurements.
OutputRequest output_request(const RunOptions& o, const LoadedNetlist& loaded,
                             const std::vector<std::string>& signal_names,
                             std::vector<MeasureSpec> measures, bool plotting) {
  OutputRequest r;
  r.save = o.save;
  r.circuit = &loaded.circuit;
  r.card_measures = loaded.measures.size();
  for (const auto& name :
       o.save.empty() ? card_signals(loaded, signal_names) : std::vector<std::string>{})
    r.save += (r.save.empty() ? "" : ",") + name;
  r.save_option = o.save.empty() ? ".print/.save" : "--save";
  r.signals = o.signals;
  r.panels = o.panels;
  r.measures = std::move(measures);
  r.plotting = plotting;
  return r;
}

// The rows the file will get at least, decided before anything runs: every step of the fixed
// step, every TSTEP of the dense output (error-controlled and event-driven runs), every --grid
// step; and what sets that interval, for the message.
std::pair<double, std::string> expected_rows(const RunPlan& plan) {
  const circuit::TranSettings& t = plan.tran;
  const double span = t.tstop - t.tstart;
  double every = 0;
  std::string what;
  if (plan.grid) {
    every = *plan.grid;
    what = "--grid step";
  } else if (plan.event_driven || t.adaptive) {
    every = t.output_step;
    what =
        t.tstep > 0 ? ".tran TSTEP (the print interval)" : "print interval (a 1000th of the run)";
  } else {
    every = t.h;
    what = t.step > 0 ? "fixed step" : ".tran step";
  }
  return {every > 0 ? std::floor(span / every) + 1 : 1, fmt::format("{} of {:g} s", what, every)};
}

// An output too large for a run nobody meant: "the run would write about N rows (B) ...".
std::string check_output_size(const RunOptions& o, const LoadedNetlist& loaded,
                              const RunPlan& plan) {
  constexpr double kDefaultMaxRows = 1e8;
  const double limit = o.max_rows                    ? *o.max_rows
                       : loaded.circuit.max_rows > 0 ? loaded.circuit.max_rows
                                                     : kDefaultMaxRows;
  const auto [rows, why] = expected_rows(plan);
  if (rows <= limit) return {};
  const double bytes = rows * static_cast<double>(plan.output.columns.size() + 1) *
                       (plan.format == OutputFormat::kCsv ? 20.0 : 8.0);
  return fmt::format(
      "the run would write about {:.3g} rows (about {:.3g} GB) to '{}': {:g} s of simulated time "
      "at one row per {}; the limit is {:.3g} rows: raise it with --max-rows or .options maxrows, "
      "or "
      "write fewer points (a longer TSTEP or step, --grid)",
      rows, bytes / 1e9, plan.output_path, plan.tran.tstop - plan.tran.tstart, why, limit);
}

}  // namespace

std::string RunOptions::validate() const {
  if (grid && !(*grid > 0 && std::isfinite(*grid)))
    return fmt::format("--grid {:g}: must be positive (a step in seconds)", *grid);
  if (dump_step < 0) return fmt::format("--dump-mlcp {}: must be >= 1", dump_step);
  if (max_rows && !(*max_rows >= 1 && std::isfinite(*max_rows)))
    return fmt::format("--max-rows {:g}: must be a number >= 1", *max_rows);
  if (dump_time && !(*dump_time >= 0 && std::isfinite(*dump_time)))
    return fmt::format("--dump-mlcp-time {:g}: must be >= 0 (seconds)", *dump_time);
  return {};
}

std::optional<OutputPlan> make_output_plan(const OutputRequest& request,
                                           const std::vector<std::string>& signal_names,
                                           std::string& error) {
  OutputPlan p;
  std::vector<std::string> names = signal_names;
  names.insert(names.end(), request.rate_names.begin(), request.rate_names.end());
  p.signal_count = names.size();
  // Differential voltages v(a,b), element currents i(X) and powers p(X) asked for anywhere
  // become extra columns.
  std::vector<std::string> wanted = split_signals(request.save + "," + request.signals);
  for (const auto& panel : request.panels)
    for (auto& name : split_signals(panel)) wanted.push_back(std::move(name));
  for (const auto& spec : request.measures)
    for (auto& name : spec.signals()) wanted.push_back(std::move(name));
  p.derived = request.circuit != nullptr ? derived_columns(wanted, names, *request.circuit)
                                         : differential_columns(wanted, names);
  p.all_names = names;
  for (const auto& d : p.derived) p.all_names.push_back(d.name);

  if (!request.save.empty()) {
    auto idx = select_signals(split_signals(request.save), p.all_names, request.save_option, error);
    if (!idx) return std::nullopt;
    p.columns = std::move(*idx);
  } else {  // every signal, not the rates
    for (size_t k = 0; k < signal_names.size(); ++k) p.columns.push_back(k);
  }
  // The plot: --panel, else --signals, else the netlist's .print/.save/.probe signals, else the
  // default selection; the last two are arranged into panels by kind and scale after the run.
  const bool from_cards = request.signals.empty() && request.panels.empty() &&
                          request.save_option == ".print/.save" && !request.save.empty();
  const auto layout = panel_layout(request.panels, from_cards ? request.save : request.signals,
                                   p.all_names, true, error, &p.plot_left_out);
  if (!layout) return std::nullopt;
  if (request.plotting) p.layout = *layout;
  p.auto_layout = request.signals.empty() && request.panels.empty();
  for (size_t k = 0; k < request.measures.size(); ++k) {
    if (p.measures.add(request.measures[k], p.all_names, error)) continue;
    if (k >= request.card_measures) return std::nullopt;
    p.left_out.emplace_back(k, error + "; the measurement is left out");
    error.clear();
  }
  p.needed = needed_signals(p);
  return p;
}

std::optional<RunPlan> make_run_plan(const RunOptions& o, const LoadedNetlist& loaded,
                                     const std::vector<std::string>& signal_names,
                                     std::string& error,
                                     const std::vector<std::string>& rate_names) {
  RunPlan plan;
  plan.overrides = {.theta = o.theta, .h = o.step};
  if (!parse_choices(o, plan.overrides, error)) return std::nullopt;
  plan.overrides.event_rtol = o.evrtol;
  plan.tran = circuit::resolve_tran_settings(loaded.circuit, plan.overrides);
  if (error = plan.tran.validate(); !error.empty()) return std::nullopt;
  if (error = o.validate(); !error.empty()) return std::nullopt;
  plan.event_driven = plan.tran.method == circuit::TranMethod::kEvent;
  if (plan.event_driven && (o.dump_step > 0 || o.dump_time)) {
    error = "--dump-mlcp writes a step of the theta-scheme; it does not apply to --method event";
    return std::nullopt;
  }
  plan.overrides.dump_step = o.dump_step;
  plan.overrides.dump_time = o.dump_time;
  std::vector<MeasureSpec> measures = loaded.measures;
  for (const auto& text : o.measures) {
    auto spec = parse_measure(text, error);
    if (!spec) return std::nullopt;
    measures.push_back(std::move(*spec));
  }
  const auto files = run_files(o, loaded, error);
  if (!files) return std::nullopt;
  plan.plot_path = files->plot_path;
  plan.plotting = !plan.plot_path.empty() || o.show;
  OutputRequest request =
      output_request(o, loaded, signal_names, std::move(measures), plan.plotting);
  request.rate_names = rate_names;
  auto output = make_output_plan(request, signal_names, error);
  if (!output) return std::nullopt;
  plan.output = std::move(*output);
  plan.grid = o.grid;
  if (plan.grid && plan.event_driven)
    plan.overrides.output_step = *plan.grid;  // the integrator's dense output
  plan.output_path = files->output_path;
  plan.format = files->format;
  if (error = check_output_size(o, loaded, plan); !error.empty()) return std::nullopt;
  return plan;
}

void warn_left_out(const LoadedNetlist& loaded, const OutputPlan& output) {
  for (const auto& [k, why] : output.left_out)  // a .meas card: a warning at its place
    netlist_warning(loaded, loaded.measure_spans[k], why);
}

std::vector<std::string> left_out_lines(const LoadedNetlist& loaded, const OutputPlan& output) {
  std::vector<std::string> out;
  for (const auto& [k, why] : output.left_out) {
    const netlist::SourceSpan& at = loaded.measure_spans[k];
    out.push_back(
        fmt::format("{}:{}:{}: {}", loaded.sources.path(at.file), at.line, at.column, why));
  }
  return out;
}

std::optional<RunFiles> run_files(const RunOptions& o, const LoadedNetlist& loaded,
                                  std::string& error) {
  RunFiles files;
  const std::string stem = std::filesystem::path(o.netlist).stem().string();
  files.plot_path = !o.plot.empty() ? o.plot : o.plot_default ? stem + ".png" : "";
  if (!files.plot_path.empty() && !plot_extension_ok(files.plot_path)) {
    error = fmt::format("--plot '{}': the file must end in .png, .svg or .pdf", files.plot_path);
    return std::nullopt;
  }
  if (!o.view.empty())
    if (error = view_path_error(o.view, "--view"); !error.empty()) return std::nullopt;
  files.output_path = !o.output.empty()             ? o.output
                      : !loaded.output_file.empty() ? loaded.output_file
                                                    : stem + ".csv";
  const auto format = output_format(files.output_path, o.format, error);
  if (!format) return std::nullopt;
  files.format = *format;
  return files;
}

const char* analysis_card(AnalysisKind kind) {
  switch (kind) {
    case AnalysisKind::kOp:
      return ".op";
    case AnalysisKind::kDc:
      return ".dc";
    case AnalysisKind::kAc:
      return ".ac";
    case AnalysisKind::kPss:
      return ".pss";
    case AnalysisKind::kTran:
      break;
  }
  return ".tran";
}

std::optional<AnalysisChoice> choose_analysis(const std::string& option,
                                              const circuit::Circuit& circuit,
                                              const std::string& netlist_path, std::string& error) {
  using enum AnalysisKind;
  const std::vector<std::pair<AnalysisKind, bool>> present = {{kTran, circuit.tran.has_value()},
                                                              {kAc, circuit.ac.has_value()},
                                                              {kPss, circuit.pss.has_value()},
                                                              {kDc, !circuit.dc.empty()},
                                                              {kOp, circuit.op}};
  AnalysisChoice choice;
  bool found = false;
  if (!option.empty()) {
    const std::vector<std::string> names = {"tran", "op", "dc", "ac", "pss"};
    const auto it = std::find(names.begin(), names.end(), option);
    if (it == names.end()) {
      error = fmt::format("--analysis '{}': expected tran, op, dc, ac or pss{}", option,
                          netlist::did_you_mean(option, names));
      return std::nullopt;
    }
    choice.kind = static_cast<AnalysisKind>(it - names.begin());
    found = std::any_of(present.begin(), present.end(),
                        [&](const auto& p) { return p.first == choice.kind && p.second; });
    // .op needs no parameters: any netlist has an operating point.
    if (!found && choice.kind != kOp) {
      error = fmt::format("--analysis {}: the netlist has no {} card", option,
                          analysis_card(choice.kind));
      return std::nullopt;
    }
    found = true;
  }
  for (const auto& [kind, here] : present) {
    if (!here) continue;
    if (!found) {
      choice.kind = kind;
      found = true;
    } else if (kind != choice.kind) {
      if (kind == kOp)
        choice.print_op = true;
      else
        choice.others.push_back(analysis_card(kind));
    }
  }
  if (!found) {
    error = fmt::format(
        "'{}' has no analysis card (.tran, .op, .dc, .ac or .pss): nothing to simulate (add e.g. "
        "'.tran 1u 1m' or '.op')",
        netlist_path);
    return std::nullopt;
  }
  return choice;
}

}  // namespace nsspice::app
