// Syntax tree → Circuit: the driver, node numbering, shared checks and the control cards.
// Models: elaborate_models.cpp; elements: elaborate_elements.cpp.
#include "circuit/elaborate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/elaborator.hpp"
#include "circuit/src/pwl_bias_knots.hpp"
#include "circuit/src/pwl_mos_bias.hpp"
#include "circuit/src/spice_options.hpp"
#include "circuit/topology.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::circuit {
namespace detail {

using netlist::SourceSpan;

void Elaborator::error(const netlist::ElementCard& e, SourceSpan span, std::string message) {
  netlist::Diagnostic d{netlist::Severity::kError, span, std::move(message), {}};
  if (e.context) d.notes = *e.context;
  diags_.add(std::move(d));
}

void Elaborator::warning(const netlist::ElementCard& e, SourceSpan span, std::string message) {
  netlist::Diagnostic d{netlist::Severity::kWarning, span, std::move(message), {}};
  if (e.context) d.notes = *e.context;
  diags_.add(std::move(d));
}

int Elaborator::node(const netlist::Word& w) {
  if (w.lower == "0" || w.lower == "gnd") return 0;
  auto [it, inserted] = node_index_.emplace(w.lower, static_cast<int>(c_.nodes.size()));
  if (inserted) c_.nodes.push_back(w.lower);
  return it->second;
}

bool Elaborator::nodes_ok(const netlist::ElementCard& e, size_t count, const char* what) {
  if (e.nodes.size() == count) return true;
  error(e, e.name.span,
        fmt::format("{} '{}' needs {} nodes, got {}", what, e.name.lower, count, e.nodes.size()));
  return false;
}

std::optional<double> Elaborator::param(const netlist::ElementCard& e, std::string_view name) {
  for (const auto& p : e.params) {
    if (p.name.lower != name) continue;
    if (!p.number) {
      error(e, p.raw.span,
            fmt::format("expected a number for '{}', got '{}'", p.name.text, p.raw.text));
      return std::nullopt;
    }
    return p.number;
  }
  return std::nullopt;
}

bool Elaborator::number(const netlist::ElementCard& e, const char* what, double& out) {
  if (!e.value) {
    error(e, e.name.span, fmt::format("{} '{}' has no value", what, e.name.lower));
    return false;
  }
  out = e.value->value;
  return true;
}

bool Elaborator::positive(const netlist::ElementCard& e, const char* what, const char* unit,
                          double& out) {
  if (!number(e, what, out)) return false;
  if (!(out > 0)) {
    error(e, e.value->span,
          fmt::format("{} '{}' must have a positive value in {}, got {}", what, e.name.lower, unit,
                      out));
    return false;
  }
  return true;
}

void Elaborator::add(const netlist::ElementCard& e, Device device) {
  const std::string& name = device_name(device);
  auto [it, inserted] = element_spans_.emplace(name, e.span);
  if (!inserted) {
    netlist::Diagnostic d{
        netlist::Severity::kError, e.span, fmt::format("duplicate element name '{}'", name), {}};
    d.notes.push_back({netlist::Severity::kNote, it->second, "first defined here", {}});
    if (e.context) d.notes.insert(d.notes.end(), e.context->begin(), e.context->end());
    diags_.add(std::move(d));
    return;
  }
  cards_[name] = &e;
  c_.devices.push_back(std::move(device));
  c_.spans.push_back(e.span);
}

void Elaborator::lcp_solver_option(const netlist::Param& p) {
  if (const auto kind = solvers::parse_lcp_solver(p.raw.lower)) {
    c_.lcp_solver = *kind;
    return;
  }
  const std::vector<std::string> names = {"auto", "lemke", "murty", "enum", "pgs", "newton"};
  diags_.error(p.raw.span, fmt::format("unknown LCP solver '{}' in LCPSOLVER{}; expected one of "
                                       "auto, lemke, murty, enum, pgs, newton",
                                       p.raw.text, netlist::did_you_mean(p.raw.lower, names)));
}

double* Elaborator::event_option(const std::string& name) {
  if (name == "evrtol") return &c_.event.rtol;
  if (name == "evatol") return &c_.event.atol;
  if (name == "evtimetol") return &c_.event.time_tol;
  if (name == "evmaxstep") return &c_.event.h_max;
  return nullptr;
}

double* Elaborator::step_option(const std::string& name) {
  if (name == "reltol") return &c_.stepping.reltol;
  if (name == "abstol") return &c_.stepping.abstol;
  if (name == "vntol") return &c_.stepping.vntol;
  if (name == "chgtol") return &c_.stepping.chgtol;
  if (name == "trtol") return &c_.stepping.trtol;
  if (name == "step") return &c_.stepping.step;
  return nullptr;
}

void Elaborator::controls(const std::vector<netlist::Card>& cards) {
  for (const auto& card : cards) {
    if (const auto* ns = std::get_if<netlist::NodesetCard>(&card)) {
      diags_.warning(ns->span,
                     "'.nodeset' ignored: the operating point is a complementarity "
                     "problem solved exactly, it needs no start guess");
    }
    if (const auto* t = std::get_if<netlist::TranCard>(&card)) {
      if (c_.tran) diags_.warning(t->span, "several .tran cards: the last one is used");
      // NODISCARD (LTspice): the points before TSTART are kept, as if it were 0.
      TranSpec spec{t->tstep.value, t->tstop.value,
                    t->tstart && !t->nodiscard ? t->tstart->value : 0.0,
                    t->tmax ? t->tmax->value : 0.0, t->uic};
      bool ok = true;
      if (!(spec.tstep >= 0)) {  // 0: no print interval given (".tran TSTOP", ".tran 0 TSTOP")
        diags_.error(
            t->tstep.span,
            fmt::format(".tran step must be ≥ 0 (0: no print interval), got {}", spec.tstep));
        ok = false;
      }
      if (!(spec.tstart >= 0) || !(spec.tstop > spec.tstart)) {
        diags_.error(t->tstop.span,
                     fmt::format(".tran stop time {} must be after the start time {}", spec.tstop,
                                 spec.tstart));
        ok = false;
      }
      if (t->tmax && !(spec.tmax >= 0)) {  // 0: none, as ngspice reads ".tran 1u 1m 0 0"
        diags_.error(t->tmax->span,
                     fmt::format(".tran maximum step must be ≥ 0 (0: none), got {}", spec.tmax));
        ok = false;
      }
      if (ok) c_.tran = spec;
    } else if (const auto* o = std::get_if<netlist::OptionsCard>(&card)) {
      for (const auto& p : o->params) {
        if (p.name.lower == "theta") {
          if (!p.number || *p.number < 0.5 || *p.number > 1.0)
            diags_.error(p.raw.span,
                         fmt::format("THETA must be a number in [0.5, 1], got '{}'", p.raw.text));
          else
            c_.theta = *p.number;
        } else if (p.name.lower == "lcpsolver") {
          lcp_solver_option(p);
        } else if (p.name.lower == "method" && (p.raw.lower == "trap" || p.raw.lower == "gear")) {
          spice_method(p);
        } else if (p.name.lower == "method") {
          if (p.raw.lower == "event" || p.raw.lower == "theta")
            c_.method = p.raw.lower == "event" ? TranMethod::kEvent : TranMethod::kTheta;
          else
            diags_.error(p.raw.span,
                         fmt::format("unknown METHOD '{}'; expected theta or event (or SPICE's "
                                     "trap, gear){}",
                                     p.raw.text,
                                     netlist::did_you_mean(p.raw.lower,
                                                           {"theta", "event", "trap", "gear"})));
        } else if (double* target = event_option(p.name.lower)) {
          if (!p.number || !(*p.number > 0) || !std::isfinite(*p.number))
            diags_.error(p.raw.span, fmt::format("{} must be a positive number, got '{}'",
                                                 p.name.text, p.raw.text));
          else if (const double limit = p.name.lower == "evtimetol" ? 1e-3 : 1.0;
                   p.name.lower != "evmaxstep" && p.name.lower != "evatol" && !(*p.number < limit))
            diags_.error(p.raw.span, fmt::format("{} must be below {:g}, got {}", p.name.text,
                                                 limit, *p.number));
          else
            *target = *p.number;
        } else if (p.name.lower == "maxrows") {
          if (!p.number || !(*p.number >= 1) || !std::isfinite(*p.number))
            diags_.error(p.raw.span,
                         fmt::format("MAXROWS must be a number >= 1, got '{}'", p.raw.text));
          else
            c_.max_rows = *p.number;
        } else if (p.name.lower == "stepping") {
          if (p.raw.lower == "adaptive" || p.raw.lower == "fixed")
            c_.stepping.adaptive = p.raw.lower == "adaptive";
          else
            diags_.error(
                p.raw.span,
                fmt::format("unknown STEPPING '{}'; expected fixed or adaptive", p.raw.text));
        } else if (p.name.lower == "pwlkinks") {
          if (p.raw.lower == "smooth" || p.raw.lower == "switch")
            c_.stepping.smooth_kinks = p.raw.lower == "smooth";
          else
            diags_.error(p.raw.span, fmt::format("unknown PWLKINKS '{}'; expected smooth or switch",
                                                 p.raw.text));
        } else if (p.name.lower == "unstableop") {
          if (p.raw.lower == "kick" || p.raw.lower == "keep")
            c_.stepping.kick_unstable = p.raw.lower == "kick";
          else
            diags_.error(p.raw.span,
                         fmt::format("unknown UNSTABLEOP '{}'; expected kick or keep", p.raw.text));
        } else if (double* target = step_option(p.name.lower)) {
          if (!p.number || !(*p.number > 0) || !std::isfinite(*p.number))
            diags_.error(p.raw.span, fmt::format("{} must be a positive number, got '{}'",
                                                 p.name.text, p.raw.text));
          else if (p.name.lower == "reltol" && !(*p.number < 1))
            diags_.error(p.raw.span,
                         fmt::format("{} must be below 1, got {}", p.name.text, *p.number));
          else
            *target = *p.number;
          if (p.name.lower == "trtol")
            diags_.warning(p.name.span,
                           "option 'trtol' ignored: the error estimate of the adaptive θ-scheme "
                           "is not SPICE's divided-difference overestimate, it needs no factor");
        } else if (pwl_option(p)) {
          // pwltol, pwlqtol, pwlimin, pwlimax, idealize, gmin, temp, tnom: read by pwl_option
        } else if (const char* why = foreign_option_reason(p.name.lower)) {
          diags_.warning(p.name.span, fmt::format("option '{}' ignored: {}", p.name.text, why));
        } else {
          diags_.warning(p.name.span, fmt::format("unsupported option '{}' ignored", p.name.text));
        }
      }
    }
  }
}

}  // namespace detail

