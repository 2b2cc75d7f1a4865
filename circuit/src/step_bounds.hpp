#pragma once
// What bounds the steps of an error-controlled transient (docs/theory.md, "Step selection"),
// shared by the θ-scheme (transient.cpp) and the event mode's θ-scheme fallback
// (transient_event.cpp).
#include <Eigen/Core>
#include <string>
#include <utility>

#include "circuit/circuit.hpp"
#include "circuit/transient.hpp"

namespace nsspice::circuit::detail {

// Absolute error floors per unknown: VNTOL for node voltages, ABSTOL for branch currents, raised
// to CHGTOL / C (CHGTOL / L) where the unknown carries a charge C v (a flux L i).
Eigen::VectorXd error_floors(const Assembled& a, const StepSettings& s);

// The shortest time scale of the sources' smooth content (waveform_step_bound) and its source
// (+inf and "" when no source has one).
std::pair<double, std::string> source_step_bound(const Circuit& circuit);

}  // namespace nsspice::circuit::detail
