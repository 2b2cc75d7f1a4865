#pragma once
// A SPICE diode branch turned into a convex piecewise-linear (PWL) characteristic
// (docs/devices.md, "SPICE diode models"). The math is stated in circuit/src/pwl_diode.cpp.
//
//   exact branch:  v(i) = V0 + n·Vt·ln(i/I0 + c) + RS·i,   i ≥ 0       (concave in i)
//   PWL branch:    i(v) = Σ_k max(0, v − V_k) / r_k                       (convex in v)
//
// Forward Shockley law: V0 = 0, I0 = IS, c = 1, n = N. Reverse breakdown (reverse voltage and
// current): V0 = BV, I0 = IBV, c = 0, n = NBV. Each term of the PWL sum is one complementarity
// pair of the device: an ideal diode with threshold V_k in series with r_k.
#include <vector>

namespace nsspice::circuit {

// k/q [V/K]: ngspice's CONSTKoverQ = CONSTboltz / CHARGE (CODATA 2014).
inline constexpr double kBoltzmannOverCharge = 1.38064852e-23 / 1.6021766208e-19;
inline constexpr double kNominalKelvin = 300.15;  // 27 °C, SPICE's TNOM and TEMP

// Thermal voltage k·T/q at SPICE's nominal 27 °C: 25.864 mV.
inline constexpr double kThermalVoltage = kBoltzmannOverCharge * kNominalKelvin;

struct ExpBranch {
  double v0 = 0;                 // V0 [V]
  double i0 = 1e-14;             // I0 [A] > 0
  double c = 1;                  // 1: Shockley (v(0) = V0); 0: pure exponential (v(I0) = V0)
  double nvt = kThermalVoltage;  // n·Vt [V] > 0
  double rs = 0;                 // RS [Ω] ≥ 0
  // ngspice's forward extras (c = 1, V0 = 0; pwl_diode.cpp), the junction current at v:
  //   c_d(v) = I0·(e^{v/nVt} − 1) + ISR·(e^{v/(NR·Vt)} − 1)·((1 − v/VJ)² + 0.005)^{M/2}
  //   i(v)   = c_d / (1 + √(c_d/IKF))                      (IKF = 0: i = c_d)
  double isr = 0, nrvt = 0, vj = 1, m = 0.5;  // ISR [A] (0: none), NR·Vt [V], VJ [V], M
  double ikf = 0;                             // IKF [A] (0: none)
  bool extended() const { return isr > 0 || ikf > 0; }
  double junction_current(double v) const;  // i(v) of the extended junction
  double voltage(double i) const;           // v(i)
  double slope(double i) const;             // dv/di
};

// Voltage tolerance at a drop v: max(rel·v, abs). Default: 1 % of the drop or 10 mV.
struct PwlTolerance {
  double rel = 0.01;
  double abs = 0.01;  // [V]
  double at(double v) const;
};

struct PwlSegment {
  double threshold = 0;   // V_k [V]
  double resistance = 0;  // r_k = 1/g_k [Ω] > 0
};

// i(v) = Σ_k max(0, v − V_k)/r_k with V_k increasing.
struct PwlCurve {
  std::vector<PwlSegment> segments;
  double current(double v) const;
  double voltage(double i) const;  // the inverse for i > 0 (the PWL is strictly increasing there)
};

struct PwlFit {
  PwlCurve curve;
  std::vector<double> knots;  // currents i_0 = imin < … < i_K = imax where the chords meet
  double imin = 0, imax = 0;  // [A]: the range where |v_PWL(i) − v(i)| ≤ tol(v(i)) holds
  double max_error = 0;       // max |v_PWL(i) − v(i)| over [imin, imax], sampled densely [V]
  double shift = 0;           // δ: the chords are raised by δ to centre the error
  bool capped = false;        // max_segments reached before imax: the bound is not met
  // With a bias knot (fit_pwl_branch_at_bias): the bias current i_b and the current span
  // [bias_lo, bias_hi] of the segment tangent to v(i) at i_b (0: no bias knot).
  double bias = 0, bias_lo = 0, bias_hi = 0;
};

// Breakpoint placement (one function, the algorithm of pwl_diode.cpp): the fewest chords, chosen
// greedily from imin, whose voltage error after a shift δ ≤ tol(v(imin)) stays within the
// tolerance over [imin, imax]. Requires 0 < imin < imax; at most max_segments chords.
PwlFit fit_pwl_branch(const ExpBranch& branch, double imin, double imax, const PwlTolerance& tol,
                      int max_segments = 64);

// The same bound, with the segment that holds the bias current i_b (imin < i_b < imax) tangent
// to v(i) at i_b: there the PWL's incremental resistance is v'(i_b), the SPICE model's small-
// signal one, and v_PWL(i_b) = v(i_b) (circuit/src/pwl_bias_fit.cpp).
PwlFit fit_pwl_branch_at_bias(const ExpBranch& branch, double imin, double imax,
                              const PwlTolerance& tol, double i_bias, int max_segments = 64);

// The PWL segment that carries the current i > 0: its index and its incremental resistance
// dv/di = 1/Σ_{k ≤ index} 1/r_k.
struct ActiveSegment {
  int index = -1;
  double resistance = 0;
};
ActiveSegment active_segment(const PwlCurve& curve, double i);

// max |v_PWL(i) − v(i)| on a log-spaced grid of `samples` currents over [imin, imax].
double pwl_voltage_error(const PwlCurve& curve, const ExpBranch& branch, double imin, double imax,
                         int samples = 2000);

}  // namespace nsspice::circuit
