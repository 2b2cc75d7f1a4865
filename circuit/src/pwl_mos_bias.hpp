#pragma once
// Internal: a MOSFET's SPICE card at the circuit's initial point (pwl_mos_bias.cpp): LAMBDA and
// the bias knot of the square law.
#include <Eigen/Core>

#include "circuit/circuit.hpp"

namespace nsspice::circuit::detail {

// A level-1 or VDMOS channel where the node voltages are x (node k at x[k − 1], 0 ground), as
// ngspice sees it: the lower of drain and source is the source, a PMOS's voltages mirrored.
struct MosBias {
  double vds = 0, x = 0;  // |v_ds| and the overdrive of the conducting side (≤ 0: off)
  bool saturated() const { return x > 0 && vds >= x; }
  // The square law's I_0 for K = KP·W/L (0 when off).
  double current(double k) const {
    return !(x > 0) ? 0.0 : saturated() ? 0.5 * k * x * x : k * (x * vds - 0.5 * vds * vds);
  }
};
MosBias mos_bias(const Mosfet& m, const Eigen::VectorXd& x);

// The LAMBDA factor F an earlier run measured for m (PwlRefit::lambda), or 0 when none.
double lambda_refit(const Circuit& c, const Mosfet& m);

// For each level-1 or VDMOS device: lambda_factor = 1 + λ·|v_ds| where the channel conducts at
// the initial point, and, in saturation there, the square law's segment at the bias overdrive
// made the tangent (bias_law); one line per device in circuit.bias_notes.
void place_mos_bias(Circuit& circuit);

}  // namespace nsspice::circuit::detail
