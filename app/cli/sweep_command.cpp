// Sweeps and Monte Carlo runs on threads or MPI ranks (sweep_command.hpp states the behaviour).
#include "app/cli/sweep_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/interrupt.hpp"
#include "app/cli/run_plan.hpp"
#include "app/cli/sweep_output.hpp"
#include "app/io/file_write.hpp"
#include "app/sweep/mpi_runs.hpp"
#include "app/sweep/run_pool.hpp"
#include "app/sweep/sweep_plot.hpp"
#include "app/sweep/sweep_tables.hpp"
#include "circuit/elaborate.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::app {
namespace {

namespace fs = std::filesystem;
using Target = netlist::StepCard::Target;

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

// The run's netlist: the nominal one with this run's values.
LoadOptions load_options(const SweepPlan& plan, const SweepRun& run) {
  const auto& dims = plan.dims;
  LoadOptions lo;
  lo.params = plan.params;
  for (std::size_t j = 0; j < dims.size(); ++j) {
    const auto& d = dims[j];
    if (d.target == Target::kParam) lo.params[d.name] = run.values[j];
    if (d.target == Target::kSource) lo.source_values[d.name] = run.values[j];
    if (d.target == Target::kModel) lo.model_params[{d.name, d.model_param}] = run.values[j];
    if (d.target == Target::kTemp) lo.temp = run.values[j];
  }
  return lo;
}

RunRecord record_of(RunOutcome&& outcome, std::string&& diagnostics) {
  RunRecord r;
  r.ran = true;
  r.code = outcome.code;
  r.message = std::move(outcome.message);
  r.diagnostics = std::move(diagnostics);
  r.measures = std::move(outcome.measures);
  r.warnings = std::move(outcome.warnings);
  r.drawn = std::move(outcome.drawn);
  r.rows = outcome.rows;
  r.t_end = outcome.t_end;
  r.rows_hash = outcome.rows_hash;
  r.assembly = static_cast<int>(outcome.assembly);
  r.shared_analysis = outcome.shared_analysis;
  r.flatten = static_cast<int>(outcome.flatten);
  r.rebuilt_because = std::move(outcome.rebuilt_because);
  return r;
}

// The plot's panels, as one run would draw them.
std::optional<OverlayPlan> overlay_plan(const RunOptions& o, const RunOptions& base,
                                        const LoadedNetlist& nominal,
                                        const std::vector<std::string>& signals,
                                        const std::string& output, std::string& error) {
  OverlayPlan overlay;
  if (o.plot.empty() && !o.plot_default) return overlay;
  RunOptions plotted = base;
  plotted.output = output;
  plotted.plot = o.plot;
  plotted.plot_default = o.plot_default;
  auto p = make_run_plan(plotted, nominal, signals, error);
  if (!p) return std::nullopt;
  overlay.path = p->plot_path;
  for (const auto& cols : p->output.layout) {
    overlay.panels.emplace_back();
    for (size_t c : cols) overlay.panels.back().push_back(p->output.all_names[c]);
  }
  return overlay;
}

// The first run's netlist, loaded before any run starts: a stepped source or model that does
// not exist is bad input (exit 1, at the .step card), not a failure of every run; warnings that
// only the swept values cause (a stepped model parameter the model does not use) are printed
// once, since the runs' own diagnostics are kept quiet. A run whose values are bad (R = 0)
// still fails alone.
bool probe_first_run(const RunOptions& o, const LoadedNetlist& nominal, const SweepPlan& plan,
                     bool writes, std::string& printed) {
  if (plan.runs.empty()) return true;
  std::string base_text, run_text;
  LoadOptions base;
  base.params = plan.params;
  base.diagnostics = &base_text;
  base.reuse = &nominal;
  base.draw = [](bool) { return 0.0; };
  const auto nominal_again = load_netlist(o.netlist, base);
  LoadOptions first = load_options(plan, plan.runs[0]);
  std::vector<std::string> missing;
  first.diagnostics = &run_text;
  first.reuse = &nominal;
  first.draw = base.draw;
  first.missing_targets = &missing;
  const auto loaded = load_netlist(o.netlist, first);
  if (!missing.empty()) {
    printed = run_text +
              "nsspice: error: a stepped source or model is not in the netlist: no run "
              "started\n";
    return false;
  }
  // A run whose values are bad fails on its own (the other runs go on).
  if (writes && loaded && nominal_again && run_text != base_text)
    printed += fmt::format("nsspice: warning: with the swept values of run 1 ({}):\n{}",
                           run_label(plan, 0), run_text);
  return true;
}

// The files and options of the runs; nullopt (with `printed`, `code`) for bad input or an
// output directory that cannot be created (only by the rank that writes files).
std::optional<Prepared> prepare(const RunOptions& o, const LoadedNetlist& nominal, bool writes,
                                std::string& printed, int& code) {
  code = kBadInput;
  Prepared p;
  auto plan = make_sweep_plan(o, nominal, printed);
  if (!plan) return std::nullopt;
  p.plan = std::move(*plan);
  if (!probe_first_run(o, nominal, p.plan, writes, printed)) return std::nullopt;
  std::string error;
  for (const auto& text : o.specs) {
    auto s = parse_spec(text, error);
    if (!s) return printed = fmt::format("nsspice: error: {}\n", error), std::nullopt;
    p.specs.push_back(*s);
  }
  // A --spec must name a measurement (a .meas card's or a --meas's): one that named none was a
  // warning after every run had run, with exit 0 and a yield of "-".
  std::vector<std::string> known;
  for (const auto& m : nominal.measures) known.push_back(m.name);
  for (const auto& text : o.measures)
    if (std::string why; const auto m = parse_measure(text, why)) known.push_back(m->name);
  for (const auto& s : p.specs)
    if (std::find(known.begin(), known.end(), s.name) == known.end())
      return printed = fmt::format("nsspice: error: --spec '{}': no measurement of that name{}\n",
                                   s.name, netlist::did_you_mean(s.name, known)),
             std::nullopt;
  p.directory = !o.output.empty() && (o.output.back() == '/' || fs::is_directory(o.output));
  p.base = o;
  p.base.plot.clear();
  p.base.plot_default = p.base.show = p.base.progress = false;
  p.base.meas_json.clear();
  p.base.quiet = true;
  if (p.directory) {
    std::error_code ec;
    if (writes) fs::create_directories(o.output, ec);
    if (ec) {
      code = kOutputFailed;
      printed = fmt::format("nsspice: error: cannot create the directory '{}': {}\n", o.output,
                            ec.message());
      return std::nullopt;
    }
    p.base.output = run_path(o, o.output, true, 0);
  }
  // The nominal netlist's plan checks every option (and the output name) before any run.
  const circuit::Assembled assembled = circuit::assemble(nominal.circuit);
  const auto signals = circuit::make_signals(nominal.circuit, assembled);
  auto run_plan = make_run_plan(p.base, nominal, signals.names, error);
  auto overlay = run_plan
                     ? overlay_plan(o, p.base, nominal, signals.names, run_plan->output_path, error)
                     : std::nullopt;
  if (!overlay) return printed = fmt::format("nsspice: error: {}\n", error), std::nullopt;
  p.overlay = std::move(*overlay);
  p.base.output = p.directory ? o.output : run_plan->output_path;
  p.raw = !p.directory && fs::path(p.base.output).extension() == ".raw";
  for (const SweepRun& run : p.plan.runs)
    p.paths.push_back(run_path(o, p.base.output, p.directory, run.index));
  const fs::path dir =
      p.directory ? fs::path(p.base.output) : fs::path(p.base.output).parent_path();
  const auto stem = p.directory ? fs::path(o.netlist).stem() : fs::path(p.base.output).stem();
  p.meas_path = (dir / (stem.string() + ".meas.csv")).string();
  const std::size_t jobs = o.jobs > 0 ? static_cast<std::size_t>(o.jobs)
                           : o.mpi    ? 1
                                      : default_jobs();
  p.jobs = o.mpi ? jobs : std::min(jobs, p.plan.runs.size());
  if (o.mpi != nullptr && p.jobs > 1 && !o.mpi->serialized_threads()) {
    fmt::print(stderr,
               "nsspice: warning: --jobs {}: this MPI library does not let threads call it one "
               "at a time (MPI_THREAD_SERIALIZED): one run at a time per rank\n",
               p.jobs);
    p.jobs = 1;
  }
  return p;
}

// A run of another rank: into a temporary file, whose bytes go to rank 0.
RemoteRun remote_run(const Prepared& p, const LoadedNetlist& nominal, const RunShare& share,
                     int rank, std::size_t k, const std::function<int()>& stop) {
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec);  // $TMPDIR, else /tmp
  if (ec) dir = ".";  // a run that cannot write here says so, with the path
  RunOptions ro = p.base;
  ro.output = (dir / fmt::format("nsspice-mpi-rank{}-{}-run{}{}", rank, ::getpid(), k + 1,
                                 fs::path(p.paths[k]).extension().string()))
                  .string();
  std::string diagnostics;
  RunOutcome outcome = sweep_run(ro, nominal, p.plan, k, stop, diagnostics, nullptr, &share);
  RemoteRun out;
  std::ifstream in(ro.output, std::ios::binary);
  if (in) {
    std::ostringstream bytes;
    bytes << in.rdbuf();
    out.file = std::move(bytes).str();
    out.has_file = true;
  }
  fs::remove(ro.output, ec);
  out.record = record_of(std::move(outcome), std::move(diagnostics));
  return out;
}

