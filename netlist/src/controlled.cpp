// Internal: coupled inductors, controlled sources, switches and MOSFETs.
//
//   K name L1 L2 k                       -> refs {L1, L2}, value k
//   K name L1 L2 L3 ... k                -> refs {L1, L2, L3, ...} (LTspice: every pair at k)
//   E name n+ n- nc+ nc- gain            -> nodes[4], value       (linear VCVS)
//   E name out+ out- in+ in- MODEL       -> nodes[4], model       (nsspice comparator form:
//                                           the 5th item is a word that is not a number)
//   G name n+ n- nc+ nc- gm              -> nodes[4], value       (linear VCCS)
//   F name n+ n- vcontrol gain           -> nodes[2], refs {vcontrol}, value
//   H name n+ n- vcontrol r              -> nodes[2], refs {vcontrol}, value
//   S name n+ n- nc+ nc- model [ON|OFF]  -> nodes[4], model, flags
//   W name n+ n- vcontrol model [ON|OFF] -> nodes[2], refs {vcontrol}, model, flags
//   M name d g s b model {NAME=VALUE} [OFF] -> nodes[4], model, params, flags
//   M name d g s model {NAME=VALUE} [OFF]   -> nodes[3], model, ...  (VDMOS: no bulk node)
//   M name d g s tj tc model THERMAL        -> an error (self-heating), naming the way out
//   Q name c b e [s] model [area] {NAME=VALUE} [OFF] -> nodes[3|4], model, value = area
//                                           (five words: the 5th is the area when it is a
//                                           number and the 4th is not, else c b e s model)
//   E|G name n+ n- POLY(1) nc+ nc- p0 p1 ... -> nodes[4], functions[0] = {poly, p0 p1 ...}
//   F|H name n+ n- POLY(1) vcontrol p0 p1 ...  -> nodes[2], refs, functions[0] likewise
//                                           (the elaborator takes p0 + p1·x, section 5)
//   E|G name n+ n- VALUE={expr}          -> nodes[2], params {value: expr as raw text}
//   E|G name n+ n- VALUE {expr}          -> the same (PSpice writes it without '=')
//   E name n+ n- VOL='expr'              -> the same, params {value: expr} (ngspice's forms of
//   G name n+ n- CUR='expr'                 a B source: VOL= on E, CUR= on G)
//   E|G name n+ n- TABLE {expr} = (x, y)... -> as VALUE={table(expr, x, y, ...)} (table_source.cpp)
//   E|G name n+ n- POLY(n) (a,b)... p0 p1 ... -> as VALUE={p0 + p1*V(a,b) + ...} (affine part only;
//   F|H name n+ n- POLY(n) V1 ... p0 p1 ...      F, H as G, E with I(V1) ...; parse_polyn)
// The other behavioural forms (LAPLACE, CUR= on E, VOL= on G) are errors.
#include <fmt/format.h>

#include <cmath>

#include "netlist/src/element_context.hpp"
#include "netlist/units.hpp"

