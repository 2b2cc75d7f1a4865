#pragma once
// `nsspice pss NETLIST --period T`: the periodic steady state by shooting (circuit/pss.hpp),
// written over one period (or --periods K) in the usual waveform format, plotted with --plot,
// measured by the netlist's .meas cards and --meas,
// with the Newton iterations and, with --compare-transient N, the periods and the time a
// transient needs to reach the same periodicity.
#include "app/cli/run_command.hpp"

namespace nsspice::app {

struct PssCommandOptions {
  RunOptions run;              // netlist, -o, --format, --save, --plot, --show, --meas, -q
  double period = 0;           // T [s]
  int periods = 1;             // periods written
  long steps = 0;              // steps per period (0: from the .tran step, else 1000)
  int warmup = 5;              // warm-up periods before Newton
  long compare_transient = 0;  // > 0: also iterate the plain transient up to this many periods
};

int pss_command(const PssCommandOptions& options);

}  // namespace nsspice::app
