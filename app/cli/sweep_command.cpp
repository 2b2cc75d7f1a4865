// Sweeps and Monte Carlo runs on a thread pool (sweep_command.hpp states the behaviour).
#include "app/cli/sweep_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

#include "app/cli/interrupt.hpp"
#include "app/cli/run_plan.hpp"
#include "app/io/waveforms.hpp"
#include "app/measure/measure.hpp"
#include "app/plot/decimate.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "app/sweep/sweep_points.hpp"
#include "circuit/elaborate.hpp"
#include "netlist/units.hpp"

namespace nsspice::app {
namespace {

namespace fs = std::filesystem;
using Target = netlist::StepCard::Target;

// --spec 'NAME LO HI'.
struct Spec {
  std::string name;
  double lo = 0, hi = 0;
};

std::optional<Spec> parse_spec(const std::string& text, std::string& error) {
  std::istringstream in(text);
  std::string name, lo, hi, extra;
  in >> name >> lo >> hi;
  const auto a = netlist::parse_spice_number(lo), b = netlist::parse_spice_number(hi);
  if (name.empty() || !a || !b || (in >> extra) || !(*a <= *b)) {
    error = fmt::format(
        "--spec '{}': expected 'MEASUREMENT LO HI' with LO ≤ HI, e.g. 'vavg 4.9 "
        "5.1'",
        text);
    return std::nullopt;
  }
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return Spec{name, *a, *b};
}

std::string number(double v) { return fmt::format("{}", v); }  // shortest exact form

// Where run k (0-based) writes its waveforms: the final file's name with ".run<K>" before the
// extension, or <netlist stem>.run<K>.csv in the directory `-o DIR/`.
std::string run_path(const RunOptions& o, const std::string& output, bool directory,
                     std::size_t k) {
  if (directory)
    return (fs::path(output) /
            fmt::format("{}.run{}.csv", fs::path(o.netlist).stem().string(), k + 1))
        .string();
  fs::path p(output);
  return p
      .replace_filename(fmt::format("{}.run{}{}", p.stem().string(), k + 1, p.extension().string()))
      .string();
}

struct Outcome {
  bool ran = false;  // false: not started (the sweep was interrupted first)
  RunOutcome run;
  std::string diagnostics;  // of loading the run's netlist, when it failed
};

// The run's netlist: the nominal one with this run's values and draws.
LoadOptions load_options(const std::vector<SweepDimension>& dims, const SweepRun& run) {
  LoadOptions lo;
  for (std::size_t j = 0; j < dims.size(); ++j) {
    const auto& d = dims[j];
    if (d.target == Target::kParam) lo.params[d.name] = run.values[j];
    if (d.target == Target::kSource) lo.source_values[d.name] = run.values[j];
    if (d.target == Target::kModel) lo.model_params[{d.name, d.model_param}] = run.values[j];
  }
  return lo;
}

std::string values_text(const std::vector<SweepDimension>& dims, const SweepRun& run, bool mc) {
  std::string out;
  for (std::size_t j = 0; j < dims.size(); ++j)
    out += fmt::format("{}{}={:g}", out.empty() ? "" : " ", dims[j].label, run.values[j]);
  if (mc) out += fmt::format("{}trial {}", out.empty() ? "" : " ", run.trial + 1);
  return out;
}

// Concatenates the runs' raw files into `output` in run order (ngspice's multi-plot raw) and
// removes them; false with `error`.
bool join_raw(const std::vector<std::string>& parts, const std::string& output,
              std::string& error) {
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  for (const auto& part : parts) {
    std::ifstream in(part, std::ios::binary);
    if (!in) continue;  // a run that could not open its file (reported with the run)
    out << in.rdbuf();
    if (!out) break;
  }
  out.close();
  for (const auto& part : parts) fs::remove(part);
  if (!out) error = fmt::format("writing '{}' failed: {}", output, std::strerror(errno));
  return static_cast<bool>(out);
}

bool write_meas_csv(const std::string& path, const std::vector<SweepDimension>& dims,
                    const std::vector<SweepRun>& runs, const std::vector<Outcome>& outcomes,
                    const std::vector<std::string>& meas_names, bool mc) {
  std::ofstream out(path);
  out << "run";
  if (mc) out << ",trial";
  for (const auto& d : dims) out << "," << d.label;
  out << ",status";
  for (const auto& m : meas_names) out << "," << m;
  out << "\n";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    out << k + 1;
    if (mc) out << "," << runs[k].trial + 1;
    for (double v : runs[k].values) out << "," << number(v);
    const auto& r = outcomes[k].run;
    out << ","
        << (!outcomes[k].ran              ? "not run"
            : r.code == 0                 ? "ok"
            : r.code == kSimulationFailed ? "stopped"
            : r.code > 128                ? "interrupted"
                                          : "failed");
    for (const auto& m : meas_names) {
      out << ",";
      for (const auto& res : r.measures)
        if (res.name == m && res.value) out << number(*res.value);
    }
    out << "\n";
  }
  out.close();
  return static_cast<bool>(out);
}

// mean, standard deviation, min, max of the measurement over the runs that have it; the yield
// against `spec` over all runs.
std::string summary(const std::vector<std::string>& meas_names, const std::vector<Outcome>& outs,
                    const std::vector<Spec>& specs) {
  std::string text;
  if (meas_names.empty()) return text;
  text += fmt::format("  {:<16} {:>6} {:>13} {:>13} {:>13} {:>13} {:>9}\n", "measurement", "runs",
                      "mean", "std dev", "min", "max", "yield");
  for (const auto& name : meas_names) {
    std::vector<double> v;
    for (const auto& o : outs)
      for (const auto& r : o.run.measures)
        if (r.name == name && r.value && o.run.code == 0) v.push_back(*r.value);
    double mean = 0, var = 0;
    for (double x : v) mean += x;
    mean = v.empty() ? NAN : mean / static_cast<double>(v.size());
    for (double x : v) var += (x - mean) * (x - mean);
    const double sd = v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size() - 1)) : NAN;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    std::string yield = "-";
    for (const auto& s : specs) {
      if (s.name != name) continue;
      const auto in =
          std::count_if(v.begin(), v.end(), [&](double x) { return x >= s.lo && x <= s.hi; });
      yield = fmt::format("{:.1f} %",
                          100.0 * static_cast<double>(in) / static_cast<double>(outs.size()));
    }
    text += fmt::format("  {:<16} {:>6} {:>13.6g} {:>13.6g} {:>13.6g} {:>13.6g} {:>9}\n", name,
                        v.size(), mean, sd, v.empty() ? NAN : *lo, v.empty() ? NAN : *hi, yield);
  }
  return text;
}

