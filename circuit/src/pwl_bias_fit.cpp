// A PWL branch whose segment at the bias current is the tangent (circuit/pwl_diode.hpp).
//
// Why: a chord of the concave v(i) has the slope of the tangent somewhere inside its span,
// not at the bias point i_b; for an exponential junction the tangent conductance 1/v'(i) varies
// by a factor e^{Δv/(n·Vt)} across a segment whose voltage span is Δv, so the small-signal
// conductance of a chord can be off by a factor of several at PWLTOL = 10 mV.
//
// Construction, in the min-of-lines form of a concave PWL v(i) (i ≥ 0; the pair form of
// pwl_diode.cpp is the same curve, i(v) convex):
//
//   T(i)   = v(i_b) + v'(i_b)·(i − i_b)                    the tangent, T ≥ v (v concave)
//   span   [i_L, i_R] ∋ i_b, the largest where T(i) − v(i) ≤ tol(v(i)), clipped to [imin, imax]
//   left   the chords of fit_pwl_branch over [imin, i_L], right: over [i_R, imax]
//   v_PWL  = min(left chords, T, right chords)
//
// (T is then the active line over the part of [i_L, i_R] between the breakpoints next to i_b:
// a neighbouring chord, raised by its fit's shift, may undercut T near i_L or i_R.)
//
// Bound: every chord line lies within [v − tol, v + tol] over its own span and above v + δ ≥ v
// outside it (a chord of a concave function, raised by its fit's shift δ ≥ 0), and T ≥ v; so
// the minimum is ≥ v − tol everywhere and ≤ the line owning each i, ≤ v + tol: the bound
// |v_PWL(i) − v(i)| ≤ tol(v(i)) of fit_pwl_branch holds on [imin, imax]. At i_b every chord
// line lies strictly above v(i_b) = T(i_b) (i_b is outside each chord's span), so T is the
// active line there: v_PWL(i_b) = v(i_b), dv_PWL/di = v'(i_b).
//
// The lower envelope (lines sorted by slope, steepest first; the first is the lowest at i = 0)
// drops lines that are nowhere the minimum, and its breakpoints give the pair form:
// V_1 = line_1(0), V_k = v at the breakpoint k−1|k, r_1 = s_1, r_k = 1/(1/s_k − 1/s_{k−1}).
#include <algorithm>
#include <cmath>

#include "circuit/pwl_diode.hpp"

namespace nsspice::circuit {
namespace {

struct Line {
  double v0 = 0, s = 0;  // v = v0 + s·i
  double at(double i) const { return v0 + s * i; }
};

// The current where a (steeper) and b meet.
double meet(const Line& a, const Line& b) { return (b.v0 - a.v0) / (a.s - b.s); }

// The chords of a fit as lines (through (i_k, v(i_k) + δ)).
void chord_lines(const PwlFit& f, const ExpBranch& b, std::vector<Line>& out) {
  for (size_t k = 1; k < f.knots.size(); ++k) {
    const double ia = f.knots[k - 1], ib = f.knots[k];
    const double va = b.voltage(ia), vb = b.voltage(ib);
    const double s = (vb - va) / (ib - ia);
    out.push_back({va + f.shift - s * ia, s});
  }
}

// The lower envelope of `lines` over i ≥ 0 in pair form, and its breakpoints in current.
PwlCurve envelope(std::vector<Line> lines, std::vector<double>& breaks) {
  std::sort(lines.begin(), lines.end(),
            [](const Line& a, const Line& b) { return a.s != b.s ? a.s > b.s : a.v0 < b.v0; });
  const auto lowest = std::min_element(
      lines.begin(), lines.end(),
      [](const Line& a, const Line& b) { return a.v0 != b.v0 ? a.v0 < b.v0 : a.s < b.s; });
  std::vector<Line> hull = {*lowest};
  std::vector<double> start = {0.0};
  for (auto it = lowest + 1; it != lines.end(); ++it) {
    if (it->s >= hull.back().s) continue;  // an equal slope, higher
    double x = meet(hull.back(), *it);
    while (hull.size() > 1 && x <= start.back()) {
      hull.pop_back();
      start.pop_back();
      x = meet(hull.back(), *it);
    }
    hull.push_back(*it);
    start.push_back(std::max(x, 0.0));
  }
  PwlCurve curve;
  double g_prev = 0;
  for (size_t k = 0; k < hull.size(); ++k) {
    const double g = 1.0 / hull[k].s;
    curve.segments.push_back({hull[k].at(start[k]), 1.0 / (g - g_prev)});
    g_prev = g;
  }
  breaks = start;
  return curve;
}

// The end of the tangent's span on the side of `far` (imin or imax): where T − v = tol(v).
double span_end(const ExpBranch& b, double ib, double far, const PwlTolerance& tol) {
  const double vb = b.voltage(ib), sb = b.slope(ib);
  const auto over = [&](double i) {
    const double v = b.voltage(i);
    return vb + sb * (i - ib) - v > tol.at(v);
  };
  if (!over(far)) return far;
  double lo = std::log(ib), hi = std::log(far);  // over(exp(hi)), !over(exp(lo))
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (over(std::exp(mid)) ? hi : lo) = mid;
  }
  return std::exp(lo);
}

}  // namespace

