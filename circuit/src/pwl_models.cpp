// SPICE diode models → PWL pairs, after the element cards (docs/devices.md, "SPICE diode
// models"), for the models elaborated: those an element uses (ModelCards::kAll: every card).
// Per model, with the Shockley law and breakdown of circuit/pwl_diode.hpp, at the
// model temperature T (circuit/spice_temperature.hpp: IS(T), Vt(T) = kT/q, BV − TCV·ΔT, RS(T)):
//
//   forward:  v(i) = N·Vt·ln(1 + i/IS) + RS·i            → segments (V_k, r_k), pairs a → k
//             (with ISR/NR, IKF: ngspice's junction current, inverted: circuit/pwl_diode.hpp)
//   reverse:  v(i) = BV + NBV·Vt·ln(i/IBV) + RS·i  (BV)  → segments, pairs k → a
//   CJO VJ M: the convex PWL charge of the depletion charge (circuit/junction_charge.hpp):
//             chords over the reverse swing [−V_R, 0] (V_R = voltage_swing(), below BV), one
//             or, with PWLQTOL, as many as that charge error needs, and one over [0, V_1] (V_1
//             the first forward threshold, where the PWL starts to conduct); the lowest slope is
//             a capacitor "<d>.cj" from a to k, each knot one pair of the diode
//             (stamps_nonsmooth.cpp)
//   TT:       the stored charge q = TT·i of the pairs (stamps_nonsmooth.cpp)
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
// overdrive the sources can set (convert_mos); .options pwltol/pwlimin/pwlimax/idealize/temp/
// tnom are read (pwl_option); idealize_diodes() undoes the diode conversion for --ideal. VDMOS
// and bipolar transistors: pwl_transistors.cpp; a VDMOS's CGD below 0 V refitted after an earlier
// run (junction_charge_check.hpp): refit_cgd.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "circuit/elaborate.hpp"
#include "circuit/pwl_mos.hpp"
#include "circuit/spice_temperature.hpp"
#include "circuit/src/junction_charge_check.hpp"
#include "circuit/src/pwl_conversion.hpp"

