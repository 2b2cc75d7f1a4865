// What the SPICE → PWL conversions share (circuit/src/pwl_conversion.hpp):
//
//   scales:       V = Σ_sources max|V(t)|, I = Σ_sources max|I(t)|, R_min the smallest resistor
//   current:      imax = 2·(V/(R_min + RS) + I), R_min = 0 with a capacitor or inductor
//                 (pwl_models.cpp states why), clamped to [1 nA, 100 kA]; 1 A without any scale;
//                 a bipolar transistor's: the same with R_min kept and I times 1 + BF (a
//                 source current into a base; estimated_bjt_imax)
//   temperature:  T = .temp (27 °C), TNOM = the model's, else .options tnom (27 °C)
//   capacitance:  the convex PWL charge of SPICE's depletion charge at T, a knot at 0 (and with
//                 .options pwlqtol knots below it within that charge error), each slope
//                 (Q(b) − Q(a))/(b − a) over its segment (circuit/junction_charge.hpp,
//                 circuit/spice_temperature.hpp)
#include "circuit/src/pwl_conversion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "circuit/junction_charge.hpp"
#include "circuit/spice_temperature.hpp"

namespace nsspice::circuit::detail {
namespace {

double peak(const Waveform& wave, double t_stop) {
  double p = 0;
  const int n = 4000;
  for (int s = 0; s <= n; ++s) p = std::max(p, std::abs(waveform_value(wave, t_stop * s / n)));
  if (const auto* pulse = std::get_if<Pulse>(&wave))
    p = std::max({p, std::abs(pulse->v1), std::abs(pulse->v2)});
  if (const auto* pwl = std::get_if<Pwl>(&wave))
    for (double v : pwl->v) p = std::max(p, std::abs(v));
  if (const auto* sin = std::get_if<Sin>(&wave))
    p = std::max(p, std::abs(sin->vo) + std::abs(sin->va));
  return p;
}

}  // namespace

Scales circuit_scales(const Circuit& c, const std::set<std::string>& internal) {
  Scales s;
  const double t_stop = c.tran ? c.tran->tstop : 1.0;
  // A source that a .dc card sweeps reaches its start and stop values too.
  const auto swept = [&](const std::string& name, double p) {
    for (const DcSweepSpec& dc : c.dc)
      if (!dc.parameter && dc.source == name)
        p = std::max({p, std::abs(dc.start), std::abs(dc.stop)});
    return p;
  };
  for (const Device& d : c.devices) {
    if (const auto* v = std::get_if<VoltageSource>(&d))
      s.volts += swept(v->name, peak(v->wave, t_stop));
    if (const auto* i = std::get_if<CurrentSource>(&d))
      s.amps += swept(i->name, peak(i->wave, t_stop));
    if (const auto* r = std::get_if<Resistor>(&d); r && !internal.contains(r->name))
      s.r_min = std::min(s.r_min, r->r);
    s.reactive |= std::holds_alternative<Capacitor>(d) || std::holds_alternative<Inductor>(d);
  }
  return s;
}

double estimated_imax(const Scales& s, double rs) {
  const double r = std::isfinite(s.r_min) && !s.reactive ? s.r_min + rs : rs;
  const double i = (r > 0 ? s.volts / r : 0.0) + s.amps;
  return i > 0 ? std::clamp(2 * i, 1e-9, 1e5) : 1.0;
}

double estimated_bjt_imax(const Scales& s, double re, double bf) {
  Scales resistive = s;
  resistive.reactive = false;
  resistive.amps *= 1 + bf;
  return estimated_imax(resistive, re);
}

std::string imax_reason(const PwlSettings& pwl, const Scales& s, double rs, const char* rs_name,
                        bool keep_r_min, double gain, const PwlRefit* refit) {
  if (refit != nullptr)
    return fmt::format("range {}–{} from a refit: {}", si(refit->imin, "A"), si(refit->imax, "A"),
                       refit->why);
  if (pwl.imax > 0) return "imax from .options pwlimax";
  if (!(s.volts > 0) && !(s.amps > 0)) return "imax 1 A: the circuit has no source scale";
  const bool zeroed = !keep_r_min && s.reactive && std::isfinite(s.r_min);
  const double r_min = std::isfinite(s.r_min) && !zeroed ? s.r_min : 0.0;
  return fmt::format(
      "imax estimated as 2·(ΣV {}/(R_min {} + {} {}) + {}ΣI {}){}, clamped to 1 nA–100 kA; "
      ".options pwlimax sets it",
      si(s.volts, "V"), si(r_min, "Ω"), rs_name, si(rs, "Ω"),
      gain != 1 ? fmt::format("{:g}·", gain) : "", si(s.amps, "A"),
      zeroed ? " (R_min 0: a capacitor or inductor can sit across the diode)" : "");
}

FitRange fit_range(const PwlSettings& pwl, const std::string& model, double estimated) {
  if (const auto it = pwl.refit.find(model); it != pwl.refit.end() && it->second.imax > 0)
    return {it->second.imin, it->second.imax, &it->second};
  const double imax = pwl.imax > 0 ? pwl.imax : estimated;
  return {pwl.imin > 0 ? pwl.imin : imax * 1e-6, imax, nullptr};
}

double ModelTemperature::vt() const { return thermal_voltage(kelvin); }

ModelTemperature model_temperature(const PwlSettings& pwl, double model_tnom_celsius) {
  const double tnom = std::isnan(model_tnom_celsius) ? pwl.tnom : model_tnom_celsius;
  return {pwl.temp + kCelsiusToKelvin, tnom + kCelsiusToKelvin};
}

double voltage_swing(const Scales& s) { return s.volts > 0 ? s.volts : 1.0; }

JunctionCharge junction_charge(const char* label, double cjo, double vj, double m, double fc,
                               const ModelTemperature& t, double lo, double hi, double tol) {
  const Depletion at = depletion_at({cjo, vj}, m, t.kelvin, t.tnom_kelvin);
  const DepletionCharge q{at.cjo, at.vj, m, fc};
  JunctionCharge out{
      pwl_charge(q, lo, 0.0, hi, tol > 0 ? tol : std::numeric_limits<double>::infinity()), ""};
  out.summary = fmt::format("{} {}, VJ {:.3g} V, M {:.3g}{}", label, si(at.cjo, "F"), at.vj, m,
                            charge_summary(out.q, lo, hi));
  if (out.q.knots.size() > 1) out.summary += fmt::format(" (charge within {:g} %)", 100 * tol);
  return out;
}

std::string charge_summary(const PwlCharge& q, double lo, double hi) {
  if (q.knots.empty())
    return fmt::format(" as a linear {} (the charge over {:.3g}…{:.3g} V)", si(q.c_lo, "F"), lo,
                       hi);
  std::string out = " as a PWL charge: ";
  double c = q.c_lo, from = lo;
  for (const PwlCharge::Knot& k : q.knots) {
    out += fmt::format("{} over {:.3g}…{:.3g} V, ", si(c, "F"), from, k.v);
    c += k.dc, from = k.v;
  }
  return out + fmt::format("{} over {:.3g}…{:.3g} V", si(c, "F"), from, std::max(hi, from));
}

std::string si(double x, const char* unit) {
  static const char* prefixes[] = {"p", "n", "µ", "m", "", "k", "M"};
  int e = 4;
  double m = x;
  while (std::abs(m) < 1 && m != 0 && e > 0) m *= 1000, --e;
  while (std::abs(m) >= 1000 && e < 6) m /= 1000, ++e;
  return fmt::format("{:.3g} {}{}", m, prefixes[e], unit);
}

std::string branch_summary(const PwlFit& f, const ExpBranch& b) {
  return fmt::format("{} segment{} over {}–{}, max error {}{} (drop {:.3g}–{:.3g} V)",
                     f.curve.segments.size(), f.curve.segments.size() == 1 ? "" : "s",
                     si(f.imin, "A"), si(f.imax, "A"), si(f.max_error, "V"),
                     f.capped ? " (segment cap reached: above the tolerance)" : "",
                     b.voltage(f.imin), b.voltage(f.imax));
}

std::string temperature_summary(const ModelTemperature& t, double is, double is_t) {
  if (t.kelvin == t.tnom_kelvin) return "";
  return fmt::format("at {:g} °C (TNOM {:g} °C): IS {} → {}", t.kelvin - kCelsiusToKelvin,
                     t.tnom_kelvin - kCelsiusToKelvin, si(is, "A"), si(is_t, "A"));
}

}  // namespace nsspice::circuit::detail
