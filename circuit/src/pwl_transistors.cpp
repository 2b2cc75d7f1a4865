// SPICE transistor models → PWL (docs/devices.md), after the element cards.
//
// VDMOS: the square law as any level-1 card (pwl_models.cpp, convert_mos), and here its gate-drain
// capacitance, SPICE's C(v_gd) from CGDMAX CGDMIN A (circuit/junction_charge.hpp), as a two-slope
// PWL charge with the kink at v_gd = 0: the charge-equivalent capacitances over [−V, 0] (near
// CGDMIN: the drain above the gate) and [0, V] (near CGDMAX), V = Σ_sources max|V(t)|.
//
// Bipolar transistors, PWL Ebers–Moll (stamps_bjt.cpp), at the model temperature
// (IS(T) = IS·exp((T/TNOM − 1)·EG/Vt + XTI·ln(T/TNOM)), ngspice's TLEV 0):
//
//   B-E junction:  v(i) = NF·Vt·ln(1 + α_F·i/IS)     i = i_DE = I_F/α_F,  α_F = BF/(1 + BF)
//   B-C junction:  v(i) = NR·Vt·ln(1 + α_R·i/IS)     i = i_DC = I_R/α_R,  α_R = BR/(1 + BR)
//   ISE/NE, ISC/NC: v(i) = NE·Vt·ln(1 + i/ISE) ...    (base leakage, when ISE, ISC > 0)
//
// each fitted by fit_pwl_branch within PWLTOL over [imin, imax] (imax from the circuit's scales
// with RE as the series resistance, estimated_bjt_imax, or .options pwlimax; the leakage branches
// from imin/(1 + BF), base currents), and CJE VJE MJE, CJC VJC MJC as convex PWL charges as a
// diode's CJO (a knot at 0, with PWLQTOL knots below it over [−V, 0]; one slope over [0, V_1]).
// AREA A: the same
// curves with the current scaled by A (IS·A), i.e. thresholds kept and every r_k divided by A;
// capacitances times A (RB, RC, RE divided by A at elaboration).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/junction_charge.hpp"
#include "circuit/spice_temperature.hpp"
#include "circuit/src/pwl_conversion.hpp"

namespace nsspice::circuit::detail {

std::string Elaborator::vdmos_summary(MosModel& q, const Scales& scales) const {
  std::string out = fmt::format("; KP {:g} A/V² (no W/L)", q.kp);
  if (q.rg > 0) out += fmt::format(", RG {:g} Ω", q.rg);
  if (q.rds > 0) out += fmt::format(", RDS {:g} Ω", q.rds);
  if (q.cgs > 0) out += fmt::format("; CGS {}", si(q.cgs, "F"));
  if (q.cgdmax > 0) {
    const double v = voltage_swing(scales);
    q.cgd = two_slope(VdmosGateDrainCharge{q.cgdmax, q.cgdmin, q.a}, -v, 0.0, v);
    out += fmt::format("; CGD (CGDMAX {}, CGDMIN {}, A {:g}) of v_gd{}", si(q.cgdmax, "F"),
                       si(q.cgdmin, "F"), q.a, charge_summary(q.cgd, -v, v));
  }
  out += fmt::format("; sharp threshold (ngspice rounds it over KSUBTHRES = {:g} V)", q.ksubthres);
  return out;
}

void Elaborator::convert_bjt(BjtModel& q, const Scales& scales) {
  q.gmin = c_.pwl.gmin;  // SPICE's GMIN across each junction, as a diode's (pwl_models.cpp)
  const ModelTemperature t = model_temperature(c_.pwl, q.tnom);
  const double is = saturation_current_at(q.is, 1, q.eg, q.xti, t.kelvin, t.tnom_kelvin);
  const double af = q.bf / (1 + q.bf), ar = q.br / (1 + q.br);
  const FitRange range = fit_range(c_.pwl, q.name, estimated_bjt_imax(scales, q.re, q.bf));
  const double imax = range.imax, imin = range.imin;
  const PwlTolerance tol{c_.pwl.tol, c_.pwl.tol};
  DiodeConversion conv;
  conv.model = q.name;
  conv.kind = "SPICE BJT";
  conv.forward_label = q.pnp ? "E-B" : "B-E";
  conv.reverse_label = q.pnp ? "C-B" : "B-C";
  conv.forward = ExpBranch{0, is / af, 1, q.nf * t.vt(), 0};
  conv.reverse = ExpBranch{0, is / ar, 1, q.nr * t.vt(), 0};
  conv.forward_fit = fit_pwl_branch(conv.forward, imin, imax, tol);
  conv.reverse_fit = fit_pwl_branch(*conv.reverse, imin, imax, tol);
  q.be = conv.forward_fit.curve.segments;
  q.bc = conv.reverse_fit.curve.segments;
  conv.summary = fmt::format(
      "{}: {} Ebers–Moll, {} junction {}; {} junction {}; BF {:g}, BR {:g} "
      "exact (α_F {:.6g}, α_R {:.6g})",
      q.name, q.pnp ? "PNP" : "NPN", conv.forward_label,
      branch_summary(conv.forward_fit, conv.forward), conv.reverse_label,
      branch_summary(conv.reverse_fit, *conv.reverse), q.bf, q.br, af, ar);
  conv.summary += "; " + imax_reason(c_.pwl, scales, q.re, "RE", true, 1 + q.bf, range.refit);
  for (auto [leak, i_s, n, label] :
       {std::tuple{&q.be_leak, q.ise, q.ne, "ISE"}, std::tuple{&q.bc_leak, q.isc, q.nc, "ISC"}}) {
    if (!(i_s > 0)) continue;
    const double is_t = saturation_current_at(i_s, n, q.eg, q.xti, t.kelvin, t.tnom_kelvin);
    const ExpBranch branch{0, is_t, 1, n * t.vt(), 0};
    // Base currents: the range of the junction's divided by 1 + BF.
    const PwlFit fit = fit_pwl_branch(branch, imin / (1 + q.bf), imax, tol);
    leak->forward = fit.curve.segments;
    conv.leaks.push_back({label, branch, fit});
    conv.summary +=
        fmt::format("; {} {} leakage {}", label, si(i_s, "A"), branch_summary(fit, branch));
  }
  const double v = voltage_swing(scales);
  if (q.cje > 0) {
    const JunctionCharge j = junction_charge("CJE", q.cje, q.vje, q.mje, q.fc, t, -v,
                                             q.be.front().threshold, c_.pwl.qtol);
    q.cbe = j.q;
    conv.summary += "; " + j.summary;
  }
  if (q.cjc > 0) {
    const JunctionCharge j = junction_charge("CJC", q.cjc, q.vjc, q.mjc, q.fc, t, -v,
                                             q.bc.front().threshold, c_.pwl.qtol);
    q.cbc = j.q;
    conv.summary += "; " + j.summary;
  }
  if (q.tf > 0 || q.tr > 0)
    conv.summary += fmt::format("; TF {}, TR {} as stored charge", si(q.tf, "s"), si(q.tr, "s"));
  if (const std::string at = temperature_summary(t, q.is, is); !at.empty())
    conv.summary += "; " + at;
  c_.conversions.push_back(std::move(conv));
}

void Elaborator::bjt_area(Bjt& q) const {
  if (q.area == 1) return;
  BjtModel& m = q.model;
  for (auto* segments : {&m.be, &m.bc, &m.be_leak.forward, &m.bc_leak.forward})
    for (PwlSegment& s : *segments) s.resistance /= q.area;
  for (PwlCharge* c : {&m.cbe, &m.cbc}) c->scale(q.area);
}

}  // namespace nsspice::circuit::detail
