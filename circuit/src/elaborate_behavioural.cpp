// Behavioural sources → linear devices and ideal-diode kinks (circuit/src/behavioural.hpp
// states the construction): POLY(1) on E G F H, B V=/I=, E/G VALUE=.
#include <fmt/format.h>

#include <algorithm>

#include "circuit/src/behavioural.hpp"
#include "circuit/src/elaborator.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::circuit::detail {
namespace {

// The part without unknowns as a source waveform: DC, or c + f(t) for a function of time.
Waveform source_of(const AffineExpr& x) {
  if (!x.time) return Dc{x.constant};
  return TimeFunction{[c = x.constant, f = x.time](double t) { return c + f(t); }};
}

}  // namespace

// POLY(1) x p0 p1 [p2 ...]: y = p0 + p1·x exactly, as the linear source (gain p1) plus a DC
// source p0 named "<name>.p0": in series through node "<name>.p0" for E/H (a voltage), in
// parallel for G/F (a current). A nonzero p_k, k ≥ 2, is a power x^k of an unknown: an error.
void Elaborator::poly1(const netlist::ElementCard& e, char letter) {
  const std::string& name = e.name.lower;
  const bool current_controlled = letter == 'f' || letter == 'h';
  if (!nodes_ok(e, current_controlled ? 2 : 4, "controlled source")) return;
  const auto& args = e.functions[0].args;
  if (args.empty()) {
    error(e, e.functions[0].span, fmt::format("POLY(1) of '{}' needs coefficients", name));
    return;
  }
  const std::string x = current_controlled
                            ? fmt::format("i({})", e.refs.empty() ? "?" : e.refs[0].lower)
                            : fmt::format("v({},{})", e.nodes[2].lower, e.nodes[3].lower);
  bool ok = true;
  for (size_t k = 2; k < args.size(); ++k) {
    if (args[k].value == 0) continue;
    error(e, args[k].span,
          fmt::format("POLY(1) coefficient p{} = {:g} of '{}' multiplies {}^{}: a product of "
                      "unknowns is not supported (only p0 + p1·{})",
                      k, args[k].value, name, x, k, x));
    ok = false;
  }
  if (!ok || (current_controlled && e.refs.size() != 1)) return;
  const double p0 = args[0].value, p1 = args.size() > 1 ? args[1].value : 0.0;
  const int p = node(e.nodes[0]), n = node(e.nodes[1]);
  const bool voltage_out = letter == 'e' || letter == 'h';
  int m = n;  // E/H: the linear source ends at node <name>.p0, the DC source p0 follows
  if (voltage_out && p0 != 0) {
    netlist::Word w = e.name;
    w.text = w.lower = name + ".p0";
    m = node(w);
  }
  if (letter == 'e') add(e, Vcvs{name, p, m, node(e.nodes[2]), node(e.nodes[3]), p1});
  if (letter == 'g') add(e, Vccs{name, p, n, node(e.nodes[2]), node(e.nodes[3]), p1});
  if (letter == 'f') add(e, Cccs{name, p, n, e.refs[0].lower, p1});
  if (letter == 'h') add(e, Ccvs{name, p, m, e.refs[0].lower, p1});
  if (p0 == 0) return;
  if (voltage_out)
    add(e, VoltageSource{name + ".p0", m, n, Dc{p0}});
  else
    add(e, CurrentSource{name + ".p0", p, n, Dc{p0}});
}

const netlist::Param* Elaborator::behavioural_expression(const netlist::ElementCard& e) {
  return netlist::behavioural_expression(e);
}

