// The junction capacitances of .ac (circuit/analysis.hpp, small_signal_charges). A converted
// SPICE junction's depletion charge is stamped for the transient as a PWL charge: a capacitor
// C_lo (the charge-equivalent chord over the reverse swing) and knot pairs adding dC_k above
// their voltages (junction_charge.hpp). Its small-signal capacitance at a bias v is then
//
//   C_PWL(v) = C_lo + Σ_{k: v > v_k} dC_k,
//
// a chord's, not SPICE's C(v) = dQ/dv (a varactor reverse-biased at 5 V: 51.9 pF against
// C(−5 V) = 35.0 pF, 3.4 dB at 1 MHz behind 100 kΩ). .ac is the small-signal response about
// the operating point, so here each such charge becomes the linear capacitance SPICE takes:
//
//   C_lo ← f·C_lo,   dC_k ← f·dC_k,   f = C(v_op)/C_PWL(v_op)   (the pairs stay, each knot with
//                                                               the mode it has at v_op),
//
// with v_op the junction's voltage at the DC operating point (which no capacitance moves), so
// that the small-signal capacitance there is SPICE's (an instance's AREA·M scales both alike). The
// charges: a diode's CJO (also a MOSFET's bulk and a VDMOS's body diode), a bipolar transistor's
// CJE and CJC, a VDMOS's CGD (CGDMAX CGDMIN A).
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "circuit/analysis.hpp"
#include "circuit/junction_charge.hpp"
#include "circuit/spice_temperature.hpp"
#include "circuit/src/pwl_conversion.hpp"
#include "circuit/src/pwl_mos_bias.hpp"
#include "circuit/src/stamper.hpp"

