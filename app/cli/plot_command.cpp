#include "app/cli/plot_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <tuple>

#include "app/cli/simulation.hpp"
#include "app/io/analysis_writer.hpp"
#include "app/io/raw_reader.hpp"
#include "app/io/signals.hpp"
#include "app/plot/analysis_plot.hpp"
#include "app/plot/plot_layout.hpp"
#include "app/sweep/sweep_plot.hpp"

namespace nsspice::app {

bool plot_extension_ok(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  return ext == ".png" || ext == ".svg" || ext == ".pdf";
}

std::optional<std::vector<std::vector<size_t>>> panel_layout(const std::vector<std::string>& panels,
                                                             const std::string& signals,
                                                             const std::vector<std::string>& names,
                                                             bool currents, std::string& error,
                                                             size_t* left_out) {
  std::vector<std::vector<size_t>> out;
  for (const auto& p : panels) {
    auto idx = select_signals(split_signals(p), names, "--panel", error);
    if (!idx) return std::nullopt;
    if (!idx->empty()) out.push_back(std::move(*idx));
  }
  if (!out.empty()) return out;
  if (!signals.empty()) {
    auto idx = select_signals(split_signals(signals), names, "--signals", error);
    if (!idx) return std::nullopt;
    if (!idx->empty()) out.push_back(std::move(*idx));
    return out;
  }
  std::vector<size_t> all;
  for (const auto kind : {SignalKind::kVoltage, SignalKind::kCurrent})
    for (size_t k = 0; k < names.size(); ++k)
      if (signal_kind(names[k]) == kind && (currents || kind == SignalKind::kVoltage))
        all.push_back(k);
  if (all.empty() && !names.empty()) all.push_back(0);
  if (left_out != nullptr)
    *left_out = all.size() > kMaxDefaultSignals ? all.size() - kMaxDefaultSignals : 0;
  if (all.size() > kMaxDefaultSignals) all.resize(kMaxDefaultSignals);
  out.push_back(all);
  return out;
}

std::vector<PlotPanel> make_panels(const Waveforms& w,
                                   const std::vector<std::vector<size_t>>& layout) {
  std::vector<PlotPanel> panels;
  for (const auto& cols : layout) {
    PlotPanel panel;
    for (size_t k : cols) panel.series.push_back({w.names[k], w.time, w.columns[k]});
    panels.push_back(std::move(panel));
  }
  return panels;
}

std::string PlotOptions::validate() const {
  if (t_from.has_value() != t_to.has_value()) return "--window: needs FROM,TO";
  if (t_from && !(std::isfinite(*t_from) && std::isfinite(*t_to) && *t_from < *t_to))
    return fmt::format("--window {:g},{:g}: FROM must be below TO", *t_from, *t_to);
  return {};
}

namespace {

// "run 3" from a sweep's plot title "<title> [run 3: rl=100]", else "plot K".
std::string plot_label(const Waveforms& w, std::size_t k) {
  const auto at = w.title.rfind(" [run ");
  if (at == std::string::npos) return fmt::format("plot {}", k + 1);
  std::string label = w.title.substr(at + 2);
  if (!label.empty() && label.back() == ']') label.pop_back();
  return label;
}

// A raw file with several plots of the same signals (a sweep's runs) is drawn as an overlay of
// them all; nullopt when the file is not one (one plot, or plots of other signals).
std::optional<int> plot_runs(const PlotOptions& o, const std::string& output) {
  if (lower(std::filesystem::path(o.input).extension().string()) != ".raw") return std::nullopt;
  std::string error;
  const auto plots = read_raw_plots(o.input, error);
  if (!plots || plots->size() < 2) return std::nullopt;
  for (const auto& w : *plots)
    if (w.names != plots->front().names) return std::nullopt;
  const auto layout = panel_layout(o.panels, o.signals, plots->front().names, true, error);
  if (!layout) {
    print_error(error);
    return kBadInput;
  }
  OverlayPlan plan;
  plan.path = output;
  std::string title = plots->front().title;
  if (const auto at = title.rfind(" [run "); at != std::string::npos) title.resize(at);
  plan.title =
      o.title.empty() ? fmt::format("{}\n{} plots of {}", title, plots->size(), o.input) : o.title;
  for (const auto& cols : *layout) {
    plan.panels.emplace_back();
    for (size_t c : cols) plan.panels.back().push_back(plots->front().names[c]);
  }
  if (o.t_from || !o.zoom.empty() || !o.size.empty())
    fmt::print(stderr,
               "nsspice: note: --window, --zoom and --size are not applied to an "
               "overlay of several plots\n");
  const std::vector<bool> ok(plots->size(), true);
  const std::string why = draw_overlay(
      plan, ok, [&](std::size_t k, std::string&) { return std::optional<Waveforms>((*plots)[k]); },
      [&](std::size_t k) { return plot_label((*plots)[k], k); });
  if (!why.empty()) {
    print_error(fmt::format("plot '{}': {}", output, why));
    return kOutputFailed;
  }
  fmt::print("plot: {} ({} plots of '{}' drawn over each other, {} panel{})\n", output,
             plots->size(), o.input, plan.panels.size(), plan.panels.size() == 1 ? "" : "s");
  return 0;
}

// A DC sweep's scale or outer sweep as `run` names it in its CSV: "v(v-sweep)" (raw) → "v-sweep".
std::string sweep_name(const std::string& name) {
  if (name.size() > 3 && name[1] == '(' && name.back() == ')' && name.ends_with("-sweep)"))
    return name.substr(2, name.size() - 3);
  return name;
}

// The column of a nested DC sweep's outer value (ours: "i1-sweep", raw "i(i1-sweep)"), if any.
std::optional<size_t> outer_sweep(const Waveforms& w) {
  for (size_t k = 0; k < w.names.size(); ++k)
    if (sweep_name(w.names[k]).ends_with("-sweep")) return k;
  return std::nullopt;
}

// The signals of a DC sweep or an AC analysis that --signals (or the default) selects: each a
// name and its columns (a DC sweep: its column; AC, complex data: its column twice; AC from a
// CSV: its dB and phase columns, "vdb(out)" and "vp(out)", named "v(out)").
struct Selected {
  std::string name;
  size_t a = 0, b = 0;
};

std::optional<std::vector<Selected>> analysis_signals(const Waveforms& w, const PlotOptions& o,
                                                      size_t& left_out, std::string& error) {
  std::vector<Selected> all;
  const auto outer = outer_sweep(w);
  for (size_t k = 0; k < w.names.size(); ++k) {
    const std::string& n = w.names[k];
    if (w.scale != Scale::kFrequency || w.complex) {  // a DC sweep's column, a complex column
      if (k != outer) all.push_back({n, k, k});
      continue;
    }
    const auto db = n.find("db(");
    if (db == std::string::npos || db == 0) continue;
    const std::string signal = n.substr(0, db) + n.substr(db + 2);
    if (const auto phase = w.index(ac_column_name(signal, "p"))) all.push_back({signal, k, *phase});
  }
  std::vector<std::string> names;
  for (const auto& s : all) names.push_back(s.name);
  const auto layout = panel_layout({}, o.signals, names, true, error, &left_out);
  if (!layout) return std::nullopt;
  std::vector<Selected> out;
  for (const auto& panel : *layout)
    for (size_t k : panel) out.push_back(all[k]);
  return out;
}

// The plot of waveforms over time: the signals chosen, in panels (arranged when the default
// chooses them), with the zoom column; nullopt with `error` for a signal the file does not have.
std::optional<PlotRequest> waveform_plot_request(Waveforms& w, const PlotOptions& o,
                                                 std::string& error, size_t& left_out) {
  std::vector<std::string> wanted = split_signals(o.signals);
  for (const auto& p : o.panels)
    for (auto& name : split_signals(p)) wanted.push_back(std::move(name));
  add_columns(w, differential_columns(wanted, w.names));
  const auto layout = panel_layout(o.panels, o.signals, w.names, true, error, &left_out);
  if (!layout) return std::nullopt;
  PlotRequest rq;
  rq.t_from = o.t_from;
  rq.t_to = o.t_to;
  rq.panels = make_panels(w, *layout);
  if (o.signals.empty() && o.panels.empty() && !rq.panels.empty())
    rq.panels = arrange_panels(std::move(rq.panels.front().series));
  const auto periods = o.zoom.empty() ? std::optional<int>(5) : parse_zoom(o.zoom);
  if (const auto note = add_switching_zoom(rq, periods.value_or(0), !o.zoom.empty()); !note.empty())
    fmt::print(stderr, "nsspice: note: {}\n", note);
  return rq;
}

}  // namespace

std::optional<PlotRequest> analysis_plot_request(const Waveforms& w, const PlotOptions& o,
                                                 std::string& error, size_t* left_out) {
  const bool ac = w.scale == Scale::kFrequency || w.complex;
  const std::string what = ac ? "an AC analysis" : "a DC sweep";
  for (const auto& [given, option] : {std::pair{!o.panels.empty(), "--panel"},
                                      {o.t_from.has_value(), "--window"},
                                      {!o.zoom.empty(), "--zoom"}})
    if (given) {
      error = fmt::format(
          "{}: '{}' is {}, drawn in the panels `run --plot` gives it (choose the signals with "
          "--signals); {} is for waveforms over time",
          option, o.input, what, option);
      return std::nullopt;
    }
  size_t unused = 0;
  const auto chosen = analysis_signals(w, o, left_out ? *left_out : unused, error);
  if (!chosen) return std::nullopt;
  PlotRequest rq;
  std::vector<std::string> names;
  for (const auto& s : *chosen) names.push_back(s.name);
  if (ac) {
    std::vector<PlotSeries> magnitudes, phases;
    for (const auto& s : *chosen) {
      magnitudes.push_back({ac_column_name(s.name, "db"), w.time, {}});
      phases.push_back({ac_column_name(s.name, "p"), w.time, {}});
      for (size_t i = 0; i < w.points(); ++i) {
        const std::complex<double> z(w.columns[s.a][i], w.complex ? w.imag[s.a][i] : 0.0);
        magnitudes.back().y.push_back(w.complex ? magnitude_db(z) : w.columns[s.a][i]);
        phases.back().y.push_back(w.complex ? phase_deg(z) : w.columns[s.b][i]);
      }
    }
    draw_bode(rq, std::move(magnitudes), std::move(phases));
    return rq;
  }
  const auto outer = outer_sweep(w);
  // A new set of curves: at the first point, and at each outer value of a nested sweep.
  const auto new_set = [&](size_t i) {
    if (i == 0) return true;
    if (outer) return w.columns[*outer][i] != w.columns[*outer][i - 1];
    return w.time[i] == w.time.front() && w.time[i - 1] != w.time.front();
  };
  size_t sets = 0;
  for (size_t i = 0; i < w.points(); ++i) sets += new_set(i);
  DcSweepCurves curves(names);
  std::vector<double> values(chosen->size());
  for (size_t i = 0, set = 0; i < w.points(); ++i) {
    if (new_set(i)) {
      ++set;
      curves.start(outer ? fmt::format("{}={:g}", sweep_name(w.names[*outer]), w.columns[*outer][i])
                   : sets > 1 ? fmt::format("outer sweep {}", set)
                              : "");
    }
    for (size_t k = 0; k < chosen->size(); ++k) values[k] = w.columns[(*chosen)[k].a][i];
    curves.point(w.time[i], values);
  }
  const std::string x = sweep_name(w.scale_name);
  std::move(curves).draw(rq, w.scale_unit.empty() ? x : fmt::format("{} [{}]", x, w.scale_unit));
  return rq;
}

int plot_command(const PlotOptions& o) {
  if (const std::string why = o.validate(); !why.empty()) {
    print_error(why);
    return kBadInput;
  }
  std::string error;
  auto data = read_waveforms(o.input, error);
  if (!data) {
    print_error(error);
    return kBadInput;
  }
  const std::string output =
      o.output.empty() ? std::filesystem::path(o.input).stem().string() + ".png" : o.output;
  if (!plot_extension_ok(output)) {
    print_error(fmt::format("-o '{}': the plot must end in .png, .svg or .pdf", output));
    return kBadInput;
  }
  if (!data->note.empty()) fmt::print(stderr, "nsspice: note: '{}': {}\n", o.input, data->note);
  const bool over_time = data->scale == Scale::kTime && !data->complex;
  if (over_time)
    if (const auto code = plot_runs(o, output)) return *code;
  if (over_time && !data->time.empty())
    if (const std::string why = window_outside(o.t_from, o.t_to, data->time.front(),
                                               data->time.back(), fmt::format("'{}'", o.input));
        !why.empty()) {
      print_error(why);
      return kBadInput;
    }
  size_t left_out = 0;
  auto rq = over_time ? waveform_plot_request(*data, o, error, left_out)
                      : analysis_plot_request(*data, o, error, &left_out);
  if (!rq) {
    print_error(error);
    return kBadInput;
  }
  if (data->time.empty()) {
    print_error(fmt::format("'{}' holds no points", o.input));
    return kBadInput;
  }
  rq->title = o.title.empty() ? (data->title.empty() ? o.input : data->title) : o.title;
  rq->output = output;
  rq->show = o.show;
  if (const auto size = parse_plot_size(o.size)) std::tie(rq->width, rq->height) = *size;
  rq->note = left_out_note(left_out);
  if (!rq->note.empty()) fmt::print(stderr, "nsspice: note: plot: {}\n", rq->note);
  if (const std::string why = write_plot(*rq); !why.empty()) {
    print_error(fmt::format("plot '{}': {}", output, why));
    return kOutputFailed;
  }
  if (o.show && !display_available())
    fmt::print(stderr, "nsspice: note: no display ($DISPLAY unset): --show ignored\n");
  fmt::print("plot: {} ({} panel{}, {} points)\n", output, rq->panels.size(),
             rq->panels.size() == 1 ? "" : "s", data->points());
  return 0;
}

}  // namespace nsspice::app
