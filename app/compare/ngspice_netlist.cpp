#include "app/compare/ngspice_netlist.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "app/compare/spice_params.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {

std::string TranslateOptions::validate() const {
  if (!(comparator_width > 0) || !std::isfinite(comparator_width))
    return fmt::format("--comparator-width {:g}: must be positive (volts)", comparator_width);
  if (!(tmax >= 0) || !std::isfinite(tmax))
    return fmt::format("tmax {:g}: must be >= 0 (seconds; 0 = from .tran)", tmax);
  return {};
}
namespace {

using circuit::Waveform;
std::string num(double v) { return spice_number(v); }

// Words ngspice's source lines read as keywords wherever they stand: `vnsp_d1 ac p DC 0` is
// taken as an AC specification (ngspice stops: "unknown parameter (p)"). A node of that name is
// renamed in the deck (nsp_n_<name>) and mapped back.
bool ngspice_keyword(const std::string& node) {
  static const std::set<std::string> kWords = {
      "ac", "dc",      "sin",     "pulse",   "pwl",      "exp",     "sffm",
      "am", "distof1", "distof2", "trnoise", "trrandom", "portnum", "z0"};
  return kWords.contains(lower(node));
}

class Builder {
 public:
  Builder(const circuit::Circuit& c, const TranslateOptions& o, SpiceParams d, SpiceParams s,
          Translation& out)
      : circuit(c), options(o), diode(std::move(d)), sw(std::move(s)), out_(out) {
    std::set<std::string> taken;
    for (const auto& n : c.nodes) taken.insert(lower(n));
    for (const auto& n : c.nodes) {
      std::string name = n;
      if (ngspice_keyword(n))
        for (int k = 1;
             !taken.insert(lower(name = k == 1 ? "nsp_n_" + n : fmt::format("nsp_n_{}_{}", n, k)))
                  .second;
             ++k) {
        }
      nodes_.push_back(std::move(name));
    }
  }
  const circuit::Circuit& circuit;
  const TranslateOptions& options;
  SpiceParams diode, sw;

  // A node's name in the deck (nodes_: a keyword renamed).
  std::string node(int n) const { return n == 0 ? "0" : nodes_[static_cast<size_t>(n)]; }
  // A 0 V probe from node n to a new node "nsp_<device>_p", which it returns; the new node gets
  // n's .ic (kept for ics()).
  std::string probe_line(const std::string& device, int n) {
    const std::string p = inner(device, 'p');
    line(fmt::format("{} {} {} DC 0", probe(device), node(n), p));
    created_.push_back({p, n, 0});
    return p;
  }
  // A node the translation made at node n's voltage minus `drop` (a VF source's far side).
  void created(const std::string& name, int n, double drop) { created_.push_back({name, n, drop}); }
  // The .ic card's entries: the netlist's, and each created node's from the node it sits at.
  std::string ics() const {
    std::string s;
    for (const auto& [n, v] : circuit.ic) s += fmt::format(" v({})={}", node(n), num(v));
    for (const auto& c : created_)
      for (const auto& [n, v] : circuit.ic)
        if (n == c.at) s += fmt::format(" v({})={}", c.name, num(v - c.drop));
    return s;
  }
  // Question 1: the user's card of that name (null when not passed through); a device asks with
  // its model's card_name(), the card a scaled copy was made from.
  const UserCard* user_card(const std::string& model) const {
    if (options.user_models == nullptr) return nullptr;
    const auto it = options.user_models->cards.find(model);
    return it == options.user_models->cards.end() ? nullptr : &it->second;
  }
  std::string instance_params(const std::string& element) const {
    const auto it = options.user_models->instance_params.find(element);
    return it == options.user_models->instance_params.end() ? std::string() : it->second;
  }
  // The card once, with a note on what it dropped.
  void user_model(const UserCard& card) {
    if (std::find(out_.user_cards.begin(), out_.user_cards.end(), card.name) !=
        out_.user_cards.end())
      return;
    out_.user_cards.push_back(card.name);
    model(card.text);
    for (const auto& d : card.dropped)
      note(fmt::format("model {}: '{}' left out (text, not a number: ngspice stops on it)",
                       card.name, d));
    for (const auto& a : card.added)
      note(
          fmt::format("model {}: '{}' written out (ISR without NR: nsspice takes NR = 2, "
                      "SPICE's default; some ngspice versions, Debian's ngspice-39 among them, "
                      "take 1)",
                      card.name, a));
  }
  void regularized(const std::string& device) { out_.regularized.push_back(device); }
  // Devices nsspice adds for a PWL form that ngspice's own model already contains (question 1),
  // and the external node of a MOSFET terminal behind its RD/RS resistor.
  std::set<std::string> skip;
  std::map<int, int> external;  // internal node → external node
  // The node a card's own series resistance leads to (question 1), else n itself.
  int outer(int n) const {
    const auto it = external.find(n);
    return it == external.end() ? n : it->second;
  }
  // The ngspice name of an element: its own when it starts with the right letter and is plain,
  // else the letter, '_' and its id; a name another element took (ngspice's names ignore case)
  // gets "_2", "_3", ...: "gvo+" and "gvo-" of a macromodel are "g_gvo_" and "g_gvo__2".
  std::string element(char letter, const std::string& name) {
    const std::string key = std::string(1, letter) + name;
    if (const auto it = elements_.find(key); it != elements_.end()) return it->second;
    const bool plain =
        !name.empty() && name[0] == letter && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
    const std::string base = plain ? name : std::string(1, letter) + "_" + plain_name(name);
    std::string out = base;
    for (int k = 2; !taken_.insert(lower(out)).second; ++k) out = fmt::format("{}_{}", base, k);
    return elements_[key] = out;
  }
  // A device's token in the names compare makes up (probes, inner nodes, models): its name
  // sanitized, unique the same way.
  std::string id(const std::string& device) {
    if (const auto it = ids_.find(device); it != ids_.end()) return it->second;
    const std::string base = plain_name(device);
    std::string out = base;
    for (int k = 2; !id_taken_.insert(lower(out)).second; ++k) out = fmt::format("{}_{}", base, k);
    return ids_[device] = out;
  }
  std::string probe(const std::string& device) { return "vnsp_" + id(device); }
  std::string inner(const std::string& device, char k) {
    return fmt::format("nsp_{}_{}", id(device), k);
  }
  void line(const std::string& s) { lines_ += s + "\n"; }
  void model(const std::string& s) { models_ += s + "\n"; }
  void map(const std::string& ng, const std::string& ns) { out_.names.emplace_back(ng, ns); }
  void note(const std::string& s) { out_.notes.push_back(s); }
  void unsupported(const std::string& s) { out_.unsupported.push_back(s); }
  std::string text() const { return lines_ + models_; }

