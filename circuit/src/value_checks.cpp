// Sources too fast for the run, and element values out of the solver's range (checks.hpp).
//
//   periods = rate · TSTOP  with rate = SIN freq, SFFM max(fc, fs), 1/PULSE per, 1/PWL repeat
//   period; more than kMaxPeriods periods cannot be resolved by any time step (with 1e9
//   periods in TSTOP, one step per period already means 1e9 steps): the waveform is aliased.
//   value range: |x| > kHugeValue, or 0 < |x| < 1/kHugeValue (a resistance below it stamps
//   1/R above it): a product of two such values (a current V/R) overflows double precision.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "circuit/src/checks.hpp"
#include "circuit/src/graph.hpp"

namespace nsspice::circuit::detail {
namespace {

constexpr double kMaxPeriods = 1e9;
constexpr double kHugeValue = 1e150;

// (what, rate in Hz) of a waveform's fastest periodic part; rate 0 when it has none.
std::pair<std::string, double> rate(const Waveform& w) {
  if (const auto* s = std::get_if<Sin>(&w))
    return {fmt::format("SIN frequency {:g} Hz", s->freq), s->freq};
  if (const auto* s = std::get_if<Sffm>(&w)) {
    const double f = std::max(std::fabs(s->fc), std::fabs(s->fs));
    return {fmt::format("SFFM frequency {:g} Hz", f), f};
  }
  if (const auto* p = std::get_if<Pulse>(&w); p && p->per > 0)
    return {fmt::format("PULSE period {:g} s", p->per), 1 / p->per};
  if (const auto* p = std::get_if<Pwl>(&w); p && p->repeat >= 0 && !p->t.empty()) {
    const double period = p->t.back() - p->repeat;
    if (period > 0) return {fmt::format("PWL repeat period {:g} s", period), 1 / period};
  }
  return {"", 0};
}

const Waveform* wave_of(const Device& d) {
  if (const auto* v = std::get_if<VoltageSource>(&d)) return &v->wave;
  if (const auto* i = std::get_if<CurrentSource>(&d)) return &i->wave;
  return nullptr;
}

// The values a device stamps, with how to show them.
std::vector<std::pair<std::string, double>> values_of(const Device& dev) {
  std::vector<std::pair<std::string, double>> out;
  std::visit(
      Overloaded{[&](const Resistor& r) {
                   out.emplace_back(fmt::format("R = {:g} Ohm", r.r), r.r);
                   out.emplace_back(fmt::format("1/R = {:g} S", 1 / r.r), 1 / r.r);
                 },
                 [&](const Capacitor& c) { out.emplace_back(fmt::format("C = {:g} F", c.c), c.c); },
                 [&](const Inductor& l) { out.emplace_back(fmt::format("L = {:g} H", l.l), l.l); },
                 [&](const Vcvs& e) { out.emplace_back(fmt::format("gain {:g}", e.gain), e.gain); },
                 [&](const Vccs& g) { out.emplace_back(fmt::format("gm {:g} S", g.gm), g.gm); },
                 [&](const Cccs& f) { out.emplace_back(fmt::format("gain {:g}", f.gain), f.gain); },
                 [&](const Ccvs& h) { out.emplace_back(fmt::format("r {:g} Ohm", h.r), h.r); },
                 [](const auto&) {}},
      dev);
  if (const Waveform* w = wave_of(dev)) {
    const double v0 = waveform_value(*w, 0.0);
    out.emplace_back(fmt::format("value {:g} at t = 0", v0), v0);
    if (const auto* s = std::get_if<Sin>(w))
      out.emplace_back(fmt::format("amplitude {:g}", s->va), s->va);
    if (const auto* p = std::get_if<Pulse>(w))
      out.emplace_back(fmt::format("pulse value {:g}", p->v2), p->v2);
    if (const auto* p = std::get_if<Pwl>(w)) {
      for (double v : p->v) out.emplace_back(fmt::format("PWL value {:g}", v), v);
    }
  }
  return out;
}

bool out_of_range(double x) {
  const double a = std::fabs(x);
  return !std::isfinite(a) || a > kHugeValue || (a > 0 && a < 1 / kHugeValue);
}

}  // namespace

void check_source_rates(const Circuit& circuit, netlist::Diagnostics& diags) {
  if (!circuit.tran || !(circuit.tran->tstop > 0)) return;
  const double tstop = circuit.tran->tstop;
  for (size_t k = 0; k < circuit.devices.size(); ++k) {
    const Waveform* w = wave_of(circuit.devices[k]);
    if (w == nullptr) continue;
    const auto [what, hz] = rate(*w);
    const double periods = std::fabs(hz) * tstop;
    if (!(periods > kMaxPeriods)) continue;
    diags.warning(circuit.spans[k],
                  fmt::format("source '{}': {} gives {:.3g} periods in TSTOP = {:g} s, more than "
                              "{:g}: no time step can resolve it, the simulated waveform is "
                              "aliased (check the units)",
                              device_name(circuit.devices[k]), what, periods, tstop, kMaxPeriods));
  }
}

void check_value_ranges(const Circuit& circuit, netlist::Diagnostics& diags) {
  for (size_t k = 0; k < circuit.devices.size(); ++k) {
    for (const auto& [shown, value] : values_of(circuit.devices[k])) {
      if (!out_of_range(value)) continue;
      diags.warning(
          circuit.spans[k],
          fmt::format("'{}': {} is out of the range the solver can take (|x| above {:g} or "
                      "below {:g}): currents and voltages computed from it may overflow double "
                      "precision (the run then stops as on a singular matrix)",
                      device_name(circuit.devices[k]), shown, kHugeValue, 1 / kHugeValue));
      break;
    }
  }
}

}  // namespace nsspice::circuit::detail
