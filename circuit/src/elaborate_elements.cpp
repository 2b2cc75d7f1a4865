// Element cards → devices (the fields each letter uses: netlist/ast.hpp), with value checks,
// model lookup and the source waveforms' SPICE defaults; references (F, H, W, K) are checked
// once every element is known.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <utility>

#include "circuit/src/elaborator.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::circuit::detail {

void Elaborator::elements(const std::vector<netlist::Card>& cards) {
  // One allocation for the devices (about 1 kB each): grown by doubling, a sweep's run of a
  // 9000-element netlist faulted in about 16 MB more of fresh pages for them.
  const auto n =
      static_cast<std::size_t>(std::count_if(cards.begin(), cards.end(), [](const auto& c) {
        return std::holds_alternative<netlist::ElementCard>(c);
      }));
  c_.devices.reserve(c_.devices.size() + n);
  c_.spans.reserve(c_.spans.size() + n);
  for (const auto& card : cards)  // the nodes a behavioural expression may name
    if (const auto* e = std::get_if<netlist::ElementCard>(&card))
      for (const auto& n : e->nodes) netlist_nodes_.insert(n.lower);
  for (const auto& card : cards) {
    const auto* e = std::get_if<netlist::ElementCard>(&card);
    if (e == nullptr) continue;
    if (behavioural_expression(*e) != nullptr)
      behavioural(*e);
    else
      element(*e);
  }
  for (const auto& card : cards) {
    const auto* ic = std::get_if<netlist::IcCard>(&card);
    if (ic == nullptr) continue;
    for (const auto& entry : ic->entries) {
      if (entry.current) {
        inductor_ic(entry);
        continue;
      }
      if (entry.node.lower == "0" || entry.node.lower == "gnd") {
        diags_.error(entry.node.span, "the ground node's voltage is 0 by definition");
        continue;
      }
      auto it = node_index_.find(entry.node.lower);
      if (it == node_index_.end()) {
        std::vector<std::string> names;
        for (const auto& [k, v] : node_index_) names.push_back(k);
        diags_.error(entry.node.span, fmt::format("unknown node '{}' in .ic{}", entry.node.text,
                                                  netlist::did_you_mean(entry.node.lower, names)));
        continue;
      }
      if (std::any_of(c_.ic.begin(), c_.ic.end(),
                      [&](const auto& x) { return x.first == it->second; })) {
        diags_.error(entry.node.span,
                     fmt::format("node '{}' is given twice in .ic", entry.node.lower));
        continue;
      }
      c_.ic.emplace_back(it->second, entry.value.value);
    }
  }
}

void Elaborator::inductor_ic(const netlist::IcEntry& entry) {
  // LTspice's .ic I(L1)=value: the inductor's initial current. Under UIC it is the inductor's
  // IC=; otherwise the operating point holds it (Circuit::ic_currents).
  std::vector<std::string> inductors;
  for (size_t i = 0; i < c_.devices.size(); ++i) {
    auto* l = std::get_if<Inductor>(&c_.devices[i]);
    if (l == nullptr) continue;
    if (l->name != entry.node.lower) {
      inductors.push_back(l->name);
      continue;
    }
    if (l->ic) {
      diags_.error(entry.span,
                   fmt::format("inductor '{}' has its initial current twice: IC={:g} on its card "
                               "and .ic I({})={:g}; give one",
                               l->name, *l->ic, entry.node.text, entry.value.value));
      return;
    }
    l->ic = entry.value.value;
    c_.ic_currents.push_back(static_cast<int>(i));
    return;
  }
  const bool other = std::any_of(c_.devices.begin(), c_.devices.end(), [&](const Device& d) {
    return device_name(d) == entry.node.lower;
  });
  diags_.error(entry.node.span,
               other ? fmt::format("'{}' in .ic I({}) is not an inductor: .ic sets node voltages "
                                   "V(node) and inductor currents I(L) only",
                                   entry.node.text, entry.node.text)
                     : fmt::format("unknown inductor '{}' in .ic{}", entry.node.text,
                                   netlist::did_you_mean(entry.node.lower, inductors)));
}