 private:
  struct Created {
    std::string name;
    int at;       // the netlist's node it sits at
    double drop;  // v(at) − v(name)
  };
  Translation& out_;
  std::vector<std::string> nodes_;
  std::vector<Created> created_;
  std::string lines_, models_;
  std::map<std::string, std::string> elements_, ids_;  // element(), id(): made up once
  std::set<std::string> taken_, id_taken_;             // lower case
};

// ---- source waveforms ----
std::optional<std::string> wave(const circuit::Dc& w) { return "DC " + num(w.value); }
std::optional<std::string> wave(const circuit::Sin& w) {
  return fmt::format("SIN({} {} {} {} {} {})", num(w.vo), num(w.va), num(w.freq), num(w.td),
                     num(w.theta), num(w.phase_deg));
}
std::optional<std::string> wave(const circuit::Pulse& w) {
  std::string s = fmt::format("PULSE({} {} {} {} {} {} {}", num(w.v1), num(w.v2), num(w.td),
                              num(w.tr), num(w.tf), num(w.pw), num(w.per));
  if (w.np > 0) s += fmt::format(" {}", num(w.np));  // NP: that many pulses (ngspice-39 reads it)
  return s + ")";
}
std::optional<std::string> wave(const circuit::Pwl& w) {
  // A counted repetition (LTspice's REPEAT FOR n) is written out play by play: ngspice's r=
  // repeats forever. A play that ends at another value than it starts would need a jump.
  std::vector<double> t = w.t, v = w.v;
  if (w.repeat >= 0 && w.repeat_count > 0) {
    const auto first = std::lower_bound(w.t.begin(), w.t.end(), w.repeat) - w.t.begin();
    const double per = w.t.back() - w.repeat;
    if (first >= static_cast<std::ptrdiff_t>(w.t.size()) || w.v[first] != w.v.back())
      return std::nullopt;
    for (int k = 1; k < static_cast<int>(w.repeat_count); ++k)
      for (auto i = first + 1; i < static_cast<std::ptrdiff_t>(w.t.size()); ++i) {
        t.push_back(w.t[i] + k * per);
        v.push_back(w.v[i]);
      }
  }
  std::string s = "PWL(";
  for (size_t i = 0; i < t.size(); ++i)
    s += fmt::format("{}{} {}", i ? " " : "", num(t[i]), num(v[i]));
  s += ")";
  if (w.repeat >= 0 && w.repeat_count == 0) s += " r=" + num(w.repeat);
  if (w.td != 0) s += " td=" + num(w.td);
  return s;
}
std::optional<std::string> wave(const circuit::Exp& w) {
  return fmt::format("EXP({} {} {} {} {} {})", num(w.v1), num(w.v2), num(w.td1), num(w.tau1),
                     num(w.td2), num(w.tau2));
}
std::optional<std::string> wave(const circuit::Sffm& w) {
  return fmt::format("SFFM({} {} {} {} {})", num(w.vo), num(w.va), num(w.fc), num(w.mdi),
                     num(w.fs));
}
std::optional<std::string> spice_wave(const Waveform& w) {
  return std::visit(
      [](const auto& x) -> std::optional<std::string> {
        if constexpr (requires { wave(x); })
          return wave(x);
        else
          return std::nullopt;
      },
      w);
}

// ---- devices: one overload each ----
void emit(Builder& b, const circuit::Resistor& d) {
  if (b.skip.contains(d.name)) return;
  b.line(fmt::format("{} {} {} {}", b.element('r', d.name), b.node(d.a), b.node(d.b), num(d.r)));
}
void emit(Builder& b, const circuit::Capacitor& d) {
  if (b.skip.contains(d.name)) return;
  b.line(fmt::format("{} {} {} {}{}", b.element('c', d.name), b.node(d.a), b.node(d.b), num(d.c),
                     d.ic ? " IC=" + num(*d.ic) : ""));
}
void emit(Builder& b, const circuit::Inductor& d) {
  const std::string name = b.element('l', d.name);
  b.line(fmt::format("{} {} {} {}{}", name, b.node(d.a), b.node(d.b), num(d.l),
                     d.ic ? " IC=" + num(*d.ic) : ""));
  b.map("i(" + name + ")", "i(" + d.name + ")");
}
template <char kLetter, typename Source>
void emit_source(Builder& b, const Source& d) {
  const std::string name = b.element(kLetter, d.name);
  const auto w = spice_wave(d.wave);
  if (!w) return b.unsupported(d.name + " (its waveform)");
  b.line(fmt::format("{} {} {} {}", name, b.node(d.p), b.node(d.n), *w));
  if (kLetter == 'v') b.map("i(" + name + ")", "i(" + d.name + ")");
}
void emit(Builder& b, const circuit::VoltageSource& d) { emit_source<'v'>(b, d); }
void emit(Builder& b, const circuit::CurrentSource& d) { emit_source<'i'>(b, d); }

void emit(Builder& b, const circuit::Diode& d) {
  if (b.skip.contains(d.name)) return;
  // a -[probe 0 V]- p -[VF]- q -[D]- k, and GOFF from p to k: the probe sees i(d). A user card
  // whose RS nsspice split off (DiodeModel::series_r) goes from the diode's own anode.
  const int a = b.outer(d.a);
  const std::string probe = b.probe(d.name), p = b.probe_line(d.name, a);
  const std::string q = d.model.vf > 0 ? b.inner(d.name, 'q') : p;
  if (d.model.vf > 0) {
    b.line(fmt::format("vnspf_{} {} {} DC {}", b.id(d.name), p, q, num(d.model.vf)));
    b.created(q, a, d.model.vf);
  }
  const std::string mname = "dnsp_" + b.id(d.name);
  const UserCard* card = d.model.spice ? b.user_card(d.model.card_name()) : nullptr;
  // A SPICE diode's GOFF is nsspice's GMIN across its junction, which ngspice adds itself to a
  // card it simulates as written.
  if (d.model.goff > 0 && card == nullptr)
    b.line(fmt::format("rnspoff_{} {} {} {}", b.id(d.name), p, b.node(d.k), num(1 / d.model.goff)));
  if (card != nullptr) {
    b.line(fmt::format("{} {} {} {}{}", b.element('d', d.name), q, b.node(d.k), card->name,
                       b.instance_params(d.name)));
    b.user_model(*card);
    b.map("i(" + probe + ")", "i(" + d.name + ")");
    return;
  }
  b.line(fmt::format("{} {} {} {}", b.element('d', d.name), q, b.node(d.k), mname));
  b.regularized(d.name);
  SpiceParams m = b.diode;
  const double rs = m.number("rs").value_or(0);
  if (d.model.ron > 0) m.set("rs", rs + d.model.ron);
  if (d.model.bv > 0) {
    m.set("bv", d.model.bv);
    if (!m.has("ibv")) m.set("ibv", m.number("is").value_or(1e-14));
    if (!m.has("nbv")) m.set("nbv", m.number("n").value_or(1));
    if (d.model.rz > 0 && d.model.ron == 0) m.set("rs", rs + d.model.rz);
    if (d.model.rz != d.model.ron && d.model.rz > 0 && d.model.ron > 0)
      b.note(fmt::format("{}: SPICE has one RS for both directions; RON used, RZ = {} dropped",
                         d.name, num(d.model.rz)));
  }
  b.model(fmt::format(".model {} D({})", mname, m.str()));
  b.map("i(" + probe + ")", "i(" + d.name + ")");
}

void emit(Builder& b, const circuit::Switch& d) {
  const std::string probe = b.probe(d.name), p = b.probe_line(d.name, d.a);
  const std::string mname = "snsp_" + b.id(d.name);
  const auto& m = d.model;
  const double ron = m.ron > 0 ? m.ron : b.sw.number("ron").value_or(1e-3);
  const double roff = m.goff > 0 ? 1 / m.goff : b.sw.number("roff").value_or(1e9);
  b.regularized(d.name);
  const std::string state = d.initially_on ? " ON" : " OFF";
  if (m.current_controlled) {
    b.line(fmt::format("{} {} {} {} {}{}", b.element('w', d.name), p, b.node(d.b),
                       b.element('v', d.control), mname, state));
    b.model(fmt::format(".model {} CSW(IT={} IH={} RON={} ROFF={})", mname, num(m.threshold),
                        num(m.hysteresis), num(ron), num(roff)));
  } else {
    b.line(fmt::format("{} {} {} {} {} {}{}", b.element('s', d.name), p, b.node(d.b), b.node(d.cp),
                       b.node(d.cn), mname, state));
    b.model(fmt::format(".model {} SW(VT={} VH={} RON={} ROFF={})", mname, num(m.threshold),
                        num(m.hysteresis), num(ron), num(roff)));
  }
  b.map("i(" + probe + ")", "i(" + d.name + ")");
}

void emit(Builder& b, const circuit::Comparator& d) {
  const auto& m = d.model;
  const double w = m.eps > 0 ? m.eps : b.options.comparator_width;
  const std::string name = b.element('b', d.name);
  b.regularized(d.name);
  b.line(fmt::format("{} {} {} V = {} + {} * (1 + tanh((v({}) - v({})) / {}))", name, b.node(d.op),
                     b.node(d.on), num(m.vlow), num((m.vhigh - m.vlow) / 2), b.node(d.ip),
                     b.node(d.in), num(w)));
  b.map("i(" + name + ")", "i(" + d.name + ")");
}

void emit(Builder& b, const circuit::Vcvs& d) {
  const std::string name = b.element('e', d.name);
  b.line(fmt::format("{} {} {} {} {} {}", name, b.node(d.p), b.node(d.n), b.node(d.cp),
                     b.node(d.cn), num(d.gain)));
  b.map("i(" + name + ")", "i(" + d.name + ")");
}
void emit(Builder& b, const circuit::Vccs& d) {
  b.line(fmt::format("{} {} {} {} {} {}", b.element('g', d.name), b.node(d.p), b.node(d.n),
                     b.node(d.cp), b.node(d.cn), num(d.gm)));
}
void emit(Builder& b, const circuit::Cccs& d) {
  b.line(fmt::format("{} {} {} {} {}", b.element('f', d.name), b.node(d.p), b.node(d.n),
                     b.element('v', d.control), num(d.gain)));
}
void emit(Builder& b, const circuit::Ccvs& d) {
  const std::string name = b.element('h', d.name);
  b.line(fmt::format("{} {} {} {} {}", name, b.node(d.p), b.node(d.n), b.element('v', d.control),
                     num(d.r)));
  b.map("i(" + name + ")", "i(" + d.name + ")");
}
void emit(Builder& b, const circuit::Mutual& d) {
  b.line(fmt::format("{} {} {} {}", b.element('k', d.name), b.element('l', d.l1),
                     b.element('l', d.l2), num(d.k)));
}
void emit(Builder& b, const circuit::Mosfet& d) {
  const UserCard* card = d.model.spice ? b.user_card(d.model.card_name()) : nullptr;
  // Question 1: the card's own RD/RS act between the MOSFET's own nodes (b.outer).
  const std::string probe = b.probe(d.name), p = b.probe_line(d.name, b.outer(d.d));
  // ngspice's VDMOS drain current holds its body diode's and capacitors' currents too; nsspice's
  // i(m) is the channel's: not the same signal.
  if (card != nullptr && d.model.vdmos)
    b.note(
        fmt::format("{}: ngspice's VDMOS drain current includes its body diode and "
                    "capacitances, nsspice's i({}) is the channel alone: not compared",
                    d.name, d.name));
  else
    b.map("i(" + probe + ")", "i(" + d.name + ")");
  if (card != nullptr && d.model.vdmos && d.model.mult != 1)
    b.note(
        fmt::format("{}: m={} on a VDMOS: ngspice releases before February 2026 (Debian's "
                    "ngspice-39 among them) scale its channel current with m but not CGS and "
                    "CGD, nsspice scales all of it (devices in parallel)",
                    d.name, num(d.model.mult)));
  if (card != nullptr) {
    // A VDMOS has three nodes: ngspice's body diode joins source and drain.
    const std::string bulk = d.model.vdmos ? std::string() : " " + b.node(d.b);
    b.line(fmt::format("{} {} {} {}{} {}{}", b.element('m', d.name), p, b.node(b.outer(d.g)),
                       b.node(b.outer(d.s)), bulk, card->name, b.instance_params(d.name)));
    b.user_model(*card);
    return;
  }
  const std::string mname = "mnsp_" + b.id(d.name);
  b.line(fmt::format("{} {} {} {} {} {} W={} L={}", b.element('m', d.name), p, b.node(d.g),
                     b.node(d.s), b.node(d.b), mname, num(d.w), num(d.l)));
  // A SPICE card's bulk diodes (nsspice's "<m>.dbd", "<m>.dbs", skipped) are ngspice's own.
  b.model(fmt::format(".model {} {}(LEVEL=1 KP={} VTO={} LAMBDA=0{})", mname,
                      d.model.pmos ? "PMOS" : "NMOS", num(d.model.kp), num(d.model.vto),
                      d.model.spice ? " IS=" + num(d.model.body.is) : ""));
  b.regularized(d.name);
  b.note(fmt::format("{}: nsspice's piecewise-linear square law vs SPICE level 1", d.name));
}

// A bipolar transistor: only with its card passed through (question 1; there is no regularized
// form of nsspice's PWL Ebers–Moll model). Between its own nodes (the card's RB, RC, RE act),
// AREA (times M) as area=; the probe in the collector is I_C, whose junction capacitances'
// currents nsspice's i(q) leaves out (a note says so).
void emit(Builder& b, const circuit::Bjt& d) {
  const UserCard* card = b.user_card(d.model.name);
  if (card == nullptr) return b.unsupported(d.name);
  const std::string probe = b.probe(d.name), p = b.probe_line(d.name, b.outer(d.c));
  b.line(fmt::format("{} {} {} {} {}{}", b.element('q', d.name), p, b.node(b.outer(d.b)),
                     b.node(b.outer(d.e)), card->name,
                     d.area != 1 ? " area=" + num(d.area) : std::string()));
  b.user_model(*card);
  b.map("i(" + probe + ")", "i(" + d.name + ")");
  if (d.model.cje > 0 || d.model.cjc > 0 || d.model.tf > 0 || d.model.tr > 0)
    b.note(
        fmt::format("{}: ngspice's collector current includes the junction charges' currents, "
                    "nsspice's i({}) does not (they flow besides it): they differ on edges",
                    d.name, d.name));
}

// Question 1: what nsspice added for the PWL forms of SPICE devices whose cards ngspice runs
// itself: the junction capacitors, the RD/RS (and a VDMOS's RG) resistors and where they lead,
// and the parts of a VDMOS (elaborate_transistors.cpp: RDS, the body diode and its junction
// capacitor, CGS, CGD's linear part), all inside ngspice's VDMOS model.
void plan_user_devices(Builder& b) {
  std::map<std::string, const circuit::Resistor*> resistors;
  for (const auto& device : b.circuit.devices)
    if (const auto* r = std::get_if<circuit::Resistor>(&device)) resistors[r->name] = r;
  for (const auto& device : b.circuit.devices) {
    if (const auto* d = std::get_if<circuit::Diode>(&device); d && d->model.spice)
      if (b.user_card(d->model.card_name()) != nullptr) {
        b.skip.insert(d->name + ".cj");
        if (const auto it = resistors.find(d->name + ".rs"); it != resistors.end()) {
          b.skip.insert(it->first);  // RS split off: the card's own RS acts
          b.external[it->second->b] = it->second->a;
        }
      }
    if (const auto* q = std::get_if<circuit::Bjt>(&device);
        q != nullptr && b.user_card(q->model.name) != nullptr) {
      for (const char* suffix : {".rb", ".rc", ".re"})
        if (const auto it = resistors.find(q->name + suffix); it != resistors.end()) {
          b.skip.insert(it->first);
          b.external[it->second->b] = it->second->a;
        }
      for (const char* cap : {".cje", ".cjc"}) b.skip.insert(q->name + cap);
    }
    const auto* m = std::get_if<circuit::Mosfet>(&device);
    if (m == nullptr || !m->model.spice || b.user_card(m->model.card_name()) == nullptr) continue;
    for (const char* suffix : {".rd", ".rs", ".rg"})
      if (const auto it = resistors.find(m->name + suffix); it != resistors.end()) {
        b.skip.insert(it->first);
        b.external[it->second->b] = it->second->a;  // internal → external
      }
    if (m->model.vdmos)
      for (const char* part : {".rds", ".body", ".body.cj", ".body.rs", ".cgs", ".cgd"})
        b.skip.insert(m->name + part);
  }
}

}  // namespace

