#pragma once
// A SPICE run that finishes: ngspice is run again, with one more remedy each time, until it
// reaches TSTOP. The ladder (each rung keeps everything before it; cheapest and least
// intrusive first):
//
//   attempt  adds                                  against
//   1        the options as given (--spice-options, default RELTOL=1e-4) and TMAX
//   2        METHOD=GEAR                           the trapezoidal rule's ringing at the stiff
//                                                  edges of regularized switches and diodes
//   3        ITL4=100                              Newton giving up after 10 iterations at a
//                                                  time point (the step is then cut, until
//                                                  "timestep too small")
//   4        RSHUNT=1e9                            nodes that float while every diode around
//                                                  them blocks (bridges, series Zeners,
//                                                  multipliers): 1 GΩ from every node to ground
//   5        TMAX / 10                             a predictor too far from the corner
//   6        GMIN=1e-9 GMINSTEPS=100               junctions without a conductance to lean on
//                                                  (gmin stepping of the operating point with
//                                                  100 steps, and a 1000× larger GMIN)
//   7        RELTOL=1e-3 ABSTOL=1e-6 VNTOL=1e-3    tolerances too tight for the edges: ngspice's
//                                                  RELTOL default, the usual power-electronics
//                                                  ABSTOL (1 µA) and VNTOL (1 mV)
//
// Success means reaching TSTOP. What escalates: "timestep too small", non-convergence, a
// singular matrix, gmin/source stepping failing, a run that ends early, and a run that stalls
// (its simulated time advancing less than 1e-4 of the run in `stall_seconds` of wall time:
// femtosecond steps that never become "timestep too small"; ngspice_runner.hpp). A failure that
// the ladder cannot help (a timeout, an interrupt, ngspice refusing the netlist) ends it; so
// does the last rung. Every attempt is logged
// (Attempt) and its netlist and log kept as <tag>.attempt<k>.cir/.log; the attempt used (the
// one that finished, else the one that got furthest) keeps its raw file.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/compare/ngspice_netlist.hpp"
#include "app/io/waveforms.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::app {

struct Rung {
  std::string change;                                        // "METHOD=GEAR", "TMAX / 10"
  std::vector<std::pair<std::string, std::string>> options;  // added to .options
  double tmax_divisor = 1;
};
const std::vector<Rung>& escalation_ladder();

struct Attempt {
  int number = 0;       // 1, 2, ...
  std::string change;   // the rung's addition ("" for the first)
  std::string options;  // the whole .options line
  double tmax = 0;      // ngspice's TMAX [s]
  double wall_seconds = 0;
  bool completed = false;             // reached TSTOP
  double t_end = 0;                   // last time point written
  std::string failure;                // why not ("timestep too small ...")
  std::vector<std::string> problems;  // ngspice's warning/error lines
  std::string files;                  // stem of its files: "ngspice" or "ngspice.attempt2"
};

struct LadderOptions {
  std::string ngspice;  // the executable
  std::string dir;      // where the files go
  std::string tag = "ngspice";
  double timeout_seconds = 300;                    // per attempt
  double stall_seconds = 20;                       // per attempt: see the top of this file
  double t_start = 0, t_stop = 0;                  // the run's span; success: reaching t_stop
  bool escalate = true;                            // false: one attempt only
  std::function<bool()> stop;                      // an interrupt
  std::function<void(const Attempt&)> on_attempt;  // after each attempt (progress)

  // Empty when valid, else the value out of range ("timeout 0 s: must be positive").
  std::string validate() const;
};

struct LadderResult {
  std::vector<Attempt> attempts;
  size_t used = 0;  // index into attempts of the waveforms kept
  bool completed = false;
  std::string ended;  // why the ladder ended before its last rung without success ("" if not)
  Waveforms data;     // the used attempt's waveforms, ngspice's names
  Translation translation;
};

// Why no ladder could run: the message, and the exit code (1 bad model options, 3 a netlist
// for ngspice not written).
struct LadderError {
  std::string message;
  int code = 1;
};

std::optional<LadderResult> run_ladder(const circuit::Circuit& circuit,
                                       const TranslateOptions& base, const LadderOptions& options,
                                       LadderError& error);

}  // namespace nsspice::app
