#include "app/compare/ngspice_runner.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "app/io/raw_reader.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

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

namespace {

struct ChildExit {
  bool started = false;
  int exit_status = -1;  // -1: killed by a signal (or never started)
  bool timed_out = false;
  bool stopped = false;  // stop() asked for it
  bool stalled = false;  // stalled() said so
};

// Follows ngspice's log as it grows: the last "Reference value : t" it printed.
class ProgressWatch {
 public:
  ProgressWatch(std::string path, StallRule rule) : path_(std::move(path)), rule_(rule) {}
  double t() const { return t_; }
  // Called every poll with the wall time since the start; true when the run has stalled.
  bool stalled(double wall) {
    if (!(rule_.min_advance > 0) || wall - last_read_ < std::min(1.0, rule_.seconds / 4))
      return false;
    last_read_ = wall;
    read_new();
    if (t_ < 0) return false;  // no progress printed yet (the operating point): no judgement
    if (mark_wall_ < 0 || t_ >= mark_t_ + rule_.min_advance) {
      mark_t_ = t_, mark_wall_ = wall;
      return false;
    }
    return wall - mark_wall_ > rule_.seconds;
  }
  void read_new() {
    std::ifstream in(path_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Keep a partial line's start for the next read.
    const size_t keep = std::min<size_t>(chunk.size(), 64);
    offset_ += chunk.size() - keep;
    static constexpr std::string_view kKey = "Reference value :";
    const size_t at = chunk.rfind(kKey);
    if (at != std::string::npos) {
      const double t = std::strtod(chunk.c_str() + at + kKey.size(), nullptr);
      if (t > t_) t_ = t;
    }
  }

 private:
  std::string path_;
  StallRule rule_;
  size_t offset_ = 0;
  double t_ = -1, mark_t_ = -1, mark_wall_ = -1, last_read_ = -1;
};

// Runs `exe -b netlist` in `dir`, stdin from /dev/null, stdout and stderr to `log`, in a process
// group of its own (so that a terminal's Ctrl-C reaches nsspice, which decides), and waits for
// it, polling every 10 ms. After `timeout_seconds`, or as soon as `stop()` says so, the group
// gets SIGTERM, and SIGKILL 2 s later if it is still there.
ChildExit run_child(const std::string& exe, const std::string& dir, const std::string& netlist,
                    const std::string& log, double timeout_seconds,
                    const std::function<bool()>& stop, ProgressWatch& watch) {
  ChildExit out;
  if (stop && stop()) {  // stopped before it started: nothing to start
    out.stopped = true;
    return out;
  }
  // Everything the child needs is prepared before fork(): after it, only async-signal-safe calls.
  const char* argv[] = {exe.c_str(), "-b", netlist.c_str(), nullptr};
  const pid_t pid = ::fork();
  if (pid < 0) return out;
  if (pid == 0) {
    ::setpgid(0, 0);
    const int in = ::open("/dev/null", O_RDONLY);
    const int to = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (::chdir(dir.c_str()) != 0 || in < 0 || to < 0) ::_exit(127);
    ::dup2(in, STDIN_FILENO);
    ::dup2(to, STDOUT_FILENO);
    ::dup2(to, STDERR_FILENO);
    ::execv(argv[0], const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first, the group exists before any kill
  out.started = true;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  std::optional<Clock::time_point> killed_at;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    const auto now = Clock::now();
    if (!killed_at) {
      const double wall = std::chrono::duration<double>(now - start).count();
      out.timed_out = wall > timeout_seconds;
      out.stopped = !out.timed_out && stop && stop();
      out.stalled = !out.timed_out && !out.stopped && watch.stalled(wall);
      if (out.timed_out || out.stopped || out.stalled) {
        ::kill(-pid, SIGTERM);
        killed_at = now;
      }
    } else if (now - *killed_at > std::chrono::seconds(2)) {
      ::kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  out.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

}  // namespace

NgspiceRun run_ngspice(const std::string& ngspice, const std::string& dir,
                       const std::string& netlist_name, const std::string& raw_name,
                       const std::string& log_name, double timeout_seconds,
                       const std::function<bool()>& stop, const StallRule& stall) {
  namespace fs = std::filesystem;
  NgspiceRun run;
  std::error_code ec;
  fs::remove(fs::path(dir) / raw_name, ec);
  const std::string exe = fs::absolute(ngspice, ec).string();
  const std::string log_path = fs::absolute(fs::path(dir) / log_name, ec).string();
  const auto start = std::chrono::steady_clock::now();
  ProgressWatch watch(log_path, stall);
  const ChildExit child = run_child(exe, dir, netlist_name, log_path, timeout_seconds, stop, watch);
  watch.read_new();
  run.progress_t = watch.t();
  run.stalled = child.stalled;
  run.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.started = child.started;
  run.exit_status = child.exit_status;
  run.timed_out = child.timed_out;
  run.interrupted = child.stopped;
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
  const std::string at =
      run.progress_t >= 0 ? fmt::format(" at t = {:.4g} s", run.progress_t) : std::string();
  if (run.timed_out) {
    run.failed = true;
    run.failure =
        fmt::format("ngspice did not finish within {:g} s (killed{})", timeout_seconds, at);
  }
  if (run.stalled) {
    run.failed = true;
    run.failure = fmt::format(
        "ngspice stalled{}: its time advanced less than {:.3g} s in {:g} s of wall time (killed)",
        at, stall.min_advance, stall.seconds);
  }
  if (run.interrupted) {
    run.failed = true;
    run.failure = run.started ? "ngspice was stopped" : "ngspice was not started";
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
