#pragma once
// Breakpoints of the PWL square law of the MOSFET (docs/devices.md, "PWL MOSFET"), chosen for a
// stated gate-voltage error. The math is stated in circuit/src/pwl_mos.cpp.
#include <vector>

namespace nsspice::circuit {

// Knots 0 = x_0 < x_1 < … < x_K ≥ xmax of the secants of f(x) = x² whose horizontal error (the
// overdrive voltage at a given f) is at most tol·max(1, (VT + x)/1 V) [V] on each chord: the
// diode's "1 % of the drop or 10 mV" with the gate-source voltage v_gs = VT + x as the drop.
std::vector<double> square_law_knots(double tol, double xmax, double vt);

// The largest horizontal error of the chord of x² over [a, b]: (b − a)²/(4(a + b)).
double square_chord_voltage_error(double a, double b);

// f(x) = Σ_i c_i·max(0, x − a_i), the pair form of the PWL square law.
struct SquareLawPairs {
  std::vector<double> a, c;
  double value(double x) const;
};

// The bias knot of the square law (pwl_mos.cpp): the secants of square_law_knots(tol, xmax,
// vt), but over [x0 − h, x0 + h] (h = √(2·x0·tol·max(1, VT)) the tangent 2·x0·x − x0², whose
// horizontal error (s − x0)²/(2·x0) at the exact overdrive s stays within the tolerance there:
// f(x0) = x0², f'(x0) = 2·x0 (the transconductance of the square law at its bias).
SquareLawPairs square_law_with_tangent(double tol, double xmax, double vt, double x0);
double square_tangent_half_span(double tol, double vt, double x0);  // h

}  // namespace nsspice::circuit
