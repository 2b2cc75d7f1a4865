// What a sweep writes and prints after its runs (sweep_output.hpp).
#include "app/cli/sweep_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "app/cli/interrupt.hpp"
#include "app/cli/models_command.hpp"
#include "app/io/file_write.hpp"
#include "app/sweep/mpi_runs.hpp"

namespace nsspice::app {
namespace {

namespace fs = std::filesystem;

// Concatenates the runs' raw files into `output` in run order (ngspice's multi-plot raw) and
// removes them; the positions of the runs that had a file (a failed run may have none), or
// nullopt with `error`.
std::optional<std::vector<std::size_t>> join_raw(const std::vector<std::string>& parts,
                                                 const std::string& output, std::string& error) {
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  std::vector<std::size_t> joined;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    std::ifstream in(parts[k], std::ios::binary);
    if (!in) continue;  // a run that could not open its file (reported with the run)
    out << in.rdbuf();
    if (!out) break;
    joined.push_back(k);
  }
  out.close();
  for (const auto& part : parts) fs::remove(part);
  if (!out) {
    error = fmt::format("writing '{}' failed: {}", output, std::strerror(errno));
    return std::nullopt;
  }
  return joined;
}

// When runs have no plot in the joined raw file, plot K is not run K: says which runs are there.
void note_missing_plots(const Prepared& p, const std::vector<std::size_t>& joined) {
  if (joined.size() == p.plan.runs.size()) return;
  std::vector<std::size_t> missing;
  for (std::size_t k = 0, j = 0; k < p.plan.runs.size(); ++k) {
    if (j < joined.size() && joined[j] == k)
      ++j;
    else
      missing.push_back(p.plan.runs[k].index + 1);
  }
  fmt::print(stderr,
             "nsspice: note: '{}' holds {} plots for {} runs: no plot for run{} {} (failed "
             "before its first point); each plot's title ends with [run K: its values]\n",
             p.base.output, joined.size(), p.plan.runs.size(), missing.size() == 1 ? "" : "s",
             fmt::join(missing, ", "));
}

// A run's swept values and Monte Carlo draws: "rl=50 trial 2: cf=1.1e-05 d1n4148.is=1e-14".
std::string values_of(const SweepPlan& plan, std::size_t k, const RunRecord& r) {
  std::string out = run_label(plan, k);
  for (std::size_t i = 0; i < r.drawn.size(); ++i)
    out += fmt::format("{}{}={:g}", i == 0 ? ": " : " ", r.drawn[i].first, r.drawn[i].second);
  return out;
}

// The failed runs (with their values and diagnostics) and the runs' warnings, each once with
// the runs that gave it. Returns the exit code so far: 3 before 2 (docs/output.md).
int report_runs(const Prepared& p, const std::vector<RunRecord>& records) {
  bool lost = false, stopped = false;
  for (std::size_t k = 0; k < records.size(); ++k) {
    const auto& r = records[k];
    if (!r.ran || r.code == 0) continue;
    lost = lost || r.code == kOutputFailed;
    stopped = stopped || r.code == kSimulationFailed || r.code == kBadInput;
    print_error(fmt::format("run {} ({}): {}", p.plan.runs[k].index + 1, values_of(p.plan, k, r),
                            r.message));
    if (!r.diagnostics.empty()) fmt::print(stderr, "{}", r.diagnostics);
  }
  std::vector<std::pair<std::string, std::vector<std::size_t>>> warned;
  for (std::size_t k = 0; k < records.size(); ++k)
    for (const auto& w : records[k].warnings) {
      auto it =
          std::find_if(warned.begin(), warned.end(), [&](const auto& x) { return x.first == w; });
      if (it == warned.end()) it = warned.insert(warned.end(), {w, {}});
      it->second.push_back(p.plan.runs[k].index + 1);
    }
  for (const auto& w : no_effect_warnings(p.plan.dims, p.plan.runs, records))
    fmt::print(stderr, "nsspice: warning: {}\n", w);
  for (const auto& [w, ks] : warned)
    fmt::print(stderr, "nsspice: warning: {} ({})\n", w,
               ks.size() == records.size() ? std::string("every run")
               : ks.size() == 1            ? fmt::format("run {}", ks[0])
                                : fmt::format("{} runs, the first run {}", ks.size(), ks[0]));
  return lost ? kOutputFailed : stopped ? kSimulationFailed : 0;
}

// The overlay and, for Monte Carlo, the histograms; returns the exit code so far.
int draw_plots(const Prepared& p, const std::vector<RunRecord>& records,
               const std::string& circuit_title, int code) {
  if (p.overlay.path.empty()) return code;
  OverlayPlan overlay = p.overlay;
  const std::string runs =
      fmt::format("{} runs{}", records.size(),
                  p.plan.monte_carlo ? fmt::format(" (Monte Carlo, seed {})", p.plan.seed) : "");
  overlay.title = fmt::format("{}\n{}", circuit_title, runs);
  std::vector<bool> ok;
  for (const auto& r : records) ok.push_back(r.ran && r.code == 0);
  auto label = [&](std::size_t k) { return run_label(p.plan, k); };
  if (const std::string why = draw_overlay(overlay, p.paths, ok, label); !why.empty()) {
    print_error(fmt::format("plot '{}': {}", overlay.path, why));
    code = code ? code : kOutputFailed;
  }
  if (!p.plan.monte_carlo) return code;
  std::vector<std::string> skipped;
  std::string error;
  draw_histograms(overlay.path, circuit_title, runs, records, p.specs, skipped, error);
  for (const auto& name : skipped)
    fmt::print(stderr, "nsspice: note: no histogram of '{}': fewer than two distinct values\n",
               name);
  if (!error.empty()) {
    print_error(error);
    code = code ? code : kOutputFailed;
  }
  return code;
}

// The runs listed after `what`, the first kListed of them: "runs 3, 4".
std::string listed_runs(const std::vector<std::string>& runs) {
  constexpr std::size_t kListed = 10;
  std::vector<std::string> shown(runs.begin(), runs.begin() + std::min(runs.size(), kListed));
  if (runs.size() > kListed) shown.emplace_back("...");
  return fmt::format("run{} {}", runs.size() == 1 ? "" : "s", fmt::join(shown, ", "));
}

// How the runs' netlists were flattened: "12 from the netlist flattened once (values evaluated
// again); 2 flattened anew (an expression failed with their values: runs 3, 4)".
std::string flatten_line(const std::vector<RunRecord>& records) {
  std::size_t once = 0;
  std::vector<std::string> anew;
  for (std::size_t k = 0; k < records.size(); ++k) {
    const auto f = static_cast<RunFlatten>(records[k].flatten);
    once += f == RunFlatten::kTemplate ? 1 : 0;
    if (f == RunFlatten::kAnew) anew.push_back(std::to_string(k + 1));
  }
  std::string out = fmt::format(
      "{} from the netlist flattened once (their values evaluated again, elaborated each)", once);
  if (!anew.empty())
    out += fmt::format("; {} flattened anew (an expression failed with their values: {})",
                       anew.size(), listed_runs(anew));
  return out;
}

// How the runs' matrices were made: "12 restamped on the nominal's pattern (symbolic analysis
// shared), 2 rebuilt (structure differs: runs 3, 4)".
std::string assembly_line(const std::vector<RunRecord>& records) {
  std::size_t restamped = 0, shared = 0, rebuilt = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> because;  // reason -> runs
  for (std::size_t k = 0; k < records.size(); ++k) {
    const auto a = static_cast<RunAssembly>(records[k].assembly);
    restamped += a == RunAssembly::kRestamped ? 1 : 0;
    shared += records[k].shared_analysis ? 1 : 0;
    if (a != RunAssembly::kRebuilt) continue;
    ++rebuilt;
    const std::string& why = records[k].rebuilt_because;
    auto it =
        std::find_if(because.begin(), because.end(), [&](const auto& b) { return b.first == why; });
    if (it == because.end()) it = because.insert(because.end(), {why, {}});
    it->second.push_back(std::to_string(k + 1));
  }
  std::string out =
      fmt::format("{} restamped on the nominal circuit's pattern, {} sharing its symbolic analysis",
                  restamped, shared);
  if (rebuilt == 0) return out;
  std::vector<std::string> parts;
  for (const auto& [why, runs] : because)
    parts.push_back(why.empty() ? listed_runs(runs) : listed_runs(runs) + ": " + why);
  return out + fmt::format("; {} rebuilt (structure differs from the nominal's: {})", rebuilt,
                           fmt::join(parts, "; "));
}

void print_report(const RunOptions& o, const Prepared& p, const MpiSession* mpi,
                  const Executed& done) {
  const auto& records = done.records;
  std::size_t failed = 0, not_run = 0, cut = 0;
  for (const auto& r : records) {
    if (!r.ran) ++not_run;
    if (r.ran && r.code > 128) ++cut;
    if (r.ran && r.code != 0 && r.code <= 128) ++failed;
  }
  const std::size_t dims = p.plan.dims.size(), n = records.size();
  const std::string where =
      mpi != nullptr
          ? fmt::format("{} MPI ranks × {} job{}", mpi->size(), p.jobs, p.jobs == 1 ? "" : "s")
          : fmt::format("{} job{}", p.jobs, p.jobs == 1 ? "" : "s");
  fmt::print("sweep report\n");
  fmt::print("  {:<18} {} ({} dimension{}{}), {}\n", "runs", n, dims, dims == 1 ? "" : "s",
             p.plan.monte_carlo
                 ? fmt::format(", {} Monte Carlo trials each, seed {}", o.runs, o.seed)
                 : "",
             where);
  fmt::print("  {:<18} {} ok, {} failed{}\n", "outcome", n - failed - not_run - cut, failed,
             not_run + cut > 0 ? fmt::format(", {} interrupted, {} not run", cut, not_run)
                               : std::string());
  if (mpi != nullptr) {
    std::vector<std::size_t> per_rank(static_cast<std::size_t>(mpi->size()), 0);
    for (std::size_t k = 0; k < records.size(); ++k)
      if (records[k].ran) ++per_rank[static_cast<std::size_t>(done.rank[k])];
    fmt::print("  {:<18} {}\n", "runs per rank", fmt::join(per_rank, " "));
  }
  fmt::print("  {:<18} {}\n", "netlist", flatten_line(records));
  fmt::print("  {:<18} {}\n", "assembly", assembly_line(records));
  fmt::print("  {:<18} {}\n", "waveforms",
             p.raw ? p.base.output : fmt::format("{} ... {}", p.paths.front(), p.paths.back()));
  fmt::print("  {:<18} {}\n", "measurements", p.meas_path);
}

}  // namespace

