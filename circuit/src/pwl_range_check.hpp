#pragma once
// After a run, two checks of every converted SPICE junction branch (docs/devices.md):
//  * range: did its current go above the range [imin, imax] its PWL fit holds in? A warning
//    with the peak and the .options pwlimax that would cover it;
//  * small signal: did its current stay inside one PWL segment whose incremental resistance is
//    not one the SPICE curve takes over that excursion (beyond kSmallSignalTolerance)? A
//    warning with both resistances: small-signal gains through that junction are off.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "circuit/src/pwl_junctions.hpp"

namespace nsspice::circuit::detail {

inline constexpr double kSmallSignalTolerance = 0.05;

class PwlRangeCheck {
 public:
  PwlRangeCheck(const Circuit& circuit, const Assembled& assembled);
  bool empty() const { return watches_.empty(); }
  void add(const Eigen::VectorXd& lambda);  // one accepted point's pair values
  void warn(std::vector<std::string>& warnings) const;

 private:
  struct Watch {
    JunctionBranch junction;
    PwlCurve curve;  // as stamped (area applied)
    double lo = 0, hi = 0;
    bool seen = false;
  };
  std::vector<Watch> watches_;
};

}  // namespace nsspice::circuit::detail