namespace detail {

// SPICE's METHOD=TRAP|GEAR: the nearest θ of nsspice's θ-scheme, said in one warning.
void Elaborator::spice_method(const netlist::Param& p) {
  const bool trap = p.raw.lower == "trap";
  c_.method = TranMethod::kTheta;
  c_.theta = trap ? 0.5 : 1.0;
  diags_.warning(p.raw.span,
                 trap ? fmt::format("METHOD={}: SPICE's trapezoidal rule is taken as nsspice's "
                                    "θ-scheme with θ = ½ (.options theta=0.5)",
                                    p.raw.text)
                      : fmt::format("METHOD={}: SPICE's Gear (BDF) integration is taken as "
                                    "nsspice's L-stable θ-scheme, θ = 1 (backward Euler, first "
                                    "order; .options theta=1)",
                                    p.raw.text));
}

}  // namespace detail

Circuit elaborate(const netlist::Netlist& netlist, netlist::Diagnostics& diags, ModelCards which,
                  const std::map<std::string, PwlRefit>& refit) {
  Circuit circuit;
  circuit.title = netlist.title;
  circuit.pwl.refit = refit;
  detail::Elaborator e(circuit, diags, which);
  e.models(netlist.cards);
  e.controls(netlist.cards);
  e.elements(netlist.cards);
  e.references();
  e.unused_models();
  // The analyses first: a .dc sweep's range of its source is part of the PWL fits' range.
  detail::elaborate_analyses(netlist.cards, circuit, diags);
  e.pwl_models();
  e.derived_summaries();
  if (!diags.has_errors()) check_topology(circuit, diags);
  if (!diags.has_errors()) {
    detail::place_mos_bias(circuit);
    detail::place_bias_knots(circuit);
  }
  return circuit;
}

const std::string& device_name(const Device& device) {
  return std::visit([](const auto& d) -> const std::string& { return d.name; }, device);
}

}  // namespace nsspice::circuit
