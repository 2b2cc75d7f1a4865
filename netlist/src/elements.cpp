// Internal: element cards (first letter of the name selects the kind) and X instances.
//
//   R|C|L name n+ n- value {NAME=VALUE}                    value := number | {expr} | 'expr'
//         value also as r=, c=, l= (the element's letter; ngspice: "R1 a b r=1k")
//   R     name n+ n- [value] [model] {NAME=VALUE}    value and model in either order, at least
//         one; r=, resistance= among the NAME=VALUE are the value
//   V|I   name n+ n- {[DC] value | AC mag [phase] | fn '(' arg* ')' | fn arg* | NAME=VALUE}
//         fn := SIN | SINE | PULSE | PWL | EXP | SFFM   (at most one; SINE (LTspice) = SIN; args
//         kept as written; NAME=VALUE inside the parentheses, and r= / td= right after a PWL, are
//         the function's params)
//   D     name anode cathode model {OFF | area | NAME=VALUE}
//   B     name n+ n- (V|I)=expr               -> nodes[2], params {v|i: expr as raw text: the
//                                                rest of the card, braces/quotes removed}
//   X     name node* subckt [params:] {NAME=VALUE}
//   K E G F H S W M Q: controlled.cpp.   Other letters: error.
#include <fmt/format.h>

#include <cctype>
#include <string>

#include "netlist/src/element_context.hpp"
#include "netlist/units.hpp"

