// Knots of the PWL square law f(x) ≈ x² of the Leenaerts–van Bokhoven MOSFET
// (I_ds = K/2 (f(V_gs − VT) − f(V_gd − VT)), docs/devices.md), for a stated voltage error.
//
// The chord of x² over [a, b] is (a + b)·x − a·b ≥ x². At a given value y of f (a given drain
// current in saturation, y = 2·I_ds/K) the exact overdrive is √y and the chord's is
// x_p = (y + a·b)/(a + b); their gap √y − x_p is largest at √y = (a + b)/2:
//
//   e(a, b) = (b − a)² / (4(a + b))          (horizontal, i.e. gate-voltage, error of the chord)
//
// Requiring e ≤ τ_a = tol·max(1, (VT + a)/1 V) on the chord starting at a (the tolerance at the
// chord's smallest gate-source voltage VT + a, so at every point of it) gives the next knot in
// closed form: with Δ = b − a, Δ² = 4τ_a(2a + Δ), so
//
//   b = a + 2τ_a + √(4τ_a² + 8τ_a·a),       x_0 = 0  (first chord: b = 4τ, e = b/4 = τ).
//
// Knots are added until one reaches xmax; beyond it the last chord continues (the current then
// runs above the square law). In the triode region the current error is K/2 times the chords'
// vertical error, at most K/2·Δ²/4 per chord.
#include "circuit/pwl_mos.hpp"

#include <algorithm>
#include <cmath>

namespace nsspice::circuit {

double square_chord_voltage_error(double a, double b) { return (b - a) * (b - a) / (4 * (a + b)); }

std::vector<double> square_law_knots(double tol, double xmax, double vt) {
  std::vector<double> x = {0.0};
  while (x.back() < xmax) {
    const double a = x.back(), t = tol * std::max(1.0, vt + a);
    x.push_back(a + 2 * t + std::sqrt(4 * t * t + 8 * t * a));
  }
  return x;
}

}  // namespace nsspice::circuit
