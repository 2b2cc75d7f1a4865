#pragma once
// The autonomous PSS (PssOptions::trigger): the period as an unknown of the shooting
// (pss_trigger.cpp states the bordered Newton system); the trigger's signal as a vector over the
// differential unknowns, and the check that every source is constant (pss.cpp).
#include <Eigen/Core>
#include <string>

#include "circuit/src/pss_map.hpp"

namespace nsspice::circuit::detail {

// γ over x_D with s = γᵀx_D the trigger's signal ("v(a)", "v(a,b)", "i(l1)"); "" or why not
// (no such node or inductor, or a quantity that is not a state: no capacitor at the node).
std::string trigger_vector(const Assembled& assembled, const std::string& signal,
                           Eigen::VectorXd& gamma_d);

// "" when every source is constant over [0, horizon], else which one is not.
std::string varying_source(const Circuit& circuit, const Assembled& assembled, double horizon);

// Warm-up, first guess and Newton on (x_D, T) from `start`; fills `result` (period, orbit,
// multipliers, or the failure and its cause).
void shoot_autonomous(const Circuit& circuit, const Assembled& assembled, const PssOptions& options,
                      const Eigen::VectorXd& gamma_d, const PssState& start, PssResult& result);

}  // namespace nsspice::circuit::detail
