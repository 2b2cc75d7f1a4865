// Resistors with a model card or temperature coefficients (docs/netlist.md, "Resistor models").
// ngspice's semiconductor resistor (src/spicelib/devices/res: RESupdate_conduct), checked
// against ngspice-39 (tests/circuit/analysis_test.cpp, OperatingPoint.ResistorModel*).
//
// The value at the model's nominal temperature, R_0:
//   the instance's value (`R1 a b 1k rmod`, or r=/resistance=; PSpice RES: times the model's R,
//   a multiplier, default 1, with a warning when R ≠ 1: ngspice takes the value alone);
//   else, with RSH > 0: RSH·(L − 2·SHORT)/(W − 2·NARROW), L and W the
//   instance's, else the model's DEFL (or L) and DEFW (or W), both 10 µm by default;
//   else the model's R (or RES).
// At the device temperature T (the instance's TEMP, else .temp + DTEMP; PSpice: the model's
// T_ABS, else .temp + T_REL_GLOBAL), ΔT = T − TNOM (the model's TNOM or T_MEASURED, else
// .options tnom):
//   R(T) = R_0·(1 + TC1·ΔT + TC2·ΔT²)   or, when TCE is given (instance or model),
//   R_0·1.01^(TCE·ΔT)
// with the instance's TC1/TC2/TCE (or TC) over the model's. The instance's SCALE multiplies and
// M = m in parallel divides: R = R(T)·SCALE/m.
#include <fmt/format.h>

#include <cmath>

#include "circuit/src/elaborate_model_specs.hpp"
#include "circuit/src/elaborator.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::circuit::detail {

std::vector<Spec> resistor_specs(ResistorModel& q) {
  return {{"r", &q.r, Range::kPositive},        {"res", &q.r, Range::kPositive},
          {"rsh", &q.rsh, Range::kNonNegative}, {"defw", &q.defw, Range::kPositive},
          {"w", &q.defw, Range::kPositive},     {"defl", &q.defl, Range::kPositive},
          {"l", &q.defl, Range::kPositive},     {"narrow", &q.narrow, Range::kAny},
          {"dw", &q.narrow, Range::kAny},       {"short", &q.shorten, Range::kAny},
          {"dlr", &q.shorten, Range::kAny},     {"tc1", &q.tc1, Range::kAny},
          {"tc1r", &q.tc1, Range::kAny},        {"tc2", &q.tc2, Range::kAny},
          {"tc2r", &q.tc2, Range::kAny},        {"tce", &q.tce, Range::kAny},
          {"tnom", &q.tnom, Range::kAny},       {"t_measured", &q.tnom, Range::kAny},
          {"t_abs", &q.t_abs, Range::kAny},     {"t_rel_global", &q.t_rel, Range::kAny}};
}

namespace {

// The instance's value of `name`, else `fallback`.
double given_or(const std::optional<double>& v, double fallback) { return v ? *v : fallback; }

}  // namespace

// R_0 and how it was found (for the error of a bad value); nullopt after reporting.
std::optional<std::pair<double, std::string>> Elaborator::resistor_nominal(
    const netlist::ElementCard& e, const ResistorModel& q) {
  if (e.value) {
    if (!q.pspice || std::isnan(q.r) || q.r == 1) return std::pair{e.value->value, std::string()};
    const double r0 = e.value->value * q.r;
    warning(
        e, e.value->span,
        fmt::format("resistor '{}': R = {:g} of RES model '{}' multiplies the value (PSpice): "
                    "{:g}·{:g} = {:g} Ω (ngspice would take the value, {:g} Ω; write .model "
                    "{} R(...) for that)",
                    e.name.lower, q.r, q.name, e.value->value, q.r, r0, e.value->value, q.name));
    return std::pair{
        r0, fmt::format(" = {:g}·R ({:g}) of RES model '{}'", e.value->value, q.r, q.name)};
  }
  if (q.rsh > 0) {
    const double l = given_or(param(e, "l"), q.defl), w = given_or(param(e, "w"), q.defw);
    return std::pair{q.rsh * (l - 2 * q.shorten) / (w - 2 * q.narrow),
                     fmt::format(" = RSH·(L − 2·SHORT)/(W − 2·NARROW) = {:g}·({:g} − 2·{:g})/"
                                 "({:g} − 2·{:g})",
                                 q.rsh, l, q.shorten, w, q.narrow)};
  }
  if (!std::isnan(q.r)) return std::pair{q.r, fmt::format(" (the R of model '{}')", q.name)};
  error(e, e.name.span,
        fmt::format("resistor '{}' has no value{}", e.name.lower,
                    e.model ? fmt::format(" (model '{}' gives neither R nor RSH)", q.name) : ""));
  return std::nullopt;
}

bool Elaborator::resistor(const netlist::ElementCard& e, double m) {
  const std::string& name = e.name.lower;
  const ResistorModel none{};
  const ResistorModel* q = &none;
  if (e.model) {
    if (!e.value && !model_cards_.contains(e.model->lower)) {  // "R1 a b abc": a typo?
      error(e, e.model->span,
            fmt::format("'{}' of resistor '{}' is neither a number nor a model name{}",
                        e.model->text, name, netlist::did_you_mean(e.model->lower, model_names())));
      return true;
    }
    q = model_of<ResistorModel>(e, "resistor", "resistor (R or RES)");
    if (q == nullptr) return true;  // reported
  }
  const auto tc1 = param(e, "tc1"), tc2 = param(e, "tc2"), tc = param(e, "tc");
  const auto tce = param(e, "tce"), scale = param(e, "scale");
  const auto temp = param(e, "temp"), dtemp = param(e, "dtemp");
  if (!e.model && !tc1 && !tc2 && !tc && !tce && !scale && !temp && !dtemp) return false;
  const auto nominal = resistor_nominal(e, *q);
  if (!nominal) return true;
  const auto& [r0, from] = *nominal;
  const double tnom = std::isnan(q->tnom) ? c_.pwl.tnom : q->tnom;
  double t = c_.pwl.temp + given_or(dtemp, 0.0) + q->t_rel;
  if (!std::isnan(q->t_abs)) t = q->t_abs;
  if (temp) t = *temp;
  const double dt = t - tnom;
  const double a = tc ? *tc : given_or(tc1, q->tc1), b = given_or(tc2, q->tc2);
  const double factor = tce || !std::isnan(q->tce) ? std::pow(1.01, given_or(tce, q->tce) * dt)
                                                   : 1 + a * dt + b * dt * dt;
  const double s = given_or(scale, 1.0);
  const double r = r0 * factor * s;
  if (!(r > 0) || !std::isfinite(r)) {
    error(e,
          e.value   ? e.value->span
          : e.model ? e.model->span
                    : e.name.span,
          fmt::format("resistor '{}' must have a positive, finite resistance, got {:g} Ω: "
                      "R_0 {:g} Ω{}, temperature factor {:g} at {:g} °C (TNOM {:g} °C){}",
                      name, r, r0, from, factor, t, tnom,
                      scale ? fmt::format(", scale {:g}", s) : ""));
    return true;
  }
  add(e, Resistor{name, node(e.nodes[0]), node(e.nodes[1]), r / m});
  return true;
}

}  // namespace nsspice::circuit::detail
