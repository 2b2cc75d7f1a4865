// A .pss card → Circuit::pss (circuit/circuit.hpp, PssSpec), its values checked at their places:
//
//   ngspice  .pss GFREQ TSTAB OSCNOB [PSSPOINTS [HARMS [SCITER [STEADY_COEFF]]]] [UIC]
//            GFREQ > 0: T = 1/GFREQ (the guess of T when the circuit oscillates by itself);
//            TSTAB >= 0: the warm-up time; OSCNOB a node: the trigger v(OSCNOB) rising through the
//            middle of its range, for a circuit whose sources are all constant (ngspice's .pss
//            is an oscillator analysis; a driven circuit takes T and ignores OSCNOB);
//            PSSPOINTS >= 1: the steps per period; SCITER >= 1: the Newton iterations at most;
//            HARMS and STEADY_COEFF are ignored, with a warning saying why.
//   nsspice  .pss [TRIG signal [VAL=x] [RISE|FALL]] PERIOD=T|FREQ=F [TSTAB=t] [PERIODS=K]
//            [STEPS=N] [WARMUP=W] [MAXITER=N] [UIC]
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/elaborator.hpp"

namespace nsspice::circuit::detail {
namespace {

// A whole number in [lo, 1e9] for `what`, else an error at `span`.
std::optional<long> whole(double v, long lo, const std::string& what, netlist::SourceSpan span,
                          netlist::Diagnostics& diags) {
  if (v >= static_cast<double>(lo) && v <= 1e9 && v == std::floor(v)) return static_cast<long>(v);
  diags.error(span, fmt::format("'.pss' {} must be a whole number >= {}, got {:g}", what, lo, v));
  return std::nullopt;
}

bool positive(double v, const std::string& what, netlist::SourceSpan span,
              netlist::Diagnostics& diags, bool zero = false) {
  if ((zero ? v >= 0 : v > 0) && std::isfinite(v)) return true;
  diags.error(span, fmt::format("'.pss' {} must be {} 0, got {:g}", what, zero ? ">=" : ">", v));
  return false;
}

std::optional<PssSpec> ngspice_form(const netlist::PssCard& c, const Circuit& circuit,
                                    netlist::Diagnostics& diags) {
  PssSpec spec;
  const auto& v = c.positional;
  if (!positive(v[0].value, "GFREQ (the guessed frequency)", v[0].span, diags) ||
      !positive(v[1].value, "TSTAB (the stabilization time)", v[1].span, diags, true))
    return std::nullopt;
  spec.period = 1 / v[0].value;
  spec.stabilization = v[1].value;
  if (std::find(circuit.nodes.begin(), circuit.nodes.end(), c.node->lower) == circuit.nodes.end()) {
    diags.error(c.node->span, fmt::format("'.pss' OSCNOB: unknown node '{}'", c.node->text));
    return std::nullopt;
  }
  spec.trigger = "v(" + c.node->lower + ")";
  spec.node_trigger = true;
  if (v.size() > 2) {
    const auto steps = whole(v[2].value, 1, "PSSPOINTS", v[2].span, diags);
    if (!steps) return std::nullopt;
    spec.steps = *steps;
  }
  if (v.size() > 3)
    diags.warning(v[3].span, fmt::format("'.pss' HARMS = {:g} ignored: nsspice writes the "
                                         "waveform of the period, not its harmonics",
                                         v[3].value));
  if (v.size() > 4) {
    const auto iterations = whole(v[4].value, 1, "SCITER", v[4].span, diags);
    if (!iterations) return std::nullopt;
    spec.max_newton = static_cast<int>(*iterations);
  }
  if (v.size() > 5)
    diags.warning(v[5].span, fmt::format("'.pss' STEADY_COEFF = {:g} ignored: nsspice stops "
                                         "when ‖x(T) − x(0)‖ ≤ 1e-9 relative",
                                         v[5].value));
  spec.uic = c.uic;
  return spec;
}

// The NAME=VALUE of the nsspice form into `spec`; false after an error.
bool keyword_param(const netlist::Param& p, PssSpec& spec, netlist::Diagnostics& diags,
                   double& freq) {
  const double v = p.number.value_or(0);
  const std::string& n = p.name.lower;
  if (n == "period" || n == "freq") {
    if (!positive(v, n == "period" ? "PERIOD" : "FREQ", p.raw.span, diags)) return false;
    (n == "period" ? spec.period : freq) = v;
  } else if (n == "val") {
    spec.level = v;
    spec.level_given = true;
  } else if (n == "tstab") {
    if (!positive(v, "TSTAB", p.raw.span, diags, true)) return false;
    spec.stabilization = v;
  } else {
    const long lo = n == "warmup" ? 0 : 1;
    const auto k = whole(v, lo, fmt::format("{}", p.name.text), p.raw.span, diags);
    if (!k) return false;
    if (n == "periods") spec.periods = static_cast<int>(*k);
    if (n == "steps") spec.steps = *k;
    if (n == "warmup") spec.warmup = static_cast<int>(*k);
    if (n == "maxiter") spec.max_newton = static_cast<int>(*k);
  }
  return true;
}

}  // namespace

std::optional<PssSpec> pss_spec(const netlist::PssCard& c, const Circuit& circuit,
                                netlist::Diagnostics& diags) {
  if (c.ngspice) return ngspice_form(c, circuit, diags);
  PssSpec spec;
  double freq = 0;
  for (const netlist::Param& p : c.params)
    if (!keyword_param(p, spec, diags, freq)) return std::nullopt;
  if ((spec.period > 0) == (freq > 0)) {
    diags.error(c.span, spec.period > 0 ? "'.pss' takes PERIOD= or FREQ=, not both"
                                        : "'.pss' needs PERIOD=T or FREQ=F (with TRIG: a guess "
                                          "of the period)");
    return std::nullopt;
  }
  if (freq > 0) spec.period = 1 / freq;
  if (c.trigger) spec.trigger = c.trigger->lower;
  if (spec.level_given && !c.trigger) {
    const auto it = std::find_if(c.params.begin(), c.params.end(),
                                 [](const auto& p) { return p.name.lower == "val"; });
    diags.error(it->span, "'.pss' VAL= is the trigger's level: it needs TRIG signal");
    return std::nullopt;
  }
  spec.rising = !c.falling;
  spec.uic = c.uic;
  return spec;
}

}  // namespace nsspice::circuit::detail
