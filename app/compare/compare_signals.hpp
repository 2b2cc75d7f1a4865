#pragma once
// Which signals a compare judges, and nsspice's diode currents made like ngspice's.
//
//  * Source-fixed nodes: the nodes joined to ground through voltage sources alone (a supply, an
//    input): their voltages are the sources' on both sides and say nothing about the circuit.
//  * The judged signals (the steady-state table and the verdict, the plot): --signals as given;
//    else the signals the user named (.meas, .save/.print/.probe) without the source-fixed
//    nodes, then the defaults (node voltages not fixed by a source, switching currents, else a
//    device's current before a source's) up to kJudged.
//  * A diode whose SPICE card ngspice runs (question 1): ngspice's 0 V probe sees the terminal
//    current; nsspice's i(d) is the junction's alone (docs/devices.md), so compare sets against
//    it the terminal current
//        i(d.rs)                        when RS is split off to an internal node,
//        i(d) + i(d.cj) + dq(d.q)/dt    else (the terms the diode has; Δ/Δt between rows).
#include <set>
#include <string>
#include <vector>

#include "app/compare/user_models.hpp"
#include "app/io/signals.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::app {

inline constexpr size_t kJudged = 5;

// "v(vcc)", "v(in)": the voltages of the nodes a chain of voltage sources ties to ground.
std::set<std::string> source_fixed_voltages(const circuit::Circuit& circuit);

// The judged signals (see the top), each among `names`. `named`: the user's, in order.
std::vector<std::string> judged_signals(const std::vector<std::string>& named,
                                        const std::vector<std::string>& names,
                                        const std::set<std::string>& switching,
                                        const circuit::Circuit& circuit);

// The terminal-current columns, each named "i(d)" (for replace_columns), of the diodes whose
// cards `user` passes to ngspice; a note for each.
std::vector<DerivedColumn> diode_terminal_currents(const circuit::Circuit& circuit,
                                                   const UserModels& user,
                                                   const std::vector<std::string>& names,
                                                   std::vector<std::string>& notes);

// Each column's values replace those of the column of its name.
void replace_columns(Waveforms& w, const std::vector<DerivedColumn>& columns);

}  // namespace nsspice::app