namespace nsspice::netlist::detail {
namespace {

bool is_behavioural(const Item& item) {
  const std::string lower = ascii_lower(item.word.text);
  return item.has_value || lower == "poly" || lower == "table" || lower == "value" ||
         lower == "vol" || lower == "cur" || lower == "laplace";
}

bool behavioural_error(ElementContext& c, const Item& item) {
  c.r.error(
      c.r.span(item),
      fmt::format("unsupported form of {}: '{}' (only the {} supported)", c.what(), c.r.text(item),
                  c.card.letter == 'e'
                      ? "linear gain, VALUE=, TABLE, POLY(n) and comparator model forms are"
                  : c.card.letter == 'g' ? "linear gain, VALUE=, TABLE and POLY(n) forms are"
                                         : "linear gain and POLY(n) forms are"));
  return false;
}

// First index after the nodes where a behavioural keyword appears, or items.size().
std::size_t find_behavioural(const ElementContext& c, std::size_t from) {
  for (std::size_t i = from; i < c.items.size(); ++i) {
    if (is_behavioural(c.items[i])) return i;
  }
  return c.items.size();
}

bool no_more(ElementContext& c, std::size_t from) {
  if (from < c.items.size()) return c.unexpected(c.items[from]);
  return true;
}

// "POLY(1)" at items[3] (after the name and two nodes).
bool is_poly1(const ElementContext& c) {
  if (c.items.size() < 4) return false;
  const Item& p = c.items[3];
  return ascii_lower(p.word.text) == "poly" && p.has_group && !p.has_value && p.args.size() == 1 &&
         p.args[0].is_plain() && p.args[0].word.text == "1";
}

// POLY(1) in+ in- p0 p1 ...  (E G)  |  POLY(1) vcontrol p0 p1 ...  (F H): the controls, then
// the coefficients as functions[0] = {kind "poly", args p0 p1 ...}.
bool parse_poly1(ElementContext& c, bool current_controlled) {
  const std::size_t controls = current_controlled ? 1 : 2;
  if (!c.need(4 + controls + 1, current_controlled
                                    ? "POLY(1), a controlling voltage source and coefficients"
                                    : "POLY(1), 2 controlling nodes and coefficients")) {
    return false;
  }
  if (current_controlled ? !c.add_ref(c.items[4], "a voltage source name") : !c.read_nodes(4, 2)) {
    return false;
  }
  SourceFunction fn;
  fn.kind = c.r.word(c.items[3].word);
  fn.kind.lower = "poly";
  Item whole = c.items[3];
  for (std::size_t i = 4 + controls; i < c.items.size(); ++i) {
    auto v = c.r.number(c.items[i]);
    if (!v) return false;
    fn.args.push_back(*v);
    whole.end = c.items[i].end;
  }
  fn.span = c.r.span(whole);
  c.card.functions.push_back(std::move(fn));
  return true;
}

// "POLY(n)" with n ≥ 2 at items[3], else 0.
std::size_t poly_order(const ElementContext& c) {
  if (c.items.size() < 4) return 0;
  const Item& p = c.items[3];
  if (ascii_lower(p.word.text) != "poly" || !p.has_group || p.has_value || p.args.size() != 1 ||
      !p.args[0].is_plain())
    return 0;
  const auto n = parse_spice_number(p.args[0].word.text);
  return n && *n >= 2 && *n <= 20 && *n == std::floor(*n) ? static_cast<std::size_t>(*n) : 0;
}

// POLY(n), n ≥ 2: y = p0 + p1·x1 + ... + pn·xn + (products of the x's), the controls written
// "(a,b)", "a b" (E G: x = v(a, b)) or as source names (F H: x = i(V)). Only the affine part is
// piecewise linear: a nonzero coefficient after pn is an error naming it. The coefficients may
// also be one parenthesized, comma-separated list ("F1 4 10 POLY(2) VS1 VS2 (0,2.4E-5,3.8E-5)",
// as in ngspice's examples; written against the last source name, it is that word's group). The
// card becomes the behavioural source VALUE={p0 + p1*V(a,b) + ...} (F as G, H as E: the same
// output quantity).
bool parse_polyn(ElementContext& c, std::size_t n) {
  const bool current = c.card.letter == 'f' || c.card.letter == 'h';
  if (!c.read_nodes(1, 2)) return false;
  std::vector<std::string> x;
  std::vector<Item> coefficients;  // a coefficient list written as a group, then the items after
  std::size_t i = 4;
  const auto control_word = [&](const Item& item) -> std::optional<std::string> {
    auto w = c.r.name(item, current ? "a voltage source name" : "a node name");
    return w ? std::optional<std::string>(w->text) : std::nullopt;
  };
  while (x.size() < n && i < c.items.size()) {
    const Item& item = c.items[i];
    if (current) {
      Item name = item;
      if (item.has_group && !item.has_value && !item.word.text.empty() && x.size() + 1 == n) {
        coefficients = item.args;  // "VS2 (0,2E-3,3E-3)": the list belongs to no name
        name.has_group = false;
        name.args.clear();
      }
      auto v = control_word(name);
      if (!v) return false;
      x.push_back("I(" + *v + ")");
      ++i;
    } else if (item.has_group && item.word.text.empty() && !item.has_value &&
               (item.args.size() == 1 || item.args.size() == 2)) {
      std::string pair;
      for (const Item& a : item.args) {
        auto v = control_word(a);
        if (!v) return false;
        pair += (pair.empty() ? "" : ",") + *v;
      }
      x.push_back("V(" + pair + ")");
      ++i;
    } else {
      if (i + 1 >= c.items.size())
        return c.need(i + 2, fmt::format("POLY({}) and {} controlling node pairs", n, n));
      auto a = control_word(item), b = control_word(c.items[i + 1]);
      if (!a || !b) return false;
      x.push_back("V(" + *a + "," + *b + ")");
      i += 2;
    }
  }
  if (x.size() < n)
    return c.need(c.items.size() + 1, fmt::format("POLY({}) and {} controlling {}", n, n,
                                                  current ? "voltage sources" : "node pairs"));
  for (; i < c.items.size(); ++i) {
    const Item& item = c.items[i];
    if (item.has_group && item.word.text.empty() && !item.has_value)
      coefficients.insert(coefficients.end(), item.args.begin(), item.args.end());
    else
      coefficients.push_back(item);
  }
  std::string value;
  for (std::size_t k = 0; k < coefficients.size(); ++k) {
    const Item& item = coefficients[k];
    auto v = c.r.number(item);
    if (!v) return false;
    const std::string coefficient = v->expr.empty() ? c.r.text(item) : "(" + v->expr + ")";
    if (k > n) {
      if (v->expr.empty() && v->value == 0) continue;
      c.r.error(v->span, fmt::format("POLY({}) coefficient p{} = {} of {} multiplies a product of "
                                     "the controlling quantities: not piecewise linear (only "
                                     "p0 .. p{}, the affine part, are)",
                                     n, k, c.r.text(item), c.what(), n));
      return false;
    }
    value += (value.empty() ? "" : " + ") + coefficient + (k == 0 ? "" : "*" + x[k - 1]);
  }
  if (value.empty()) value = "0";
  const SourceSpan at = c.r.span(c.items[3]);
  c.card.params.push_back(
      Param{Word{"value", "value", at}, Word{value, ascii_lower(value), at}, std::nullopt, at});
  c.card.letter = current ? (c.card.letter == 'f' ? 'g' : 'e') : c.card.letter;
  return true;
}

}  // namespace

// K L1 L2 [L3 ...] k: the coupling factor is the last item (LTspice couples every pair of the
// inductors with it); an item before it that is a number is an error there.
bool parse_coupling(ElementContext& c) {
  if (!c.need(4, "2 inductor names and a coupling factor")) return false;
  const std::size_t last = c.items.size() - 1;
  for (std::size_t i = 1; i < last; ++i) {
    if (CardReader::is_number(c.items[i])) {
      c.r.error(c.r.span(c.items[i]),
                fmt::format("{}: expected an inductor name, got '{}' (K L1 L2 ... k: the coupling "
                            "factor is the last item)",
                            c.what(), c.r.text(c.items[i])));
      return false;
    }
    if (!c.add_ref(c.items[i], "an inductor name")) return false;
  }
  return c.set_value(c.items[last]);
}

bool parse_voltage_controlled(ElementContext& c) {
  if (c.items.size() >= 4 && c.items[3].has_value && !c.items[3].has_group &&
      ascii_lower(c.items[3].word.text) == "value") {  // E|G n+ n- VALUE={expr}
    return c.read_nodes(1, 2) && c.read_expression(3);
  }
  if (c.items.size() >= 4 && c.items[3].has_value && !c.items[3].has_group &&
      ascii_lower(c.items[3].word.text) == (c.card.letter == 'e' ? "vol" : "cur")) {
    // ngspice: E n+ n- VOL='expr', G n+ n- CUR='expr' are VALUE= (the key as written in text)
    if (!c.read_nodes(1, 2) || !c.read_expression(3)) return false;
    c.card.params.back().name.lower = "value";
    return true;
  }
  if (c.items.size() == 5 && c.items[3].is_plain() &&
      ascii_lower(c.items[3].word.text) == "value" && c.items[4].is_plain() &&
      c.items[4].word.text.front() == '{')  // PSpice: VALUE {expr}
    return c.read_nodes(1, 2) && c.read_expression(3, &c.items[4]);
  if (is_poly1(c)) return c.read_nodes(1, 2) && parse_poly1(c, false);
  if (const std::size_t n = poly_order(c)) return parse_polyn(c, n);
  if (const std::size_t b = find_behavioural(c, 3); b < c.items.size()) {
    return behavioural_error(c, c.items[b]);
  }
  const bool is_e = c.card.letter == 'e';
  if (!c.need(6, is_e ? "4 nodes and a gain (or a comparator model name)"
                      : "4 nodes and a transconductance")) {
    return false;
  }
  if (!c.read_nodes(1, 4)) return false;
  const Item& last = c.items[5];
  if (is_e && last.is_plain() && !CardReader::is_number(last)) {
    if (!c.set_model(last)) return false;
  } else if (!c.set_value(last)) {
    return false;
  }
  return no_more(c, 6);
}

bool parse_current_controlled(ElementContext& c) {
  if (is_poly1(c)) return c.read_nodes(1, 2) && parse_poly1(c, true);
  if (const std::size_t n = poly_order(c)) return parse_polyn(c, n);
  if (const std::size_t b = find_behavioural(c, 3); b < c.items.size()) {
    return behavioural_error(c, c.items[b]);
  }
  const bool is_f = c.card.letter == 'f';
  if (!c.need(5, is_f ? "2 nodes, a controlling voltage source and a gain"
                      : "2 nodes, a controlling voltage source and a transresistance")) {
    return false;
  }
  if (!c.read_nodes(1, 2) || !c.add_ref(c.items[3], "a voltage source name") ||
      !c.set_value(c.items[4])) {
    return false;
  }
  return no_more(c, 5);
}

bool parse_switch(ElementContext& c) {
  if (!c.need(6, "4 nodes and a model name")) return false;
  if (!c.read_nodes(1, 4) || !c.set_model(c.items[5])) return false;
  return c.read_tail(6, {"on", "off"});
}

bool parse_current_switch(ElementContext& c) {
  if (!c.need(5, "2 nodes, a controlling voltage source and a model name")) return false;
  if (!c.read_nodes(1, 2) || !c.add_ref(c.items[3], "a voltage source name") ||
      !c.set_model(c.items[4])) {
    return false;
  }
  return c.read_tail(5, {"on", "off"});
}

// The plain words (and KiCad's net names "Net-(Q1-B)") after the element name, up to the first
// NAME=VALUE or OFF.
std::size_t plain_words(const ElementContext& c) {
  std::size_t n = 0;
  for (std::size_t i = 1;
       i < c.items.size() && (c.items[i].is_plain() || CardReader::is_kicad_net(c.items[i])) &&
       ascii_lower(c.items[i].word.text) != "off";
       ++i)
    ++n;
  return n;
}

bool parse_mosfet(ElementContext& c) {
  // ngspice's self-heating VDMOS: "M d g s tj tc MODEL THERMAL" (thermal nodes and flag).
  const std::size_t words = plain_words(c);
  if (words == 7 && ascii_lower(c.items[7].word.text) == "thermal") {
    c.r.error(c.r.span(c.items[7]),
              fmt::format("{}: VDMOS self-heating (THERMAL, with the thermal nodes '{}' and '{}') "
                          "is not supported; write '{} {} {} {} {}' to simulate the device at "
                          ".temp",
                          c.what(), c.r.text(c.items[4]), c.r.text(c.items[5]),
                          c.r.text(c.items[0]), c.r.text(c.items[1]), c.r.text(c.items[2]),
                          c.r.text(c.items[3]), c.r.text(c.items[6])));
    return false;
  }
  // Four words: drain gate source model (ngspice's VDMOS); otherwise the bulk node too.
  const std::size_t nodes = words == 4 ? 3 : 4;
  if (!c.need(nodes + 2, "4 nodes (drain gate source bulk) and a model name")) return false;
  if (!c.read_nodes(1, nodes) || !c.set_model(c.items[nodes + 1])) return false;
  return c.read_tail(nodes + 2, {"off"});
}

bool parse_bjt(ElementContext& c) {
  const std::size_t words = plain_words(c);
  if (words < 4) {
    c.r.error(words + 1 < c.items.size() ? c.r.span(c.items[words + 1]) : c.r.end_span(),
              fmt::format("{} needs 3 nodes (collector base emitter) and a model name", c.what()));
    return false;
  }
  if (words > 6) return c.unexpected(c.items[7]);
  const bool area_after_three =
      words == 5 && CardReader::is_number(c.items[5]) && !CardReader::is_number(c.items[4]);
  const std::size_t nodes = words == 4 || area_after_three ? 3 : 4;
  if (!c.read_nodes(1, nodes) || !c.set_model(c.items[nodes + 1])) return false;
  if (words > nodes + 1 && !c.set_value(c.items[nodes + 2])) return false;
  return c.read_tail(words + 1, {"off"});
}

}  // namespace nsspice::netlist::detail
