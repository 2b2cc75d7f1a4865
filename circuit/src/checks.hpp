#pragma once
// Internal: elaboration-time checks beyond the graph's well-posedness (topology.cpp calls them).
//
// check_initial_conditions (initial_conditions.cpp). Without UIC: an '.ic' on a node that
//   voltage sources already fix (the operating point holds .ic nodes with sources: a loop of
//   sources, singular even when the values agree) is a warning naming the loop. Under UIC:
//   A loop of capacitors with IC=, voltage sources (their value at t = 0) and '.ic' node
//   voltages whose initial voltages do not add up to 0 around it: a warning naming the loop,
//   the mismatch, and the voltages after the jump at t = 0 (charge conserved on the
//   capacitive nodes: Σ_k C_k v_k⁺ = Σ_k C_k v_k(0) at each node, v_p − v_n = V(0) for the
//   sources; what the first θ-step does with q0 = Σ C·IC).
//   A cut-set of inductors (IC=, or 0) and current sources (their value at t = 0) whose initial
//   currents do not add up to 0 across it: a warning naming the cut-set, the net current, and
//   the inductor currents after the jump (flux conserved: L_k Δi_k = ψ_A − ψ_B, a flux
//   potential ψ per node group, with Σ i⁺ = 0 across every cut-set).
// check_source_rates (value_checks.cpp): a source whose waveform has more than 1e9 periods in
//   TSTOP (SIN, SFFM, a PULSE period) cannot be resolved by any time step: a warning naming it.
// check_value_ranges (value_checks.cpp): an element value (or 1/R) beyond 1e150 in magnitude,
//   or a nonzero one below 1e-150, is out of the range the solver can take (products of two such
//   values overflow double precision): a warning naming the element and the value.
// check_inductive_systems (inductive_systems.cpp): inductors coupled by K cards whose inductance
//   matrix is not positive semidefinite: an error naming them and the couplings.
#include "circuit/circuit.hpp"
#include "netlist/diagnostics.hpp"

namespace nsspice::circuit::detail {

void check_initial_conditions(const Circuit& circuit, netlist::Diagnostics& diags);
void check_source_rates(const Circuit& circuit, netlist::Diagnostics& diags);
void check_value_ranges(const Circuit& circuit, netlist::Diagnostics& diags);
void check_inductive_systems(const Circuit& circuit, netlist::Diagnostics& diags);

}  // namespace nsspice::circuit::detail