PwlFit fit_pwl_branch_at_bias(const ExpBranch& branch, double imin, double imax,
                              const PwlTolerance& tol, double i_bias, int max_segments) {
  if (!(i_bias > imin && i_bias < imax))
    return fit_pwl_branch(branch, imin, imax, tol, max_segments);
  PwlFit fit;
  fit.imin = imin;
  fit.imax = imax;
  fit.bias = i_bias;
  fit.bias_lo = span_end(branch, i_bias, imin, tol);
  fit.bias_hi = span_end(branch, i_bias, imax, tol);
  std::vector<Line> lines = {
      {branch.voltage(i_bias) - branch.slope(i_bias) * i_bias, branch.slope(i_bias)}};
  for (const auto& [lo, hi] : {std::pair{imin, fit.bias_lo}, std::pair{fit.bias_hi, imax}}) {
    if (!(hi > lo * (1 + 1e-9))) continue;
    // Raised to the bound (δ = tol at the part's low end): the right part's first chord meets
    // T at i_R, where both err by tol (the left part's last chord meets it near i_L likewise
    // when tol is flat there, PWLTOL·max(1, v/1 V) at drops below 1 V).
    // (fit_pwl_branch places the knots for any shift up to δ0 = tol(v(lo)); the largest keeps
    // the bound, the error band then [δ0 − e, δ0] rather than centred.)
    PwlFit part = fit_pwl_branch(branch, lo, hi, tol, max_segments);
    part.shift = tol.at(branch.voltage(lo));
    fit.capped |= part.capped;
    chord_lines(part, branch, lines);
  }
  std::vector<double> breaks;
  fit.curve = envelope(std::move(lines), breaks);
  fit.knots = {imin};
  for (double i : breaks)
    if (i > imin && i < imax) fit.knots.push_back(i);
  fit.knots.push_back(imax);
  // Where the tangent is the active line: the neighbouring chords, raised by their shift, may
  // cut into its span [i_L, i_R] (they cross T where T − v has not yet reached tol).
  const auto above = std::upper_bound(fit.knots.begin(), fit.knots.end(), i_bias);
  fit.bias_hi = std::min(fit.bias_hi, *above);
  fit.bias_lo = std::max(fit.bias_lo, *(above - 1));
  fit.capped |= static_cast<int>(fit.curve.segments.size()) > max_segments;
  fit.max_error = pwl_voltage_error(fit.curve, branch, imin, imax);
  return fit;
}

ActiveSegment active_segment(const PwlCurve& curve, double i) {
  ActiveSegment a;
  double g = 0, i_at = 0;
  for (size_t k = 0; k < curve.segments.size(); ++k) {
    g += 1.0 / curve.segments[k].resistance;
    a = {static_cast<int>(k), 1.0 / g};
    if (k + 1 == curve.segments.size()) break;
    i_at += g * (curve.segments[k + 1].threshold - curve.segments[k].threshold);
    if (i <= i_at) break;
  }
  return a;
}

}  // namespace nsspice::circuit
