#include "app/compare/ngspice_runner.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/io/raw_reader.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool is_problem(const std::string& l) {
  if (l.find("no compatibility mode") != std::string::npos) return false;
  if (l.find("no \".plot\"") != std::string::npos) return false;
  for (const char* key : {"warning", "error", "too small", "fail", "abort", "singular",
                          "convergence", "not found", "unknown", "can't", "cannot"})
    if (l.find(key) != std::string::npos) return true;
  return false;
}

bool is_failure(const std::string& l) {
  for (const char* key : {"timestep too small", "transient solution failed", "aborted",
                          "simulation interrupted", "run simulation(s) aborted", "fatal"})
    if (l.find(key) != std::string::npos) return true;
  return false;
}

}  // namespace

std::optional<std::string> find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 ? std::optional(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

NgspiceRun run_ngspice(const std::string& ngspice, const std::string& dir,
                       const std::string& netlist_name, const std::string& raw_name,
                       const std::string& log_name, double timeout_seconds) {
  namespace fs = std::filesystem;
  NgspiceRun run;
  std::error_code ec;
  fs::remove(fs::path(dir) / raw_name, ec);
  const std::string timeout =
      find_executable("timeout") ? fmt::format("timeout -k 5 {:.0f} ", timeout_seconds) : "";
  const std::string cmd =
      fmt::format("cd {} && {}{} -b {} > {} 2>&1 < /dev/null", shell_quote(dir), timeout,
                  shell_quote(ngspice), shell_quote(netlist_name), shell_quote(log_name));
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  run.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.started = status != -1;
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.timed_out = run.exit_status == 124 || run.exit_status == 137;
  std::ifstream log(fs::path(dir) / log_name);
  std::string line;
  while (std::getline(log, line)) {
    const std::string l = lower(line);
    if (is_problem(l)) run.problems.push_back(line);
    if (!run.failed && is_failure(l)) {
      run.failed = true;
      run.failure = line;
    }
  }
  if (run.timed_out) {
    run.failed = true;
    run.failure = fmt::format("ngspice did not finish within {:g} s (killed)", timeout_seconds);
  }
  const fs::path raw = fs::path(dir) / raw_name;
  if (fs::exists(raw, ec)) {
    run.data = read_raw(raw.string(), run.read_error);
  } else {
    run.read_error =
        fmt::format("ngspice wrote no raw file (see {})", (fs::path(dir) / log_name).string());
    run.failed = true;
    if (run.failure.empty()) run.failure = run.read_error;
  }
  return run;
}

}  // namespace nsspice::app