// The plot of a sweep: each panel's signals, every run drawn over the others (at most
// kOverlayRuns of them, evenly spread over the run indices; the title says so).
constexpr std::size_t kOverlayRuns = 50;
constexpr std::size_t kLegendRuns = 8;

struct OverlayPlan {
  std::string path;                              // "" = no plot
  std::vector<std::vector<std::string>> panels;  // signal names per panel
};

std::vector<bool> outcomes_ok(const std::vector<Outcome>& outcomes) {
  std::vector<bool> ok;
  for (const auto& out : outcomes) ok.push_back(out.ran && out.run.code == 0);
  return ok;
}

// Reads the runs' files back (before a raw output is joined) and draws them; "" or why not.
std::string draw_overlay(const OverlayPlan& plan, const std::vector<std::string>& paths,
                         const std::vector<bool>& ok,
                         const std::function<std::string(std::size_t)>& label,
                         const std::string& title) {
  std::vector<std::size_t> drawn;
  for (std::size_t k = 0; k < paths.size(); ++k)
    if (ok[k]) drawn.push_back(k);
  if (drawn.size() > kOverlayRuns) {
    std::vector<std::size_t> spread;
    for (std::size_t i = 0; i < kOverlayRuns; ++i)
      spread.push_back(drawn[i * (drawn.size() - 1) / (kOverlayRuns - 1)]);
    drawn = std::move(spread);
  }
  if (drawn.empty()) return "no run finished: nothing to draw";
  PlotRequest request;
  request.title = title;
  request.output = plan.path;
  request.panels.resize(plan.panels.size());
  // Few runs: one legend entry each. Many: one colour and one legend entry per signal, the
  // runs drawn over each other in it (the spread is what the eye reads).
  const bool each = drawn.size() <= kLegendRuns;
  std::size_t missing = 0;
  for (std::size_t k : drawn) {
    std::string error;
    const auto w = read_waveforms(paths[k], error);
    if (!w) return error;
    if (w->time.empty()) continue;
    for (std::size_t p = 0; p < plan.panels.size(); ++p) {
      for (const auto& name : plan.panels[p]) {
        const auto c = w->index(name);
        if (!c) {
          ++missing;
          continue;
        }
        const DecimatedSeries d =
            decimate(w->time, w->columns[*c], w->time.front(), w->time.back(), 1500);
        PlotSeries series{each ? fmt::format("{} {}", name, label(k))
                               : fmt::format("{} ({} runs)", name, drawn.size()),
                          d.t, d.y};
        if (!each) {
          const auto& names = plan.panels[p];
          series.color =
              static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
          series.in_legend = k == drawn.front();
        }
        request.panels[p].series.push_back(std::move(series));
      }
    }
  }
  std::erase_if(request.panels, [](const PlotPanel& p) { return p.series.empty(); });
  if (request.panels.empty()) return "none of the plotted signals is in the runs' files (--save)";
  if (drawn.size() < paths.size())
    request.note = fmt::format("{} of {} runs drawn", drawn.size(), paths.size());
  if (missing > 0)
    request.note += fmt::format("{}signals not in the runs' files are left out (--save)",
                                request.note.empty() ? "" : "; ");
  return write_plot(request);
}

}  // namespace

