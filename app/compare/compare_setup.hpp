#pragma once
// What a compare takes from the circuit before anything runs: which currents switch, whether it
// holds SPICE models (and so which question it answers by default), which signals to show; and
// the raw file of an nsspice run.
#include <set>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::app {

// Device currents whose switching instants are reported (diodes, switches): "i(d1)".
std::set<std::string> switching_signals(const circuit::Circuit& circuit);

// A diode made from a SPICE card (IS, N, RS...), converted to PWL in nsspice.
bool has_spice_diodes(const circuit::Circuit& circuit);
// That, or a SPICE level-1 MOSFET card.
bool has_spice_models(const circuit::Circuit& circuit);

// Up to 3 node voltages and 2 switching currents (else 1 current).
std::vector<std::string> default_plot_signals(const Waveforms& run,
                                              const std::set<std::string>& switching);

// A run's binary raw file, every write checked: "" or why it could not be written.
std::string write_run_raw(const std::string& path, const std::string& title, const Waveforms& run);

}  // namespace nsspice::app
