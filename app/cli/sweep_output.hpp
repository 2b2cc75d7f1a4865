#pragma once
// What a sweep writes and prints after its runs (sweep_command.hpp states the behaviour): the
// failed runs with their values and diagnostics, the runs' warnings once each with the runs
// that gave them, the plots (app/sweep/sweep_plot.hpp), the joined multi-plot raw file, the
// .meas.csv table and the report with the summary (app/sweep/sweep_tables.hpp).
#include <cstddef>
#include <string>
#include <vector>

#include "app/cli/run_command.hpp"
#include "app/cli/sweep_command.hpp"
#include "app/sweep/run_record.hpp"
#include "app/sweep/sweep_plot.hpp"
#include "app/sweep/sweep_tables.hpp"

namespace nsspice::app {

class InterruptScope;

// Everything decided before the first run.
struct Prepared {
  SweepPlan plan;
  std::vector<Spec> specs;
  RunOptions base;  // the options of every run (quiet, no plot), output = the final file
  bool directory = false, raw = false;
  OverlayPlan overlay;
  std::vector<std::string> paths;  // the runs' files
  std::string meas_path;
  std::size_t jobs = 1;
};

// The runs' records, and the rank that ran each (0 without MPI).
struct Executed {
  std::vector<RunRecord> records;
  std::vector<int> rank;
};

// Everything after the runs on the rank that writes the files; returns the exit code.
int finish_sweep(const RunOptions& options, const Prepared& prepared, const MpiSession* mpi,
                 const Executed& done, const LoadedNetlist& nominal,
                 const InterruptScope& interrupt);

}  // namespace nsspice::app
