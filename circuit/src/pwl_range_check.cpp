// The after-run checks of the converted SPICE junction branches (pwl_range_check.hpp). Each
// branch's current i = Σ λ_j over its pairs (circuit/src/pwl_junctions.hpp) is tracked over the
// accepted points as [i_lo, i_hi]; A is a transistor's area, the fit is at area 1.
//
//   range:         i_hi > A·imax  → the last chord continues, the voltage bound is left
//   small signal:  A·imin ≤ i_lo and i_lo, i_hi on the same segment k with incremental
//                  resistance r_k = 1/Σ_{m ≤ k} 1/r_m, and r_k outside
//                  [v'(i_hi/A)/A, v'(i_lo/A)/A]·(1 ∓ kSmallSignalTolerance) (the SPICE curve's
//                  small-signal resistances over the excursion; v' decreases with i)
//                  → the run's signal through the junction sees r_k, not the model's.
#include "circuit/src/pwl_range_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "circuit/src/pwl_conversion.hpp"

namespace nsspice::circuit::detail {

PwlRangeCheck::PwlRangeCheck(const Circuit& circuit, const Assembled& assembled) {
  for (JunctionBranch& j : junction_branches(circuit, assembled)) {
    PwlCurve curve{junction_segments(circuit, j)};
    watches_.push_back({std::move(j), std::move(curve)});
  }
}

void PwlRangeCheck::add(const Eigen::VectorXd& lambda) {
  for (Watch& w : watches_) {
    double i = 0;
    for (int j : w.junction.pairs) i += lambda[j];
    w.lo = w.seen ? std::min(w.lo, i) : i;
    w.hi = w.seen ? std::max(w.hi, i) : i;
    w.seen = true;
  }
}

namespace {

std::string small_signal_warning(const JunctionBranch& j, const PwlCurve& curve, double lo,
                                 double hi) {
  const double a = j.area;
  if (!(lo >= a * j.imin) || !(hi <= a * j.imax)) return "";
  const ActiveSegment s_lo = active_segment(curve, lo), s_hi = active_segment(curve, hi);
  if (s_lo.index != s_hi.index) return "";
  const double r_max = j.branch.slope(lo / a) / a, r_min = j.branch.slope(hi / a) / a;
  const double r = s_lo.resistance;
  if (r >= r_min * (1 - kSmallSignalTolerance) && r <= r_max * (1 + kSmallSignalTolerance))
    return "";
  const double r_mid = j.branch.slope(0.5 * (lo + hi) / a) / a;
  return fmt::format(
      "{} (model '{}'): the {} current stayed within one PWL segment ({}–{}), whose incremental "
      "resistance {} differs from the SPICE model's {} over that excursion ({:+.0f} % at its "
      "middle): small-signal gains through this junction are off by about as much; the "
      "segment at the circuit's initial point is made tangent (a bias knot) — here the signal "
      "runs at another bias (set .options pwltol smaller)",
      j.name, j.model, j.label, si(lo, "A"), si(hi, "A"), si(r, "Ω"),
      r_min == r_max ? si(r_min, "Ω") : si(r_min, "Ω") + "–" + si(r_max, "Ω"),
      100 * (r / r_mid - 1));
}

}  // namespace

void PwlRangeCheck::warn(std::vector<std::string>& warnings) const {
  for (const Watch& w : watches_) {
    const JunctionBranch& j = w.junction;
    const double imax = j.area * j.imax;
    if (w.hi > imax)
      warnings.push_back(fmt::format(
          "{} (model '{}'): the {} current reached {:.3g} A, above the range of its PWL fit "
          "(imax = {:.3g} A), where the voltage error bound does not hold; set .options "
          "pwlimax={:.2g} and run again",
          j.name, j.model, j.label, w.hi, imax, 2 * w.hi / j.area));
    else if (w.seen)
      if (std::string s = small_signal_warning(j, w.curve, w.lo, w.hi); !s.empty())
        warnings.push_back(std::move(s));
  }
}

}  // namespace nsspice::circuit::detail
