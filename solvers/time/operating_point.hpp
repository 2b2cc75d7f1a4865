#pragma once
// Static operating point (docs/formulation.md §2): E x' = 0, sources at t,
//
//   G x − B λ = b(t),   w = C x + D λ + d,   0 ≤ w ⊥ λ ≥ 0,
//
// solved by the same mode iteration as a time step (W = G). It can have a set of solutions
// (AB08 §1.1.7); the one returned is the one the mode iteration reaches from `mode` (all pairs
// off by default), which is deterministic.
#include <Eigen/Core>
#include <vector>

#include "solvers/lcp/mode_mlcp.hpp"
#include "solvers/mlcs.hpp"

namespace nsspice::solvers {

struct OperatingPoint {
  MlcpOutcome outcome;
  Eigen::VectorXd x, lambda, w;
  std::vector<char> mode;
};

OperatingPoint solve_operating_point(const Mlcs& mlcs, double t);

}  // namespace nsspice::solvers