int sweep_command(const RunOptions& o, const LoadedNetlist& nominal) {
  std::string error;
  std::vector<SweepDimension> dims;
  for (const auto& card : nominal.steps) {
    auto d = dimension_of(card, error);
    if (!d) {
      netlist::Diagnostics diags;
      diags.error(card.span, error);
      std::cerr << diags.format(nominal.sources);
      return kBadInput;
    }
    dims.push_back(std::move(*d));
  }
  for (const auto& option : o.step_params) {
    auto d = dimension_of(option, error);
    if (!d) {
      print_error(error);
      return kBadInput;
    }
    std::erase_if(dims, [&](const SweepDimension& x) {
      return x.target == Target::kParam && x.name == d->name;
    });
    dims.push_back(std::move(*d));
  }
  std::vector<Spec> specs;
  for (const auto& text : o.specs) {
    auto s = parse_spec(text, error);
    if (!s) {
      print_error(error);
      return kBadInput;
    }
    specs.push_back(*s);
  }
  const bool mc = o.runs > 0;
  auto runs = sweep_runs(dims, mc ? static_cast<std::size_t>(o.runs) : 1, error);
  if (!runs) {
    print_error(error);
    return kBadInput;
  }
  // The nominal netlist's plan checks every option (and the output name) before any run.
  const bool directory =
      !o.output.empty() && (o.output.back() == '/' || fs::is_directory(o.output));
  RunOptions base = o;
  base.plot.clear();
  base.plot_default = false;
  base.show = false;
  base.meas_json.clear();
  base.quiet = true;
  base.progress = false;
  if (directory) {
    std::error_code ec;
    fs::create_directories(o.output, ec);
    if (ec) {
      print_error(fmt::format("cannot create the directory '{}': {}", o.output, ec.message()));
      return kOutputFailed;
    }
    base.output = run_path(o, o.output, true, 0);
  }
  OverlayPlan overlay;
  {
    const circuit::Assembled assembled = circuit::assemble(nominal.circuit);
    const auto signals = circuit::make_signals(nominal.circuit, assembled);
    auto plan = make_run_plan(base, nominal, signals.names, error);
    if (!plan) {
      print_error(error);
      return kBadInput;
    }
    base.output = directory ? o.output : plan->output_path;
    if (!o.plot.empty() || o.plot_default) {  // the plot's panels, as one run would draw them
      RunOptions plotted = base;
      plotted.output = plan->output_path;
      plotted.plot = o.plot;
      plotted.plot_default = o.plot_default;
      auto p = make_run_plan(plotted, nominal, signals.names, error);
      if (!p) {
        print_error(error);
        return kBadInput;
      }
      overlay.path = p->plot_path;
      for (const auto& cols : p->output.layout) {
        overlay.panels.emplace_back();
        for (size_t c : cols) overlay.panels.back().push_back(p->output.all_names[c]);
      }
    }
  }
  const bool raw = !directory && fs::path(base.output).extension() == ".raw";
  std::vector<Outcome> outcomes(runs->size());
  std::vector<std::string> paths(runs->size());
  for (std::size_t k = 0; k < runs->size(); ++k) paths[k] = run_path(o, base.output, directory, k);
  std::atomic<std::size_t> next{0};
  const InterruptScope interrupt;  // a signal stops the runs under way after their current row
  std::atomic<std::size_t> started{0};
  auto worker = [&]() {
    for (std::size_t k = next++; k < runs->size() && !interrupt.requested(); k = next++) {
      ++started;
      const SweepRun& run = (*runs)[k];
      outcomes[k].ran = true;
      LoadOptions lo = load_options(dims, run);
      std::optional<RunRandom> random;
      if (mc) {
        random.emplace(o.seed, k);
        lo.draw = [&random](bool normal) { return (*random)(normal); };
      }
      lo.diagnostics = &outcomes[k].diagnostics;
      lo.reuse = &nominal;  // parsed once: each run flattens and elaborates with its values
      const auto loaded = load_netlist(o.netlist, lo);
      if (!loaded) {
        outcomes[k].run.code = kBadInput;
        outcomes[k].run.message = "the netlist of this run has errors";
        continue;
      }
      if (o.ideal) circuit::idealize_diodes(loaded->circuit);
      RunOptions ro = base;
      ro.output = paths[k];
      outcomes[k].run = run_to_file(ro, *loaded, interrupt);
    }
  };
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t jobs =
      std::min<std::size_t>(o.jobs > 0 ? static_cast<std::size_t>(o.jobs) : cores, runs->size());
  std::vector<std::thread> pool;
  for (std::size_t j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  // Exit code priority as for one run (docs/output.md): 3 before 2 before 128 + signal.
  bool lost = false, stopped = false;
  std::size_t failed = 0, not_run = 0, cut = 0;
  for (std::size_t k = 0; k < runs->size(); ++k) {
    const auto& out = outcomes[k];
    if (!out.ran) ++not_run;
    if (!out.ran || out.run.code == 0) continue;
    if (out.run.code > 128)
      ++cut;
    else
      ++failed;
    lost = lost || out.run.code == kOutputFailed;
    stopped = stopped || out.run.code == kSimulationFailed || out.run.code == kBadInput;
    print_error(
        fmt::format("run {} ({}): {}", k + 1, values_text(dims, (*runs)[k], mc), out.run.message));
    if (!out.diagnostics.empty()) fmt::print(stderr, "{}", out.diagnostics);
  }
  // The runs' own warnings (an undersampled source, a diode past its PWL range, ...), each
  // once, with the runs that gave it.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> warned;
  for (std::size_t k = 0; k < runs->size(); ++k)
    for (const auto& w : outcomes[k].run.warnings) {
      auto it =
          std::find_if(warned.begin(), warned.end(), [&](const auto& x) { return x.first == w; });
      if (it == warned.end()) it = warned.insert(warned.end(), {w, {}});
      it->second.push_back(k + 1);
    }
  for (const auto& [w, ks] : warned)
    fmt::print(stderr, "nsspice: warning: {} ({})\n", w,
               ks.size() == runs->size() ? std::string("every run")
               : ks.size() == 1          ? fmt::format("run {}", ks[0])
                                : fmt::format("{} runs, the first run {}", ks.size(), ks[0]));
  int code = lost ? kOutputFailed : stopped ? kSimulationFailed : 0;
  if (interrupt.requested()) {
    fmt::print(stderr, "nsspice: interrupted by {}: {} of {} runs not started\n",
               signal_name(interrupt.signal()), not_run, runs->size());
    if (code == 0) code = interrupted_exit_code(interrupt.signal());
  }
  if (!overlay.path.empty()) {
    const std::string title = fmt::format("{}\n{} runs{}", nominal.circuit.title, runs->size(),
                                          mc ? fmt::format(" (Monte Carlo, seed {})", o.seed) : "");
    auto label = [&](std::size_t k) { return values_text(dims, (*runs)[k], mc); };
    if (const std::string why = draw_overlay(overlay, paths, outcomes_ok(outcomes), label, title);
        !why.empty()) {
      print_error(fmt::format("plot '{}': {}", overlay.path, why));
      code = code ? code : kOutputFailed;
    }
  }
  if (raw && !join_raw(paths, base.output, error)) {
    print_error(error);
    code = kOutputFailed;
  }
  std::vector<std::string> meas_names;
  for (const auto& out : outcomes)
    for (const auto& r : out.run.measures)
      if (std::find(meas_names.begin(), meas_names.end(), r.name) == meas_names.end())
        meas_names.push_back(r.name);
  const fs::path stem_dir = directory ? fs::path(base.output) : fs::path(base.output).parent_path();
  const std::string meas_path =
      (stem_dir /
       ((directory ? fs::path(o.netlist).stem() : fs::path(base.output).stem()).string() +
        ".meas.csv"))
          .string();
  if (!write_meas_csv(meas_path, dims, *runs, outcomes, meas_names, mc)) {
    print_error(fmt::format("cannot write '{}': {}", meas_path, std::strerror(errno)));
    code = kOutputFailed;
  }
  for (const auto& s : specs)
    if (std::find(meas_names.begin(), meas_names.end(), s.name) == meas_names.end())
      fmt::print(stderr, "nsspice: warning: --spec '{}': no measurement of that name\n", s.name);
  // The measurements are the user's request: printed even with -q (only the report is quiet).
  if (!o.quiet) {
    fmt::print("sweep report\n");
    fmt::print("  {:<18} {} ({} dimension{}{}), {} job{}\n", "runs", runs->size(), dims.size(),
               dims.size() == 1 ? "" : "s",
               mc ? fmt::format(", {} Monte Carlo trials each, seed {}", o.runs, o.seed) : "", jobs,
               jobs == 1 ? "" : "s");
    fmt::print("  {:<18} {} ok, {} failed{}\n", "outcome", runs->size() - failed - not_run - cut,
               failed,
               not_run + cut > 0 ? fmt::format(", {} interrupted, {} not run", cut, not_run)
                                 : std::string());
    fmt::print("  {:<18} {}\n", "waveforms",
               raw ? base.output : fmt::format("{} ... {}", paths.front(), paths.back()));
    fmt::print("  {:<18} {}\n", "measurements", meas_path);
  }
  fmt::print("{}", summary(meas_names, outcomes, specs));
  return code;
}

}  // namespace nsspice::app
