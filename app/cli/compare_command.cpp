#include "app/cli/compare_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#include "app/cli/interrupt.hpp"
#include "app/cli/simulation.hpp"
#include "app/cli/view_command.hpp"
#include "app/compare/compare_metrics.hpp"
#include "app/compare/compare_report.hpp"
#include "app/compare/ngspice_runner.hpp"
#include "app/compare/spice_params.hpp"
#include "app/io/file_write.hpp"
#include "app/io/raw_writer.hpp"
#include "app/io/signals.hpp"
#include "circuit/tran_settings.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::app {
namespace {

namespace fs = std::filesystem;

// Device currents whose switching instants are reported (diodes, switches).
std::set<std::string> switching_signals(const circuit::Circuit& c) {
  std::set<std::string> out;
  for (const auto& d : c.devices)
    if (std::holds_alternative<circuit::Diode>(d) || std::holds_alternative<circuit::Switch>(d))
      out.insert("i(" + circuit::device_name(d) + ")");
  return out;
}

// ngspice's columns renamed to nsspice's names (unmapped ones dropped).
Waveforms renamed(const Waveforms& ng, const Translation& tr) {
  Waveforms out;
  out.title = ng.title;
  out.time = ng.time;
  for (const auto& [ng_name, ns_name] : tr.names)
    if (auto k = ng.index(lower(ng_name))) {
      out.names.push_back(ns_name);
      out.columns.push_back(ng.columns[*k]);
    }
  return out;
}

std::vector<MeasureResult> measure(const std::vector<MeasureSpec>& specs, const Waveforms& w) {
  std::vector<MeasureResult> out;
  for (const auto& spec : specs) {
    std::string error;
    auto m = Measurement::bind(spec, w.names, error);
    if (!m) {
      out.push_back({spec.name, spec.text, {}, {}, "", error});
      continue;
    }
    std::vector<double> row(w.names.size());
    for (size_t i = 0; i < w.points(); ++i) {
      for (size_t k = 0; k < row.size(); ++k) row[k] = w.columns[k][i];
      m->feed(w.time[i], row);
    }
    out.push_back(m->result());
  }
  return out;
}

struct PeerOutcome {
  PeerRun peer;
  Waveforms data;  // nsspice names
};

// Why run_peer gave no outcome: the message, and the exit code (bad input, or the netlist for
// ngspice could not be written).
struct PeerError {
  std::string message;
  int code = kBadInput;
};

// Translates, runs ngspice (stopped when `stop` says so) and reads back, with `diode_model`;
// files <tag>.cir/.raw/.log.
std::optional<PeerOutcome> run_peer(const circuit::Circuit& c, const CompareOptions& o,
                                    const std::string& ngspice, const std::string& dir,
                                    const std::string& tag, const std::string& diode_model,
                                    double h, const std::function<bool()>& stop, Translation& tr,
                                    PeerError& failure) {
  std::string& error = failure.message;
  TranslateOptions to = o.translate;
  to.diode_model = diode_model;
  to.tmax = h;
  to.raw_path = tag + ".raw";
  auto t = translate_to_ngspice(c, to, error);
  if (!t) return std::nullopt;
  tr = std::move(*t);
  if (!tr.unsupported.empty()) {
    std::string list;
    for (const auto& u : tr.unsupported) list += (list.empty() ? "" : ", ") + u;
    error = fmt::format("no SPICE translation for: {}", list);
    return std::nullopt;
  }
  if (std::string why = write_whole_file((fs::path(dir) / (tag + ".cir")).string(), tr.text);
      !why.empty()) {
    failure = {std::move(why), kOutputFailed};
    return std::nullopt;
  }
  const NgspiceRun run =
      run_ngspice(ngspice, dir, tag + ".cir", tag + ".raw", tag + ".log", o.timeout_seconds, stop);
  PeerOutcome out;
  out.peer.wall_seconds = run.wall_seconds;
  out.peer.failed = run.failed;
  out.peer.failure = run.failure;
  out.peer.problems = run.problems;
  if (run.data) out.data = renamed(*run.data, tr);
  out.peer.points = static_cast<long>(out.data.points());
  out.peer.t_end = out.data.time.empty() ? 0 : out.data.time.back();
  if (!run.data && out.peer.failure.empty()) out.peer.failure = run.read_error;
  if (out.data.time.empty()) out.peer.failed = true;
  return out;
}

std::vector<SignalDiff> diffs(const Waveforms& ns, const Waveforms& ng,
                              const std::vector<double>& grid,
                              const std::set<std::string>& switching, double threshold) {
  std::vector<SignalDiff> out;
  if (grid.empty()) return out;
  for (size_t k = 0; k < ns.names.size(); ++k) {
    const auto j = ng.index(ns.names[k]);
    if (!j) continue;
    out.push_back(diff_signal(ns.names[k], ns.time, ns.columns[k], ng.time, ng.columns[*j], grid,
                              switching.contains(ns.names[k]), threshold));
  }
  return out;
}

std::vector<double> grid_for(const Waveforms& ns, const Waveforms& ng, double h) {
  if (ns.time.empty() || ng.time.empty()) return {};
  return uniform_grid(std::max(ns.time.front(), ng.time.front()),
                      std::min(ns.time.back(), ng.time.back()), h);
}

std::vector<std::string> default_plot_signals(const Waveforms& ns,
                                              const std::set<std::string>& switching) {
  std::vector<std::string> out;
  int v = 0, i = 0;
  for (const auto& n : ns.names) {
    if (signal_kind(n) == SignalKind::kVoltage && v < 3) out.push_back(n), ++v;
  }
  for (const auto& n : ns.names)
    if (switching.contains(n) && i < 2) out.push_back(n), ++i;
  if (i == 0)
    for (const auto& n : ns.names)
      if (signal_kind(n) == SignalKind::kCurrent && i < 1) out.push_back(n), ++i;
  return out;
}

// The viewer of both runs: nsspice's samples, and ngspice's interpolated (linearly) at their
// times as "<signal> ngspice".
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
    for (double t : ns.time) {
      const auto it = std::lower_bound(ng.time.begin(), ng.time.end(), t);
      const auto k = static_cast<size_t>(it - ng.time.begin());
      const auto& y = ng.columns[*b];
      if (k == 0 || k >= ng.time.size()) {
        resampled.push_back(y[std::min(k, y.size() - 1)]);
        continue;
      }
      const double t0 = ng.time[k - 1], t1 = ng.time[k];
      resampled.push_back(t1 > t0 ? y[k - 1] + (y[k] - y[k - 1]) * (t - t0) / (t1 - t0) : y[k]);
    }
    both.names.push_back(name + " ngspice");
    both.columns.push_back(std::move(resampled));
  }
  std::vector<MeasureResult> measured = r.meas_nsspice;
  for (auto m : r.meas_ngspice) {
    m.name += " (ngspice)";
    measured.push_back(std::move(m));
  }
  return write_view_file(
      path, both, r.title,
      fmt::format("{}: nsspice (ideal devices) and ngspice (diode {})", r.netlist, r.diode_model),
      format_compare(r), measured);
}

}  // namespace

