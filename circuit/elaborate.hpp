#pragma once
// Syntax tree → Circuit: node numbering (0 and gnd are ground), model lookup, value checks,
// source waveform defaults, .tran/.ic/.options. Every problem is reported to `diags` with the
// card's location; the circuit is usable only when diags has no error.
#include "circuit/circuit.hpp"
#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"

namespace nsspice::circuit {

Circuit elaborate(const netlist::Netlist& netlist, netlist::Diagnostics& diags);

// .options idealize after the fact (--ideal): every SPICE diode becomes the ideal diode (its
// PWL pairs and junction capacitor dropped), and its conversion record says so.
void idealize_diodes(Circuit& circuit);

}  // namespace nsspice::circuit
