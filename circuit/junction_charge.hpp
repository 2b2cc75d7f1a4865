#pragma once
// Nonlinear SPICE capacitances turned into a two-slope PWL charge (circuit.hpp, PwlCharge) over
// stated bias ranges: below the kink V_k the charge-equivalent capacitance
// C_lo = (Q(V_k) − Q(lo))/(V_k − lo), above it C_hi = (Q(hi) − Q(V_k))/(hi − V_k), so that the PWL
// charge moves exactly the charge the nonlinear one moves from lo to V_k and from V_k to hi
// (docs/devices.md, "Capacitances"). The math is stated in circuit/src/junction_charge.cpp.
#include <algorithm>

#include "circuit/circuit.hpp"

namespace nsspice::circuit {

// SPICE's depletion charge of a junction (CJO VJ M FC), Q(0) = 0.
struct DepletionCharge {
  double cjo = 0, vj = 1, m = 0.5, fc = 0.5;
  double charge(double v) const;       // Q(v) [C]
  double capacitance(double v) const;  // dQ/dv [F]
};

// ngspice's VDMOS gate-drain capacitance (CGDMAX CGDMIN A), Q(0) = 0, as a function of v_gd.
struct VdmosGateDrainCharge {
  double cgdmax = 0, cgdmin = 0, a = 1;
  double charge(double v) const;
  double capacitance(double v) const;
};

// (Q(hi) − Q(lo))/(hi − lo) for hi > lo; Q'(lo) when they coincide.
template <class Charge>
double charge_equivalent(const Charge& q, double lo, double hi) {
  return hi > lo ? (q.charge(hi) - q.charge(lo)) / (hi - lo) : q.capacitance(lo);
}

// The two-slope PWL charge of q over [lo, kink] and [kink, hi]. One slope, the charge-equivalent
// capacitance over [lo, hi], when hi ≤ kink or when the second slope's excess charge
// (C_hi − C_lo)·(hi − kink) is below kMinExcess of the charge C_lo·(kink − lo) of the first:
// its kink would cost a pair and a mode change at every crossing for less than that.
inline constexpr double kMinExcess = 0.01;
template <class Charge>
PwlCharge two_slope(const Charge& q, double lo, double kink, double hi) {
  const double c_lo = charge_equivalent(q, lo, kink);
  const double c_hi = hi > kink ? charge_equivalent(q, kink, hi) : c_lo;
  if ((c_hi - c_lo) * (hi - kink) < kMinExcess * c_lo * (kink - lo)) {
    const double c = charge_equivalent(q, lo, std::max(hi, kink));
    return {c, c, kink};
  }
  return {c_lo, c_hi, kink};
}

}  // namespace nsspice::circuit
