#pragma once
// Nonlinear SPICE capacitances turned into one linear capacitance at a stated bias range: the
// charge-equivalent capacitance C_eq = (Q(v_hi) − Q(v_lo))/(v_hi − v_lo), which moves the
// charge the nonlinear one moves over that swing (docs/devices.md, "Capacitances"). The math
// is stated in circuit/src/junction_charge.cpp.
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

}  // namespace nsspice::circuit