std::optional<Translation> translate_to_ngspice(const circuit::Circuit& c,
                                                const TranslateOptions& o, std::string& error) {
  auto diode = SpiceParams::parse(o.diode_model, error);
  if (!diode) {
    error = "--diode-model " + error;
    return std::nullopt;
  }
  auto sw = SpiceParams::parse(o.switch_model, error);
  if (!sw) {
    error = "--switch-model " + error;
    return std::nullopt;
  }
  Translation out;
  Builder b(c, o, std::move(*diode), std::move(*sw), out);
  b.line(
      o.user_models != nullptr
          ? "* translated by nsspice compare: the netlist's SPICE models as written, ideal "
            "devices replaced by regularized SPICE models"
          : "* translated by nsspice compare: ideal devices replaced by regularized SPICE models");
  if (o.user_models != nullptr) plan_user_devices(b);
  for (const auto& device : c.devices)  // a level-1 MOSFET's bulk diodes: ngspice's MOS has them
    if (const auto* m = std::get_if<circuit::Mosfet>(&device);
        m && m->model.spice && !m->model.vdmos)
      for (const char* suffix : {".dbd", ".dbs"}) b.skip.insert(m->name + suffix);
  out.left_out.assign(b.skip.begin(), b.skip.end());
  for (const auto& device : c.devices) {
    std::visit(
        [&](const auto& d) {
          if constexpr (requires { emit(b, d); })
            emit(b, d);
          else
            b.unsupported(circuit::device_name(device));
        },
        device);
  }
  for (int n = 1; n < static_cast<int>(c.nodes.size()); ++n)
    b.map("v(" + b.node(n) + ")", "v(" + c.nodes[static_cast<size_t>(n)] + ")");
  // ngspice reads a file whose first line starts with "*ng_script" as a script, not a circuit.
  std::string title = c.title.empty() ? "nsspice circuit" : c.title;
  if (title.rfind("*ng_script", 0) == 0 || title.rfind("*NG_SCRIPT", 0) == 0)
    title = "nsspice compare: " + title;
  std::string text = fmt::format("{}\n{}", title, b.text());
  if (!c.ic.empty()) text += ".ic" + b.ics() + "\n";
  if (c.tran) {
    const auto& t = *c.tran;
    const double given = t.tmax > 0 && t.tstep > 0 ? std::min(t.tmax, t.tstep)
                         : t.tmax > 0              ? t.tmax
                                                   : t.tstep;
    const double tmax = o.tmax > 0 ? o.tmax : given > 0 ? given : (t.tstop - t.tstart) / 1000;
    // ngspice needs TSTEP > 0 (LTspice's `.tran TSTOP` has none): TMAX then.
    text += fmt::format(".tran {} {} {} {}{}\n", num(t.tstep > 0 ? t.tstep : tmax), num(t.tstop),
                        num(t.tstart), num(tmax), t.uic ? " UIC" : "");
  }
  if (!o.options.empty()) text += ".options " + o.options + "\n";
  text += fmt::format(".control\nset filetype=binary\nrun\nwrite {}\n.endc\n.end\n", o.raw_path);
  out.text = std::move(text);
  return out;
}

}  // namespace nsspice::app
