// SPICE's nonlinear junction and gate-drain charges (ngspice dioload.c, devsup.c DevCapVDMOS),
// integrated in closed form for the charge-equivalent capacitance of circuit/junction_charge.hpp.
//
// Depletion charge (CJO, VJ, M, FC), with F1 = VJ·(1 − (1 − FC)^(1−M))/(1 − M),
// F2 = (1 − FC)^(1+M), F3 = 1 − FC·(1 + M):
//
//   v < FC·VJ:  Q(v) = VJ·CJO·(1 − (1 − v/VJ)^(1−M))/(1 − M),     C(v) = CJO·(1 − v/VJ)^(−M)
//   v ≥ FC·VJ:  Q(v) = CJO·F1 + CJO/F2·(F3·(v − FC·VJ) + M/(2VJ)·(v² − (FC·VJ)²)),
//               C(v) = CJO/F2·(F3 + M·v/VJ)                                 (linear beyond FC·VJ)
//
// VDMOS gate-drain capacitance, with s = (CGDMAX − CGDMIN)/(1 + π/2), y = CGDMAX − s:
//
//   v > 0:  C(v) = y + s·tanh(a·v),   Q(v) = y·v + s·ln(cosh(a·v))/a
//   v ≤ 0:  C(v) = y + s·atan(a·v),   Q(v) = y·v + s·(v·atan(a·v) − ln(1 + a²v²)/(2a))
//
// (C → CGDMAX as v → +∞, → CGDMIN as v → −∞.)
#include "circuit/junction_charge.hpp"

#include <cmath>
#include <numbers>

namespace nsspice::circuit {

double DepletionCharge::charge(double v) const {
  const double knee = fc * vj;
  if (v < knee) return vj * cjo * (1 - std::pow(1 - v / vj, 1 - m)) / (1 - m);
  const double f1 = vj * (1 - std::pow(1 - fc, 1 - m)) / (1 - m);
  const double f2 = std::pow(1 - fc, 1 + m), f3 = 1 - fc * (1 + m);
  return cjo * f1 + cjo / f2 * (f3 * (v - knee) + m / (2 * vj) * (v * v - knee * knee));
}

double DepletionCharge::capacitance(double v) const {
  if (v < fc * vj) return cjo * std::pow(1 - v / vj, -m);
  return cjo / std::pow(1 - fc, 1 + m) * (1 - fc * (1 + m) + m * v / vj);
}

double VdmosGateDrainCharge::charge(double v) const {
  const double s = (cgdmax - cgdmin) / (1 + std::numbers::pi / 2), y = cgdmax - s;
  // ln(cosh(x)) = |x| + ln((1 + e^(−2|x|))/2), without overflow.
  const double x = std::abs(a * v);
  if (v > 0) return y * v + s * (x + std::log1p(std::exp(-2 * x)) - std::log(2.0)) / a;
  return y * v + s * (v * std::atan(a * v) - std::log1p(a * a * v * v) / (2 * a));
}

double VdmosGateDrainCharge::capacitance(double v) const {
  const double s = (cgdmax - cgdmin) / (1 + std::numbers::pi / 2), y = cgdmax - s;
  return y + s * (v > 0 ? std::tanh(a * v) : std::atan(a * v));
}

}  // namespace nsspice::circuit
