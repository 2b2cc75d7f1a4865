#pragma once
// Internal: a MOSFET's SPICE card at the circuit's initial point (pwl_mos_bias.cpp): LAMBDA and
// the bias knot of the square law.
#include "circuit/circuit.hpp"

namespace nsspice::circuit::detail {

// For each level-1 or VDMOS device: lambda_factor = 1 + λ·|v_ds| where the channel conducts at
// the initial point, and, in saturation there, the square law's segment at the bias overdrive
// made the tangent (bias_law); one line per device in circuit.bias_notes.
void place_mos_bias(Circuit& circuit);

}  // namespace nsspice::circuit::detail
