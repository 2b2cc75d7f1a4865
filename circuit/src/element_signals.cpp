// i(X), v(X) and p(X) of two-terminal elements: circuit/element_signals.hpp states the formulas.
#include "circuit/element_signals.hpp"

namespace nsspice::circuit {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// Σ coef·(v(a) − v(b)) added to `terms` (ground has no signal).
void add_difference(const Circuit& c, std::vector<std::pair<std::string, double>>& terms, int a,
                    int b, double coef) {
  if (a > 0) terms.emplace_back("v(" + c.nodes[a] + ")", coef);
  if (b > 0) terms.emplace_back("v(" + c.nodes[b] + ")", -coef);
}

std::string current_of(const std::string& name) { return "i(" + name + ")"; }

// {first node, second node, current}; nullopt for K and M.
struct Terminals {
  int a = 0, b = 0;
  LinearSignal current;
};

std::optional<Terminals> terminals(const Circuit& c, const Device& dev) {
  auto own = [](const std::string& name) {
    LinearSignal s;
    s.terms.emplace_back(current_of(name), 1.0);
    return s;
  };
  return std::visit(
      Overloaded{[&](const Resistor& r) -> std::optional<Terminals> {
                   Terminals t{r.a, r.b, {}};
                   add_difference(c, t.current.terms, r.a, r.b, 1.0 / r.r);
                   return t;
                 },
                 [&](const Capacitor& cap) -> std::optional<Terminals> {
                   Terminals t{cap.a, cap.b, {}};
                   add_difference(c, t.current.rates, cap.a, cap.b, cap.c);
                   return t;
                 },
                 [&](const Inductor& l) -> std::optional<Terminals> {
                   return Terminals{l.a, l.b, own(l.name)};
                 },
                 [&](const VoltageSource& v) -> std::optional<Terminals> {
                   return Terminals{v.p, v.n, own(v.name)};
                 },
                 [&](const CurrentSource& i) -> std::optional<Terminals> {
                   Terminals t{i.p, i.n, {}};
                   t.current.wave = i.wave;
                   return t;
                 },
                 [&](const Diode& d) -> std::optional<Terminals> {
                   return Terminals{d.a, d.k, own(d.name)};
                 },
                 [&](const Switch& s) -> std::optional<Terminals> {
                   return Terminals{s.a, s.b, own(s.name)};
                 },
                 [&](const Comparator& e) -> std::optional<Terminals> {
                   return Terminals{e.op, e.on, own(e.name)};
                 },
                 [&](const Vcvs& e) -> std::optional<Terminals> {
                   return Terminals{e.p, e.n, own(e.name)};
                 },
                 [&](const Ccvs& h) -> std::optional<Terminals> {
                   return Terminals{h.p, h.n, own(h.name)};
                 },
                 [&](const Vccs& g) -> std::optional<Terminals> {
                   Terminals t{g.p, g.n, {}};
                   add_difference(c, t.current.terms, g.cp, g.cn, g.gm);
                   return t;
                 },
                 [&](const Cccs& f) -> std::optional<Terminals> {
                   Terminals t{f.p, f.n, {}};
                   t.current.terms.emplace_back(current_of(f.control), f.gain);
                   return t;
                 },
                 [](const auto&) -> std::optional<Terminals> { return std::nullopt; }},
      dev);
}

}  // namespace

std::optional<ElementQuantities> element_quantities(const Circuit& circuit, std::string_view name) {
  for (const Device& dev : circuit.devices) {
    if (device_name(dev) != name) continue;
    auto t = terminals(circuit, dev);
    if (!t) return std::nullopt;
    ElementQuantities q;
    q.current = std::move(t->current);
    add_difference(circuit, q.voltage.terms, t->a, t->b, 1.0);
    return q;
  }
  return std::nullopt;
}

std::vector<std::string> two_terminal_elements(const Circuit& circuit) {
  std::vector<std::string> out;
  for (const Device& dev : circuit.devices)
    if (terminals(circuit, dev)) out.push_back(device_name(dev));
  return out;
}

}  // namespace nsspice::circuit