std::string CompareOptions::validate() const {
  if (!(timeout_seconds > 0) || !std::isfinite(timeout_seconds))
    return fmt::format("--timeout {:g}: must be positive (seconds)", timeout_seconds);
  if (!(switch_threshold > 0 && switch_threshold < 1))
    return fmt::format("--switch-threshold {:g}: must be in (0, 1)", switch_threshold);
  if (grid && !(*grid > 0 && std::isfinite(*grid)))
    return fmt::format("--grid {:g}: must be positive (a step in seconds)", *grid);
  for (double n : sweep_n)
    if (!(n > 0) || !std::isfinite(n)) return fmt::format("--sweep-n {:g}: must be positive", n);
  return translate.validate();
}

// The nsspice run's raw file, every write checked: "" or why it could not be written.
std::string write_nsspice_raw(const std::string& path, const std::string& title,
                              const Waveforms& ns) {
  RawWriter raw(true);
  if (!raw.open(path, title, ns.names)) return write_failure(path, errno);
  std::vector<double> row(ns.names.size());
  for (size_t i = 0; i < ns.points() && !raw.failed(); ++i) {
    for (size_t k = 0; k < row.size(); ++k) row[k] = ns.columns[k][i];
    raw.row(ns.time[i], row);
  }
  return raw.close() ? std::string() : write_failure(path, raw.error_number());
}

