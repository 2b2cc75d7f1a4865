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

}  // namespace nsspice::circuit
