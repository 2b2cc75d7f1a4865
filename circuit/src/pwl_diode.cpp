// Convex PWL approximation of an exponential diode branch, with a stated voltage error.
//
// Exact branch (current i ≥ 0 as the argument, the voltage as the value; circuit/pwl_diode.hpp):
//
//   v(i) = V0 + n·Vt·ln(i/I0 + c) + RS·i,     v'(i) = n·Vt/(i + c·I0) + RS,   v'' < 0
//
// v is concave in i, so i(v) is convex and a convex PWL i(v) = Σ_k max(0, v − V_k)/r_k fits it:
// each term is an ideal diode with threshold V_k in series with r_k, one complementarity pair.
//
// Placement. Knots i_0 = imin < i_1 < … < i_K = imax lie on the exact curve; between two knots
// the PWL is the chord, which lies below the concave v(i). The chord's largest voltage error has
// a closed form: with slope s = (v(i_b) − v(i_a))/(i_b − i_a) the tangent point is
//
//   i* = n·Vt/(s − RS) − c·I0,     e(i_a, i_b) = v(i*) − v(i_a) − s·(i* − i_a) ≥ 0,
//
// and e grows with i_b. All chords are then raised by a shift δ ≤ δ0 = tol(v(imin)), so the PWL
// voltage error v_PWL(i) − v(i) lies in [δ − e, δ]. Requiring e ≤ tol(v(i_a)) + δ0 on the chord
// that starts at i_a, and then taking δ = clamp(e_max/2, max_k (e_k − tol_k), δ0) (the centred
// band where the chords allow it), gives, since tol(v) = max(rel·v, abs) does not decrease along
// the branch,
//
//   |v_PWL(i) − v(i)| ≤ tol(v(i))   for every i in [imin, imax]            (the error bound)
//
// Greedy: from i_a, the next knot is the largest i_b ≤ imax meeting that bound (bisection in
// ln i, 60 halvings); this gives the fewest knots for a bound that is monotone in i_b. Outside
// [imin, imax] nothing is claimed: below imin the first chord, extended, reaches i = 0 at V_1;
// above imax the last chord continues with its slope (the PWL voltage then runs above v(i),
// the exact slope falling to RS).
//
// Conversion to the pair form: chord conductances G_k = (i_k − i_{k−1})/(v_k − v_{k−1}) increase
// (convexity); V_1 = v(i_0) + δ − i_0/G_1, r_1 = 1/G_1; V_k = v(i_{k−1}) + δ,
// r_k = 1/(G_k − G_{k−1}) for k ≥ 2.
#include "circuit/pwl_diode.hpp"

#include <algorithm>
#include <cmath>

namespace nsspice::circuit {

double ExpBranch::voltage(double i) const { return v0 + nvt * std::log(i / i0 + c) + rs * i; }

double ExpBranch::slope(double i) const { return nvt / (i + c * i0) + rs; }

double PwlTolerance::at(double v) const { return std::max(rel * std::abs(v), abs); }

double PwlCurve::current(double v) const {
  double i = 0;
  for (const PwlSegment& s : segments) i += std::max(0.0, v - s.threshold) / s.resistance;
  return i;
}

double PwlCurve::voltage(double i) const {
  double g = 0, i_at = 0;  // conductance above V_k and the current at V_k
  for (size_t k = 0; k < segments.size(); ++k) {
    g += 1.0 / segments[k].resistance;
    const double v_k = segments[k].threshold;
    if (k + 1 == segments.size()) return v_k + (i - i_at) / g;
    const double i_next = i_at + g * (segments[k + 1].threshold - v_k);
    if (i <= i_next) return v_k + (i - i_at) / g;
    i_at = i_next;
  }
  return 0;  // no segment: the ideal diode, v = 0 for any current
}

namespace {

// The largest voltage error of the chord of v over [ia, ib] (closed form, see the top).
double chord_error(const ExpBranch& b, double ia, double ib) {
  const double va = b.voltage(ia), vb = b.voltage(ib);
  const double s = (vb - va) / (ib - ia);
  const double excess = s - b.rs;
  if (!(excess > 0)) return 0;  // numerically straight: RS dominates
  const double is = std::clamp(b.nvt / excess - b.c * b.i0, ia, ib);
  return std::max(0.0, b.voltage(is) - va - s * (is - ia));
}

// The largest i_b in (ia, imax] with chord_error(ia, i_b) ≤ bound.
double next_knot(const ExpBranch& b, double ia, double imax, double bound) {
  if (chord_error(b, ia, imax) <= bound) return imax;
  double lo = std::log(ia), hi = std::log(imax);
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (chord_error(b, ia, std::exp(mid)) <= bound ? lo : hi) = mid;
  }
  return std::max(std::exp(lo), std::nextafter(ia, imax));
}

PwlCurve pair_form(const ExpBranch& b, const std::vector<double>& knots, double shift) {
  PwlCurve curve;
  double g_prev = 0;
  for (size_t k = 1; k < knots.size(); ++k) {
    const double va = b.voltage(knots[k - 1]), vb = b.voltage(knots[k]);
    const double g = (knots[k] - knots[k - 1]) / (vb - va);
    const double threshold = k == 1 ? va + shift - knots[0] / g : va + shift;
    curve.segments.push_back({threshold, 1.0 / (g - g_prev)});
    g_prev = g;
  }
  return curve;
}

}  // namespace

PwlFit fit_pwl_branch(const ExpBranch& branch, double imin, double imax, const PwlTolerance& tol,
                      int max_segments) {
  PwlFit fit;
  fit.imin = imin;
  fit.imax = imax;
  fit.shift = tol.at(branch.voltage(imin));
  fit.knots = {imin};
  while (fit.knots.back() < imax) {
    const double ia = fit.knots.back();
    if (static_cast<int>(fit.knots.size()) == max_segments) {
      fit.capped = true;
      fit.knots.push_back(imax);
      break;
    }
    fit.knots.push_back(next_knot(branch, ia, imax, tol.at(branch.voltage(ia)) + fit.shift));
  }
  // The shift actually needed: within [max_k (e_k − tol_k), δ] (non-empty by the placement),
  // as close to e_max/2 (the centred error band) as that allows.
  double e_max = 0, need = 0;
  for (size_t k = 1; k < fit.knots.size(); ++k) {
    const double e = chord_error(branch, fit.knots[k - 1], fit.knots[k]);
    e_max = std::max(e_max, e);
    need = std::max(need, e - tol.at(branch.voltage(fit.knots[k - 1])));
  }
  fit.shift = std::clamp(0.5 * e_max, need, fit.shift);
  fit.curve = pair_form(branch, fit.knots, fit.shift);
  fit.max_error = pwl_voltage_error(fit.curve, branch, imin, imax);
  return fit;
}

double pwl_voltage_error(const PwlCurve& curve, const ExpBranch& branch, double imin, double imax,
                         int samples) {
  double worst = 0;
  const double step = std::log(imax / imin) / (samples - 1);
  for (int s = 0; s < samples; ++s) {
    const double i = imin * std::exp(step * s);
    worst = std::max(worst, std::abs(curve.voltage(i) - branch.voltage(i)));
  }
  return worst;
}

}  // namespace nsspice::circuit
