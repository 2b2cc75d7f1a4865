// .op, .dc and .ac cards → Circuit::op, Circuit::dc, Circuit::ac, with their values checked:
//
//   .dc SRC START STOP STEP:  SRC a V or I source, or a top-level .param; STEP ≠ 0 with the sign of
//   STOP − START (any
//       STEP when START = STOP); points = ⌊(STOP − START)/STEP + 1e-9⌋ + 1.
//   .ac DEC|OCT N F1 F2:  N ≥ 1 an integer, 0 < F1 ≤ F2;   .ac LIN N F1 F2:  0 ≤ F1 ≤ F2.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/elaborator.hpp"

namespace nsspice::circuit::detail {
namespace {

// The most points one .dc or .ac card may ask for (a typo such as a step of 1n instead of 1m).
constexpr double kMaxPoints = 1e7;

// The device named `name`, or nullptr.
const Device* find_device(const Circuit& c, const std::string& name) {
  const auto it = std::find_if(c.devices.begin(), c.devices.end(),
                               [&](const Device& d) { return device_name(d) == name; });
  return it == c.devices.end() ? nullptr : &*it;
}

// The number of points of a sweep, or an error at `at`.
std::optional<DcSweepSpec> sweep_points(DcSweepSpec spec, netlist::SourceSpan at,
                                        netlist::Diagnostics& diags) {
  const double span = spec.stop - spec.start;
  if (!std::isfinite(spec.start) || !std::isfinite(spec.stop) || !std::isfinite(spec.step)) {
    diags.error(at, "'.dc' values must be finite numbers");
    return std::nullopt;
  }
  if (span == 0) {
    spec.points = 1;
    return spec;
  }
  if (spec.step == 0 || (span > 0) != (spec.step > 0)) {
    diags.error(at, fmt::format("'.dc' step {:g} does not lead from {:g} to {:g}", spec.step,
                                spec.start, spec.stop));
    return std::nullopt;
  }
  const double points = std::floor(span / spec.step + 1e-9) + 1;
  if (points > kMaxPoints) {
    diags.error(at,
                fmt::format("'.dc' asks for {:.3g} points (at most {:.0g})", points, kMaxPoints));
    return std::nullopt;
  }
  spec.points = static_cast<long>(points);
  return spec;
}

std::optional<DcSweepSpec> dc_sweep(const netlist::DcSweep& s, const Circuit& c,
                                    netlist::Diagnostics& diags) {
  const std::string& name = s.source.lower;
  if (name == "temp") {
    diags.error(s.source.span,
                "'.dc temp' is not supported: the temperature is one value per run (.temp, "
                ".options temp)");
    return std::nullopt;
  }
  if (s.parameter) {
    DcSweepSpec spec{name, s.start.value, s.stop.value, s.step.value, 0, true};
    return sweep_points(spec, s.step.span, diags);
  }
  const Device* d = find_device(c, name);
  if (d == nullptr ||
      !(std::holds_alternative<VoltageSource>(*d) || std::holds_alternative<CurrentSource>(*d))) {
    diags.error(s.source.span,
                fmt::format("'.dc' sweeps an independent V or I source; '{}' {}", s.source.text,
                            d == nullptr ? "is not an element of the circuit" : "is not one"));
    return std::nullopt;
  }
  return sweep_points(DcSweepSpec{name, s.start.value, s.stop.value, s.step.value, 0}, s.step.span,
                      diags);
}

std::optional<AcSpec> ac_spec(const netlist::AcCard& a, netlist::Diagnostics& diags) {
  AcSpec spec;
  spec.variation = a.variation.lower == "dec"   ? AcVariation::kDec
                   : a.variation.lower == "oct" ? AcVariation::kOct
                                                : AcVariation::kLin;
  const double n = a.points.value;
  if (!(n >= 1 && n <= kMaxPoints && n == std::floor(n))) {
    diags.error(a.points.span,
                fmt::format("'.ac' number of points must be a whole number >= 1, got {:g}", n));
    return std::nullopt;
  }
  spec.points = static_cast<long>(n);
  spec.fstart = a.fstart.value;
  spec.fstop = a.fstop.value;
  const bool log = spec.variation != AcVariation::kLin;
  if (!(log ? spec.fstart > 0 : spec.fstart >= 0) || !std::isfinite(spec.fstart)) {
    diags.error(a.fstart.span, fmt::format("'.ac' start frequency must be {} 0, got {:g}",
                                           log ? ">" : ">=", spec.fstart));
    return std::nullopt;
  }
  if (!(spec.fstop >= spec.fstart) || !std::isfinite(spec.fstop)) {
    diags.error(a.fstop.span,
                fmt::format("'.ac' stop frequency {:g} must be >= the start frequency {:g}",
                            spec.fstop, spec.fstart));
    return std::nullopt;
  }
  return spec;
}

}  // namespace

void elaborate_analyses(const std::vector<netlist::Card>& cards, Circuit& circuit,
                        netlist::Diagnostics& diags) {
  bool dc_seen = false;
  for (const auto& card : cards) {
    if (std::holds_alternative<netlist::OpCard>(card)) circuit.op = true;
    if (const auto* dc = std::get_if<netlist::DcCard>(&card)) {
      if (dc_seen) diags.warning(dc->span, "several .dc cards: the last one is used");
      dc_seen = true;
      circuit.dc.clear();
      for (const auto& s : dc->sweeps) {
        auto spec = dc_sweep(s, circuit, diags);
        if (!spec) break;
        circuit.dc.push_back(std::move(*spec));
      }
      if (circuit.dc.size() == 2 && circuit.dc[0].source == circuit.dc[1].source)
        diags.error(dc->sweeps[1].source.span,
                    fmt::format("'.dc' sweeps '{}' twice", dc->sweeps[1].source.text));
      if (circuit.dc.size() != dc->sweeps.size()) circuit.dc.clear();
    }
    if (const auto* pss = std::get_if<netlist::PssCard>(&card)) {
      if (circuit.pss) diags.warning(pss->span, "several .pss cards: the last one is used");
      circuit.pss = pss_spec(*pss, circuit, diags);
    }
    if (const auto* ac = std::get_if<netlist::AcCard>(&card)) {
      if (circuit.ac) diags.warning(ac->span, "several .ac cards: the last one is used");
      circuit.ac = ac_spec(*ac, diags);
    }
  }
}

}  // namespace nsspice::circuit::detail
