// The after-run checks of the converted SPICE junction branches (pwl_range_check.hpp). Each
// branch's current i = Σ λ_j over its pairs (circuit/src/pwl_junctions.hpp) is tracked over the
// accepted points (its peak; and [i_lo, i_hi] over the second half of the run); A is a transistor's
// area, the fit is at area 1.
//
//   range:         peak > A·imax  → the last chord continues, the voltage bound is left
//   small signal:  A·imin ≤ i_lo and i_lo, i_hi on the same segment k with incremental
//                  resistance r_k = 1/Σ_{m ≤ k} 1/r_m outside [v'(i_hi/A), v'(i_lo/A)]/A (a
//                  slope the curve takes within the excursion: a large signal's mean), and
//                  |r_k/r − 1| > kSmallSignalTolerance,
//                  r = v'(ī/A)/A the SPICE curve's small-signal resistance at the time average
//                  ī = ∫ i dt / ∫ dt (trapezoids) → the run's signal through the junction sees
//                  r_k, not the model's r.
#include "circuit/src/pwl_range_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "circuit/src/pwl_conversion.hpp"

namespace nsspice::circuit::detail {

PwlRangeCheck::PwlRangeCheck(const Circuit& circuit, const Assembled& assembled, double settled)
    : settled_(settled) {
  for (JunctionBranch& j : junction_branches(circuit, assembled)) {
    PwlCurve curve{junction_segments(circuit, j)};
    watches_.push_back({std::move(j), std::move(curve)});
  }
}

void PwlRangeCheck::add(double t, const Eigen::VectorXd& lambda) {
  for (Watch& w : watches_) {
    double i = 0;
    for (int j : w.junction.pairs) i += lambda[j];
    w.peak = std::max(w.peak, i);
    if (t < settled_) continue;
    if (w.seen) {
      w.charge += 0.5 * (i + w.i_last) * (t - w.t_last);
      w.span += t - w.t_last;
    }
    w.t_last = t, w.i_last = i;
    w.lo = w.seen ? std::min(w.lo, i) : i;
    w.hi = w.seen ? std::max(w.hi, i) : i;
    w.seen = true;
  }
}

namespace {

std::string small_signal_warning(const JunctionBranch& j, const PwlCurve& curve, double lo,
                                 double hi, double mean) {
  const double a = j.area;
  if (!(lo >= a * j.imin) || !(hi <= a * j.imax)) return "";
  const ActiveSegment s_lo = active_segment(curve, lo), s_hi = active_segment(curve, hi);
  if (s_lo.index != s_hi.index) return "";

  const double r = s_lo.resistance, r_spice = j.branch.slope(mean / a) / a;
  if (std::abs(r / r_spice - 1) <= kSmallSignalTolerance) return "";
  // A slope the SPICE curve takes within the excursion (v' falls with i): a large signal that
  // sees the curve's mean slope, not a small one off the bias.
  if (r >= j.branch.slope(hi / a) / a && r <= j.branch.slope(lo / a) / a) return "";
  return fmt::format(
      "{} (model '{}'): over the second half of the run the {} current stayed within one PWL "
      "segment ({}–{}, average {}), whose incremental resistance {} differs from the SPICE "
      "model's {} at that average by {:+.0f} %: small-signal gains through this junction are "
      "off by about as much (the segment at the initial point's current is made tangent, a bias "
      "knot; here the run settled elsewhere: set .options pwltol smaller)",
      j.name, j.model, j.label, si(lo, "A"), si(hi, "A"), si(mean, "A"), si(r, "Ω"),
      si(r_spice, "Ω"), 100 * (r / r_spice - 1));
}

}  // namespace

void PwlRangeCheck::warn(std::vector<std::string>& warnings) const {
  for (const Watch& w : watches_) {
    const JunctionBranch& j = w.junction;
    const double imax = j.area * j.imax;
    if (w.peak > imax)
      warnings.push_back(fmt::format(
          "{} (model '{}'): the {} current reached {:.3g} A, above the range of its PWL fit "
          "(imax = {:.3g} A), where the voltage error bound does not hold; set .options "
          "pwlimax={:.2g} and run again",
          j.name, j.model, j.label, w.peak, imax, 2 * w.peak / j.area));
    else if (w.seen)
      if (std::string s =
              small_signal_warning(j, w.curve, w.lo, w.hi, w.span > 0 ? w.charge / w.span : w.lo);
          !s.empty())
        warnings.push_back(std::move(s));
  }
}

}  // namespace nsspice::circuit::detail
