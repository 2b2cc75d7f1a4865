// Resistors with a model card or temperature coefficients (docs/netlist.md, "Resistor models").
//
// The value at the model's nominal temperature, R_0:
//   the instance's value (PSpice RES: times the model's R, a multiplier, default 1);
//   else ngspice's R model: RSH·(L − NARROW)/(W − NARROW) with the instance's L (default the
//   model's DEFL or L) and W (default DEFW) when RSH and a length are given, else the model's R.
// At the device temperature T (the instance's TEMP, else .temp + DTEMP; PSpice: the model's
// T_ABS, else .temp + T_REL_GLOBAL), ΔT = T − TNOM (the model's TNOM or T_MEASURED, else
// .options tnom):
//   R(T) = R_0·(1 + TC1·ΔT + TC2·ΔT²)          or, with TCE ≠ 0,  R_0·1.01^(TCE·ΔT)
// with the instance's TC1/TC2 (or TC) over the model's. M = m in parallel: R(T)/m.
#include <fmt/format.h>

#include <cmath>

#include "circuit/src/elaborate_model_specs.hpp"
#include "circuit/src/elaborator.hpp"

namespace nsspice::circuit::detail {

std::vector<Spec> resistor_specs(ResistorModel& q) {
  return {{"r", &q.r, Range::kPositive},          {"rsh", &q.rsh, Range::kNonNegative},
          {"defw", &q.defw, Range::kPositive},    {"defl", &q.defl, Range::kPositive},
          {"l", &q.defl, Range::kPositive},       {"narrow", &q.narrow, Range::kNonNegative},
          {"tc1", &q.tc1, Range::kAny},           {"tc2", &q.tc2, Range::kAny},
          {"tce", &q.tce, Range::kAny},           {"tnom", &q.tnom, Range::kAny},
          {"t_measured", &q.tnom, Range::kAny},   {"t_abs", &q.t_abs, Range::kAny},
          {"t_rel_global", &q.t_rel, Range::kAny}};
}

namespace {

// The instance's value of `name`, else `fallback`.
double given_or(const std::optional<double>& v, double fallback) { return v ? *v : fallback; }

}  // namespace

bool Elaborator::resistor(const netlist::ElementCard& e, double m) {
  const std::string& name = e.name.lower;
  const ResistorModel none{};
  const ResistorModel* q = &none;
  if (e.model) {
    q = model_of<ResistorModel>(e, "resistor", "resistor (R or RES)");
    if (q == nullptr) return true;  // reported
  }
  const auto tc1 = param(e, "tc1"), tc2 = param(e, "tc2"), tc = param(e, "tc");
  const auto temp = param(e, "temp"), dtemp = param(e, "dtemp");
  if (!e.model && !tc1 && !tc2 && !tc && !temp && !dtemp) return false;
  double r0 = 0;
  const char* from = "";
  if (e.value) {
    r0 = e.value->value * (q->pspice && !std::isnan(q->r) ? q->r : 1.0);
  } else if (!q->pspice && q->rsh > 0 &&
             (param(e, "l") || !std::isnan(q->defl) || std::isnan(q->r))) {
    const double l = given_or(param(e, "l"), q->defl), w = given_or(param(e, "w"), q->defw);
    if (std::isnan(l)) {
      error(e, e.name.span,
            fmt::format("resistor '{}' has no value: model '{}' has RSH but neither the instance "
                        "nor the model gives a length L",
                        name, q->name));
      return true;
    }
    r0 = q->rsh * (l - q->narrow) / (w - q->narrow);
    from = " (RSH·(L − NARROW)/(W − NARROW))";
  } else if (!q->pspice && !std::isnan(q->r)) {
    r0 = q->r, from = " (the model's R)";
  } else {
    error(
        e, e.name.span,
        fmt::format("resistor '{}' has no value{}", name,
                    e.model ? fmt::format(" (model '{}' gives neither R nor RSH)", q->name) : ""));
    return true;
  }
  const double tnom = std::isnan(q->tnom) ? c_.pwl.tnom : q->tnom;
  double t = c_.pwl.temp + given_or(dtemp, 0.0) + q->t_rel;
  if (!std::isnan(q->t_abs)) t = q->t_abs;
  if (temp) t = *temp;
  const double dt = t - tnom;
  const double a = tc ? *tc : given_or(tc1, q->tc1), b = given_or(tc2, q->tc2);
  const double factor =
      q->tce != 0 && !tc && !tc1 ? std::pow(1.01, q->tce * dt) : 1 + a * dt + b * dt * dt;
  const double r = r0 * factor;
  if (!(r > 0) || !std::isfinite(r)) {
    error(e, e.value ? e.value->span : e.name.span,
          fmt::format("resistor '{}' must have a positive resistance, got {:g} Ω{} at {:g} °C "
                      "(temperature factor {:g})",
                      name, r, from, t, factor));
    return true;
  }
  add(e, Resistor{name, node(e.nodes[0]), node(e.nodes[1]), r / m});
  return true;
}

}  // namespace nsspice::circuit::detail
