#pragma once
// Runs the real ngspice binary in batch mode on a translated netlist and reads its raw file
// back. ngspice's complaints ("timestep too small", singular matrices, warnings) are results:
// they are collected, never thrown.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

// An executable: `name_or_path` itself when it contains a '/', else searched on PATH.
std::optional<std::string> find_executable(const std::string& name_or_path);

// A run that makes no headway: in batch mode ngspice prints its simulated time on stderr
// ("Reference value : t", a few times a second) while a transient runs long; once it has, if t
// advances by less than `min_advance` seconds in `seconds` of wall time, the run has stalled
// (steps of femtoseconds that never become "timestep too small") and is stopped. Before the
// first such line (the operating point, a short run) nothing is judged.
struct StallRule {
  double seconds = 20;
  double min_advance = 0;  // 0: no stall detection
};

struct NgspiceRun {
  bool started = false;
  bool timed_out = false;
  bool stalled = false;      // stopped by the StallRule
  double progress_t = -1;    // the last simulated time ngspice printed (-1: none)
  bool interrupted = false;  // stopped (or not started) because the stop predicate said so
  int exit_status = -1;
  double wall_seconds = 0;  // the whole process (start-up, parse, operating point, transient)
  std::vector<std::string> problems;  // warning/error lines of its output, as printed
  bool failed = false;                // the transient did not reach TSTOP
  std::string failure;                // the line that says why
  std::optional<Waveforms> data;      // what it wrote (up to the failure)
  std::string read_error;
};

// Runs `ngspice -b netlist` in `dir` (the netlist's .control block writes `raw_name` there),
// stdout and stderr to `log_name`, in a process group of its own; the group is stopped
// (SIGTERM, then SIGKILL after 2 s) after `timeout_seconds`, when it stalls (`stall`), or as
// soon as `stop` (may be empty, polled every 10 ms) returns true.
NgspiceRun run_ngspice(const std::string& ngspice, const std::string& dir,
                       const std::string& netlist_name, const std::string& raw_name,
                       const std::string& log_name, double timeout_seconds,
                       const std::function<bool()>& stop = {}, const StallRule& stall = {});

}  // namespace nsspice::app
