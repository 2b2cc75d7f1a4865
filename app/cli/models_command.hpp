#pragma once
// `nsspice models NETLIST [--plot FILE] [--ideal]`: every device model of the netlist (diodes,
// MOSFETs, VDMOS, bipolar transistors) and what it became (docs/devices.md): segments, current
// range, voltage error and drop, capacitances, one line per model; with --plot the SPICE
// characteristic over the PWL one, voltage against current on a log axis, one panel per branch
// (a diode's forward and breakdown branches, a bipolar transistor's two junctions).
#include <string>

#include "circuit/circuit.hpp"

namespace nsspice::app {

struct ModelsOptions {
  std::string netlist;
  std::string plot;    // .png, .svg or .pdf; empty: no plot
  bool ideal = false;  // as .options idealize
};

int models_command(const ModelsOptions& options);

// The conversion lines of a circuit (the run report and `models` print them), each "  line\n";
// empty when the circuit has no diode model.
std::string format_conversions(const circuit::Circuit& circuit);

}  // namespace nsspice::app