// Rank 0's copy of a run of another rank: its file where a threaded run would write it.
RunRecord stored(const std::string& path, RemoteRun&& run) {
  if (run.has_file) {
    if (const std::string why = write_whole_file(path, run.file);
        !why.empty() && run.record.code == 0) {
      run.record.code = kOutputFailed;
      run.record.message = why;
    }
  }
  return std::move(run.record);
}

// Runs every run (threads, or this rank's part of an MPI job); rank > 0 returns nothing.
Executed execute(const Prepared& p, const LoadedNetlist& nominal, MpiSession* mpi,
                 const InterruptScope& interrupt) {
  const std::size_t n = p.plan.runs.size();
  Executed out{std::vector<RunRecord>(n), std::vector<int>(n, 0)};
  auto& records = out.records;
  const std::function<int()> stop = [&] { return interrupt.signal(); };
  const SweepShare shared(nominal, p.plan);  // before the runs; read-only while they go
  const RunShare share = shared.share();
  auto local = [&](std::size_t k) {
    RunOptions ro = p.base;
    ro.output = p.paths[k];
    std::string diagnostics;
    records[k] = record_of(sweep_run(ro, nominal, p.plan, k, stop, diagnostics, nullptr, &share),
                           std::move(diagnostics));
  };
  if (mpi == nullptr) {
    std::atomic<std::size_t> next{0};
    run_on_threads(
        p.jobs,
        [&]() -> std::optional<std::size_t> {
          const std::size_t k = next++;
          if (k >= n || interrupt.requested()) return std::nullopt;
          return k;
        },
        local);
  } else if (mpi->rank() == 0) {
    serve_runs(
        *mpi, n, p.jobs, local,
        [&](std::size_t k, int rank, RemoteRun&& run) {
          records[k] = stored(p.paths[k], std::move(run));
          out.rank[k] = rank;
        },
        [&] { return interrupt.requested(); });
  } else {
    work_runs(*mpi, p.jobs,
              [&](std::size_t k) { return remote_run(p, nominal, share, mpi->rank(), k, stop); });
    return {};
  }
  return out;
}

