// The initial point of a transient: the DC operating point, or the UIC/.ic data.
#include "circuit/src/initial_point.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "circuit/explain.hpp"
#include "solvers/time/operating_point.hpp"

namespace nsspice::circuit::detail {

std::string pair_list(const Assembled& a, const std::vector<int>& pairs) {
  // Each device once, in order of its first pair, with its count of pairs when more than one.
  std::vector<std::pair<std::string, int>> devices;
  for (int j : pairs) {
    const std::string& name = a.pair_names[static_cast<size_t>(j)];
    auto it = std::find_if(devices.begin(), devices.end(),
                           [&](const auto& d) { return d.first == name; });
    if (it == devices.end())
      devices.emplace_back(name, 1);
    else
      ++it->second;
  }
  std::vector<std::string> shown;
  for (const auto& [name, count] : devices)
    shown.push_back(count > 1 ? fmt::format("{} ({} pairs)", name, count) : name);
  return shown.empty() ? "" : fmt::format(" (devices: {})", fmt::join(shown, ", "));
}

std::vector<std::string> failure_devices(const Assembled& a, const ModeDiagnosis& why,
                                         const std::vector<int>& pairs) {
  std::vector<std::string> names = why.devices;
  for (int j : pairs) {
    const std::string& name = a.pair_names[static_cast<size_t>(j)];
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

namespace {

// UIC: node voltages from .ic, inductor currents and capacitor voltages from IC=; a node behind
// a model's series resistance (Circuit::series_nodes) at its terminal's voltage, others 0.
// q0 = E x0 with every capacitor's charge taken from its IC= where given.
InitialPoint uic_point(const Circuit& circuit, const Assembled& a) {
  const auto& m = a.mlcs;
  InitialPoint p;
  p.x = Eigen::VectorXd::Zero(m.n);
  for (const auto& [node, value] : circuit.ic) p.x[node - 1] = value;
  std::vector<const Capacitor*> caps;
  for (const Device& d : circuit.devices) {
    if (const auto* l = std::get_if<Inductor>(&d); l && l->ic) {
      const auto it =
          std::find(a.unknown_names.begin(), a.unknown_names.end(), "i(" + l->name + ")");
      p.x[it - a.unknown_names.begin()] = *l->ic;
    }
    if (const auto* c = std::get_if<Capacitor>(&d)) caps.push_back(c);
  }
  // Node voltages implied by capacitor ICs: a capacitor with IC= whose other end is known
  // (ground, .ic, or an earlier capacitor) fixes this end (repeated until nothing changes).
  std::vector<char> known(static_cast<size_t>(a.node_count) + 1, 0);
  known[0] = 1;
  for (const auto& ic : circuit.ic) known[static_cast<size_t>(ic.first)] = 1;
  for (bool changed = true; changed;) {
    changed = false;
    // An inner node takes its terminal's voltage: no current in the series resistance, and the
    // junction charges behind it start from the terminal voltages the user gave (as SPICE
    // evaluates a transistor's junctions at its terminals' .ic), not from 0.
    for (const auto& [outer, inner] : circuit.series_nodes) {
      if (known[static_cast<size_t>(inner)] || !known[static_cast<size_t>(outer)]) continue;
      p.x[inner - 1] = outer > 0 ? p.x[outer - 1] : 0.0;
      known[static_cast<size_t>(inner)] = 1;
      changed = true;
    }
    for (const Capacitor* c : caps) {
      if (!c->ic || known[static_cast<size_t>(c->a)] == known[static_cast<size_t>(c->b)]) continue;
      const bool a_known = known[static_cast<size_t>(c->a)];
      const int node = a_known ? c->b : c->a;
      const double other = (a_known ? c->a : c->b) > 0 ? p.x[(a_known ? c->a : c->b) - 1] : 0.0;
      p.x[node - 1] = a_known ? other - *c->ic : other + *c->ic;
      known[static_cast<size_t>(node)] = 1;
      changed = true;
    }
  }
  p.q = m.E * p.x;
  for (const Capacitor* c : caps) {
    if (!c->ic) continue;
    auto v = [&](int node) { return node > 0 ? p.x[node - 1] : 0.0; };
    const double dq = c->c * (*c->ic - (v(c->a) - v(c->b)));
    if (c->a > 0) p.q[c->a - 1] += dq;
    if (c->b > 0) p.q[c->b - 1] -= dq;
  }
  p.lambda = Eigen::VectorXd::Zero(m.m);
  p.mode.assign(m.m, 0);
  return p;
}

InitialPoint operating_point(const Circuit& circuit, const Assembled& a) {
  InitialPoint p;
  std::optional<Assembled> held;
  if (!circuit.ic.empty() || !circuit.ic_currents.empty())
    held = assemble(circuit, {.hold_ic_nodes = true});
  const Assembled& system = held ? *held : a;
  const solvers::OperatingPoint op = solvers::solve_operating_point(system.mlcs, 0.0);
  if (op.outcome.status != solvers::LcpStatus::kSolved &&
      op.outcome.status != solvers::LcpStatus::kInaccurate) {
    // A singular matrix: the elements of its singular block (or the values out of range).
    const ModeDiagnosis why = op.outcome.status == solvers::LcpStatus::kNumericalFailure
                                  ? explain_mode(system, 0.0, op.mode)
                                  : ModeDiagnosis{};
    p.error = fmt::format("the DC operating point could not be found: {}{}",
                          why.with(op.outcome.message + pair_list(a, op.outcome.pairs)),
                          why.overflow ? ""
                                       : "; if the circuit has no DC path for some node, give "
                                         "initial conditions and use '.tran ... UIC'");
    p.status = op.outcome.status;
    p.devices = failure_devices(a, why, op.outcome.pairs);
    return p;
  }
  p.x = op.x.head(a.mlcs.n);
  p.q = a.mlcs.E * p.x;
  p.lambda = op.lambda;
  p.mode = op.mode;
  for (const auto& u : op.unsettled)
    p.warnings.push_back(unsettled_switch(
        system, u,
        fmt::format("the run starts from the point solved with it {}, and it switches at once; "
                    "SPICE's choice here depends on its iterations, so the first cycle may "
                    "start elsewhere",
                    u.on ? "on" : "off")));
  return p;
}

}  // namespace

std::string unsettled_switch(const Assembled& a, const solvers::OperatingPoint::Unsettled& u,
                             const std::string& then) {
  const auto& sw = a.mlcs.switches[static_cast<size_t>(u.index)];
  return fmt::format(
      "switch '{}' has no consistent state at the DC operating point: on, its control is {:.4g} "
      "V, below its turn-off level {:.4g} V; off, {:.4g} V, above its turn-on level {:.4g} V (a "
      "relaxation oscillator: no DC state exists); {}",
      a.pair_names[static_cast<size_t>(sw.pair)], u.control_on, sw.off_below, u.control_off,
      sw.on_above, then);
}

InitialPoint initial_point(const Circuit& circuit, const Assembled& a) {
  return circuit.tran && circuit.tran->uic ? uic_point(circuit, a) : operating_point(circuit, a);
}

}  // namespace nsspice::circuit::detail
