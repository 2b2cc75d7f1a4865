// A level-1 or VDMOS card at the circuit's initial point (docs/devices.md, "PWL MOSFET"):
// LAMBDA, and the bias knot of the square law. ngspice's drain current (MOS1, VDMOS;
// x = v_gs − VT, the lower of drain and source as the source):
//
//   I_D = I_0(x, v_ds)·(1 + λ·|v_ds|),   I_0 = K/2·x² (saturation), K·(x·v_ds − v_ds²/2) (triode)
//
// LAMBDA is a product of two voltages, which no set of complementarity pairs represents. The PWL
// MOS carries I_0 (circuit/pwl_mos.hpp); here its K is multiplied by the constant
//
//   F = 1 + λ·|v_ds0|     (v_ds0 at the initial point; F = 1 where the channel is off there)
//
// so that I_D and g_m are ngspice's at that point; what is left out is stated per device: the
// output conductance g_o = λ·I_0 (a gain into a load R is high by about R·g_o) and, away from
// v_ds0, a current error λ·Δv_ds·I_0. A transient run measures that error along its points
// (mos_lambda_check.hpp); when F is off the run's charge-weighted 1 + λ·|v_ds|, the run is
// repeated with F set to it (PwlRefit::lambda), which wins here over the initial point.
//
// Bias knot: a device in saturation at the initial point (overdrive x0 > 0, v_ds ≥ x0) gets the
// square law with its segment at x0 the tangent (square_law_with_tangent): I_D(x0) exact and
// g_m = K·F·x0, where a chord's slope would be off by up to half a segment.
//
// Both come from a fixed-point iteration: assemble, initial point, F and x0, until every F and
// x0 moves by < 1e-9 (at most kMaxIterations; a Newton step each for the knot).
#include "circuit/src/pwl_mos_bias.hpp"

#include <fmt/format.h>

#include <cmath>

#include "circuit/src/initial_point.hpp"
#include "circuit/src/mos_lambda_check.hpp"
#include "circuit/src/pwl_conversion.hpp"