void Elaborator::element(const netlist::ElementCard& e) {
  const char letter = e.letter != 0 ? e.letter : (e.name.lower.empty() ? '\0' : e.name.lower[0]);
  // Instance parameters understood per element; any other is reported, never dropped silently.
  std::vector<std::string_view> known;
  if (letter == 'r') known = {"m", "tc1", "tc2", "tc", "tce", "temp", "dtemp", "scale"};
  if (letter == 'r' && e.model) known.insert(known.end(), {"l", "w"});  // RSH·L/W
  if (letter == 'c') known = {"ic", "rser", "lser", "rpar", "cpar", "m"};
  if (letter == 'l') known = {"ic", "rser", "rpar", "cpar", "m"};
  if (letter == 'v') known = {"ac", "acphase", "rser", "cpar"};
  if (letter == 'i') known = {"ac", "acphase"};
  if (letter == 'm') known = {"w", "l", "m"};
  if (letter == 'q' || letter == 'd') known = {"area", "m"};
  if (letter == 'b') known = {"v", "i"};
  for (const auto& p : e.params) {
    if (std::find(known.begin(), known.end(), p.name.lower) == known.end())
      warning(e, p.name.span,
              fmt::format("parameter '{}' of '{}' is not supported and is ignored", p.name.text,
                          e.name.lower));
  }
  switch (letter) {
    case 'r':
    case 'c':
    case 'l':
    case 'v':
    case 'i':
      passive(e, letter);
      break;
    case 'e':
    case 'g':
    case 'f':
    case 'h':
    case 'k':
      if (letter == 'e' && e.model) {
        nonsmooth(e, letter);
      } else {
        controlled(e, letter);
      }
      break;
    case 'd':
    case 's':
    case 'w':
      nonsmooth(e, letter);
      break;
    case 'm':
      mosfet(e);
      break;
    case 'q':
      bjt(e);
      break;
    default:
      error(e, e.name.span,
            fmt::format("unsupported element type '{}' (element '{}')",
                        static_cast<char>(std::toupper(letter)), e.name.text));
  }
}

// LTspice's parasitics of C, L and V as elements of their own, named after the element:
//   n+ ── Rser "X.rser" ── node X.rser ── Lser "X.lser" ── node X.lser ── X ── n−
//   Rpar "X.rpar" and Cpar "X.cpar" from n+ to n− (across the whole element).
// A value 0 (or absent) adds nothing. Returns the node X's own first terminal connects to.
int Elaborator::parasitics(const netlist::ElementCard& e, int a, int b) {
  const std::string& name = e.name.lower;
  auto value = [&](const char* key) -> double {
    const auto v = param(e, key);
    if (!v) return 0;
    if (!(*v >= 0) || !std::isfinite(*v)) {
      error(e, e.name.span, fmt::format("{} of '{}' must be ≥ 0, got {}", key, name, *v));
      return 0;
    }
    return *v;
  };
  auto inner = [&](const char* key) {
    netlist::Word w = e.name;
    w.text = w.lower = name + "." + key;
    return node(w);
  };
  const int n_plus = a;
  if (const double r = value("rser"); r > 0) {
    const int n = inner("rser");
    add(e, Resistor{name + ".rser", a, n, r});
    a = n;
  }
  if (const double l = value("lser"); l > 0) {
    const int n = inner("lser");
    add(e, Inductor{name + ".lser", a, n, l, std::nullopt});
    a = n;
  }
  if (const double r = value("rpar"); r > 0) add(e, Resistor{name + ".rpar", n_plus, b, r});
  if (const double c = value("cpar"); c > 0)
    add(e, Capacitor{name + ".cpar", n_plus, b, c, std::nullopt});
  return a;
}

