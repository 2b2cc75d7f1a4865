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

struct NgspiceRun {
  bool started = false;
  bool timed_out = false;
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
// (SIGTERM, then SIGKILL after 2 s) after `timeout_seconds` or as soon as `stop` (may be empty,
// polled every 10 ms) returns true.
NgspiceRun run_ngspice(const std::string& ngspice, const std::string& dir,
                       const std::string& netlist_name, const std::string& raw_name,
                       const std::string& log_name, double timeout_seconds,
                       const std::function<bool()>& stop = {});

}  // namespace nsspice::app
