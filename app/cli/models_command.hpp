#pragma once
// `nsspice models NETLIST [--plot FILE] [--ideal] [--all]`: every device model an element of
// the netlist uses (diodes, MOSFETs, VDMOS, bipolar transistors) and what it became
// (docs/devices.md): segments, current range, voltage error and drop, capacitances, one line per
// model, then the names of the .model cards no element uses (not converted: a vendor library's);
// with --all every card is converted and checked, used or not. With --plot the SPICE
// characteristic over the PWL one, voltage against current on a log axis, one panel per branch
// (a diode's forward and breakdown branches, a bipolar transistor's two junctions).
#include <string>

#include "circuit/circuit.hpp"

namespace nsspice::app {

struct ModelsOptions {
  std::string netlist;
  std::string plot;    // .png, .svg or .pdf; empty: no plot
  bool ideal = false;  // as .options idealize
  bool all = false;    // every .model card, used or not (circuit::ModelCards::kAll)
};

int models_command(const ModelsOptions& options);

// The conversion lines of a circuit (the run report and `models` print them), each "  line\n",
// and a last line counting the .model cards no element uses; empty when there is none of
// either.
std::string format_conversions(const circuit::Circuit& circuit);

}  // namespace nsspice::app