void Elaborator::passive(const netlist::ElementCard& e, char letter) {
  if (!nodes_ok(e, 2, "element")) return;
  const std::string& name = e.name.lower;
  const int n_plus = node(e.nodes[0]), b = node(e.nodes[1]);
  const int a = letter == 'r' || letter == 'i' ? n_plus : parasitics(e, n_plus, b);
  double v = 0;
  // M=m: m elements in parallel (SPICE's multiplier, written by xschem): R/m, C·m, L/m.
  double m = 1;
  if (const auto given = param(e, "m");
      given && (letter == 'r' || letter == 'c' || letter == 'l')) {
    if (*given > 0 && std::isfinite(*given))
      m = *given;
    else
      error(e, e.name.span, fmt::format("m of '{}' must be > 0, got {}", name, *given));
  }
  if (letter == 'r' && !resistor(e, m) && positive(e, "resistor", "ohms", v))
    add(e, Resistor{name, a, b, v / m});
  if (letter == 'c' && positive(e, "capacitor", "farads", v))
    add(e, Capacitor{name, a, b, v * m, param(e, "ic")});
  if (letter == 'l' && positive(e, "inductor", "henries", v))
    add(e, Inductor{name, a, b, v / m, param(e, "ic")});
  if (letter == 'v' || letter == 'i') {
    auto wave = waveform(e);
    if (!wave) return;
    const double ac_mag = param(e, "ac").value_or(0);
    const double ac_phase = param(e, "acphase").value_or(0);
    std::optional<double> dc;
    if (e.value && !e.functions.empty()) dc = e.value->value;
    if (letter == 'v')
      add(e, VoltageSource{name, a, b, std::move(*wave), ac_mag, ac_phase, dc});
    else
      add(e, CurrentSource{name, a, b, std::move(*wave), ac_mag, ac_phase, dc});
  }
}

