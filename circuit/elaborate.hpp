#pragma once
// Syntax tree → Circuit: node numbering (0 and gnd are ground), model lookup, value checks,
// source waveform defaults, .tran/.ic/.options. Every problem is reported to `diags` with the
// card's location; the circuit is usable only when diags has no error.
#include "circuit/circuit.hpp"
#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"

namespace nsspice::circuit {

// Which .model cards are elaborated (parameters checked, SPICE cards converted to PWL):
// kUsed, those an element names (as ngspice, which reads a model card at its first use: a
// vendor library's thousands of unused cards cost nothing and their problems are not
// reported; Circuit::unused_models names them); kAll, every card (`nsspice models --all`).
enum class ModelCards { kUsed, kAll };

// `refit`: models fitted over the given current ranges instead of their estimated ones
// (PwlSettings::refit: a run that left them, elaborated again).
Circuit elaborate(const netlist::Netlist& netlist, netlist::Diagnostics& diags,
                  ModelCards which = ModelCards::kUsed,
                  const std::map<std::string, PwlRefit>& refit = {});

// .options idealize after the fact (--ideal): every SPICE diode becomes the ideal diode (its
// PWL pairs and junction capacitor dropped), and its conversion record says so.
void idealize_diodes(Circuit& circuit);

}  // namespace nsspice::circuit