int compare_command(const CompareOptions& o) {
  // SIGINT/SIGTERM stop nsspice's run after the current row, or ngspice (app/cli/interrupt.hpp).
  const InterruptScope interrupt;
  const std::function<bool()> stop = [&interrupt] { return interrupt.requested(); };
  if (const std::string why = o.validate(); !why.empty()) {
    print_error(why);
    return kBadInput;
  }
  const auto ngspice = find_executable(o.ngspice);
  if (!ngspice) {
    print_error(fmt::format(
        "ngspice not found ('{}' is not on PATH): compare runs the real ngspice binary in batch "
        "mode. Install it (Debian: apt-get install ngspice) or pass --ngspice /path/to/ngspice",
        o.ngspice));
    return kPeerMissing;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto loaded = load_netlist(o.netlist);
  if (!loaded) return kBadInput;
  const circuit::Circuit& c = loaded->circuit;
  circuit::TransientOptions overrides;
  overrides.theta = o.theta;
  overrides.h = o.step;
  if (const std::string why = circuit::resolve_tran_settings(c, overrides).validate();
      !why.empty()) {
    print_error(why);
    return kBadInput;
  }
  const circuit::Assembled assembled = circuit::assemble(c);
  const circuit::SignalTable table = circuit::make_signals(c, assembled);
  Waveforms ns;
  ns.title = c.title;
  ns.names = table.names;
  WaveformCollector collector(ns);
  const Simulated sim =
      simulate(c, assembled, table, {.theta = o.theta, .h = o.step}, collector, {}, {}, stop);
  CompareResult r;
  r.netlist = o.netlist;
  r.title = c.title.empty() ? o.netlist : c.title;
  r.nsspice.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.nsspice.points = static_cast<long>(ns.points());
  r.nsspice.t_end = sim.result.t_end;
  r.nsspice.failed = !sim.result.ok;
  r.nsspice.failure = sim.result.error;
  r.h = sim.result.h;
  r.theta = sim.result.theta;
  r.diode_model = o.translate.diode_model;
  r.switch_model = o.translate.switch_model;
  r.options = o.translate.options;

  const std::string dir =
      o.out_dir.empty() ? fs::path(o.netlist).stem().string() + "-compare" : o.out_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    print_error(fmt::format("cannot create '{}': {}", dir, ec.message()));
    return kOutputFailed;
  }
  int code = 0;  // 3 (a file not written) before 2 (nsspice failed) before 128 + signal
  const std::string ns_raw = (fs::path(dir) / "nsspice.raw").string();
  if (const std::string why = write_nsspice_raw(ns_raw, c.title, ns); why.empty()) {
    r.files.push_back(ns_raw);
  } else {
    print_error(why);
    code = kOutputFailed;
  }

  // What the user asked for is checked before ngspice runs.
  std::string error;
  auto measures_or = all_measures(*loaded, o.measures);
  if (!measures_or) return kBadInput;
  std::vector<MeasureSpec> specs = std::move(*measures_or);
  const auto switching = switching_signals(c);
  std::vector<std::string> plot_signals = split_signals(o.signals);
  std::vector<std::string> wanted = plot_signals;
  for (const auto& spec : specs) wanted.insert(wanted.end(), {spec.signal, spec.when_signal});
  add_columns(ns, differential_columns(wanted, ns.names));
  if (plot_signals.empty()) plot_signals = default_plot_signals(ns, switching);
  for (const auto& s : plot_signals)
    if (!ns.index(s)) {
      print_error(
          fmt::format("unknown signal '{}' in --signals{}", s, netlist::did_you_mean(s, ns.names)));
      return kBadInput;
    }

  Translation tr;
  PeerError peer_error;
  auto peer =
      run_peer(c, o, *ngspice, dir, "ngspice", o.translate.diode_model, r.h, stop, tr, peer_error);
  if (!peer) {
    print_error(peer_error.message);
    return peer_error.code;
  }
  r.notes = tr.notes;
  r.ngspice = peer->peer;
  Waveforms& ng = peer->data;
  add_columns(ng, differential_columns(wanted, ng.names));
  for (const char* f : {"ngspice.cir", "ngspice.raw", "ngspice.log"})
    r.files.push_back((fs::path(dir) / f).string());

  const double h = o.grid.value_or(r.h);
  r.grid = grid_for(ns, ng, h);
  r.diffs = diffs(ns, ng, r.grid, switching, o.switch_threshold);

  r.meas_nsspice = measure(specs, ns);
  r.meas_ngspice = measure(specs, ng);

  if (o.sweep && !interrupt.requested()) {
    auto base = SpiceParams::parse(o.translate.diode_model, error);
    if (!base) {
      print_error("--diode-model " + error);
      return kBadInput;
    }
    for (double n : o.sweep_n) {
      if (interrupt.requested()) break;
      SpiceParams m = *base;
      m.set("n", n);
      Translation t;
      auto p = run_peer(c, o, *ngspice, dir, fmt::format("sweep_n{}", n), m.str(), r.h, stop, t,
                        peer_error);
      if (!p) {
        print_error(peer_error.message);
        return peer_error.code;
      }
      add_columns(p->data, differential_columns(wanted, p->data.names));
      SweepRow row{n, m.str(), p->peer, {}};
      row.diffs = diffs(ns, p->data, grid_for(ns, p->data, h), switching, o.switch_threshold);
      std::erase_if(row.diffs, [&](const SignalDiff& d) {
        return std::find(plot_signals.begin(), plot_signals.end(), d.name) == plot_signals.end();
      });
      r.sweep.push_back(std::move(row));
    }
  }

  if (r.nsspice.failed && code == 0) code = kSimulationFailed;
  const std::string plot = o.plot.empty() ? (fs::path(dir) / "compare.png").string() : o.plot;
  // An interrupted compare is not plotted: the user asked it to stop.
  if (ng.points() > 0 && ns.points() > 0 && !interrupt.requested()) {
    if (auto why = write_compare_plot(r, ns, ng, plot_signals, plot, o.t_from, o.t_to);
        !why.empty()) {
      print_error(fmt::format("plot '{}': {}", plot, why));
      code = code ? code : kOutputFailed;
    } else {
      r.files.push_back(plot);
    }
  }
  if (!r.sweep.empty() && !interrupt.requested()) {
    const std::string sweep_plot = (fs::path(dir) / "sweep.png").string();
    if (auto why = write_sweep_plot(r, plot_signals, sweep_plot); why.empty())
      r.files.push_back(sweep_plot);
    else
      print_error(fmt::format("plot '{}': {}", sweep_plot, why));
  }
  const std::string json = o.json.empty() ? (fs::path(dir) / "compare.json").string() : o.json;
  if (std::string why = write_whole_file(json, compare_json(r)); why.empty()) {
    r.files.push_back(json);
  } else {
    print_error(why);
    code = kOutputFailed;
  }
  if (!o.view.empty() || o.view_default) {
    const std::string view = o.view.empty() ? (fs::path(dir) / "compare.html").string() : o.view;
    const int view_code = write_compare_view(view, r, ns, ng, plot_signals);
    if (view_code == 0) r.files.push_back(view);
    code = code ? code : view_code;
  }
  if (!o.quiet) fmt::print("{}", format_compare(r));
  // -q silences the report, never the measurements asked for.
  if (o.quiet && !r.meas_nsspice.empty())
    fmt::print("nsspice\n{}ngspice\n{}", format_measures(r.meas_nsspice),
               format_measures(r.meas_ngspice));
  if (r.nsspice.failed) print_error(fmt::format("nsspice stopped: {}", r.nsspice.failure));
  if (const int signal = interrupt.signal(); signal != 0) {
    fmt::print(stderr, "nsspice: interrupted at t = {:.9g} s; {} holds {} rows{} ({})\n",
               sim.t_last, ns_raw, ns.points(), r.ngspice.failed ? "; " + r.ngspice.failure : "",
               signal_name(signal));
    if (code == 0) code = interrupted_exit_code(signal);
  }
  return code;
}

}  // namespace nsspice::app
