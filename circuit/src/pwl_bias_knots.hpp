#pragma once
// Internal: bias knots (circuit/src/pwl_bias_knots.cpp).
#include "circuit/circuit.hpp"

namespace nsspice::circuit::detail {

// Refits every converted SPICE junction branch of an error-free circuit so that the segment
// holding its current at the initial point is tangent to the SPICE curve there; records one
// line per knot in circuit.bias_notes. Leaves the circuit as it is when that point is not found.
void place_bias_knots(Circuit& circuit);

}  // namespace nsspice::circuit::detail
