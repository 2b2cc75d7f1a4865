#pragma once
// Sweeps and Monte Carlo for `nsspice run` (docs/sweeps.md):
//   * the dimensions: the netlist's .step cards, then --step-param options (one of the same name
//     replaces the card); the runs: their Cartesian product (app/sweep/sweep_points.hpp), each
//     point repeated --runs N times with fresh draws of the distribution functions when N > 0;
//   * execution: --jobs J threads (default: every core); each takes the next run index,
//     flattens the netlist's parsed tree (read once) with that run's values and draws,
//     elaborates it and simulates it into its own file; nothing is shared between runs but
//     read-only data (the options, the parsed tree), so a run's result does not depend on J or
//     on the order of completion;
//   * files: a .raw output holds one plot per run, in run order (ngspice's multi-plot raw);
//     a .csv output gives one file per run, <stem>.run<K>.csv (K from 1); `-o DIR/` puts
//     <netlist stem>.run<K>.csv in DIR. <output stem>.meas.csv holds one row per run: run,
//     trial (Monte Carlo), the swept values, status, each measurement;
//   * report: runs done and failed (each failure with its values and reason), and for each
//     measurement mean, standard deviation, min, max and, with --spec 'NAME LO HI', the yield
//     (the share of runs with LO ≤ value ≤ HI; a failed run or measurement counts as out).
// Exit 0 when every run succeeded, 2 when one failed (the others still ran and were written),
// 1 for bad input (nothing run), 3 when a file could not be written.
#include "app/cli/run_command.hpp"
#include "app/cli/simulation.hpp"

namespace nsspice::app {

int sweep_command(const RunOptions& options, const LoadedNetlist& nominal);

}  // namespace nsspice::app
