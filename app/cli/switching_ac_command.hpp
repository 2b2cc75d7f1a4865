#pragma once
// `nsspice ac NETLIST --period T --inject SRC --freq F1 F2 N`: the small-signal response of a
// periodically switching circuit about its periodic steady state (circuit/pss_ac.hpp), from the
// source SRC to every saved signal, written like an .ac (vdb()/vp() CSV, complex raw) and drawn
// as a Bode plot; --loop-gain adds T = −v(n−)/v(n+) of the injection source SRC (a voltage
// source in series with the loop); --check-transient K compares K frequencies with a
// brute-force transient (a sine injected, the fundamental extracted).
#include <string>

#include "app/cli/pss_command.hpp"

namespace nsspice::app {

struct SwitchingAcCommandOptions {
  PssCommandOptions pss;  // netlist, --period, --map, --steps, --warmup, -o, --save, --plot, -q
  std::string inject;     // the perturbed source
  double fstart = 0, fstop = 0;
  long points = 0;
  bool linear = false;         // linear spacing (default: logarithmic)
  bool loop_gain = false;      // add −v(n−)/v(n+) of the injection source
  int check = 0;               // --check-transient K: K frequencies checked (0: none)
  double check_amplitude = 0;  // the check's sine amplitude (0: 1e-3 of the source's peak, ≥ 1e-3)
};

int switching_ac_command(const SwitchingAcCommandOptions& options);

}  // namespace nsspice::app
