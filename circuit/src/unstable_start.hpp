#pragma once
// A transient run that starts on an unstable equilibrium (docs/theory.md, "Unstable operating
// points"): the DC operating point of an oscillator (a ring of inverters, a transistor astable)
// or a latch at its metastable point. The θ-scheme's arithmetic, exact to rounding, stays on it
// for the whole run, where a real circuit (and SPICE, whose Newton iterations stop at VNTOL and
// RELTOL) leaves it at once. When the operating point's mode has a growing mode μ
// (solvers::equilibrium_stability, Re μ above 1/(run span)), the initial point is moved by VNTOL
// along it (the largest change of a capacitor node's voltage VNTOL; the pairs' λ and the charges
// E x with it, so that the point stays on the mode's linearization) and a warning says so with μ.
// .options unstableop=keep leaves the point as it is (the warning then says the run stays on it).
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "circuit/src/initial_point.hpp"

namespace nsspice::circuit::detail {

// `span`: the run's length [s].
void leave_unstable_equilibrium(const Circuit& circuit, const Assembled& assembled, double span,
                                InitialPoint& init, std::vector<std::string>& warnings);

}  // namespace nsspice::circuit::detail