// Started by mpirun or srun as one of several processes, without --mpi: each runs everything.
void warn_parallel_launch(const RunOptions& o) {
  if (o.mpi != nullptr) return;
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && std::atoi(v) > 1) {
      fmt::print(stderr,
                 "nsspice: warning: started as one of {} MPI processes without --mpi: every "
                 "process runs every run (add --mpi to share them)\n",
                 v);
      return;
    }
  }
}

}  // namespace

std::optional<SweepPlan> make_sweep_plan(const RunOptions& o, const LoadedNetlist& nominal,
                                         std::string& printed) {
  std::string error;
  SweepPlan plan;
  for (const auto& card : nominal.steps) {
    auto d = dimension_of(card, error);
    if (!d) {
      netlist::Diagnostics diags;
      diags.error(card.span, error);
      printed = diags.format(nominal.sources);
      return std::nullopt;
    }
    plan.dims.push_back(std::move(*d));
  }
  for (const auto& option : o.step_params) {
    auto d = dimension_of(option, error);
    if (!d) return printed = fmt::format("nsspice: error: {}\n", error), std::nullopt;
    std::erase_if(plan.dims, [&](const SweepDimension& x) {
      return x.target == Target::kParam && x.name == d->name;
    });
    plan.dims.push_back(std::move(*d));
  }
  plan.monte_carlo = o.runs > 0;
  plan.seed = o.seed;
  if (plan.dims.empty() && !plan.monte_carlo) {
    printed = fmt::format(
        "nsspice: error: {}nothing to run more than once (no .step card, --step-param or "
        "--runs N)\n",
        o.mpi != nullptr ? "--mpi: " : "");
    return std::nullopt;
  }
  auto runs = sweep_runs(plan.dims, plan.monte_carlo ? static_cast<std::size_t>(o.runs) : 1, error);
  if (!runs) return printed = fmt::format("nsspice: error: {}\n", error), std::nullopt;
  plan.runs = std::move(*runs);
  if (o.run_range) {
    const auto [first, last] = *o.run_range;
    if (last > plan.runs.size()) {
      printed = fmt::format("nsspice: error: --run {}{}: the sweep has {} run{}\n", first,
                            first == last ? "" : fmt::format(":{}", last), plan.runs.size(),
                            plan.runs.size() == 1 ? "" : "s");
      return std::nullopt;
    }
    plan.runs.erase(plan.runs.begin() + static_cast<std::ptrdiff_t>(last), plan.runs.end());
    plan.runs.erase(plan.runs.begin(), plan.runs.begin() + static_cast<std::ptrdiff_t>(first - 1));
  }
  return plan;
}

