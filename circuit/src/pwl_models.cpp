// SPICE diode models → PWL pairs, after the element cards (docs/devices.md, "SPICE diode
// models"). Per model, with the Shockley law and breakdown of circuit/pwl_diode.hpp:
//
//   forward:  v(i) = N·Vt·ln(1 + i/IS) + RS·i            → segments (V_k, r_k), pairs a → k
//   reverse:  v(i) = BV + NBV·Vt·ln(i/IBV) + RS·i  (BV)  → segments, pairs k → a
//   CJO:      a linear capacitor CJO (the depletion capacitance at zero bias) from a to k
//
// both fitted over [imin, imax] within tol(v) = PWLTOL·max(1, v/1 V) (fit_pwl_branch). The
// current scale, unless .options pwlimax gives it:
//
//   imax = 2·(Σ_sources max|V(t)| / (R_min + RS) + Σ_sources max|I(t)|),   imin = imax·1e-6,
//
// R_min the smallest resistor of the circuit: the largest current a source can drive through the
// smallest resistance in series with the diode. With a capacitor or inductor in the circuit R_min
// is 0 (a charged capacitor or a fluxed inductor can sit across the diode with only RS to limit
// the current: charge pumps, capacitor-input rectifiers, boost diodes). The factor 2 leaves room
// for LC overshoot. Without any resistance scale (RS = 0 and no resistor) imax = 1 A.
// The range is clamped to [1 nA, 100 kA]; a run that goes above imax leaves the bound (the last
// chord continues) and is warned about (pwl_range_check.cpp): set .options pwlimax then.
//
// Also here: level-1 MOS cards without SEGMENTS get the knots of circuit/pwl_mos.hpp over the
// overdrive the sources can set (convert_mos); .options pwltol/pwlimin/pwlimax/idealize are read
// (pwl_option); idealize_diodes() undoes the diode conversion for --ideal.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "circuit/elaborate.hpp"
#include "circuit/pwl_mos.hpp"
#include "circuit/src/elaborator.hpp"

namespace nsspice::circuit {
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

using detail::Scales;

Scales circuit_scales(const Circuit& c) {
  Scales s;
  const double t_stop = c.tran ? c.tran->tstop : 1.0;
  for (const Device& d : c.devices) {
    if (const auto* v = std::get_if<VoltageSource>(&d)) s.volts += peak(v->wave, t_stop);
    if (const auto* i = std::get_if<CurrentSource>(&d)) s.amps += peak(i->wave, t_stop);
    if (const auto* r = std::get_if<Resistor>(&d)) s.r_min = std::min(s.r_min, r->r);
    s.reactive |= std::holds_alternative<Capacitor>(d) || std::holds_alternative<Inductor>(d);
  }
  return s;
}

double estimated_imax(const Scales& s, double rs) {
  const double r = std::isfinite(s.r_min) && !s.reactive ? s.r_min + rs : rs;
  const double i = (r > 0 ? s.volts / r : 0.0) + s.amps;
  return i > 0 ? std::clamp(2 * i, 1e-9, 1e5) : 1.0;
}

// Currents and voltages with SI prefixes: 1 µA, 30 A, 9.8 mV.
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

std::string idealized_summary(const std::string& model, double bv) {
  return fmt::format(
      "{}: idealized (.options idealize / --ideal): the ideal diode{}, the SPICE parameters are "
      "not used",
      model, bv > 0 ? fmt::format(" with BV {:g} V", bv) : "");
}

}  // namespace

