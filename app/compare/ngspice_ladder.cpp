#include "app/compare/ngspice_ladder.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "app/compare/ngspice_runner.hpp"
#include "app/compare/spice_params.hpp"
#include "app/io/file_write.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

namespace fs = std::filesystem;

// A failure another rung may cure: ngspice's numerical complaints, or a run that ended early
// without saying why. Not: a timeout, an interrupt, a netlist ngspice refuses.
bool numerical(const NgspiceRun& run) {
  if (run.stalled) return true;
  if (run.timed_out || run.interrupted || !run.started) return false;
  std::vector<std::string> lines = run.problems;
  lines.push_back(run.failure);
  for (const auto& line : lines) {
    const std::string l = lower(line);
    for (const char* key : {"timestep too small", "singular", "converge", "gmin", "source step",
                            "iteration limit", "too many iterations"})
      if (l.find(key) != std::string::npos) return true;
  }
  const bool refused = !run.data || run.data->time.empty();
  return !refused && run.failure.empty();
}

// Renames <tag>.<ext> to <stem>.<ext> in `dir` (a missing file is not an error).
void rename_file(const std::string& dir, const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(fs::path(dir) / from, fs::path(dir) / to, ec);
}
void remove_file(const std::string& dir, const std::string& name) {
  std::error_code ec;
  fs::remove(fs::path(dir) / name, ec);
}

// The options line of an attempt: the user's, then every rung up to `rung` (later ones win).
std::string options_for(const std::string& base, size_t rung) {
  std::string error;
  SpiceParams p = SpiceParams::parse(base, error).value_or(SpiceParams{});
  const auto& ladder = escalation_ladder();
  for (size_t k = 1; k <= rung && k < ladder.size(); ++k)
    for (const auto& [key, value] : ladder[k].options) p.set(lower(key), value);
  return p.str();
}

double tmax_for(double base, size_t rung) {
  double divisor = 1;
  const auto& ladder = escalation_ladder();
  for (size_t k = 1; k <= rung && k < ladder.size(); ++k) divisor *= ladder[k].tmax_divisor;
  return base / divisor;
}

// Translates and writes the netlist for ngspice; nullopt with `error` set on failure.
std::optional<Translation> write_deck(const circuit::Circuit& c, const TranslateOptions& to,
                                      const std::string& path, LadderError& error) {
  std::string why;
  auto tr = translate_to_ngspice(c, to, why);
  if (!tr) {
    error = {why, 1};
    return std::nullopt;
  }
  if (!tr->unsupported.empty()) {
    std::string list;
    for (const auto& u : tr->unsupported) list += (list.empty() ? "" : ", ") + u;
    error = {fmt::format("no SPICE translation for: {}", list), 1};
    return std::nullopt;
  }
  if (std::string failed = write_whole_file(path, tr->text); !failed.empty()) {
    error = {std::move(failed), 3};
    return std::nullopt;
  }
  return tr;
}

Attempt attempt_of(size_t k, const TranslateOptions& to, const NgspiceRun& run, double t_stop,
                   const std::string& tag) {
  Attempt a;
  a.number = static_cast<int>(k + 1);
  a.change = escalation_ladder()[k].change;
  a.options = to.options;
  a.tmax = to.tmax;
  a.wall_seconds = run.wall_seconds;
  a.problems = run.problems;
  const bool data = run.data && !run.data->time.empty();
  a.t_end = data ? run.data->time.back() : 0;
  a.completed = !run.timed_out && !run.interrupted && data && a.t_end >= t_stop * (1 - 1e-9);
  a.failure = a.completed ? "" : !run.failure.empty() ? run.failure : run.read_error;
  if (!a.completed && a.failure.empty())
    a.failure = fmt::format("the run ended at t = {:g} s, before TSTOP", a.t_end);
  a.files = tag;
  return a;
}

}  // namespace

