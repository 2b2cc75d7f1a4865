// .model cards → device models. Supported types and parameters (defaults: the ideal device):
//   D     VF RON GOFF|ROFF BV RZ      (other SPICE diode parameters: accepted, one warning)
//   SW    VT VH RON ROFF               S element, voltage controlled; ROFF=INF or absent: open
//   CSW   IT IH RON ROFF               W element, current controlled
//         VH|IH < 0 (SPICE's smooth transition over VT ± |VH|): the ideal switch with
//         hysteresis |VH|, with a warning that gives the numbers
//   COMP  VLOW|VOL VHIGH|VOH EPS       E element in comparator form
//   NMOS PMOS  KP VTO SEGMENTS|NSEG VMAX   (LEVEL, LAMBDA, ... accepted, one warning)
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "circuit/src/elaborator.hpp"

namespace nsspice::circuit::detail {
namespace {

enum class Range { kAny, kNonNegative, kPositive };

struct Spec {
  const char* name;
  double* target;
  Range range;
};

bool in_range(double v, Range r) {
  return std::isfinite(v) && (r == Range::kAny || (r == Range::kNonNegative ? v >= 0 : v > 0));
}

const char* range_text(Range r) {
  return r == Range::kPositive ? " > 0" : r == Range::kNonNegative ? " ≥ 0" : "";
}

// ROFF: a resistance, "inf"/"infinity" or absent for an open switch/diode. Returns GOFF.
std::optional<double> off_conductance(const netlist::Param& p) {
  if (p.raw.lower == "inf" || p.raw.lower == "infinity") return 0.0;
  if (!p.number || !(*p.number > 0)) return std::nullopt;
  return std::isinf(*p.number) ? 0.0 : 1.0 / *p.number;
}

}  // namespace

void Elaborator::models(const std::vector<netlist::Card>& cards) {
  for (const auto& card : cards)
    if (const auto* m = std::get_if<netlist::ModelCard>(&card)) model(*m);
}

void Elaborator::model(const netlist::ModelCard& m) {
  const std::string& type = m.type.lower;
  if (auto it = model_spans_.find(m.name.lower); it != model_spans_.end()) {
    netlist::Diagnostic d{netlist::Severity::kError,
                          m.name.span,
                          fmt::format("duplicate model name '{}'", m.name.lower),
                          {}};
    d.notes.push_back({netlist::Severity::kNote, it->second, "first defined here", {}});
    diags_.add(std::move(d));
    return;
  }
  Model model;
  std::vector<Spec> specs;
  double segments = 6;
  const char* uses = "";
  if (type == "d") {
    model = DiodeModel{m.name.lower};
    auto& d = std::get<DiodeModel>(model);
    specs = {{"vf", &d.vf, Range::kNonNegative},
             {"ron", &d.ron, Range::kNonNegative},
             {"goff", &d.goff, Range::kNonNegative},
             {"bv", &d.bv, Range::kPositive},
             {"rz", &d.rz, Range::kNonNegative}};
    uses = "the ideal diode uses VF, RON, GOFF/ROFF, BV, RZ";
  } else if (type == "sw" || type == "csw") {
    model = SwitchModel{m.name.lower, type == "csw"};
    auto& s = std::get<SwitchModel>(model);
    const bool i = type == "csw";
    specs = {{i ? "it" : "vt", &s.threshold, Range::kAny},
             {i ? "ih" : "vh", &s.hysteresis, Range::kAny},  // < 0: see below
             {"ron", &s.ron, Range::kNonNegative},
             {"goff", &s.goff, Range::kNonNegative}};
    uses =
        i ? "the ideal switch uses IT, IH, RON, ROFF" : "the ideal switch uses VT, VH, RON, ROFF";
  } else if (type == "comp") {
    model = ComparatorModel{m.name.lower};
    auto& c = std::get<ComparatorModel>(model);
    specs = {{"vlow", &c.vlow, Range::kAny},
             {"vhigh", &c.vhigh, Range::kAny},
             {"vol", &c.vlow, Range::kAny},  // VOL/VOH: the other names of the output levels
             {"voh", &c.vhigh, Range::kAny},
             {"eps", &c.eps, Range::kNonNegative}};
    uses = "the comparator uses VLOW|VOL, VHIGH|VOH, EPS";
  } else if (type == "nmos" || type == "pmos") {
    model = MosModel{m.name.lower, type == "pmos"};
    auto& q = std::get<MosModel>(model);
    specs = {{"kp", &q.kp, Range::kPositive},
             {"vto", &q.vto, Range::kAny},
             {"segments", &segments, Range::kPositive},
             {"nseg", &segments, Range::kPositive},
             {"vmax", &q.vmax, Range::kPositive}};
    uses = "the PWL MOS model uses KP, VTO, SEGMENTS, VMAX";
  } else {
    diags_.error(m.type.span,
                 fmt::format("unsupported model type '{}' (supported: D, SW, CSW, COMP, "
                             "NMOS, PMOS)",
                             m.type.text));
    return;
  }
  std::string ignored;
  for (const auto& p : m.params) {
    const std::string& k = p.name.lower;
    if (k == "roff" && (type == "d" || type == "sw" || type == "csw")) {
      const auto g = off_conductance(p);
      if (!g) {
        diags_.error(p.raw.span,
                     fmt::format("ROFF must be a resistance > 0 or INF, got '{}'", p.raw.text));
        continue;
      }
      std::visit(
          [&](auto& mm) {
            if constexpr (requires { mm.goff; }) mm.goff = *g;
          },
          model);
      continue;
    }
    auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const Spec& s) { return k == s.name; });
    if (spec == specs.end()) {
      ignored += (ignored.empty() ? "" : ", ") + p.name.text;
      continue;
    }
    if (!p.number || !in_range(*p.number, spec->range)) {
      diags_.error(p.raw.span, fmt::format("model parameter '{}' must be a number{}, got '{}'",
                                           p.name.text, range_text(spec->range), p.raw.text));
      continue;
    }
    *spec->target = *p.number;
  }
  if (auto* q = std::get_if<MosModel>(&model)) {
    q->segments = static_cast<int>(segments);
    if (q->segments < 2 || q->segments != segments)
      diags_.error(m.name.span, fmt::format("SEGMENTS must be an integer ≥ 2, got {}", segments));
  }
  if (auto* s = std::get_if<SwitchModel>(&model); s != nullptr && s->hysteresis < 0) {
    // LTspice/ngspice: VH < 0 is a smooth transition from ROFF to RON over VT ± |VH|.
    s->hysteresis = -s->hysteresis;
    const char* u = s->current_controlled ? "A" : "V";
    const char* vh = s->current_controlled ? "IH" : "VH";
    diags_.warning(
        m.name.span,
        fmt::format("model '{}': {} = {:g} {} (a smooth transition over {:g} .. {:g} {}) "
                    "approximated by the ideal switch with hysteresis {:g} {}: on "
                    "above {:g} {}, off below {:g} {}",
                    m.name.lower, vh, -s->hysteresis, u, s->threshold - s->hysteresis,
                    s->threshold + s->hysteresis, u, s->hysteresis, u, s->threshold + s->hysteresis,
                    u, s->threshold - s->hysteresis, u));
  }
  if (!ignored.empty())
    diags_.warning(m.name.span, fmt::format("model '{}': parameters {} are ignored ({})",
                                            m.name.lower, ignored, uses));
  models_[m.name.lower] = std::move(model);
  model_spans_[m.name.lower] = m.name.span;
}

}  // namespace nsspice::circuit::detail