namespace nsspice::circuit {
namespace {

struct Change {
  std::string name;  // the capacitor "<d>.cj"
  double chord = 0, at_bias = 0, v = 0;
};

double voltage(const Eigen::VectorXd& x, int a, int b) {
  const double va = a > 0 ? x[detail::Stamper::row(a)] : 0.0;
  const double vb = b > 0 ? x[detail::Stamper::row(b)] : 0.0;
  return va - vb;
}

// Scales the capacitor `name` and the charge's knots by f = C(v)/C_PWL(v): the card's SPICE
// capacitance at the bias over its PWL charge's there (the device's capacitor and knots may be
// the card's times an instance's AREA·M; the pairs stay, each with its share scaled).
void linearize(std::map<std::string, Capacitor*>& caps, const std::string& name, PwlCharge& q,
               double c_spice, double v, std::vector<Change>& out) {
  const auto it = caps.find(name);
  if (it == caps.end() || !(q.c_lo > 0)) return;
  double c_pwl = q.c_lo;
  for (const PwlCharge::Knot& k : q.knots)
    if (v > k.v) c_pwl += k.dc;
  const double f = c_spice / c_pwl;
  if (!(f > 0) || !std::isfinite(f)) return;
  Capacitor& cap = *it->second;
  const double device = cap.c * c_pwl / q.c_lo;  // the device's small-signal C_PWL(v)
  out.push_back({name, device, device * f, v});
  cap.c *= f;
  q.c_lo *= f;
  for (PwlCharge::Knot& k : q.knots) k.dc *= f;
}

}  // namespace

std::string small_signal_charges(Circuit& c, const StaticSolution& op) {
  if (c.pwl.idealize) return {};
  std::map<std::string, Capacitor*> caps;
  for (Device& d : c.devices)
    if (auto* cap = std::get_if<Capacitor>(&d)) caps[cap->name] = cap;
  std::vector<Change> changes;
  for (Device& dev : c.devices) {
    if (auto* d = std::get_if<Diode>(&dev); d && d->model.spice && d->model.cjo > 0) {
      const DiodeModel& m = d->model;
      const detail::ModelTemperature t = detail::model_temperature(c.pwl, m.tnom);
      const Depletion at = depletion_at({m.cjo, m.vj}, m.m, t.kelvin, t.tnom_kelvin);
      const double v = voltage(op.x, d->a, d->k);
      const DepletionCharge q{at.cjo, at.vj, m.m, m.fc};
      linearize(caps, d->name + ".cj", d->model.cj, q.capacitance(v), v, changes);
    } else if (auto* b = std::get_if<Bjt>(&dev)) {
      BjtModel& m = b->model;
      const detail::ModelTemperature t = detail::model_temperature(c.pwl, m.tnom);
      const double sign = m.pnp ? -1.0 : 1.0;
      if (m.cje > 0) {
        const Depletion at = depletion_at({m.cje, m.vje}, m.mje, t.kelvin, t.tnom_kelvin);
        const double v = sign * voltage(op.x, b->b, b->e);
        const DepletionCharge q{at.cjo, at.vj, m.mje, m.fc};
        linearize(caps, b->name + ".cje", m.cbe, q.capacitance(v), v, changes);
      }
      if (m.cjc > 0) {
        const Depletion at = depletion_at({m.cjc, m.vjc}, m.mjc, t.kelvin, t.tnom_kelvin);
        const double v = sign * voltage(op.x, b->b, b->c);
        const DepletionCharge q{at.cjo, at.vj, m.mjc, m.fc};
        linearize(caps, b->name + ".cjc", m.cbc, q.capacitance(v), v, changes);
      }
    } else if (auto* mos = std::get_if<Mosfet>(&dev); mos && mos->model.vdmos) {
      MosModel& m = mos->model;
      if (!(m.cgd.c_lo > 0)) continue;
      const VdmosGateDrainCharge q{m.cgdmax, m.cgdmin, m.a};
      const double v = (m.pmos ? -1.0 : 1.0) * voltage(op.x, mos->g, mos->d);
      linearize(caps, mos->name + ".cgd", m.cgd, q.capacitance(v), v, changes);
    }
  }
  if (changes.empty()) return {};
  const Change* most = &changes.front();
  for (const Change& ch : changes)
    if (std::abs(std::log(ch.at_bias / ch.chord)) > std::abs(std::log(most->at_bias / most->chord)))
      most = &ch;
  return fmt::format(
      "the junction capacitances of {} SPICE junction{} are taken at the operating point "
      "(SPICE's small-signal dQ/dv), not as the transient's PWL charges; the largest change: "
      "{} {} at {:.4g} V (the transient's {})",
      changes.size(), changes.size() == 1 ? "" : "s", most->name, detail::si(most->at_bias, "F"),
      most->v, detail::si(most->chord, "F"));
}

// A converted MOSFET's channel carries I_0·F with F = 1 + λ·|v_ds0| fixed (pwl_mos_bias.cpp):
// its slope in v_ds is F·∂I_0/∂v_ds, SPICE's g_ds less λ·I_0 (ngspice's MOS1 and VDMOS: I_D =
// I_0·(1 + λ·|v_ds|), in saturation and in triode). That conductance, at the operating point,
// is added from drain to source, so that the small-signal model is SPICE's: a common-source
// stage into 10 kΩ was 15.35 dB against ngspice's 15.13 dB without it (R_D/r_o = 2.5 %).
std::string small_signal_output_conductances(Circuit& c, const StaticSolution& op) {
  if (c.pwl.idealize) return {};
  std::vector<Resistor> added;
  std::string most;
  double most_g = 0;
  for (const Device& dev : c.devices) {
    const auto* m = std::get_if<Mosfet>(&dev);
    if (m == nullptr || !m->model.spice || !(m->model.lambda > 0) || m->d == m->s) continue;
    const detail::MosBias b = detail::mos_bias(*m, op.x);
    const double g = m->model.lambda * b.current(m->model.kp * m->w / m->l);
    if (!(g > 0) || !std::isfinite(g)) continue;
    added.push_back({m->name + ".gds", m->d, m->s, 1.0 / g});
    if (g > most_g) {
      most_g = g;
      most = fmt::format("{} {} (r_o {}, v_ds {:.4g} V)", m->name, detail::si(g, "S"),
                         detail::si(1.0 / g, "Ω"), b.vds);
    }
  }
  if (added.empty()) return {};
  const size_t n = added.size();
  for (Resistor& r : added) c.devices.emplace_back(std::move(r));
  return fmt::format(
      "the output conductance λ·I_D of {} MOSFET{} with LAMBDA is added to the small-signal "
      "model at the operating point (SPICE's g_ds; the PWL channel's LAMBDA is a constant "
      "factor); the largest: {}",
      n, n == 1 ? "" : "s", most);
}

}  // namespace nsspice::circuit
