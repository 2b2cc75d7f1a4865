#include "circuit/elaborate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "circuit/names.hpp"

namespace nsspice::circuit {
namespace {

using netlist::Diagnostics;
using netlist::SourceSpan;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

class Elaborator {
 public:
  Elaborator(Circuit& circuit, Diagnostics& diags) : c_(circuit), diags_(diags) {
    c_.nodes = {"0"};
  }

  void models(const std::vector<netlist::Card>& cards);
  void controls(const std::vector<netlist::Card>& cards);
  void elements(const std::vector<netlist::Card>& cards);

 private:
  Circuit& c_;
  Diagnostics& diags_;
  std::map<std::string, DiodeModel> models_;
  std::map<std::string, SourceSpan> model_spans_;
  std::map<std::string, SourceSpan> element_spans_;
  std::map<std::string, int> node_index_;

  int node(const netlist::Word& w);
  bool positive(const netlist::ElementCard& e, const char* what, const char* unit, double& out);
  std::optional<double> param(const netlist::ElementCard& e, std::string_view name);
  void element(const netlist::ElementCard& e);
  std::optional<Waveform> waveform(const netlist::ElementCard& e);
  std::optional<Waveform> source_function(const netlist::SourceFunction& f);
  void diode(const netlist::ElementCard& e);
  void add(Device device, const SourceSpan& span);
};

int Elaborator::node(const netlist::Word& w) {
  if (w.lower == "0" || w.lower == "gnd") return 0;
  auto [it, inserted] = node_index_.emplace(w.lower, static_cast<int>(c_.nodes.size()));
  if (inserted) c_.nodes.push_back(w.lower);
  return it->second;
}

std::optional<double> Elaborator::param(const netlist::ElementCard& e, std::string_view name) {
  for (const auto& p : e.params) {
    if (p.name.lower != name) continue;
    if (!p.number) {
      diags_.error(p.raw.span,
                   fmt::format("expected a number for '{}', got '{}'", p.name.text, p.raw.text));
      return std::nullopt;
    }
    return p.number;
  }
  return std::nullopt;
}

bool Elaborator::positive(const netlist::ElementCard& e, const char* what, const char* unit,
                          double& out) {
  if (!e.value) {
    diags_.error(e.name.span, fmt::format("{} '{}' has no value", what, e.name.lower));
    return false;
  }
  out = e.value->value;
  if (!(out > 0)) {
    diags_.error(e.value->span, fmt::format("{} '{}' must have a positive value in {}, got {}",
                                            what, e.name.lower, unit, out));
    return false;
  }
  return true;
}

void Elaborator::add(Device device, const SourceSpan& span) {
  const std::string& name = device_name(device);
  auto [it, inserted] = element_spans_.emplace(name, span);
  if (!inserted) {
    netlist::Diagnostic d{
        netlist::Severity::kError, span, fmt::format("duplicate element name '{}'", name), {}};
    d.notes.push_back({netlist::Severity::kNote, it->second, "first defined here", {}});
    diags_.add(std::move(d));
    return;
  }
  c_.devices.push_back(std::move(device));
  c_.spans.push_back(span);
}

void Elaborator::models(const std::vector<netlist::Card>& cards) {
  for (const auto& card : cards) {
    const auto* m = std::get_if<netlist::ModelCard>(&card);
    if (m == nullptr) continue;
    if (m->type.lower != "d") {
      diags_.error(m->type.span,
                   fmt::format("unsupported model type '{}' (supported: D)", m->type.text));
      continue;
    }
    if (auto it = model_spans_.find(m->name.lower); it != model_spans_.end()) {
      netlist::Diagnostic d{netlist::Severity::kError,
                            m->name.span,
                            fmt::format("duplicate model name '{}'", m->name.lower),
                            {}};
      d.notes.push_back({netlist::Severity::kNote, it->second, "first defined here", {}});
      diags_.add(std::move(d));
      continue;
    }
    DiodeModel model{m->name.lower, 0, 0, 0};
    std::vector<std::string> ignored;
    for (const auto& p : m->params) {
      const std::string& k = p.name.lower;
      const bool known = k == "vf" || k == "ron" || k == "goff" || k == "roff";
      if (!known) {
        ignored.push_back(p.name.text);
        continue;
      }
      if (!p.number || *p.number < 0) {
        diags_.error(p.raw.span,
                     fmt::format("diode model parameter '{}' must be a number ≥ 0, got '{}'",
                                 p.name.text, p.raw.text));
        continue;
      }
      if (k == "vf") model.vf = *p.number;
      if (k == "ron") model.ron = *p.number;
      if (k == "goff") model.goff = *p.number;
      if (k == "roff") model.goff = *p.number > 0 ? 1.0 / *p.number : 0.0;
    }
    if (!ignored.empty()) {
      std::string list;
      for (const auto& s : ignored) list += (list.empty() ? "" : ", ") + s;
      diags_.warning(m->name.span, fmt::format("diode model '{}': parameters {} are ignored by the "
                                               "ideal diode (it uses VF, RON, GOFF/ROFF)",
                                               m->name.lower, list));
    }
    models_[model.name] = model;
    model_spans_[model.name] = m->name.span;
  }
}

void Elaborator::controls(const std::vector<netlist::Card>& cards) {
  for (const auto& card : cards) {
    if (const auto* t = std::get_if<netlist::TranCard>(&card)) {
      if (c_.tran) diags_.warning(t->span, "several .tran cards: the last one is used");
      TranSpec spec{t->tstep.value, t->tstop.value, t->tstart ? t->tstart->value : 0.0,
                    t->tmax ? t->tmax->value : 0.0, t->uic};
      bool ok = true;
      if (!(spec.tstep > 0)) {
        diags_.error(t->tstep.span, fmt::format(".tran step must be positive, got {}", spec.tstep));
        ok = false;
      }
      if (!(spec.tstart >= 0) || !(spec.tstop > spec.tstart)) {
        diags_.error(t->tstop.span,
                     fmt::format(".tran stop time {} must be after the start time {}", spec.tstop,
                                 spec.tstart));
        ok = false;
      }
      if (t->tmax && !(spec.tmax > 0)) {
        diags_.error(t->tmax->span, ".tran maximum step must be positive");
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
        } else {
          diags_.warning(p.name.span, fmt::format("unsupported option '{}' ignored", p.name.text));
        }
      }
    }
  }
}

void Elaborator::elements(const std::vector<netlist::Card>& cards) {
  for (const auto& card : cards)
    if (const auto* e = std::get_if<netlist::ElementCard>(&card)) element(*e);
  for (const auto& card : cards) {
    const auto* ic = std::get_if<netlist::IcCard>(&card);
    if (ic == nullptr) continue;
    for (const auto& entry : ic->entries) {
      if (entry.node.lower == "0" || entry.node.lower == "gnd") {
        diags_.error(entry.node.span, "the ground node's voltage is 0 by definition");
        continue;
      }
      auto it = node_index_.find(entry.node.lower);
      if (it == node_index_.end()) {
        std::vector<std::string> names;
        for (const auto& [k, v] : node_index_) names.push_back(k);
        diags_.error(entry.node.span, fmt::format("unknown node '{}' in .ic{}", entry.node.text,
                                                  did_you_mean(entry.node.lower, names)));
        continue;
      }
      if (std::any_of(c_.ic.begin(), c_.ic.end(),
                      [&](const auto& e) { return e.first == it->second; })) {
        diags_.error(entry.node.span,
                     fmt::format("node '{}' is given twice in .ic", entry.node.lower));
        continue;
      }
      c_.ic.emplace_back(it->second, entry.value.value);
    }
  }
}

void Elaborator::element(const netlist::ElementCard& e) {
  const std::string& name = e.name.lower;
  const char letter = name.empty() ? '\0' : name[0];
  if (e.nodes.size() < 2) {
    diags_.error(e.name.span, fmt::format("element '{}' needs two nodes", name));
    return;
  }
  const int a = node(e.nodes[0]);
  const int b = node(e.nodes[1]);
  // Instance parameters understood per element; any other is reported, never dropped silently.
  std::vector<std::string_view> known;
  if (letter == 'c' || letter == 'l') known = {"ic"};
  if (letter == 'v' || letter == 'i') known = {"ac", "acphase"};
  for (const auto& p : e.params) {
    if (std::find(known.begin(), known.end(), p.name.lower) == known.end())
      diags_.warning(
          p.name.span,
          fmt::format("parameter '{}' of '{}' is not supported and is ignored", p.name.text, name));
  }
  switch (letter) {
    case 'r': {
      double r;
      if (positive(e, "resistor", "ohms", r)) add(Resistor{name, a, b, r}, e.span);
      break;
    }
    case 'c': {
      double c;
      if (positive(e, "capacitor", "farads", c))
        add(Capacitor{name, a, b, c, param(e, "ic")}, e.span);
      break;
    }
    case 'l': {
      double l;
      if (positive(e, "inductor", "henries", l))
        add(Inductor{name, a, b, l, param(e, "ic")}, e.span);
      break;
    }
    case 'v':
    case 'i': {
      auto wave = waveform(e);
      if (!wave) break;
      if (letter == 'v')
        add(VoltageSource{name, a, b, std::move(*wave)}, e.span);
      else
        add(CurrentSource{name, a, b, std::move(*wave)}, e.span);
      break;
    }
    case 'd':
      diode(e);
      break;
    default:
      diags_.error(e.name.span, fmt::format("unsupported element type '{}' (element '{}')",
                                            static_cast<char>(std::toupper(letter)), e.name.text));
  }
}

void Elaborator::diode(const netlist::ElementCard& e) {
  if (!e.model) {
    diags_.error(e.name.span, fmt::format("diode '{}' needs a model name", e.name.lower));
    return;
  }
  auto it = models_.find(e.model->lower);
  if (it == models_.end()) {
    std::vector<std::string> names;
    for (const auto& [k, v] : models_) names.push_back(k);
    diags_.error(e.model->span, fmt::format("unknown model '{}' for diode '{}'{}", e.model->text,
                                            e.name.lower, did_you_mean(e.model->lower, names)));
    return;
  }
  add(Diode{e.name.lower, node(e.nodes[0]), node(e.nodes[1]), it->second}, e.span);
}

std::optional<Waveform> Elaborator::waveform(const netlist::ElementCard& e) {
  if (e.functions.empty()) return Dc{e.value ? e.value->value : 0.0};
  if (e.functions.size() > 1)
    diags_.warning(e.functions[1].span, "only the first source function is used");
  return source_function(e.functions[0]);
}

std::optional<Waveform> Elaborator::source_function(const netlist::SourceFunction& f) {
  std::vector<double> a;
  for (const auto& v : f.args) a.push_back(v.value);
  auto arg = [&](size_t i, double fallback) { return i < a.size() ? a[i] : fallback; };
  const double tstep = c_.tran ? c_.tran->tstep : 0.0;
  const double tstop = c_.tran ? c_.tran->tstop : 0.0;
  const std::string& kind = f.kind.lower;
  auto arity = [&](size_t lo, size_t hi, const char* usage) {
    if (a.size() >= lo && a.size() <= hi) return true;
    diags_.error(f.span, fmt::format("{} takes {} to {} arguments ({}), got {}", f.kind.text, lo,
                                     hi, usage, a.size()));
    return false;
  };
  if (kind == "sin") {
    if (!arity(2, 6, "vo va freq td theta phase")) return std::nullopt;
    const double freq = arg(2, 0.0) != 0.0 ? arg(2, 0.0) : (tstop > 0 ? 1.0 / tstop : 0.0);
    return Sin{a[0], a[1], freq, arg(3, 0.0), arg(4, 0.0), arg(5, 0.0)};
  }
  if (kind == "pulse") {
    if (!arity(2, 7, "v1 v2 td tr tf pw per")) return std::nullopt;
    auto nonzero = [](double v, double fallback) { return v != 0.0 ? v : fallback; };
    Pulse p{a[0],
            a[1],
            arg(2, 0.0),
            nonzero(arg(3, 0.0), tstep),
            nonzero(arg(4, 0.0), tstep),
            nonzero(arg(5, 0.0), tstop),
            nonzero(arg(6, 0.0), tstop)};
    if (p.td < 0 || p.tr < 0 || p.tf < 0 || p.pw < 0 || p.per < 0) {
      diags_.error(f.span, "PULSE times must not be negative");
      return std::nullopt;
    }
    if (p.per < p.tr + p.pw + p.tf) p.per = 0;  // one pulse only (no repetition fits)
    return p;
  }
  if (kind == "pwl") {
    if (a.size() < 2 || a.size() % 2 != 0) {
      diags_.error(f.span,
                   fmt::format("PWL needs pairs of time and value, got {} numbers", a.size()));
      return std::nullopt;
    }
    Pwl p;
    for (size_t i = 0; i < a.size(); i += 2) {
      if (!p.t.empty() && !(a[i] > p.t.back())) {
        diags_.error(f.args[i].span,
                     fmt::format("PWL times must increase: {} after {}", a[i], p.t.back()));
        return std::nullopt;
      }
      p.t.push_back(a[i]);
      p.v.push_back(a[i + 1]);
    }
    return p;
  }
  diags_.error(f.kind.span, fmt::format("unsupported source function '{}'", f.kind.text));
  return std::nullopt;
}

}  // namespace

Circuit elaborate(const netlist::Netlist& netlist, Diagnostics& diags) {
  Circuit circuit;
  circuit.title = netlist.title;
  Elaborator e(circuit, diags);
  e.models(netlist.cards);
  e.controls(netlist.cards);
  e.elements(netlist.cards);
  return circuit;
}

const std::string& device_name(const Device& device) {
  return std::visit([](const auto& d) -> const std::string& { return d.name; }, device);
}

}  // namespace nsspice::circuit
