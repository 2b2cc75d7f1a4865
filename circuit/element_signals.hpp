#pragma once
// The current and the power of a two-terminal element, i(X) and p(X), written over the signals
// of a run (SignalTable::names: "v(node)", branch currents "i(l1)", device currents "i(d1)"):
//
//   i(X) = Σ a_k u_k + Σ c_k du_k/dt + w(t)      current from the element's first node through
//                                                it to its second (SPICE's sign for V, L, E, H)
//   v(X) = v(n1) − v(n2)
//   p(X) = v(X) · i(X)                            power the element absorbs (passive sign
//                                                convention: negative while a source delivers)
//
//   R: i = (v(a) − v(b))/R                C: i = C d(v(a) − v(b))/dt
//   L V E H, comparator: i = its branch unknown i(X)       D S W: i = the device current i(X)
//   I: i = I(t)    G: i = gm (v(cp) − v(cn))    F: i = gain · i(vcontrol)
// K and M (no two terminals) have none (a MOS drain current is the run's own signal i(m1)).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "circuit/circuit.hpp"

namespace nsspice::circuit {

// Σ coef·u(name) + Σ coef·du(name)/dt + wave(t).
struct LinearSignal {
  std::vector<std::pair<std::string, double>> terms;
  std::vector<std::pair<std::string, double>> rates;
  std::optional<Waveform> wave;
};

struct ElementQuantities {
  LinearSignal current;  // i(X)
  LinearSignal voltage;  // v(n1) − v(n2)
};

// The element `name` (lower case) of the circuit; nullopt if there is none with two terminals.
std::optional<ElementQuantities> element_quantities(const Circuit& circuit, std::string_view name);

// Names of the circuit's two-terminal elements, in netlist order.
std::vector<std::string> two_terminal_elements(const Circuit& circuit);

}  // namespace nsspice::circuit