namespace nsspice::circuit {
namespace {

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
  if (k == "temp" || k == "tnom") {
    if (!p.number || !(*p.number > -kCelsiusToKelvin) || !std::isfinite(*p.number))
      diags_.error(p.raw.span, fmt::format("{} must be a temperature above −273.15 °C, got '{}'",
                                           p.name.text, p.raw.text));
    else
      (k == "temp" ? c_.pwl.temp : c_.pwl.tnom) = *p.number;
    return true;
  }
  if (k == "gmin") {
    if (!p.number || !(*p.number >= 0) || !std::isfinite(*p.number))
      diags_.error(p.raw.span,
                   fmt::format("gmin must be a conductance ≥ 0 S, got '{}'", p.raw.text));
    else
      c_.pwl.gmin = *p.number;
    return true;
  }
  double* target = k == "pwltol"    ? &c_.pwl.tol
                   : k == "pwlqtol" ? &c_.pwl.qtol
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

DiodeConversion Elaborator::convert_diode(DiodeModel& d, const Scales& scales,
                                          bool keep_r_min) const {
  const FitRange range =
      fit_range(c_.pwl, d.name,
                keep_r_min ? estimated_bjt_imax(scales, d.rs, 0) : estimated_imax(scales, d.rs));
  const double imax = range.imax;
  DiodeConversion conv;
  conv.model = d.name;
  if (!d.spice) {
    conv.kind = d.vf > 0 || d.ron > 0 || d.bv > 0 || d.ilimit > 0 || d.goff > 0 ? "PWL as written"
                                                                                : "ideal";
    std::string values = fmt::format("VF {:g} V, RON {:g} Ω", d.vf, d.ron);
    if (d.goff > 0) values += fmt::format(", ROFF {:g} Ω", 1 / d.goff);
    if (d.bv > 0) values += fmt::format(", BV {:g} V, RZ {:g} Ω", d.bv, d.rz);
    if (d.ilimit > 0) values += fmt::format(", Ilimit {:g} A", d.ilimit);
    if (d.rev_ilimit > 0) values += fmt::format(", revIlimit {:g} A", d.rev_ilimit);
    conv.summary =
        fmt::format("{}: {} ({}), exact{}", d.name, conv.kind, values,
                    d.mult != 1 ? fmt::format("; M {:g}: devices in parallel", d.mult) : "");
    return conv;
  }
  const double imin = range.imin;
  const ModelTemperature t = model_temperature(c_.pwl, d.tnom);
  const double is = saturation_current_at(d.is, d.n, d.eg, d.xti, t.kelvin, t.tnom_kelvin);
  const double rs = d.rs * (1 + d.trs1 * t.delta() + d.trs2 * t.delta() * t.delta());
  const double bv = d.bv - d.tcv * t.delta();
  // RS·CJO against the print step: a junction capacitance behind a large RS (RB = 10 MΩ to
  // disable a VDMOS body diode) is not the same circuit as one across the terminals.
  const double print_step = !c_.tran             ? 0.0
                            : c_.tran->tstep > 0 ? c_.tran->tstep
                                                 : (c_.tran->tstop - c_.tran->tstart) / 1000;
  const bool split = !c_.pwl.idealize && rs > 0 && d.cjo > 0 && print_step > 0 &&
                     rs * d.cjo >= kSeriesSplitShare * print_step;
  d.series_r = split ? rs : 0.0;
  const double rs_pwl = split ? 0.0 : rs;
  conv.forward = ExpBranch{0, is, 1, d.n * t.vt(), rs_pwl};
  if (d.isr > 0) {  // ngspice's recombination current, with its generation factor at VJ(T)
    conv.forward.isr = saturation_current_at(d.isr, d.nr, d.eg, d.xti, t.kelvin, t.tnom_kelvin);
    conv.forward.nrvt = d.nr * t.vt();
    conv.forward.vj = depletion_at({d.cjo, d.vj}, d.m, t.kelvin, t.tnom_kelvin).vj;
    conv.forward.m = d.m;
  }
  conv.forward.ikf = d.ikf;
  if (d.bv > 0) conv.reverse = ExpBranch{bv, d.ibv, 0, d.nbv * t.vt(), rs_pwl};
  if (c_.pwl.idealize) {  // the branches and range kept for the plot, no PWL fit
    conv.kind = "idealized (IDEALIZE)";
    conv.summary = idealized_summary(d.name, d.bv);
    conv.forward_fit.imin = conv.reverse_fit.imin = imin;
    conv.forward_fit.imax = conv.reverse_fit.imax = imax;
    return conv;
  }
  const PwlTolerance tol{c_.pwl.tol, c_.pwl.tol};
  conv.kind = "SPICE";
  // SPICE's GMIN across the junction (.options gmin, default 1e-12 S): below its first knot a
  // PWL junction carries no current, so a node held only by blocking junctions (the midpoint
  // of two diodes in series, a half-bridge's switch node with both switches off) would have no
  // defined voltage; SPICE's leakage fixes it, and GMIN is the part of it SPICE always adds.
  d.goff = c_.pwl.gmin;
  conv.forward_fit = fit_pwl_branch(conv.forward, imin, imax, tol);
  d.forward = conv.forward_fit.curve.segments;
  conv.summary = fmt::format("{}: {}", d.name, branch_summary(conv.forward_fit, conv.forward));
  if (d.isr > 0 || d.ikf > 0)
    conv.summary +=
        fmt::format("; the forward branch with{}{}",
                    d.isr > 0 ? fmt::format(" ISR {} NR {:g}", si(d.isr, "A"), d.nr) : "",
                    d.ikf > 0 ? fmt::format(" IKF {}", si(d.ikf, "A")) : "");
  if (conv.reverse) {
    conv.reverse_fit = fit_pwl_branch(*conv.reverse, imin, imax, tol);
    d.reverse = conv.reverse_fit.curve.segments;
    conv.summary += "; breakdown " + branch_summary(conv.reverse_fit, *conv.reverse);
  }
  if (d.cjo > 0) {
    const double swing = std::min(voltage_swing(scales), bv > 0 ? bv : 1e300);
    const double on = d.forward.empty() ? 0.0 : d.forward.front().threshold;
    const JunctionCharge q =
        junction_charge("CJO", d.cjo, d.vj, d.m, d.fc, t, -swing, on, c_.pwl.qtol);
    conv.cj = d.cj = q.q;
    conv.summary += "; " + q.summary;
  }
  d.stored_charge = d.tt;
  if (d.tt > 0) conv.summary += fmt::format("; TT {} as stored charge TT·i", si(d.tt, "s"));
  if (split)
    conv.summary += fmt::format(
        "; RS {} as a resistor to an internal node, the junction and its charges behind it "
        "(RS·CJO = {} is not small against the print step {}: as in SPICE)",
        si(rs, "Ω"), si(rs * d.cjo, "s"), si(print_step, "s"));
  if (const std::string at = temperature_summary(t, d.is, is); !at.empty())
    conv.summary += "; " + at;
  if (d.area != 1 || d.mult != 1)
    conv.summary +=
        fmt::format("; the card's IS, ISR, IKF, CJO ×{:g} and RS ÷{:g} for the instance's AREA·M{}",
                    d.area * d.mult, d.area * d.mult,
                    d.mult != 1 && d.bv > 0 ? fmt::format(", IBV ×{:g} (M)", d.mult) : "");
  conv.summary += "; " + imax_reason(c_.pwl, scales, rs, "RS", keep_r_min, 1, range.refit);
  return conv;
}

// A level-1 MOS card without SEGMENTS: the knots of f ≈ x² for a gate-voltage error within
// PWLTOL·max(1, v_gs/1 V) (v_gs = VT + x) over the overdrive range [0, xmax], xmax = max(1 V,
// Σ_sources max|V| +
// √(2·Σ_sources max|I| / K)) (the overdrive a source voltage or, at W/L ≥ 1, a source current
// can set). A VDMOS's KP and VTO are taken at .temp first (KP·(T/TNOM)^MU, VTO ∓ TCVTH·ΔT).
void Elaborator::convert_mos(MosModel& q, const Scales& scales) {
  std::string at;
  if (q.vdmos) {
    const ModelTemperature t = model_temperature(c_.pwl, q.tnom);
    if (t.delta() != 0) {
      const double kp = q.kp * std::pow(t.kelvin / t.tnom_kelvin, q.mu);
      const double vto = q.vto - (q.pmos ? -1 : 1) * q.tcvth * t.delta();
      at = fmt::format("; at {:g} °C: KP {:g} → {:.4g}, VTO {:g} → {:.4g} V",
                       t.kelvin - kCelsiusToKelvin, q.kp, kp, q.vto, vto);
      q.kp = kp, q.vto = vto;
    }
    if (std::isnan(q.body.tnom)) q.body.tnom = q.tnom;
  }
  const double xmax = std::max(1.0, scales.volts + std::sqrt(2 * scales.amps / q.kp));
  const double vt = q.pmos ? -q.vto : q.vto;
  q.knots = square_law_knots(c_.pwl.tol, xmax, vt);
  q.segments = static_cast<int>(q.knots.size());
  double worst = 0;
  for (size_t k = 1; k < q.knots.size(); ++k)
    worst = std::max(worst, square_chord_voltage_error(q.knots[k - 1], q.knots[k]) /
                                std::max(1.0, vt + q.knots[k - 1]));
  DiodeConversion conv;
  conv.model = q.name;
  conv.kind = "SPICE MOS";
  conv.mos_knots = q.knots;
  conv.mos_vt = vt;
  conv.mos_kp = q.kp;
  conv.summary = fmt::format(
      "{}: {} {} square law, {} segments of f(x) = x² over 0–{:.3g} V overdrive, gate-voltage "
      "error ≤ {}·max(1, v_gs/1 V){}{}{}",
      q.name, q.vdmos ? "VDMOS" : "level-1", q.pmos ? "PMOS" : "NMOS", q.knots.size() - 1,
      q.knots.back(), si(worst, "V"),
      q.rd > 0 || q.rs > 0 ? fmt::format("; RD {:g} Ω, RS {:g} Ω as resistors", q.rd, q.rs) : "",
      q.lambda > 0 ? "; LAMBDA as K·(1 + λ·v_ds) at each device's initial point, or a transient "
                     "run's charge-weighted v_ds (below)"
                   : "",
      at);
  if (q.vdmos) conv.summary += vdmos_summary(q, scales);
  if (q.mult != 1)
    conv.summary += fmt::format(
        "; the instance's M {:g}: the card's KP{} ×{:g} and {} ÷{:g}, the {} diode{} M junctions",
        q.mult, q.vdmos ? ", CGS, CGDMAX, CGDMIN" : "", q.mult,
        q.vdmos ? "RD, RS, RG, RDS" : "RD, RS", q.mult, q.vdmos ? "body" : "bulk",
        q.vdmos ? "" : "s");
  c_.conversions.push_back(std::move(conv));
}

// A diode whose junction charge an earlier run refitted (PwlRefit::charge): the depletion charge
// in segments (pwl_charge) over [lowest, 0], the voltages that run met, within PWLQTOL (or
// kRefitChargeTolerance without it); said in its model's conversion summary.
void Elaborator::refit_charge(Diode& d) {
  const auto model = c_.pwl.refit.find(d.model.name);
  if (model == c_.pwl.refit.end()) return;
  const auto it = model->second.charge.find(d.name);
  if (it == model->second.charge.end() || !(d.model.cj.c_lo > 0)) return;
  const DiodeModel& m = d.model;
  const ModelTemperature t = model_temperature(c_.pwl, m.tnom);
  const double on = m.forward.empty() ? 0.0 : m.forward.front().threshold;
  const double tol = c_.pwl.qtol > 0 ? c_.pwl.qtol : kRefitChargeTolerance;
  const double lo = std::min(it->second, -1e-3);
  const JunctionCharge q = junction_charge("CJO", m.cjo, m.vj, m.m, m.fc, t, lo, on, tol);
  d.model.cj = q.q;
  for (DiodeConversion& conv : c_.conversions)
    if (conv.model == d.model.name)
      conv.summary +=
          fmt::format("; {}'s junction charge refitted over the voltages an earlier run met:{}",
                      d.name, charge_summary(q.q, lo, on));
}

// A VDMOS whose gate-drain charge an earlier run refitted (PwlRefit::charge): ngspice's C(v_gd)
// below 0 in segments (pwl_charge) over [lowest, 0], the voltages that run met, within PWLQTOL (or
// kRefitChargeTolerance without it), then the forward slope as fitted (the chord over [0, V]) from
// a knot at 0; said in its model's conversion summary.
void Elaborator::refit_cgd(Mosfet& m, double swing) {
  const auto model = c_.pwl.refit.find(m.model.name);
  if (model == c_.pwl.refit.end()) return;
  const auto it = model->second.charge.find(m.name);
  MosModel& q = m.model;
  if (it == model->second.charge.end() || !q.vdmos || !(q.cgd.c_lo > 0)) return;
  const double tol = c_.pwl.qtol > 0 ? c_.pwl.qtol : kRefitChargeTolerance;
  const double lo = std::min(it->second, -1e-3);
  const double forward = q.cgd.c_hi();
  PwlCharge cgd = pwl_charge(VdmosGateDrainCharge{q.cgdmax, q.cgdmin, q.a}, lo, 0.0, 0.0, tol);
  if (forward > cgd.c_hi()) cgd.knots.push_back({0.0, forward - cgd.c_hi()});
  q.cgd = cgd;
  for (DiodeConversion& conv : c_.conversions)
    if (conv.model == q.name)
      conv.summary += fmt::format("; {}'s CGD refitted over the voltages an earlier run met:{}",
                                  m.name, charge_summary(cgd, lo, swing));
}

bool Elaborator::used_only_scaled(const std::string& card) const {
  // A card every instance of which has an AREA or M: their scaled copies ("<card>(...)") are
  // converted and reported, the card itself is not (unless every card is, kAll).
  if (all_models_ || plain_cards_.contains(card)) return false;
  return std::any_of(models_.begin(), models_.end(), [&](const auto& entry) {
    if (entry.first == card) return false;
    if (const auto* d = std::get_if<DiodeModel>(&entry.second)) return d->card_name() == card;
    if (const auto* q = std::get_if<MosModel>(&entry.second)) return q->card_name() == card;
    return false;
  });
}

void Elaborator::pwl_models() {
  const Scales scales = circuit_scales(c_, model_resistors_);
  std::map<std::string, const DiodeModel*> converted;
  std::map<std::string, const MosModel*> converted_mos;
  std::map<std::string, const BjtModel*> converted_bjt;
  const auto diode_model = [&](DiodeModel& d, bool keep_r_min) {
    c_.conversions.push_back(convert_diode(d, scales, keep_r_min));
    converted[d.name] = &d;
  };
  for (auto& [name, model] : models_)
    if (auto* d = std::get_if<DiodeModel>(&model); d && !used_only_scaled(name))
      diode_model(*d, false);
  for (auto& [name, model] : models_) {
    if (used_only_scaled(name)) continue;
    auto* q = std::get_if<MosModel>(&model);
    if (q && q->segments == 0) {
      convert_mos(*q, scales);
      converted_mos[name] = q;
    }
    // A level-1 card's bulk diodes carry at most a channel's current (R_min kept).
    if (q && (q->vdmos || q->spice)) diode_model(q->body, !q->vdmos);
    if (auto* b = std::get_if<BjtModel>(&model)) {
      convert_bjt(*b, scales);
      converted_bjt[name] = b;
    }
  }
  const size_t count = c_.devices.size();
  for (size_t k = 0; k < count; ++k) {
    const netlist::SourceSpan span = c_.spans[k];
    std::vector<Capacitor> caps;      // junction capacitances, added after the loop's device
    std::vector<Resistor> resistors;  // a diode's RS split off (DiodeModel::series_r)
    if (auto* mos = std::get_if<Mosfet>(&c_.devices[k])) {
      if (auto it = converted_mos.find(mos->model.name); it != converted_mos.end())
        mos->model = *it->second;
      refit_cgd(*mos, voltage_swing(scales));
      if (mos->model.vdmos && mos->model.cgd.c_lo > 0)
        caps.push_back({mos->name + ".cgd", mos->g, mos->d, mos->model.cgd.c_lo, std::nullopt});
    } else if (auto* q = std::get_if<Bjt>(&c_.devices[k])) {
      if (auto it = converted_bjt.find(q->model.name); it != converted_bjt.end())
        q->model = *it->second;
      bjt_area(*q);
      const bool npn = !q->model.pnp;
      if (q->model.cbe.c_lo > 0)
        caps.push_back({q->name + ".cje", npn ? q->b : q->e, npn ? q->e : q->b, q->model.cbe.c_lo,
                        std::nullopt});
      if (q->model.cbc.c_lo > 0)
        caps.push_back({q->name + ".cjc", npn ? q->b : q->c, npn ? q->c : q->b, q->model.cbc.c_lo,
                        std::nullopt});
    } else if (auto* diode = std::get_if<Diode>(&c_.devices[k]); diode && diode->model.spice) {
      auto it = converted.find(diode->model.name);
      if (it == converted.end()) continue;  // a behavioural source's internal diode
      diode->model = *it->second;
      refit_charge(*diode);
      if (diode->model.series_r > 0) {  // a ── RS "<d>.rs" ── <d>.j ── junction ── k
        netlist::Word w;
        w.text = w.lower = diode->name + ".j";
        const int j = node(w);
        const int a = std::exchange(diode->a, j);
        resistors.push_back({diode->name + ".rs", a, j, diode->model.series_r});
        model_resistors_.insert(diode->name + ".rs");
        c_.series_nodes.emplace_back(a, j);
      }
      if (diode->model.cj.c_lo > 0 && !c_.pwl.idealize)
        caps.push_back(
            {diode->name + ".cj", diode->a, diode->k, diode->model.cj.c_lo, std::nullopt});
    }
    for (Resistor& r : resistors) {  // invalidates the references above
      c_.devices.push_back(std::move(r));
      c_.spans.push_back(span);
    }
    for (Capacitor& cap : caps) {
      c_.devices.push_back(std::move(cap));
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
  std::vector<std::string> idealized;
  for (Device& d : circuit.devices)
    if (auto* diode = std::get_if<Diode>(&d); diode && diode->model.spice) {
      idealized.push_back(diode->name + " ");
      diode->model.forward.clear();
      diode->model.reverse.clear();
      diode->model.stored_charge = 0;
      if (diode->model.cj.c_lo > 0) junction_caps.insert(diode->name + ".cj");
      diode->model.cj = {};
    }
  for (size_t k = 0; k < circuit.devices.size(); ++k) {
    const auto* cap = std::get_if<Capacitor>(&circuit.devices[k]);
    if (cap && junction_caps.contains(cap->name)) continue;
    devices.push_back(std::move(circuit.devices[k]));
    spans.push_back(circuit.spans[k]);
  }
  circuit.devices = std::move(devices);
  circuit.spans = std::move(spans);
  // The bias knots of these diodes ("d1 forward: bias knot at ...") no longer apply.
  std::erase_if(circuit.bias_notes, [&](const std::string& note) {
    return std::any_of(idealized.begin(), idealized.end(),
                       [&](const std::string& name) { return note.starts_with(name); });
  });
  for (DiodeConversion& conv : circuit.conversions) {
    if (conv.kind != "SPICE") continue;
    conv.kind = "idealized (IDEALIZE)";
    conv.summary = idealized_summary(conv.model, conv.reverse ? conv.reverse->v0 : 0.0);
    conv.forward_fit.curve = {};  // the branches and range stay, for the plot
    conv.reverse_fit.curve = {};
    conv.cj = {};
  }
}

}  // namespace nsspice::circuit