// B V=expr | I=expr, E|G VALUE=expr with expr affine: the linear elements of
// circuit/src/behavioural.hpp. Any other expression is an error naming the term.
void Elaborator::behavioural(const netlist::ElementCard& e) {
  const std::string& name = e.name.lower;
  const netlist::Param& p = *behavioural_expression(e);
  const bool voltage = p.name.lower == "v" || (p.name.lower == "value" && e.letter == 'e');
  for (const auto& q : e.params)
    if (&q != &p && e.letter != 'b')
      warning(
          e, q.name.span,
          fmt::format("parameter '{}' of '{}' is not supported and is ignored", q.name.text, name));
  if (!nodes_ok(e, 2, "behavioural source")) return;
  AffineError why;
  int kinks = 0;
  // r(u) = max(0, u): node <name>.k<n> behind an ideal diode from node <name>.u<n> (= u, a
  // chain to ground), with 1 Ω to ground; s(u) = step(u): a relay (comparator 0/1) instead.
  const KinkMaker kink = [&](const AffineExpr& u, bool step) -> std::optional<std::string> {
    const std::string k = fmt::format("{}.k{}", name, ++kinks);
    const std::string un = fmt::format("{}.u{}", name, kinks);
    const int u_node = named_node(e, un), k_node = named_node(e, k);
    voltage_chain(e, u, u_node, 0, un);
    if (step) {
      add(e, Comparator{fmt::format("{}.s{}", name, kinks), k_node, 0, u_node, 0,
                        ComparatorModel{"step", 0.0, 1.0, 0.0}});
    } else {
      add(e, Diode{fmt::format("{}.d{}", name, kinks), u_node, k_node, DiodeModel{"ideal"}});
      add(e, Resistor{fmt::format("{}.r{}", name, kinks), k_node, 0, 1.0});
    }
    netlist_nodes_.insert(k);
    return k;
  };
  // The circuit temperature (.temp, °C) as PSpice's TEMP and ngspice's TEMPER, unless a
  // parameter of that name is visible.
  std::optional<netlist::ExprBindings> with_temp;
  if (p.raw.lower.find("temp") != std::string::npos) {
    with_temp = e.bindings ? *e.bindings : netlist::ExprBindings{};
    for (const char* t : {"temp", "temper"}) with_temp->params.emplace(t, c_.pwl.temp);
  }
  // With .func calls, the expansion is read (netlist::ExprBindings), errors mapped back.
  const bool expanded = e.bindings && !e.bindings->expanded.empty();
  const auto expr = parse_affine(expanded ? e.bindings->expanded : p.raw.text, why, kink,
                                 with_temp ? &*with_temp : e.bindings.get());
  if (!expr) {
    if (expanded) {
      const auto [from, to] = e.bindings->written(why.offset, why.length);
      why.offset = from;
      why.length = to - from;
    }
    netlist::SourceSpan at = p.raw.span;
    if (why.offset < static_cast<std::size_t>(at.length)) {
      at.column += static_cast<int>(why.offset);
      at.length = static_cast<int>(
          std::min<std::size_t>(why.length, static_cast<std::size_t>(at.length) - why.offset));
    }
    error(e, at, fmt::format("'{}': {}", name, why.message));
    return;
  }
  std::vector<std::string> known(netlist_nodes_.begin(), netlist_nodes_.end());
  for (const auto& [n, coef] : expr->voltages) {
    if (netlist_nodes_.count(n) != 0) continue;
    error(e, p.raw.span,
          fmt::format("unknown node '{}' in the expression of '{}'{}", n, name,
                      netlist::did_you_mean(n, known)));
    return;
  }
  const int p_node = node(e.nodes[0]), n_node = node(e.nodes[1]);
  if (voltage) {
    voltage_chain(e, *expr, p_node, n_node, name);
    return;
  }
  // A 0 V source "name" carries the total current; the terms in parallel after it.
  const int s = named_node(e, name + ".s");
  add(e, VoltageSource{name, p_node, s, Dc{0.0}});
  int next = 1;
  for (const auto& [n, a] : expr->voltages)
    add(e, Vccs{fmt::format("{}.t{}", name, next++), s, n_node, named_node(e, n), 0, a});
  for (const auto& [src, b] : expr->currents)
    add(e, Cccs{fmt::format("{}.t{}", name, next++), s, n_node, src, b});
  if (expr->constant != 0 || expr->time)
    add(e, CurrentSource{name + ".c", s, n_node, source_of(*expr)});
}

int Elaborator::named_node(const netlist::ElementCard& e, const std::string& lower) {
  netlist::Word w = e.name;
  w.text = w.lower = lower;
  return node(w);
}

// v(from) − v(to) = x: a series chain "name" (E: a_k v(n_k)), "name.t2" ... (H: b_j i(V_j)),
// "name.c" (the constant), through nodes "name.n1", "name.n2", ...; the voltages add.
void Elaborator::voltage_chain(const netlist::ElementCard& e, const AffineExpr& x, int from, int to,
                               const std::string& name) {
  const size_t parts = x.voltages.size() + x.currents.size() + 1;
  size_t k = 0;
  auto next_node = [&]() {
    return ++k == parts ? to : named_node(e, fmt::format("{}.n{}", name, k));
  };
  auto part = [&]() { return k == 1 ? name : fmt::format("{}.t{}", name, k); };
  for (const auto& [n, a] : x.voltages) {
    const int t = next_node();
    add(e, Vcvs{part(), from, t, named_node(e, n), 0, a});
    from = t;
  }
  for (const auto& [src, b] : x.currents) {
    const int t = next_node();
    add(e, Ccvs{part(), from, t, src, b});
    from = t;
  }
  const int t = next_node();
  add(e, VoltageSource{parts == 1 ? name : name + ".c", from, t, source_of(x)});
}

}  // namespace nsspice::circuit::detail
