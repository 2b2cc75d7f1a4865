#pragma once
// Well-posedness checks on the circuit graph (before any matrix is built):
//   error    a loop made only of voltage-defined branches (V, E, H, comparator outputs): their
//            voltages cannot be set independently;
//   warning  such a loop closed by ideal switches with RON = 0 (a short when they are on together);
//   error    a cut-set made only of current sources (I, G, F): their currents cannot all flow;
//   warning  (UIC) a loop of capacitors with IC=, voltage sources and .ic nodes, or a cut-set of
//            inductors and current sources, whose initial values contradict each other: the
//            elements, the mismatch and the values after the jump at t = 0;
//   warning  a source with more than 1e9 periods in TSTOP (aliased at any time step);
//   warning  an element value beyond 1e150 (or 1/R, or below 1e-150): overflow risk;
//   warning  a node without a DC path to ground (only capacitors or current sources reach it);
//   warning  a node connected to a single element terminal.
#include "circuit/circuit.hpp"
#include "netlist/diagnostics.hpp"

namespace nsspice::circuit {

void check_topology(const Circuit& circuit, netlist::Diagnostics& diags);

}  // namespace nsspice::circuit