namespace nsspice::netlist::detail {
namespace {

using Context = ElementContext;

bool set_dc(Context& c, const Item& item) {
  auto v = c.r.number(item);
  if (!v) return false;
  if (c.card.value) {
    c.r.error(v->span, fmt::format("{} has more than one DC value", c.what()));
    return false;
  }
  c.card.value = *v;
  return true;
}

bool is_function(const std::string& lower) {
  return lower == "sin" || lower == "sine" || lower == "pulse" || lower == "pwl" ||
         lower == "exp" || lower == "sffm";
}

bool is_unsupported_function(const std::string& lower) {
  return lower == "am" || lower == "trnoise" || lower == "trrandom" || lower == "pat";
}

// Function at items[i]; advances i past it (and past r= / td= after a PWL).
bool parse_function(Context& c, std::size_t& i) {
  const Item& head = c.items[i];
  SourceFunction fn;
  fn.kind = c.r.word(head.word);
  if (fn.kind.lower == "sine") fn.kind.lower = "sin";  // LTspice's spelling
  std::size_t end = head.end;
  if (head.has_group) {
    for (const Item& arg : head.args) {
      if (arg.has_value && !arg.has_group && !arg.word.text.empty()) {
        fn.params.push_back(*c.r.param(arg, ""));
        continue;
      }
      auto v = c.r.number(arg);
      if (!v) return false;
      fn.args.push_back(*v);
    }
    ++i;
  } else {
    for (++i; i < c.items.size() && CardReader::is_number(c.items[i]); ++i) {
      fn.args.push_back(*c.r.number(c.items[i]));
      end = c.items[i].end;
    }
  }
  while (fn.kind.lower == "pwl" && i < c.items.size() && c.items[i].has_value &&
         !c.items[i].has_group) {
    const std::string key = ascii_lower(c.items[i].word.text);
    if (key != "r" && key != "td") break;
    fn.params.push_back(*c.r.param(c.items[i], ""));
    end = c.items[i++].end;
  }
  Item whole = head;
  whole.end = end;
  fn.span = c.r.span(whole);
  if (!c.card.functions.empty()) {
    c.r.error(fn.span, fmt::format("{} has more than one source function", c.what()));
    return false;
  }
  c.card.functions.push_back(std::move(fn));
  return true;
}

// "AC mag [phase]" at items[i]: kept as params ac / acphase (the .ac analysis's excitation).
void read_ac(Context& c, std::size_t& i) {
  const Item& ac = c.items[i];
  ++i;
  for (const char* name : {"ac", "acphase"}) {
    if (i >= c.items.size() || !CardReader::is_number(c.items[i])) return;
    const Item& v = c.items[i++];
    const Value value = *c.r.number(v);
    Word key{name, name, c.r.span(ac)};
    Param p{key, c.r.word(v.word), std::nullopt, c.r.span(v)};
    if (value.expr.empty()) p.number = value.value;
    c.card.params.push_back(std::move(p));
  }
}

bool parse_instance(const CardReader& r, const std::vector<Item>& items, InstanceCard& x) {
  x.name = r.word(items.front().word);
  x.span = r.card_span();
  std::size_t i = 1;
  std::vector<Word> words;
  for (; i < items.size() && (items[i].is_plain() || CardReader::is_kicad_net(items[i])); ++i) {
    const std::string lower = ascii_lower(items[i].word.text);
    if (lower == "params:") break;
    auto node = r.node(items[i]);
    if (!node) return false;
    words.push_back(std::move(*node));
  }
  if (words.empty()) {
    r.error(i < items.size() ? r.span(items[i]) : r.end_span(),
            fmt::format("instance '{}' needs a subcircuit name", x.name.text));
    return false;
  }
  x.subckt = words.back();
  words.pop_back();
  x.nodes = std::move(words);
  if (i < items.size() && ascii_lower(items[i].word.text) == "params:") ++i;
  for (; i < items.size(); ++i) {
    auto p = r.param(items[i], "in an instance parameter list");
    if (!p) return false;
    x.params.push_back(std::move(*p));
  }
  return true;
}

// Kind of the SPICE elements nsspice does not have, or "" for an unknown letter.
const char* unsupported_kind(char letter) {
  switch (letter) {
    case 'j':
      return "JFETs";
    case 'z':
      return "MESFETs";
    case 't':
    case 'o':
    case 'u':
    case 'y':
    case 'p':
      return "transmission lines";
    case 'a':
      return "XSPICE code models";
    case 'n':
      return "OSDI devices";
    default:
      return "";
  }
}

// The NAME=VALUE items from `first` on; in "TC=a,b" (the comma splits it) b is tc2. On a
// resistor r= and resistance= are the value (ngspice: "R1 a b rmod r=2k").
bool read_passive_tail(Context& c, std::size_t first) {
  for (std::size_t i = first; i < c.items.size(); ++i) {
    const Item& item = c.items[i];
    const bool after_tc = !c.card.params.empty() && c.card.params.back().name.lower == "tc";
    const std::string key = ascii_lower(item.word.text);
    if (item.is_plain() && CardReader::is_number(item) && after_tc) {
      const Value v = *c.r.number(item);
      Param tc2{Word{"tc2", "tc2", c.r.span(item)}, c.r.word(item.word), std::nullopt,
                c.r.span(item)};
      if (v.expr.empty()) tc2.number = v.value;
      c.card.params.push_back(std::move(tc2));
    } else if (c.card.letter == 'r' && item.has_value && !item.has_group &&
               (key == "r" || key == "resistance")) {
      if (c.card.value) return c.unexpected(item);  // two values
      auto value = c.r.number(item.value);
      if (!value) return false;
      c.card.value = *value;
    } else if (item.has_value && !item.has_group && !item.word.text.empty()) {
      c.card.params.push_back(*c.r.param(item, ""));
    } else {
      return c.unexpected(item);
    }
  }
  return true;
}

// "R name n+ n- [value] [model] {NAME=VALUE}": the value and ngspice's resistor model, in
// either order (ngspice documents value then model, PSpice and vendor macromodels write
// "R1 a b R_NOISELESS 1e-3"), a model alone ("R1 a b rmod", its R or RSH·L/W), or the value as
// r= among the parameters. A word that is no model is reported by the elaborator.
bool parse_resistor(Context& c) {
  std::size_t i = 3;
  for (int k = 0; k < 2 && i < c.items.size() && c.items[i].is_plain(); ++k, ++i) {
    const Item& item = c.items[i];
    const char first = item.word.text.empty() ? '0' : item.word.text[0];
    if (CardReader::is_number(item) || !(std::isalpha(static_cast<unsigned char>(first)) ||
                                         first == '_')) {  // "1.2.3": a bad number
      if (c.card.value) return c.unexpected(item);
      if (!c.set_value(item)) return false;
    } else {
      if (c.card.model) return c.unexpected(item);
      if (!c.set_model(item)) return false;
    }
  }
  if (!read_passive_tail(c, i)) return false;
  if (c.card.value || c.card.model) return true;
  c.r.error(c.r.span(c.items[3]), fmt::format("{} needs a value or a model name", c.what()));
  return false;
}

}  // namespace

bool parse_two_terminal(Context& c) {
  if (!c.need(4, "2 nodes and a value")) return false;
  if (!c.read_nodes(1, 2)) return false;
  if (c.card.letter == 'r') return parse_resistor(c);
  const Item& v = c.items[3];
  if (v.has_value && !v.has_group && ascii_lower(v.word.text) == std::string(1, c.card.letter)) {
    auto value = c.r.number(v.value);  // ngspice's value keyword: "C1 a b c=1n"
    if (!value) return false;
    c.card.value = *value;
  } else if (!c.set_value(v)) {
    return false;
  }
  return read_passive_tail(c, 4);
}

bool parse_source(Context& c) {
  if (!c.need(3, "2 nodes")) return false;
  if (!c.read_nodes(1, 2)) return false;
  std::size_t i = 3;
  while (i < c.items.size()) {
    const Item& item = c.items[i];
    const std::string lower = ascii_lower(item.word.text);
    if (item.is_plain() && lower == "dc") {
      if (i + 1 >= c.items.size()) {
        c.r.error(c.r.end_span(), "expected a value after 'DC'");
        return false;
      }
      if (!set_dc(c, c.items[i + 1])) return false;
      i += 2;
    } else if (item.is_plain() && lower == "ac") {
      read_ac(c, i);
    } else if (!item.has_value && is_function(lower)) {
      if (!parse_function(c, i)) return false;
    } else if (CardReader::is_number(item)) {
      if (!set_dc(c, item)) return false;
      ++i;
    } else if (item.has_value && !item.has_group && !item.word.text.empty()) {
      c.card.params.push_back(*c.r.param(item, ""));
      ++i;
    } else if (!item.has_value && is_unsupported_function(lower)) {
      c.r.error(c.r.span(item.word),
                fmt::format("unsupported source function '{}'", item.word.text));
      return false;
    } else if (item.is_plain()) {
      c.r.error(c.r.span(item), fmt::format("expected a number, got '{}'{}", item.word.text,
                                            number_hint(item.word.text)));
      return false;
    } else {
      return c.unexpected(item);
    }
  }
  return true;
}

bool parse_diode(Context& c) {
  if (!c.need(4, "2 nodes and a model name")) return false;
  if (!c.read_nodes(1, 2) || !c.set_model(c.items[3])) return false;
  for (std::size_t i = 4; i < c.items.size(); ++i) {
    const Item& item = c.items[i];
    if (item.has_value && !item.has_group && !item.word.text.empty()) {
      c.card.params.push_back(*c.r.param(item, ""));
      continue;
    }
    if (item.is_plain() && ascii_lower(item.word.text) == "off") {
      c.card.flags.push_back(c.r.word(item.word));
      c.card.flags.back().text = "off";
    } else if (!c.card.value && CardReader::is_number(item)) {  // the area factor
      if (!c.set_value(item)) return false;
      continue;
    }
    c.r.warning(c.r.span(item),
                fmt::format("instance parameter '{}' of {} ignored", c.r.text(item), c.what()));
  }
  return true;
}

// B name n+ n- V=expr | I=expr
bool parse_behavioural(Context& c) {
  if (!c.need(4, "2 nodes and V=expr or I=expr")) return false;
  if (!c.read_nodes(1, 2)) return false;
  const Item& item = c.items[3];
  const std::string key = ascii_lower(item.word.text);
  if (!item.has_value || item.has_group || (key != "v" && key != "i")) {
    c.r.error(c.r.span(item),
              fmt::format("{} needs V=expr or I=expr, got '{}'", c.what(), c.r.text(item)));
    return false;
  }
  return c.read_expression(3);
}

std::optional<Card> parse_element_or_instance(const CardReader& r, const std::vector<Item>& items) {
  const Word name = r.word(items.front().word);
  const char letter = name.lower.front();
  if (letter == 'x') {
    InstanceCard x;
    if (!parse_instance(r, items, x)) return std::nullopt;
    return Card{std::move(x)};
  }
  Context c{r, items, ElementCard{}, ""};
  c.card.name = name;
  c.card.span = r.card_span();
  c.card.letter = letter;
  struct Kind {
    char letter;
    const char* name;
    bool (*parse)(Context&);
  };
  static constexpr Kind kKinds[] = {
      {'r', "resistor", parse_two_terminal},
      {'c', "capacitor", parse_two_terminal},
      {'l', "inductor", parse_two_terminal},
      {'v', "voltage source", parse_source},
      {'i', "current source", parse_source},
      {'d', "diode", parse_diode},
      {'k', "coupling", parse_coupling},
      {'e', "voltage-controlled voltage source", parse_voltage_controlled},
      {'g', "voltage-controlled current source", parse_voltage_controlled},
      {'f', "current-controlled current source", parse_current_controlled},
      {'h', "current-controlled voltage source", parse_current_controlled},
      {'s', "switch", parse_switch},
      {'w', "current-controlled switch", parse_current_switch},
      {'m', "MOSFET", parse_mosfet},
      {'q', "bipolar transistor", parse_bjt},
      {'b', "behavioural source", parse_behavioural},
  };
  for (const Kind& k : kKinds) {
    if (k.letter != letter) continue;
    c.kind = k.name;
    if (!k.parse(c)) return std::nullopt;
    return Card{std::move(c.card)};
  }
  const std::string upper = name.text.substr(0, 1);
  const std::string kind = unsupported_kind(letter);
  if (kind.empty()) {
    r.error(name.span, fmt::format("unknown element type '{}' (element '{}')", upper, name.text));
  } else {
    r.error(name.span, fmt::format("unsupported element type '{}' (element '{}'): {} are not "
                                   "supported",
                                   upper, name.text, kind));
  }
  return std::nullopt;
}

}  // namespace nsspice::netlist::detail
