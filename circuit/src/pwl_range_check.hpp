#pragma once
// After a run, two checks of every converted SPICE junction branch (docs/devices.md):
//  * range: did its current go above the range [imin, imax] its PWL fit holds in? A warning
//    with the peak and the .options pwlimax that would cover it;
//  * small signal: over the second half of the run (after a start-up), did its current stay
//    inside one PWL segment whose incremental resistance differs from the SPICE curve's at the
//    run's average current by more than kSmallSignalTolerance? A warning with both
//    resistances: small-signal gains through that junction are off by about as much.
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
  // The small-signal check watches the points at t ≥ settled (the second half of the run).
  PwlRangeCheck(const Circuit& circuit, const Assembled& assembled, double settled);
  bool empty() const { return watches_.empty(); }
  void add(double t, const Eigen::VectorXd& lambda);  // one accepted point's pair values
  void warn(std::vector<std::string>& warnings) const;

 private:
  struct Watch {
    JunctionBranch junction;
    PwlCurve curve;                                       // as stamped (area applied)
    double peak = 0;                                      // over the run
    double lo = 0, hi = 0;                                // over t ≥ settled
    double t_last = 0, i_last = 0, charge = 0, span = 0;  // the time average: charge/span
    bool seen = false;
  };
  std::vector<Watch> watches_;
  double settled_ = 0;
};

}  // namespace nsspice::circuit::detail
