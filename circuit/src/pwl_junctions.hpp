#pragma once
// Internal: the PWL junction branches of a circuit's converted SPICE devices (a diode's forward
// and breakdown branches, a bipolar transistor's B-E and B-C junctions and ISE/ISC leakage),
// each with the SPICE branch it fits, the fit's range and its pairs in the assembled system.
// Used by the bias knots (pwl_bias_knots.cpp) and the after-run checks (pwl_range_check.cpp).
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::circuit::detail {

struct JunctionBranch {
  size_t device = 0;          // index into Circuit::devices
  std::string name, model;    // the device's and its model's
  std::string label;          // "forward", "breakdown", "B-E", "C-B", "ISE", ...
  ExpBranch branch;           // the SPICE branch, at area 1
  double imin = 0, imax = 0;  // the range of its fit, at area 1 [A]
  double area = 1;            // a bipolar transistor's AREA: the device's current is area·i
  std::vector<int> pairs;     // its pairs: the branch current is Σ λ_j
};

std::vector<JunctionBranch> junction_branches(const Circuit& circuit, const Assembled& assembled);

// The segments the device stamps for the branch (area applied).
std::vector<PwlSegment>& junction_segments(Circuit& circuit, const JunctionBranch& j);
const std::vector<PwlSegment>& junction_segments(const Circuit& circuit, const JunctionBranch& j);

}  // namespace nsspice::circuit::detail