namespace detail {

bool Elaborator::pwl_option(const netlist::Param& p) {
  const std::string& k = p.name.lower;
  if (k == "idealize") {
    c_.pwl.idealize = p.raw.lower.empty() || (p.number && *p.number != 0);
    return true;
  }
  double* target = k == "pwltol"    ? &c_.pwl.tol
                   : k == "pwlimin" ? &c_.pwl.imin
                   : k == "pwlimax" ? &c_.pwl.imax
                                    : nullptr;
  if (target == nullptr) return false;
  if (!p.number || !(*p.number > 0) || !std::isfinite(*p.number))
    diags_.error(p.raw.span,
                 fmt::format("{} must be a positive number, got '{}'", p.name.text, p.raw.text));
  else
    *target = *p.number;
  return true;
}

DiodeConversion Elaborator::convert_diode(DiodeModel& d, double imax) const {
  DiodeConversion conv;
  conv.model = d.name;
  if (!d.spice) {
    conv.kind = d.vf > 0 || d.ron > 0 || d.bv > 0 || d.ilimit > 0 ? "PWL as written" : "ideal";
    conv.summary =
        fmt::format("{}: {} (VF {:g} V, RON {:g} Ω{}{}), exact", d.name, conv.kind, d.vf, d.ron,
                    d.bv > 0 ? fmt::format(", BV {:g} V, RZ {:g} Ω", d.bv, d.rz) : "",
                    d.ilimit > 0 ? fmt::format(", Ilimit {:g} A", d.ilimit) : "");
    return conv;
  }
  const double imin = c_.pwl.imin > 0 ? c_.pwl.imin : imax * 1e-6;
  conv.forward = ExpBranch{0, d.is, 1, d.n * kThermalVoltage, d.rs};
  if (d.bv > 0) conv.reverse = ExpBranch{d.bv, d.ibv, 0, d.nbv * kThermalVoltage, d.rs};
  if (c_.pwl.idealize) {  // the branches and range kept for the plot, no PWL fit
    conv.kind = "idealized (IDEALIZE)";
    conv.summary = idealized_summary(d.name, d.bv);
    conv.forward_fit.imin = conv.reverse_fit.imin = imin;
    conv.forward_fit.imax = conv.reverse_fit.imax = imax;
    return conv;
  }
  const PwlTolerance tol{c_.pwl.tol, c_.pwl.tol};
  conv.kind = "SPICE";
  conv.forward_fit = fit_pwl_branch(conv.forward, imin, imax, tol);
  d.forward = conv.forward_fit.curve.segments;
  conv.summary = fmt::format("{}: {}", d.name, branch_summary(conv.forward_fit, conv.forward));
  if (conv.reverse) {
    conv.reverse_fit = fit_pwl_branch(*conv.reverse, imin, imax, tol);
    d.reverse = conv.reverse_fit.curve.segments;
    conv.summary += "; breakdown " + branch_summary(conv.reverse_fit, *conv.reverse);
  }
  if (d.cjo > 0) {
    conv.cj = d.cjo;
    conv.summary += fmt::format("; CJO {} as a linear capacitance (zero bias)", si(d.cjo, "F"));
  }
  if (d.tt > 0) conv.summary += "; TT not modelled";
  return conv;
}

// A level-1 MOS card without SEGMENTS: the knots of f ≈ x² for a gate-voltage error within
// PWLTOL·max(1, x/1 V) over the overdrive range [0, xmax], xmax = max(1 V, Σ_sources max|V| +
// √(2·Σ_sources max|I| / KP)) (the overdrive a source voltage or, at W/L ≥ 1, a source current
// can set).
void Elaborator::convert_mos(MosModel& q, const Scales& scales) {
  const double xmax = std::max(1.0, scales.volts + std::sqrt(2 * scales.amps / q.kp));
  q.knots = square_law_knots(c_.pwl.tol, xmax);
  q.segments = static_cast<int>(q.knots.size());
  double worst = 0;
  for (size_t k = 1; k < q.knots.size(); ++k)
    worst = std::max(worst, square_chord_voltage_error(q.knots[k - 1], q.knots[k]) /
                                std::max(1.0, q.knots[k - 1]));
  DiodeConversion conv;
  conv.model = q.name;
  conv.kind = "SPICE MOS";
  conv.summary = fmt::format(
      "{}: level-1 {} square law, {} segments of f(x) = x² over 0–{:.3g} V overdrive, gate-voltage "
      "error ≤ {}·max(1, x/1 V){}{}",
      q.name, q.pmos ? "PMOS" : "NMOS", q.knots.size() - 1, q.knots.back(), si(worst, "V"),
      q.rd > 0 || q.rs > 0 ? fmt::format("; RD {:g} Ω, RS {:g} Ω as resistors", q.rd, q.rs) : "",
      q.lambda > 0 ? "; LAMBDA not modelled" : "");
  c_.conversions.push_back(std::move(conv));
}

void Elaborator::pwl_models() {
  const Scales scales = circuit_scales(c_);
  std::map<std::string, const DiodeModel*> converted;
  std::map<std::string, const MosModel*> converted_mos;
  for (auto& [name, model] : models_) {
    auto* d = std::get_if<DiodeModel>(&model);
    if (d == nullptr) continue;
    const double imax = c_.pwl.imax > 0 ? c_.pwl.imax : estimated_imax(scales, d->rs);
    c_.conversions.push_back(convert_diode(*d, imax));
    converted[name] = d;
  }
  for (auto& [name, model] : models_)
    if (auto* q = std::get_if<MosModel>(&model); q && q->segments == 0) {
      convert_mos(*q, scales);
      converted_mos[name] = q;
    }
  const size_t count = c_.devices.size();
  for (size_t k = 0; k < count; ++k) {
    if (auto* mos = std::get_if<Mosfet>(&c_.devices[k])) {
      if (auto it = converted_mos.find(mos->model.name); it != converted_mos.end())
        mos->model = *it->second;
      continue;
    }
    auto* diode = std::get_if<Diode>(&c_.devices[k]);
    if (diode == nullptr || !diode->model.spice) continue;
    auto it = converted.find(diode->model.name);
    if (it == converted.end()) continue;  // a behavioural source's internal diode
    diode->model = *it->second;
    if (diode->model.cjo > 0 && !c_.pwl.idealize) {
      Capacitor cj{diode->name + ".cj", diode->a, diode->k, diode->model.cjo, std::nullopt};
      const netlist::SourceSpan span = c_.spans[k];
      c_.devices.push_back(std::move(cj));  // invalidates `diode`
      c_.spans.push_back(span);
    }
  }
}

}  // namespace detail

void idealize_diodes(Circuit& circuit) {
  if (circuit.pwl.idealize) return;
  circuit.pwl.idealize = true;
  std::vector<Device> devices;
  std::vector<netlist::SourceSpan> spans;
  std::set<std::string> junction_caps;
  for (Device& d : circuit.devices)
    if (auto* diode = std::get_if<Diode>(&d); diode && diode->model.spice) {
      diode->model.forward.clear();
      diode->model.reverse.clear();
      if (diode->model.cjo > 0) junction_caps.insert(diode->name + ".cj");
    }
  for (size_t k = 0; k < circuit.devices.size(); ++k) {
    const auto* cap = std::get_if<Capacitor>(&circuit.devices[k]);
    if (cap && junction_caps.contains(cap->name)) continue;
    devices.push_back(std::move(circuit.devices[k]));
    spans.push_back(circuit.spans[k]);
  }
  circuit.devices = std::move(devices);
  circuit.spans = std::move(spans);
  for (DiodeConversion& conv : circuit.conversions) {
    if (conv.kind != "SPICE") continue;
    conv.kind = "idealized (IDEALIZE)";
    conv.summary = idealized_summary(conv.model, conv.reverse ? conv.reverse->v0 : 0.0);
    conv.forward_fit.curve = {};  // the branches and range stay, for the plot
    conv.reverse_fit.curve = {};
    conv.cj = 0;
  }
}

}  // namespace nsspice::circuit