const std::vector<Rung>& escalation_ladder() {
  static const std::vector<Rung> kLadder = {
      {"", {}, 1},
      {"METHOD=GEAR", {{"method", "gear"}}, 1},
      {"ITL4=100", {{"itl4", "100"}}, 1},
      {"RSHUNT=1e9", {{"rshunt", "1e9"}}, 1},
      {"TMAX / 10", {}, 10},
      {"GMIN=1e-9 GMINSTEPS=100", {{"gmin", "1e-9"}, {"gminsteps", "100"}}, 1},
      {"RELTOL=1e-3 ABSTOL=1e-6 VNTOL=1e-3",
       {{"reltol", "1e-3"}, {"abstol", "1e-6"}, {"vntol", "1e-3"}},
       1},
  };
  return kLadder;
}

std::string LadderOptions::validate() const {
  if (!(timeout_seconds > 0) || !std::isfinite(timeout_seconds))
    return fmt::format("timeout {:g} s: must be positive", timeout_seconds);
  if (!(stall_seconds > 0) || !std::isfinite(stall_seconds))
    return fmt::format("stall {:g} s: must be positive", stall_seconds);
  if (!(t_stop > t_start))
    return fmt::format("TSTOP {:g} s: must be after {:g} s", t_stop, t_start);
  if (ngspice.empty() || dir.empty() || tag.empty())
    return "the ngspice executable, the directory "
           "and the tag must be given";
  return {};
}

std::optional<LadderResult> run_ladder(const circuit::Circuit& c, const TranslateOptions& base,
                                       const LadderOptions& o, LadderError& error) {
  if (std::string invalid = o.validate(); !invalid.empty()) {
    error = {std::move(invalid), 1};
    return std::nullopt;
  }
  std::string why;
  if (!SpiceParams::parse(base.options, why)) {
    error = {"--spice-options " + why, 1};
    return std::nullopt;
  }
  LadderResult out;
  const std::string& tag = o.tag;
  const size_t rungs = o.escalate ? escalation_ladder().size() : 1;
  double best_t = -1;
  for (size_t k = 0; k < rungs; ++k) {
    TranslateOptions to = base;
    to.options = options_for(base.options, k);
    to.tmax = tmax_for(base.tmax, k);
    to.raw_path = tag + ".raw";
    auto tr = write_deck(c, to, (fs::path(o.dir) / (tag + ".cir")).string(), error);
    if (!tr) return std::nullopt;
    const StallRule stall{o.stall_seconds, 1e-4 * (o.t_stop - o.t_start)};
    NgspiceRun run = run_ngspice(o.ngspice, o.dir, tag + ".cir", tag + ".raw", tag + ".log",
                                 o.timeout_seconds, o.stop, stall);
    Attempt a = attempt_of(k, to, run, o.t_stop, tag);
    const bool best = a.completed || a.t_end > best_t;
    const bool last = a.completed || k + 1 == rungs || !numerical(run);
    if (!last) {  // this attempt's files make room for the next one
      a.files = fmt::format("{}.attempt{}", tag, a.number);
      rename_file(o.dir, tag + ".cir", a.files + ".cir");
      rename_file(o.dir, tag + ".log", a.files + ".log");
      if (best)
        rename_file(o.dir, tag + ".raw", a.files + ".raw");
      else
        remove_file(o.dir, tag + ".raw");
    }
    if (best) {
      if (best_t >= 0 && out.attempts[out.used].files != a.files)
        remove_file(o.dir, out.attempts[out.used].files + ".raw");
      best_t = a.t_end;
      out.used = k;
      out.data = run.data ? std::move(*run.data) : Waveforms{};
      out.translation = std::move(*tr);
    } else if (last) {
      remove_file(o.dir, tag + ".raw");
    }
    out.attempts.push_back(std::move(a));
    if (o.on_attempt) o.on_attempt(out.attempts.back());
    if (out.attempts.back().completed) {
      out.completed = true;
      break;
    }
    if (last) {
      if (k + 1 < rungs)
        out.ended = run.timed_out     ? "a timeout ends the ladder (each rung would take as long)"
                    : run.interrupted ? "interrupted"
                                      : "ngspice did not run the netlist: no rung can help";
      break;
    }
  }
  return out;
}

}  // namespace nsspice::app
