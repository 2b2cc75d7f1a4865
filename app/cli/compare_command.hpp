#pragma once
// `nsspice compare NETLIST`: nsspice (in-process) against the real ngspice (batch mode) on the
// same netlist, every ideal device regularized for SPICE (ngspice_netlist.hpp). Reports, per
// signal, how far apart the two are, the switching instants, both wall times, ngspice's
// complaints; writes overlay + difference plots; --sweep-ideality repeats ngspice with more and
// more ideal diodes. Exit codes: 0, 1 bad input, 2 nsspice failed, 3 output failed, 4 ngspice
// not found.
#include <optional>
#include <string>
#include <vector>

#include "app/compare/ngspice_netlist.hpp"

namespace nsspice::app {

struct CompareOptions {
  std::string netlist;
  std::string out_dir;        // default: <netlist stem>-compare
  std::string plot;           // default: <out_dir>/compare.png
  std::string signals;        // plotted; default: up to 3 node voltages and 2 device currents
  std::string json;           // default: <out_dir>/compare.json
  std::string view;           // --view FILE.html: both runs in the waveform viewer
  bool view_default = false;  // --view without a file: <out_dir>/compare.html
  TranslateOptions translate;
  std::string ngspice = "ngspice";
  double timeout_seconds = 300;
  std::vector<std::string> measures;
  bool sweep = false;
  std::vector<double> sweep_n = {1, 0.3, 0.1, 0.03, 0.01};
  double switch_threshold = 1e-3;  // relative to the current's peak
  std::optional<double> grid;      // default: nsspice's step
  std::optional<double> theta, step;
  std::optional<double> t_from, t_to;  // the overlay plot's time window
  bool quiet = false;

  // Empty when valid, else the option out of range and its allowed range
  // ("--timeout 0: must be positive (seconds)"). theta/step are checked with the netlist's
  // .tran (circuit/tran_settings.hpp).
  std::string validate() const;
};

int compare_command(const CompareOptions& options);

}  // namespace nsspice::app
