#pragma once
// What a sweep keeps of one run, and its bytes for the way from an MPI rank to rank 0.
//
// The encoding is a flat little list of fields: integers as 8 bytes, doubles as their 8 bytes
// (bit for bit: rank 0 writes the values it received exactly as the rank computed them),
// strings and lists as a count then their items, in the order of the struct. Ranks of one job
// run the same binary on the same architecture (byte order and double format are the same);
// decode() checks the length of everything it reads and rejects a short or long buffer.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/measure/measure.hpp"

namespace nsspice::app {

struct RunRecord {
  bool ran = false;         // false: not started (the sweep was interrupted first)
  int code = 0;             // 0, or the exit code of the run (docs/output.md)
  std::string message;      // why the run failed or stopped
  std::string diagnostics;  // of loading the run's netlist, when it failed
  std::vector<MeasureResult> measures;
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, double>> drawn;  // Monte Carlo: name and value drawn
  long rows = 0;
  double t_end = 0;
  std::uint64_t rows_hash = 0;  // of the run's points (Simulated::rows_hash)
  // How its matrices were made (app::RunAssembly: 0 not at all, 1 restamped on the sweep's
  // pattern, 2 assembled anew), and whether its θ-stepper used the sweep's symbolic analyses.
  int assembly = 0;
  bool shared_analysis = false;
  // How its netlist was flattened (app::RunFlatten: 0 not a sweep's run, 1 from the sweep's
  // flat template, 2 anew).
  int flatten = 0;
  std::string rebuilt_because;  // RunOutcome::rebuilt_because
};

std::string encode(const RunRecord& record);
// nullopt when `bytes` is not one whole record.
std::optional<RunRecord> decode(std::string_view bytes);

}  // namespace nsspice::app