namespace {

std::optional<netlist::FlatTemplate> flat_template(const LoadedNetlist& nominal,
                                                   const SweepPlan& plan) {
  if (!nominal.parsed) return std::nullopt;
  netlist::FlattenOptions o;
  o.params = plan.runs.empty() ? plan.params : load_options(plan, plan.runs[0]).params;
  netlist::FlatTemplate t(*nominal.parsed, nominal.sources, o);
  if (!t.usable()) return std::nullopt;
  return t;
}

}  // namespace

SweepShare::SweepShare(const LoadedNetlist& nominal, const SweepPlan& plan)
    : flat_(flat_template(nominal, plan)),
      pattern_(nominal.circuit),
      analyses_(circuit::assemble(nominal.circuit).mlcs) {}

RunOutcome sweep_run(const RunOptions& options, const LoadedNetlist& nominal, const SweepPlan& plan,
                     std::size_t k, const std::function<int()>& stop_signal,
                     std::string& diagnostics, WaveformWriter* writer, const RunShare* share) {
  const SweepRun& run = plan.runs[k];
  LoadOptions lo = load_options(plan, run);
  std::optional<RunRandom> random;
  std::vector<std::pair<std::string, double>> drawn;
  if (plan.monte_carlo) {
    random.emplace(plan.seed, run.trial);  // the same draws at every sweep point
    lo.draw = [&random](bool normal) { return (*random)(normal); };
    lo.drawn = &drawn;
  }
  lo.diagnostics = &diagnostics;
  lo.reuse = &nominal;  // parsed once: each run flattens and elaborates with its values
  lo.flat = share != nullptr ? share->flat : nullptr;  // flattened once: values evaluated again
  bool flat_failed = false;
  lo.flat_failed = &flat_failed;
  auto loaded = load_netlist(options.netlist, lo);
  if (flat_failed) {
    // Anew from the parsed tree, from the first draw: every diagnostic, as the run alone.
    diagnostics.clear();
    drawn.clear();
    if (plan.monte_carlo) random.emplace(plan.seed, run.trial);
    lo.flat = nullptr;
    loaded = load_netlist(options.netlist, lo);
  }
  const RunFlatten flatten = share == nullptr || share->flat == nullptr ? RunFlatten::kNone
                             : lo.flat != nullptr                       ? RunFlatten::kTemplate
                                                                        : RunFlatten::kAnew;
  RunOutcome out;
  if (!loaded) {
    out.code = kBadInput;
    out.message = "the netlist of this run has errors";
  } else {
    if (options.ideal) circuit::idealize_diodes(loaded->circuit);
    // The plot of a multi-plot raw file says which run it is (a failed run has none).
    loaded->circuit.title +=
        fmt::format(" [run {}{}{}]", run.index + 1,
                    plan.dims.empty() && !plan.monte_carlo ? "" : ": ", run_label(plan, k));
    out = run_to_file(options, *loaded, stop_signal, writer, share);
    // Junctions that left their estimated PWL ranges: the run again with those models refitted
    // (as `run` does; the notes join the run's warnings, the sweep's summary names the run).
    std::map<std::string, circuit::PwlRefit> refit;
    std::vector<std::string> notes;
    for (int pass = 1;
         pass < kPwlRuns && out.code == 0 && refit_ranges(out.transient, pass, refit, &notes);
         ++pass) {
      drawn.clear();
      if (plan.monte_carlo) random.emplace(plan.seed, run.trial);  // the same draws again
      lo.pwl_refit = refit;
      std::string again;
      lo.diagnostics = &again;
      auto refitted = load_netlist(options.netlist, lo);
      if (!refitted) break;  // cannot happen: the netlist loaded with these values
      if (options.ideal) circuit::idealize_diodes(refitted->circuit);
      refitted->circuit.title = loaded->circuit.title;
      out = run_to_file(options, *refitted, stop_signal, writer, share);
    }
    out.warnings.insert(out.warnings.begin(), notes.begin(), notes.end());
  }
  out.flatten = flatten;
  out.drawn = std::move(drawn);
  return out;
}

