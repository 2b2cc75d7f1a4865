// Bias knots (docs/devices.md, "Small signals: the bias knot"). A chord segment's incremental
// resistance is the SPICE curve's tangent somewhere inside the segment, not at the bias point;
// so a junction biased inside one segment gives a wrong small-signal gain (a bypassed common-
// emitter stage +35 % at 10 mV, +228 % at 1 mV, PWLTOL 10 mV). Here each junction branch b of
// the circuit is refitted (fit_pwl_branch_at_bias) with its segment at the bias current i_b
// tangent to v(i), keeping the voltage bound |v_PWL − v| ≤ tol(v):
//
//   i_b^(0) = Σ_j λ_j / A   at the initial point (DC operating point, or .ic/UIC data) of the
//                           circuit with the chord fits (A: a transistor's area)
//   i_b^(m+1)               at the initial point of the circuit refitted at i_b^(m)
//
// The refitted branch passes through (i_b, v(i_b)) with slope v'(i_b), so one refit is a Newton
// step of the SPICE circuit's DC equations; the iteration stops when every i_b moved by less
// than 1e-4 relative (at most kMaxIterations). Branches off at the bias (i_b ≤ imin) keep their
// chord fit. If an initial point fails, the last fits that had one are kept.
#include "circuit/src/pwl_bias_knots.hpp"

#include <fmt/format.h>

#include <cmath>

#include "circuit/src/initial_point.hpp"
#include "circuit/src/pwl_conversion.hpp"
#include "circuit/src/pwl_junctions.hpp"

namespace nsspice::circuit::detail {
namespace {

constexpr int kMaxIterations = 6;

// Bias currents (at area 1) of the branches at the circuit's initial point; empty if none.
std::vector<double> bias_currents(const Circuit& c, const std::vector<JunctionBranch>& branches) {
  const Assembled a = assemble(c);
  const InitialPoint p = initial_point(c, a);
  if (!p.error.empty() || p.lambda.size() == 0) return {};
  const std::vector<JunctionBranch> now = junction_branches(c, a);
  if (now.size() != branches.size()) return {};
  std::vector<double> i(now.size(), 0.0);
  for (size_t k = 0; k < now.size(); ++k) {
    for (int j : now[k].pairs) i[k] += p.lambda[j];
    i[k] /= now[k].area;
  }
  return i;
}

void refit(Circuit& c, const JunctionBranch& b, double i_bias, PwlFit& fit) {
  const PwlTolerance tol{c.pwl.tol, c.pwl.tol};
  fit = fit_pwl_branch_at_bias(b.branch, b.imin, b.imax, tol, i_bias);
  std::vector<PwlSegment>& segments = junction_segments(c, b);
  segments = fit.curve.segments;
  for (PwlSegment& s : segments) s.resistance /= b.area;
}

std::string knot_summary(const JunctionBranch& b, const PwlFit& chord, const PwlFit& fit) {
  const double i = fit.bias;
  const double r_chord = active_segment(chord.curve, i).resistance / b.area;
  const double r_tangent = b.branch.slope(i) / b.area;
  return fmt::format(
      "{} {}: bias knot at {} (v {:.4g} V): its segment is the tangent over {}–{}, incremental "
      "resistance {} (the chord fit's segment there: {}, {:+.0f} %); {} segments, max error {}",
      b.name, b.label, si(i * b.area, "A"), b.branch.voltage(i), si(fit.bias_lo * b.area, "A"),
      si(fit.bias_hi * b.area, "A"), si(r_tangent, "Ω"), si(r_chord, "Ω"),
      100 * (r_chord / r_tangent - 1), fit.curve.segments.size(), si(fit.max_error, "V"));
}

}  // namespace

void place_bias_knots(Circuit& c) {
  if (c.pwl.idealize) return;
  const std::vector<JunctionBranch> branches = junction_branches(c, assemble(c));
  if (branches.empty()) return;
  const size_t n = branches.size();
  std::vector<std::vector<PwlSegment>> chord_segments(n), last_segments(n);
  std::vector<PwlFit> chords(n), fits(n), last_fits(n);
  for (size_t k = 0; k < n; ++k) {
    chord_segments[k] = junction_segments(c, branches[k]);
    // The fits to go back to when an initial point fails: the chords until a refit had one (an
    // empty list here left the junctions without segments after a first failure).
    last_segments[k] = chord_segments[k];
    chords[k].curve.segments = chord_segments[k];
    for (PwlSegment& s : chords[k].curve.segments) s.resistance *= branches[k].area;
  }
  std::vector<double> used(n, 0.0);
  for (int it = 0; it <= kMaxIterations; ++it) {
    const std::vector<double> bias = bias_currents(c, branches);
    if (bias.empty()) {  // no initial point with these fits: back to the last ones that had one
      for (size_t k = 0; k < n; ++k) junction_segments(c, branches[k]) = last_segments[k];
      fits = last_fits;
      break;
    }
    std::vector<double> on(n, 0.0);  // the bias currents inside each fit's range, else 0
    double moved = 0;
    for (size_t k = 0; k < n; ++k) {
      if (bias[k] > branches[k].imin && bias[k] < branches[k].imax) on[k] = bias[k];
      if (on[k] != used[k])
        moved = std::max(moved, std::abs(on[k] - used[k]) / std::max(on[k], used[k]));
    }
    if (moved < 1e-4 || it == kMaxIterations) break;
    last_fits = fits;
    for (size_t k = 0; k < n; ++k) {
      last_segments[k] = junction_segments(c, branches[k]);
      const JunctionBranch& b = branches[k];
      used[k] = on[k];
      if (used[k] > 0)
        refit(c, b, used[k], fits[k]);
      else
        junction_segments(c, b) = chord_segments[k], fits[k] = {};
    }
  }
  for (size_t k = 0; k < n; ++k)
    if (fits[k].bias > 0) c.bias_notes.push_back(knot_summary(branches[k], chords[k], fits[k]));
}

}  // namespace nsspice::circuit::detail
