// The after-run check of the converted SPICE diodes' junction charges and the VDMOS gate-drain
// charges (junction_charge_check.hpp, which states the sums and the test).
#include "circuit/src/junction_charge_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "circuit/spice_temperature.hpp"
#include "circuit/src/pwl_conversion.hpp"
#include "circuit/src/pwl_junctions.hpp"

namespace nsspice::circuit::detail {
namespace {

double pwl_charge_at(const PwlCharge& p, double v) {
  double q = p.c_lo * v;
  for (const PwlCharge::Knot& k : p.knots) q += k.dc * std::max(0.0, v - k.v);
  return q;
}

template <class Spice>
double spice_charge(const Spice& q, double v) {
  return std::visit([v](const auto& c) { return c.charge(v); }, q);
}

}  // namespace

JunctionChargeCheck::JunctionChargeCheck(const Circuit& circuit, const Assembled& assembled) {
  std::vector<JunctionBranch> branches = junction_branches(circuit, assembled);
  for (size_t k = 0; k < circuit.devices.size(); ++k) {
    if (const auto* m = std::get_if<Mosfet>(&circuit.devices[k]);
        m != nullptr && m->model.vdmos && m->model.cgd.c_lo > 0) {
      Watch w;
      w.device = m->name;
      w.model = m->model.name;
      w.kind = "MOSFET";
      w.a = m->model.pmos ? m->d : m->g, w.k = m->model.pmos ? m->g : m->d;  // as stamped
      const VdmosGateDrainCharge q{m->model.cgdmax, m->model.cgdmin, m->model.a};
      w.spice = q;
      w.pwl = m->model.cgd;
      w.e0 = pwl_charge_at(w.pwl, 0.0) - q.charge(0.0);
      w.floor = q.capacitance(0.0) * 1.0;
      watches_.push_back(std::move(w));
      continue;
    }
    const auto* d = std::get_if<Diode>(&circuit.devices[k]);
    if (circuit.pwl.idealize || d == nullptr || !d->model.spice || !(d->model.cjo > 0) ||
        !(d->model.cj.c_lo > 0))
      continue;
    const ModelTemperature t = model_temperature(circuit.pwl, d->model.tnom);
    const Depletion at =
        depletion_at({d->model.cjo, d->model.vj}, d->model.m, t.kelvin, t.tnom_kelvin);
    Watch w;
    w.device = d->name;
    w.model = d->model.name;
    w.kind = "diode";
    w.a = d->a, w.k = d->k;
    const DepletionCharge q{at.cjo, at.vj, d->model.m, d->model.fc};
    w.spice = q;
    w.pwl = d->model.cj;
    w.e0 = pwl_charge_at(w.pwl, 0.0) - q.charge(0.0);
    w.floor = q.capacitance(0.0) * 1.0;
    for (size_t b = 0; b < branches.size(); ++b)
      if (branches[b].device == k) w.own.push_back(b);
    watches_.push_back(std::move(w));
  }
  if (watches_.empty()) return;
  abstol_ = circuit.stepping.abstol;
  for (JunctionBranch& j : branches) branches_.push_back({std::move(j.pairs)});
  // The branch currents of the voltage sources and inductors (unknowns "i(<name>)").
  std::map<std::string, int> unknown;
  for (size_t k = 0; k < assembled.unknown_names.size(); ++k)
    unknown[assembled.unknown_names[k]] = static_cast<int>(k);
  for (const Device& d : circuit.devices) {
    const auto* v = std::get_if<VoltageSource>(&d);
    if (v == nullptr && !std::holds_alternative<Inductor>(d)) continue;
    if (const auto it = unknown.find("i(" + device_name(d) + ")"); it != unknown.end()) {
      Branch b{{}, it->second};
      if (v != nullptr) b.p = v->p, b.n = v->n, b.source = true;
      currents_.push_back(b);
    }
  }
}

void JunctionChargeCheck::add(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda) {
  auto node = [&](int n) { return n > 0 ? x[n - 1] : 0.0; };
  for (Watch& w : watches_) {
    const double u = std::min(node(w.a) - node(w.k), 0.0);
    if (w.seen && u == w.u) continue;  // (conducting: u = 0 point after point)
    const double qs = spice_charge(w.spice, u), error = pwl_charge_at(w.pwl, u) - qs;
    if (w.seen) {
      w.moved += std::abs(qs - w.qs);
      w.missed += std::abs(error - w.error);
      w.misplaced += 0.5 * std::abs(u + w.u) * std::abs(error - w.error);
    }
    w.u = u, w.error = error, w.qs = qs;
    w.worst = std::max(w.worst, std::abs(error - w.e0) / std::max(std::abs(qs), w.floor));
    w.lowest = std::min(w.lowest, u);
    w.seen = true;
  }
  const double dt = started_ ? t - t_ : 0.0;
  const auto average = [dt](Branch& b, double i) {
    b.conducted += 0.5 * (std::abs(i) + b.i) * dt;
    b.i = std::abs(i);
  };
  for (Branch& b : branches_) {
    double i = 0;
    for (int j : b.pairs) i += lambda[j];
    average(b, i);
  }
  for (Branch& b : currents_) {
    average(b, x[b.unknown]);
    if (!b.source) continue;
    const double power = std::abs((node(b.p) - node(b.n)) * x[b.unknown]);
    b.delivered += 0.5 * (power + b.power) * dt;
    b.power = power;
  }
  if (!started_) t0_ = t;
  t_ = t, started_ = true;
}

void JunctionChargeCheck::warn(std::vector<std::string>& warnings,
                               std::vector<JunctionChargeMiss>& misses) const {
  const double span = t_ - t0_;
  if (!(span > 0)) return;
  double junctions = 0, branches = 0, delivered = 0;
  for (const Branch& b : branches_) junctions = std::max(junctions, b.conducted);
  for (const Branch& b : currents_) branches = std::max(branches, b.conducted);
  for (const Branch& b : currents_) delivered += b.delivered;
  const double s = delivered / span;
  for (const Watch& w : watches_) {
    if (!(w.moved > 0)) continue;
    double own = 0;
    for (size_t b : w.own) own += branches_[b].conducted;
    const double e = w.missed / span, c = std::max({own, junctions, branches}) / span;
    const double p = w.misplaced / span;
    const bool by_current = e > kChargeImpact * c, by_power = p > kChargeImpact * s;
    if (!(w.worst > kChargeTolerance) || !(by_current || by_power) || !(e > abstol_)) continue;
    JunctionChargeMiss miss;
    miss.device = w.device;
    miss.model = w.model;
    miss.kind = w.kind;
    miss.lowest = w.lowest;
    const bool cgd = w.kind == "MOSFET";
    miss.met = fmt::format(
        "its PWL {} ({} below 0 V) was up to {:.0f} % off SPICE's over the voltages the run met "
        "(down to {:.3g} V), an error current of {} on average against the {} {} conducted",
        cgd ? "gate-drain charge CGD of v_gd" : "junction charge", si(w.pwl.c_lo, "F"),
        100 * w.worst, w.lowest, si(e, "A"), si(c, "A"),
        own / span >= c         ? "the junction"
        : junctions / span >= c ? "the circuit's busiest junction"
                                : "the circuit's busiest source or inductor");
    if (!by_current)  // small on average, but at high voltage: what the ring's peak depends on
      miss.met += fmt::format(
          ", but weighed by the voltage it was met at {} against the {} the "
          "voltage sources delivered",
          si(p, "W"), si(s, "W"));
    warnings.push_back(fmt::format("{} (model '{}'): {}", w.device, w.model, miss.met));
    misses.push_back(std::move(miss));
  }
}

}  // namespace nsspice::circuit::detail