int finish_sweep(const RunOptions& o, const Prepared& p, const MpiSession* mpi,
                 const Executed& done, const LoadedNetlist& nominal,
                 const InterruptScope& interrupt) {
  const auto& records = done.records;
  int code = report_runs(p, records);
  if (interrupt.requested()) {
    const auto not_run =
        std::count_if(records.begin(), records.end(), [](const RunRecord& r) { return !r.ran; });
    fmt::print(stderr, "nsspice: interrupted by {}: {} of {} runs not started\n",
               signal_name(interrupt.signal()), not_run, records.size());
    if (code == 0) code = interrupted_exit_code(interrupt.signal());
  }
  code = draw_plots(p, records, nominal.circuit.title, code);
  std::string error;
  if (p.raw) {
    if (const auto joined = join_raw(p.paths, p.base.output, error))
      note_missing_plots(p, *joined);
    else {
      print_error(error);
      code = kOutputFailed;
    }
  }
  if (const std::string why = write_whole_file(
          p.meas_path, meas_csv(p.plan.dims, p.plan.runs, records, p.plan.monte_carlo));
      !why.empty()) {
    print_error(why);
    code = kOutputFailed;
  }
  const auto names = measure_names(records);
  for (const auto& s : p.specs)
    if (std::find(names.begin(), names.end(), s.name) == names.end())
      fmt::print(stderr, "nsspice: warning: --spec '{}': no measurement of that name\n", s.name);
  // The measurements are the user's request: printed even with -q (only the report is quiet).
  if (!o.quiet) {
    print_report(o, p, mpi, done);
    // The model conversions (SPICE → PWL, approximations with their numbers) of the nominal
    // circuit: every run converts its own models the same way, at its own values.
    if (const std::string lines = format_conversions(nominal.circuit); !lines.empty())
      fmt::print("device models (nominal values; each run converts its own)\n{}", lines);
  }
  fmt::print("{}", summary_table(records, p.specs));
  return code;
}

}  // namespace nsspice::app
