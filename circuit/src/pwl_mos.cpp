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
//
// Bias knot (square_law_with_tangent): the chord's slope a + b is not the tangent's 2·x0 at a
// bias x0 inside it (a common-source stage's g_m). The tangent T(x) = 2·x0·x − x0² ≤ x² errs
// horizontally by (s − x0)²/(2·x0) at the exact overdrive s (T's overdrive at y = s² is
// (s² + x0²)/(2·x0)), within τ_0 = tol·max(1, VT) for |s − x0| ≤ h = √(2·x0·τ_0). Secants
// (the rule above) cover [0, x0 − h] and [x0 + h, xmax]; f = max(0, secants, T): a secant
// extended beyond its span, and T, lie below x², so each x keeps its own line's error and T is
// the maximum at x0. The pairs: the upper envelope of the lines (slopes increasing), a_i its
// breakpoints, c_i the slope steps.
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

namespace {

// Secant knots from a (included) until one reaches `to`; the last one clipped to `to` when
// `clip` (a shorter chord errs less).
std::vector<double> secants(double tol, double vt, double a, double to, bool clip) {
  std::vector<double> x = {a};
  while (x.back() < to) {
    const double b = x.back(), t = tol * std::max(1.0, vt + b);
    x.push_back(b + 2 * t + std::sqrt(4 * t * t + 8 * t * b));
  }
  if (clip) x.back() = to;
  return x;
}

struct Line {
  double m = 0, b = 0;  // f = m·x + b
};

}  // namespace

double SquareLawPairs::value(double x) const {
  double f = 0;
  for (size_t i = 0; i < a.size(); ++i) f += c[i] * std::max(0.0, x - a[i]);
  return f;
}

double square_tangent_half_span(double tol, double vt, double x0) {
  return std::sqrt(2 * x0 * tol * std::max(1.0, vt));
}

SquareLawPairs square_law_with_tangent(double tol, double xmax, double vt, double x0) {
  const double h = square_tangent_half_span(tol, vt, x0);
  std::vector<Line> lines = {{0, 0}, {2 * x0, -x0 * x0}};
  const auto add = [&](const std::vector<double>& x) {
    for (size_t k = 1; k < x.size(); ++k) lines.push_back({x[k - 1] + x[k], -x[k - 1] * x[k]});
  };
  if (x0 - h > 0) add(secants(tol, vt, 0.0, x0 - h, true));
  if (x0 + h < xmax) add(secants(tol, vt, x0 + h, xmax, false));
  std::sort(lines.begin(), lines.end(), [](const Line& p, const Line& q) { return p.m < q.m; });
  std::vector<Line> hull;
  std::vector<double> start;
  for (const Line& l : lines) {
    if (!hull.empty() && l.m == hull.back().m) continue;  // equal slopes: distinct spans only
    double x = hull.empty() ? 0.0 : (hull.back().b - l.b) / (l.m - hull.back().m);
    while (hull.size() > 1 && x <= start.back()) {
      hull.pop_back(), start.pop_back();
      x = (hull.back().b - l.b) / (l.m - hull.back().m);
    }
    hull.push_back(l);
    start.push_back(x);
  }
  SquareLawPairs f;
  for (size_t k = 1; k < hull.size(); ++k) {
    f.a.push_back(start[k]);
    f.c.push_back(hull[k].m - hull[k - 1].m);
  }
  return f;
}

}  // namespace nsspice::circuit
