#pragma once
// After a run: did any converted SPICE diode (or bipolar junction) carry a current above the
// range [imin, imax] its PWL fit holds in (docs/devices.md, "Current range")? Each one gets a
// warning with the peak and the .options pwlimax that would cover it.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::circuit::detail {

class PwlRangeCheck {
 public:
  PwlRangeCheck(const Circuit& circuit, const Assembled& assembled);
  bool empty() const { return watches_.empty(); }
  void add(const Eigen::VectorXd& lambda);  // one accepted point's pair values
  void warn(std::vector<std::string>& warnings) const;

 private:
  struct Watch {
    std::string device, model, forward_label, reverse_label;
    std::vector<int> forward, reverse;  // pair indices of the two branches
    double imax_forward = 0, imax_reverse = 0;
    double peak_forward = 0, peak_reverse = 0;
  };
  std::vector<Watch> watches_;
};

}  // namespace nsspice::circuit::detail
