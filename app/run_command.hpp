#pragma once
// `nsspice run NETLIST`: parse, elaborate, simulate the .tran, write CSV (and a plot), report.
#include <optional>
#include <string>

namespace nsspice::app {

struct RunOptions {
  std::string netlist;
  std::string output;   // CSV path; default: <netlist stem>.csv in the current directory
  std::string plot;     // optional .png/.svg/.pdf
  std::string signals;  // plot selection, comma separated; default: all node voltages
  std::optional<double> theta;
  std::optional<double> step;
  bool quiet = false;
  bool progress = true;
};

// Returns the process exit code (0 success, 1 bad input, 2 simulation failure, 3 output failure).
int run_command(const RunOptions& options);

}  // namespace nsspice::app