namespace nsspice::circuit::detail {
namespace {

constexpr int kMaxIterations = 8;

using Bias = MosBias;

double threshold(const MosModel& q) { return q.pmos ? -q.vto : q.vto; }

// Applies the bias to m (F: `fixed` when > 0); returns how far F and x0 moved.
double apply(Mosfet& m, const Bias& b, double tol, double fixed) {
  MosModel& q = m.model;
  const double f = fixed > 0 ? fixed : b.x > 0 ? 1 + q.lambda * b.vds : 1.0;
  double moved = std::abs(f - q.lambda_factor);
  q.lambda_factor = f;
  const bool knot = b.saturated() && !q.knots.empty() && b.x < q.knots.back();
  const double x0 = knot ? b.x : 0.0;
  moved = std::max(moved, std::abs(x0 - q.bias_x));
  q.bias_x = x0;
  q.bias_law =
      knot ? square_law_with_tangent(tol, q.knots.back(), threshold(q), x0) : SquareLawPairs{};
  return moved;
}

std::string lambda_note(const Mosfet& m, const Bias& b, bool refitted) {
  const MosModel& q = m.model;
  if (refitted)
    return fmt::format(
        "{} LAMBDA {:g} /V: K × {:.5g} = 1 + λ·{:.4g} V, the charge-weighted 1 + λ·|v_ds| of its "
        "channel's conduction in an earlier run (the initial point's factor left its current "
        "off ngspice's; docs/devices.md, \"LAMBDA along the run\"); not modelled: the output "
        "conductance λ·I_D and, away from that |v_ds|, a current error λ·Δv_ds·I_D (the run "
        "warns above {:.0f} % on average)",
        m.name, q.lambda, q.lambda_factor, (q.lambda_factor - 1) / q.lambda,
        100 * kLambdaTolerance);
  if (!(b.x > 0))
    return fmt::format(
        "{} LAMBDA {:g} /V: the channel is off at the initial point, LAMBDA is not applied "
        "(ngspice's current is 1 + λ·|v_ds| times the PWL one when on: +{:.3g} % per volt of v_ds)",
        m.name, q.lambda, 100 * q.lambda);
  const double go = q.lambda * b.current(q.kp * m.w / m.l);
  return fmt::format(
      "{} LAMBDA {:g} /V at the initial point ({}, v_ds {:.4g} V): K × {:.5g} (1 + λ·v_ds), exact "
      "there; not modelled: the output conductance λ·I_D0 = {} (r_o {}: a gain into a load R is "
      "high by about R/r_o) and, at other v_ds, a current error λ·Δv_ds·I_D0",
      m.name, q.lambda, b.saturated() ? "saturation" : "triode", b.vds, q.lambda_factor,
      si(go, "S"), go > 0 ? si(1 / go, "Ω") : "∞");
}

std::string knot_note(const Mosfet& m, double tol) {
  const MosModel& q = m.model;
  const double x0 = q.bias_x, h = square_tangent_half_span(tol, threshold(q), x0);
  const auto chord = std::upper_bound(q.knots.begin(), q.knots.end(), x0);
  const double slope = chord == q.knots.end() || chord == q.knots.begin()
                           ? 2 * x0
                           : *chord + *(chord - 1);  // the chord's (a + b)
  return fmt::format(
      "{}: bias knot at overdrive {:.4g} V (saturation): its segment is the tangent over "
      "{:.4g}–{:.4g} V, g_m = K·x0 = {} (the chord fit's there: {:+.0f} %)",
      m.name, x0, std::max(0.0, x0 - h), x0 + h, si(q.kp * q.lambda_factor * m.w / m.l * x0, "S"),
      100 * (slope / (2 * x0) - 1));
}

}  // namespace

MosBias mos_bias(const Mosfet& m, const Eigen::VectorXd& x) {
  const auto node = [&](int n) { return n > 0 ? x[n - 1] : 0.0; };
  const double sign = m.model.pmos ? -1.0 : 1.0;  // PMOS: every voltage mirrored
  const double vd = sign * node(m.d), vs = sign * node(m.s), vg = sign * node(m.g);
  // ngspice swaps drain and source when v_ds < 0: the lower one is the source.
  return {std::abs(vd - vs), vg - std::min(vd, vs) - threshold(m.model)};
}

double lambda_refit(const Circuit& c, const Mosfet& m) {
  const auto model = c.pwl.refit.find(m.model.card_name());
  if (model == c.pwl.refit.end()) return 0.0;
  const auto it = model->second.lambda.find(m.name);
  return it == model->second.lambda.end() ? 0.0 : it->second;
}

void place_mos_bias(Circuit& c) {
  std::vector<size_t> mos;
  for (size_t k = 0; k < c.devices.size(); ++k)
    if (const auto* m = std::get_if<Mosfet>(&c.devices[k]); m && m->model.spice) mos.push_back(k);
  if (mos.empty()) return;
  std::vector<Bias> bias(mos.size());
  bool found = false;
  for (int it = 0; it < kMaxIterations; ++it) {
    const Assembled a = assemble(c);
    const InitialPoint p = initial_point(c, a);
    if (!p.error.empty()) break;
    found = true;
    double moved = 0;
    for (size_t k = 0; k < mos.size(); ++k) {
      Mosfet& m = std::get<Mosfet>(c.devices[mos[k]]);
      bias[k] = mos_bias(m, p.x);
      moved = std::max(moved, apply(m, bias[k], c.pwl.tol, lambda_refit(c, m)));
    }
    if (moved < 1e-9) break;
  }
  if (!found) {  // no initial point: an earlier run's factors still hold
    for (size_t k : mos) {
      Mosfet& m = std::get<Mosfet>(c.devices[k]);
      if (const double f = lambda_refit(c, m); f > 0) m.model.lambda_factor = f;
    }
    return;
  }
  for (size_t k = 0; k < mos.size(); ++k) {
    const Mosfet& m = std::get<Mosfet>(c.devices[mos[k]]);
    if (m.model.lambda > 0) c.bias_notes.push_back(lambda_note(m, bias[k], lambda_refit(c, m) > 0));
    if (m.model.bias_x > 0) c.bias_notes.push_back(knot_note(m, c.pwl.tol));
  }
}

}  // namespace nsspice::circuit::detail
