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
// Extended forward branch (ngspice's ISR/NR recombination and IKF high injection, the
// junction current i(v) of circuit/pwl_diode.hpp): v(i) by bisection in v, v'(i) = 1/i'(v) + RS,
// the tangent point by bisection; the same placement, which needs v(i) concave (i(v) convex:
// IKF keeps it, d ln i/dv falling from 1/(n·Vt) to 1/(2n·Vt) no faster than it can; ISR's
// generation factor is checked by the tests, the pair form's r_k > 0).
//
// Conversion to the pair form: chord conductances G_k = (i_k − i_{k−1})/(v_k − v_{k−1}) increase
// (convexity); V_1 = v(i_0) + δ − i_0/G_1, r_1 = 1/G_1; V_k = v(i_{k−1}) + δ,
// r_k = 1/(G_k − G_{k−1}) for k ≥ 2.
#include "circuit/pwl_diode.hpp"

#include <algorithm>
#include <cmath>

namespace nsspice::circuit {

namespace {

// The extended junction (ISR/NR, IKF): c_d(v), and its derivative.
struct JunctionLaw {
  double cd = 0, dcd = 0;
};
JunctionLaw junction_law(const ExpBranch& b, double v) {
  const double e = std::exp(v / b.nvt);
  JunctionLaw j{b.i0 * (e - 1), b.i0 * e / b.nvt};
  if (b.isr > 0) {
    const double er = std::exp(v / b.nrvt), u = 1 - v / b.vj, t = u * u + 0.005;
    const double g = std::pow(t, b.m / 2), dg = -b.m * u / b.vj * std::pow(t, b.m / 2 - 1);
    j.cd += b.isr * (er - 1) * g;
    j.dcd += b.isr * (er / b.nrvt * g + (er - 1) * dg);
  }
  return j;
}

// The junction voltage carrying i > 0 (bisection in v on [0, v_hi], i(v) increasing): v_hi is
// where the Shockley term alone reaches the c_d that IKF needs, u = √c_d the root of
// u² − (i/√IKF)·u − i = 0 (the ISR term only lowers the voltage).
double junction_voltage(const ExpBranch& b, double i) {
  double cd = i;
  if (b.ikf > 0) {
    const double k = i / std::sqrt(b.ikf), u = 0.5 * (k + std::sqrt(k * k + 4 * i));
    cd = u * u;
  }
  double lo = 0, hi = b.nvt * std::log1p(cd / b.i0);
  for (int it = 0; it < 100 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (b.junction_current(mid) < i ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double ExpBranch::junction_current(double v) const {
  const double cd = junction_law(*this, v).cd;
  return ikf > 0 && cd > 0 ? cd / (1 + std::sqrt(cd / ikf)) : cd;
}

double ExpBranch::voltage(double i) const {
  if (!extended()) return v0 + nvt * std::log(i / i0 + c) + rs * i;
  return junction_voltage(*this, i) + rs * i;
}

double ExpBranch::slope(double i) const {
  if (!extended()) return nvt / (i + c * i0) + rs;
  const JunctionLaw j = junction_law(*this, junction_voltage(*this, i));
  // d i/d c_d of c_d/(1 + s), s = √(c_d/IKF): (1 + s/2)/(1 + s)².
  const double s = ikf > 0 && j.cd > 0 ? std::sqrt(j.cd / ikf) : 0.0;
  return (1 + s) * (1 + s) / ((1 + 0.5 * s) * j.dcd) + rs;
}

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

// The largest voltage error of the chord of v over [ia, ib] (closed form, see the top; for an
// extended branch the tangent point v'(i*) = s by bisection in ln i, v' decreasing).
double chord_error(const ExpBranch& b, double ia, double ib) {
  const double va = b.voltage(ia), vb = b.voltage(ib);
  const double s = (vb - va) / (ib - ia);
  const double excess = s - b.rs;
  if (!(excess > 0)) return 0;  // numerically straight: RS dominates
  double is = 0;
  if (b.extended()) {
    double lo = std::log(ia), hi = std::log(ib);
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (lo + hi);
      (b.slope(std::exp(mid)) > s ? lo : hi) = mid;
    }
    is = std::exp(0.5 * (lo + hi));
  } else {
    is = std::clamp(b.nvt / excess - b.c * b.i0, ia, ib);
  }
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
