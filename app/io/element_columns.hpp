#pragma once
// Element currents and powers as output columns, and the netlist's output cards resolved
// against the signals of a run.
//
//   i(X), p(X) of a two-terminal element X: circuit/element_signals.hpp (formulas and signs);
//   i(C) = C·(ddt(v(a)) − ddt(v(b))) from the run's rate signals (circuit::SignalTable: the
//   scheme's own derivative, so that KCL holds at every point); from a file, which has none,
//   C·Δv/Δt between consecutive rows.
//   .save all  → every signal of the run (as without a .save card)
//   .save allv → every node voltage;  .save alli → every current: branch and device currents,
//                then i(X) of the other two-terminal elements (R, C, I, F, G)
#include <string>
#include <vector>

#include "app/cli/simulation.hpp"
#include "app/io/signals.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::app {

// The i(X)/p(X) among `wanted` that `names` lacks and the circuit can compute.
std::vector<DerivedColumn> element_columns(const std::vector<std::string>& wanted,
                                           const std::vector<std::string>& names,
                                           const circuit::Circuit& circuit);

// differential_columns() and element_columns() together.
std::vector<DerivedColumn> derived_columns(const std::vector<std::string>& wanted,
                                           const std::vector<std::string>& names,
                                           const circuit::Circuit& circuit);

// The signals of the netlist's .print/.save/.probe cards as names of columns, all/allv/alli
// expanded. `names`: the run's own signals. A signal that is neither among them nor a v(a,b),
// i(X) or p(X) the run can compute is reported as a warning at its place in the netlist (with a
// suggestion; the text goes to stderr) and left out.
std::vector<std::string> card_signals(const LoadedNetlist& loaded,
                                      const std::vector<std::string>& names);

}  // namespace nsspice::app
