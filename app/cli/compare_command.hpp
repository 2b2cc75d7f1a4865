#pragma once
// `nsspice compare NETLIST`: nsspice (in-process) against another result of the same netlist,
// answering one of four questions (docs/compare.md):
//   1. (default when the netlist has a SPICE model card) the real ngspice runs the netlist's
//      own SPICE models unchanged: how far is the ideal/PWL result from them?
//   2. (--models regularized, --sweep-ideality, or no SPICE model) ngspice runs regularized
//      devices: does regularized SPICE converge to the ideal answer?
//   --against FILE: a waveform produced elsewhere (ngspice raw, LTspice raw, CSV).
//   --methods: nsspice's θ-scheme against its own event mode.
// ngspice runs through an escalation ladder until it reaches TSTOP (ngspice_ladder.hpp).
// Reports per-signal errors on a common time base after the start-up, switching offsets,
// steady-state averages and ripples, .meas results side by side, wall times and a verdict;
// writes overlay + difference plots. Exit codes: 0, 1 bad input, 2 nsspice failed, 3 output
// failed, 4 ngspice not found, 5 the other side did not reach TSTOP (ngspice after every rung
// of the ladder, or a file that ends early), 128 + signal.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/compare/ngspice_netlist.hpp"

namespace nsspice::app {

inline constexpr int kPeerFailed = 5;

struct CompareOptions {
  std::string netlist;
  std::string out_dir;        // default: <netlist stem>-compare
  std::string plot;           // default: <out_dir>/compare.png
  std::string signals;        // plotted; default: up to 3 node voltages and 2 device currents
  std::string json;           // default: <out_dir>/compare.json
  std::string view;           // --view FILE.html: both runs in the waveform viewer
  bool view_default = false;  // --view without a file: <out_dir>/compare.html
  TranslateOptions translate;
  std::string models;  // --models user|regularized; "": by the netlist
  std::string ngspice = "ngspice";
  double timeout_seconds = 300;  // per ngspice attempt
  double stall_seconds = 20;     // an attempt whose time stands still this long is stopped
  bool escalate = true;          // --no-escalate: one ngspice attempt
  std::string against;           // --against FILE
  std::vector<std::string> map;  // --map FILE_NAME=NSSPICE_NAME
  bool methods = false;          // --methods
  std::vector<std::string> measures;
  bool sweep = false;
  std::vector<double> sweep_n = {1, 0.3, 0.1, 0.03, 0.01};
  double switch_threshold = 1e-3;  // relative to the current's peak
  std::optional<double> startup;   // --startup T [s]; nullopt: auto
  std::optional<double> grid;      // default: both runs' samples
  std::optional<double> theta, step;
  std::optional<double> t_from, t_to;  // the overlay plot's time window
  bool quiet = false;

  // Empty when valid, else the option out of range and its allowed range
  // ("--timeout 0: must be positive (seconds)"), or two options that exclude each other.
  // theta/step are checked with the netlist's .tran (circuit/tran_settings.hpp).
  std::string validate() const;
};

int compare_command(const CompareOptions& options);

}  // namespace nsspice::app
