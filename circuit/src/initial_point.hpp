#pragma once
// The initial point of a transient (shared by the θ-scheme and the event-driven mode).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "circuit/explain.hpp"
#include "solvers/status.hpp"
#include "solvers/time/operating_point.hpp"

namespace nsspice::circuit::detail {

struct InitialPoint {
  Eigen::VectorXd x, q, lambda;
  std::vector<char> mode;
  std::string error;  // empty, else why there is no initial point (status says how it failed)
  solvers::Status status = solvers::Status::kSolved;
  std::vector<std::string> devices;  // on failure: the devices involved
  // What the run should say about the point: a switch with no consistent DC state.
  std::vector<std::string> warnings;
};

// UIC (.tran ... UIC): node voltages from .ic (others 0), inductor currents and capacitor
// voltages from IC=, q0 = E x0 with every capacitor's charge taken from its IC= where given.
// Otherwise the DC operating point (honouring .ic by holding those nodes).
InitialPoint initial_point(const Circuit& circuit, const Assembled& assembled);

// A switch with no consistent DC state (solvers::OperatingPoint::unsettled): what is wrong, and
// `then` (what the analysis does with the point).
std::string unsettled_switch(const Assembled& a, const solvers::OperatingPoint::Unsettled& u,
                             const std::string& then);

// " (devices: D1, D2)" for the given pairs, or "".
std::string pair_list(const Assembled& a, const std::vector<int>& pairs);

// The devices involved in a failure: the singular block's, then the given pairs' (each once).
std::vector<std::string> failure_devices(const Assembled& a, const ModeDiagnosis& why,
                                         const std::vector<int>& pairs);

}  // namespace nsspice::circuit::detail