std::string run_label(const SweepPlan& plan, std::size_t k) {
  std::string out;
  const SweepRun& run = plan.runs[k];
  for (std::size_t j = 0; j < plan.dims.size(); ++j)
    out += fmt::format("{}{}={:g}", out.empty() ? "" : " ", plan.dims[j].label, run.values[j]);
  if (plan.monte_carlo) out += fmt::format("{}trial {}", out.empty() ? "" : " ", run.trial + 1);
  return out;
}

int sweep_command(const RunOptions& o, const LoadedNetlist& nominal) {
  warn_parallel_launch(o);
  MpiSession* mpi = o.mpi;
  const bool writes = mpi == nullptr || mpi->rank() == 0;
  std::string printed;
  int code = 0;
  const auto prepared = prepare(o, nominal, writes, printed, code);
  // Every rank plans the same runs; if one cannot, none runs.
  const bool all_ready = mpi == nullptr ? prepared.has_value() : mpi->join(prepared.has_value());
  if (!prepared) {
    std::cerr << printed;
    return code;
  }
  if (!all_ready) {
    print_error("--mpi: another rank could not prepare the runs (its netlist or options)");
    return kBadInput;
  }
  std::cerr << printed;            // warnings of the swept values (probe_first_run)
  const InterruptScope interrupt;  // a signal stops the runs under way after their current row
  const Executed done = execute(*prepared, nominal, mpi, interrupt);
  if (!writes) return mpi->broadcast(0);
  code = finish_sweep(o, *prepared, mpi, done, nominal, interrupt);
  return mpi != nullptr ? mpi->broadcast(code) : code;
}

}  // namespace nsspice::app