void Elaborator::controlled(const netlist::ElementCard& e, char letter) {
  const std::string& name = e.name.lower;
  double v = 0;
  if (letter == 'k') {
    if (e.refs.size() < 2) {
      error(e, e.name.span, fmt::format("mutual inductance '{}' needs two inductor names", name));
      return;
    }
    for (size_t i = 1; i < e.refs.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (e.refs[i].lower == e.refs[j].lower) {
          error(e, e.refs[i].span,
                fmt::format("mutual inductance '{}' names inductor '{}' twice", name,
                            e.refs[i].lower));
          return;
        }
    if (!number(e, "mutual inductance", v)) return;
    if (!(std::abs(v) <= 1)) {
      error(e, e.value->span,
            fmt::format("coupling of '{}' must be in [-1, 1] (negative: one winding reversed), "
                        "got {}",
                        name, v));
      return;
    }
    if (v == 0) return;  // no coupling (ngspice takes k = 0 too)
    // LTspice's K L1 L2 L3 ... k: every pair coupled by k, as one K card per pair would be; the
    // pairs are named "<k>(<l1>,<l2>)".
    for (size_t i = 0; i < e.refs.size(); ++i)
      for (size_t j = i + 1; j < e.refs.size(); ++j) {
        const std::string& a = e.refs[i].lower;
        const std::string& b = e.refs[j].lower;
        add(e, Mutual{e.refs.size() == 2 ? name : fmt::format("{}({},{})", name, a, b), a, b, v});
      }
    return;
  }
  const bool current_controlled = letter == 'f' || letter == 'h';
  if (!e.functions.empty() && e.functions[0].kind.lower == "poly") {
    poly1(e, letter);
    return;
  }
  if (!nodes_ok(e, current_controlled ? 2 : 4, "controlled source") ||
      !number(e, "controlled source", v))
    return;
  const int p = node(e.nodes[0]), n = node(e.nodes[1]);
  if (current_controlled) {
    if (e.refs.size() != 1) {
      error(e, e.name.span,
            fmt::format("'{}' needs the name of its controlling voltage source", name));
      return;
    }
    if (letter == 'f')
      add(e, Cccs{name, p, n, e.refs[0].lower, v});
    else
      add(e, Ccvs{name, p, n, e.refs[0].lower, v});
    return;
  }
  const int cp = node(e.nodes[2]), cn = node(e.nodes[3]);
  if (letter == 'e')
    add(e, Vcvs{name, p, n, cp, cn, v});
  else
    add(e, Vccs{name, p, n, cp, cn, v});
}

std::vector<std::string> Elaborator::model_names() const {
  std::vector<std::string> names;
  for (const auto& [k, v] : model_cards_) names.push_back(k);
  return names;
}

template <class M>
const M* Elaborator::model_of(const netlist::ElementCard& e, const char* what, const char* type) {
  if (!e.model) {
    error(e, e.name.span, fmt::format("{} '{}' needs a model name", what, e.name.lower));
    return nullptr;
  }
  if (!model_cards_.contains(e.model->lower)) {
    error(e, e.model->span,
          fmt::format("unknown model '{}' for {} '{}'{}", e.model->text, what, e.name.lower,
                      netlist::did_you_mean(e.model->lower, model_names())));
    return nullptr;
  }
  used_models_.insert(e.model->lower);
  const Model* model = used_model(e, what);
  if (model == nullptr) return nullptr;  // its card's errors are reported
  const M* m = std::get_if<M>(model);
  if (m == nullptr)
    error(e, e.model->span,
          fmt::format("model '{}' is not a {} model, which {} '{}' needs", e.model->lower, type,
                      what, e.name.lower));
  return m;
}

// M and Q cards look their models up from elaborate_transistors.cpp, R cards from
// elaborate_resistor.cpp.
template const ResistorModel* Elaborator::model_of<ResistorModel>(const netlist::ElementCard&,
                                                                  const char*, const char*);
template const MosModel* Elaborator::model_of<MosModel>(const netlist::ElementCard&, const char*,
                                                        const char*);
template const BjtModel* Elaborator::model_of<BjtModel>(const netlist::ElementCard&, const char*,
                                                        const char*);

const DiodeModel* Elaborator::diode_instance_model(const netlist::ElementCard& e,
                                                   const DiodeModel& m) {
  // ngspice's level-1 diode (docs/devices.md, "Area and M"): a junction of AREA·M times the
  // card's, RS over it; the breakdown current IBV times M only (ngspice: cbv = M·IBV, and the
  // reverse branch I = cbv·e^{(−v−BV)/(NBV·Vt)} does not involve IS). A model that is not a SPICE
  // junction (ideal, or VF/RON as written) takes M as M devices in parallel; its AREA means
  // nothing and is reported as ignored.
  double area = e.value ? e.value->value : 1.0;
  if (auto a = param(e, "area")) area = *a;
  const double mult = param(e, "m").value_or(1.0);
  for (const auto& [what, v] : {std::pair{"an area", area}, std::pair{"M", mult}})
    if (!(v > 0) || !std::isfinite(v)) {
      error(e, e.name.span,
            fmt::format("diode '{}' needs {} > 0, got {:g}", e.name.lower, what, v));
      return nullptr;
    }
  if (!m.spice && area != 1.0) {
    warning(e, e.name.span,
            fmt::format("area {:g} of diode '{}' is ignored: model '{}' is not a SPICE junction "
                        "model (IS, N, ...); M= scales it as devices in parallel",
                        area, e.name.lower, m.name));
    area = 1.0;
  }
  if (area == 1.0 && mult == 1.0) {
    plain_cards_.insert(m.name);
    return &m;
  }
  std::string key = m.name + "(";
  if (area != 1.0) key += fmt::format("area={:g}", area);
  if (mult != 1.0) key += fmt::format("{}m={:g}", area != 1.0 ? "," : "", mult);
  key += ")";
  if (auto it = models_.find(key); it != models_.end()) return std::get_if<DiodeModel>(&it->second);
  DiodeModel d = scaled_diode(m, area, mult);
  d.name = key;
  d.card = m.card_name();
  return std::get_if<DiodeModel>(&models_.emplace(key, std::move(d)).first->second);
}

DiodeModel scaled_diode(const DiodeModel& m, double area, double mult) {
  DiodeModel d = m;
  d.area *= area;
  d.mult *= mult;
  const double s = area * mult;
  if (d.spice) {
    d.is *= s, d.isr *= s, d.ikf *= s, d.cjo *= s, d.rs /= s;
    d.ibv *= mult;
  }
  d.ron /= mult, d.goff *= mult, d.rz /= mult, d.ilimit *= mult, d.rev_ilimit *= mult;
  return d;
}

void Elaborator::nonsmooth(const netlist::ElementCard& e, char letter) {
  const std::string& name = e.name.lower;
  const bool flag_on = std::any_of(e.flags.begin(), e.flags.end(),
                                   [](const netlist::Word& w) { return w.lower == "on"; });
  if (letter == 'd') {
    if (!nodes_ok(e, 2, "diode")) return;
    if (const auto* m = model_of<DiodeModel>(e, "diode", "D"))
      if (const auto* scaled = diode_instance_model(e, *m))
        add(e, Diode{name, node(e.nodes[0]), node(e.nodes[1]), *scaled});
  } else if (letter == 's') {
    if (!nodes_ok(e, 4, "switch")) return;
    const auto* m = model_of<SwitchModel>(e, "switch", "SW or VSWITCH");
    if (m == nullptr) return;
    if (m->current_controlled) {
      error(e, e.model->span,
            fmt::format("S switch '{}' needs an SW model, '{}' is CSW (use a W element)", name,
                        m->name));
      return;
    }
    // An inverted model (on below VT): on above −VT in v(cn) − v(cp).
    SwitchModel model = *m;
    const bool swap = model.inverted;
    if (swap) model.threshold = -model.threshold, model.inverted = false;
    add(e, Switch{name,
                  node(e.nodes[0]),
                  node(e.nodes[1]),
                  node(e.nodes[swap ? 3 : 2]),
                  node(e.nodes[swap ? 2 : 3]),
                  {},
                  model,
                  flag_on});
  } else if (letter == 'w') {
    if (!nodes_ok(e, 2, "switch")) return;
    const auto* m = model_of<SwitchModel>(e, "switch", "CSW or ISWITCH");
    if (m == nullptr) return;
    if (!m->current_controlled || e.refs.size() != 1) {
      error(e, e.name.span,
            fmt::format("W switch '{}' needs a controlling voltage source and a CSW model", name));
      return;
    }
    add(e, Switch{name, node(e.nodes[0]), node(e.nodes[1]), 0, 0, e.refs[0].lower, *m, flag_on});
  } else if (letter == 'e') {
    if (!nodes_ok(e, 4, "comparator")) return;
    if (const auto* m = model_of<ComparatorModel>(e, "comparator", "COMP"))
      add(e, Comparator{name, node(e.nodes[0]), node(e.nodes[1]), node(e.nodes[2]),
                        node(e.nodes[3]), *m});
  }
}

void Elaborator::references() {
  std::map<std::string, const Device*> by_name;
  for (const Device& d : c_.devices) by_name[device_name(d)] = &d;
  std::vector<std::string> names;
  for (const auto& [k, v] : by_name) names.push_back(k);
  std::set<std::pair<const netlist::ElementCard*, std::string>> reported;  // once per card
  auto check = [&](const std::string& owner, const std::string& ref, bool want_inductor) {
    const netlist::ElementCard& card = *cards_.at(owner);
    auto it = by_name.find(ref);
    const bool ok =
        it != by_name.end() && (want_inductor ? std::holds_alternative<Inductor>(*it->second)
                                              : std::holds_alternative<VoltageSource>(*it->second));
    if (ok || !reported.emplace(&card, ref).second) return;
    const auto at = std::find_if(card.refs.begin(), card.refs.end(),
                                 [&](const netlist::Word& w) { return w.lower == ref; });
    const auto& span = at != card.refs.end() ? at->span : card.name.span;
    error(card, span,
          fmt::format("'{}' refers to '{}', which is not {}{}", card.name.lower, ref,
                      want_inductor ? "an inductor" : "a voltage source",
                      it == by_name.end() ? netlist::did_you_mean(ref, names) : std::string()));
  };
  for (const Device& d : c_.devices) {
    if (const auto* f = std::get_if<Cccs>(&d)) check(f->name, f->control, false);
    if (const auto* h = std::get_if<Ccvs>(&d)) check(h->name, h->control, false);
    if (const auto* s = std::get_if<Switch>(&d); s && s->model.current_controlled)
      check(s->name, s->control, false);
    if (const auto* k = std::get_if<Mutual>(&d)) {
      check(k->name, k->l1, true);
      check(k->name, k->l2, true);
    }
  }
}

std::optional<Waveform> Elaborator::waveform(const netlist::ElementCard& e) {
  if (e.functions.empty()) return Dc{e.value ? e.value->value : 0.0};
  if (e.functions.size() > 1)
    warning(e, e.functions[1].span, "only the first source function is used");
  return source_function(e, e.functions[0]);
}

std::optional<Waveform> Elaborator::source_function(const netlist::ElementCard& e,
                                                    const netlist::SourceFunction& f) {
  std::vector<double> a;
  for (const auto& v : f.args) a.push_back(v.value);
  auto arg = [&](size_t i, double fallback) { return i < a.size() ? a[i] : fallback; };
  const double tstep = c_.tran ? c_.tran->tstep : 0.0;
  const double tstop = c_.tran ? c_.tran->tstop : 0.0;
  const std::string& kind = f.kind.lower;
  auto arity = [&](size_t lo, size_t hi, const char* usage) {
    if (a.size() >= lo && a.size() <= hi) return true;
    error(e, f.span,
          fmt::format("{} takes {} to {} arguments ({}), got {}", f.kind.text, lo, hi, usage,
                      a.size()));
    return false;
  };
  if (kind == "sin") {
    if (!arity(2, 6, "vo va freq td theta phase")) return std::nullopt;
    const double freq = arg(2, 0.0) != 0.0 ? arg(2, 0.0) : (tstop > 0 ? 1.0 / tstop : 0.0);
    return Sin{a[0], a[1], freq, arg(3, 0.0), arg(4, 0.0), arg(5, 0.0)};
  }
  if (kind == "pulse") {
    if (!arity(2, 8, "v1 v2 td tr tf pw per np")) return std::nullopt;
    auto nonzero = [](double v, double fallback) { return v != 0.0 ? v : fallback; };
    Pulse p{a[0],
            a[1],
            arg(2, 0.0),
            nonzero(arg(3, 0.0), tstep),
            nonzero(arg(4, 0.0), tstep),
            nonzero(arg(5, 0.0), tstop),
            nonzero(arg(6, 0.0), tstop)};
    if (p.td < 0 || p.tr < 0 || p.tf < 0 || p.pw < 0 || p.per < 0) {
      error(e, f.span, "PULSE times must not be negative");
      return std::nullopt;
    }
    // NP (ngspice) / Ncycles (LTspice): that many pulses, then v1; 0 or absent: no end.
    p.np = arg(7, 0.0);
    if (!(p.np >= 0) || p.np != std::floor(p.np)) {
      error(e, f.args[7].span,
            fmt::format("PULSE's number of pulses (8th argument) must be a whole number ≥ 0, "
                        "got {:g}",
                        p.np));
      return std::nullopt;
    }
    // A pulse longer than its period is cut at each period's end, where the next one starts
    // (as ngspice does; this once made it a single pulse, so a PWM carrier written with
    // tr + tf = per and pw = 1n stayed at v1 after its first period).
    if (p.per < p.tr + p.pw + p.tf) {
      const bool pw_zero = a.size() > 5 && a[5] == 0.0;
      warning(e, f.span,
              fmt::format("PULSE: tr + pw + tf = {:g} s is longer than per = {:g} s: each period "
                          "is cut at per, where the next pulse starts (as ngspice){}",
                          p.tr + p.pw + p.tf, p.per,
                          pw_zero ? "; pw = 0 is TSTOP as in ngspice (LTspice takes it as 0: a "
                                    "triangle when tr + tf = per; write pw = 1p for that)"
                                  : ""));
    }
    return p;
  }
  if (kind == "pwl") {
    if (a.size() < 2 || a.size() % 2 != 0) {
      error(e, f.span, fmt::format("PWL needs pairs of time and value, got {} numbers", a.size()));
      return std::nullopt;
    }
    double time_scale = 1.0, value_scale = 1.0, repeat_count = -1;
    Pwl p;
    for (const auto& q : f.params) {
      const std::string& key = q.name.lower;
      if (key == "td" && q.number) {
        p.td = *q.number;
      } else if (key == "r" && q.number && *q.number >= 0) {
        p.repeat = *q.number;
      } else if (key == "repeat" && q.number) {  // REPEAT FOREVER | FOR n (netlist/ast.hpp)
        repeat_count = *q.number;
      } else if ((key == "time_scale_factor" || key == "value_scale_factor") && q.number &&
                 *q.number > 0) {
        (key == "time_scale_factor" ? time_scale : value_scale) = *q.number;
      } else {
        error(e, q.name.span,
              fmt::format("PWL parameter '{}' must be td=<delay>, r=<time ≥ 0>, "
                          "time_scale_factor=<factor > 0> or value_scale_factor=<factor > 0>",
                          q.name.text));
        return std::nullopt;
      }
    }
    std::vector<char> relative(a.size(), 0);
    for (const std::size_t i : f.relative) relative[i] = 1;
    for (size_t i = 0; i < a.size(); i += 2) {
      // "+t": relative to the previous point (LTspice, PSpice); the scale applies to both.
      const double t =
          relative[i] && !p.t.empty() ? p.t.back() + a[i] * time_scale : a[i] * time_scale;
      if (!p.t.empty() && !(t > p.t.back())) {
        error(e, f.args[i].span,
              fmt::format("PWL times must increase: {} after {}{}", t, p.t.back(),
                          relative[i] ? " (written +t: relative to the previous point)" : ""));
        return std::nullopt;
      }
      p.t.push_back(t);
      p.v.push_back(a[i + 1] * value_scale);
    }
    if (repeat_count >= 0) {
      if (p.repeat >= 0) {
        error(e, f.span, "PWL: REPEAT ... ENDREPEAT and r= together; give one of them");
        return std::nullopt;
      }
      if (p.t.size() < 2) {
        error(e, f.span, "PWL: REPEAT needs at least two points to repeat");
        return std::nullopt;
      }
      p.repeat = p.t.front();
      p.repeat_count = repeat_count;
    }
    if (!f.relative.empty())
      warning(e, f.args[f.relative.front()].span,
              "PWL: a time written '+t' is taken relative to the previous point (LTspice, "
              "PSpice); ngspice reads it as an absolute time");
    return p;
  }
  if (kind == "exp") {
    if (!arity(2, 6, "v1 v2 td1 tau1 td2 tau2")) return std::nullopt;
    auto nonzero = [](double v, double fallback) { return v != 0.0 ? v : fallback; };
    const double td1 = arg(2, 0.0);
    return Exp{a[0],
               a[1],
               td1,
               nonzero(arg(3, 0.0), tstep),
               nonzero(arg(4, 0.0), td1 + tstep),
               nonzero(arg(5, 0.0), tstep)};
  }
  if (kind == "sffm") {
    if (!arity(2, 5, "vo va fc mdi fs")) return std::nullopt;
    const double f0 = tstop > 0 ? 1.0 / tstop : 0.0;
    return Sffm{a[0], a[1], arg(2, 0.0) != 0.0 ? arg(2, 0.0) : f0, arg(3, 0.0),
                arg(4, 0.0) != 0.0 ? arg(4, 0.0) : f0};
  }
  error(e, f.kind.span, fmt::format("unsupported source function '{}'", f.kind.text));
  return std::nullopt;
}

}  // namespace nsspice::circuit::detail
