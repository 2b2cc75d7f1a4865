// Internal: coupled inductors, controlled sources, switches and MOSFETs.
//
//   K name L1 L2 k                       -> refs {L1, L2}, value k
//   E name n+ n- nc+ nc- gain            -> nodes[4], value       (linear VCVS)
//   E name out+ out- in+ in- MODEL       -> nodes[4], model       (nsspice comparator form:
//                                           the 5th item is a word that is not a number)
//   G name n+ n- nc+ nc- gm              -> nodes[4], value       (linear VCCS)
//   F name n+ n- vcontrol gain           -> nodes[2], refs {vcontrol}, value
//   H name n+ n- vcontrol r              -> nodes[2], refs {vcontrol}, value
//   S name n+ n- nc+ nc- model [ON|OFF]  -> nodes[4], model, flags
//   W name n+ n- vcontrol model [ON|OFF] -> nodes[2], refs {vcontrol}, model, flags
//   M name d g s b model {NAME=VALUE} [OFF] -> nodes[4], model, params, flags
// The behavioural forms (E/G with VALUE= / TABLE / POLY(...), B sources) are errors.
#include <fmt/format.h>

#include "netlist/src/element_context.hpp"

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
                  c.card.letter == 'e' ? "linear gain and comparator model forms are"
                                       : "linear gain form is"));
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

}  // namespace

bool parse_coupling(ElementContext& c) {
  if (!c.need(4, "2 inductor names and a coupling factor")) return false;
  if (!c.add_ref(c.items[1], "an inductor name") || !c.add_ref(c.items[2], "an inductor name") ||
      !c.set_value(c.items[3])) {
    return false;
  }
  return no_more(c, 4);
}

bool parse_voltage_controlled(ElementContext& c) {
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

bool parse_mosfet(ElementContext& c) {
  if (!c.need(6, "4 nodes (drain gate source bulk) and a model name")) return false;
  if (!c.read_nodes(1, 4) || !c.set_model(c.items[5])) return false;
  return c.read_tail(6, {"off"});
}

}  // namespace nsspice::netlist::detail
