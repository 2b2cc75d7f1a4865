// Internal: element cards (first letter of the name selects the kind) and X instances.
//
//   R|C|L name n+ n- value {NAME=VALUE}                    value := number | {expr} | 'expr'
//         value also as r=, c=, l= (the element's letter; ngspice: "R1 a b r=1k")
//   R     name n+ n- [value] [model] {NAME=VALUE}    value and model in either order, at least
//         one; r=, resistance= among the NAME=VALUE are the value
//   V|I   name n+ n- {[DC] value | AC mag [phase] | fn '(' arg* ')' | fn arg* | NAME=VALUE}
//         fn := SIN | SINE | PULSE | PWL | EXP | SFFM   (at most one; SINE (LTspice) = SIN; args
//         kept as written; NAME=VALUE inside the parentheses, and r= / td= right after a PWL, are
//         the function's params; PWL's other forms: pwl_tail below and ast.hpp)
//   D     name anode cathode model {OFF | area | NAME=VALUE}
//   B     name n+ n- (V|I)=expr               -> nodes[2], params {v|i: expr as raw text: the
//                                                rest of the card, braces/quotes removed}
//   X     name node* subckt [params:] {NAME=VALUE}
//   K E G F H S W M Q: controlled.cpp.   Other letters: error.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
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

// One number of a PWL list; a time (even position) written "+t" is relative to the previous
// point (LTspice, PSpice).
bool pwl_number(Context& c, const Item& item, SourceFunction& fn) {
  auto v = c.r.number(item);
  if (!v) return false;
  if (fn.args.size() % 2 == 0 && item.word.text.starts_with('+'))
    fn.relative.push_back(fn.args.size());
  fn.args.push_back(*v);
  return true;
}

bool pwl_group(Context& c, const Item& group, SourceFunction& fn) {
  for (const Item& arg : group.args)
    if (!pwl_number(c, arg, fn)) return false;
  return true;
}

bool is_pwl_option(const std::string& key) {
  return key == "r" || key == "td" || key == "file" || key == "time_scale_factor" ||
         key == "value_scale_factor";
}

// REPEAT FOREVER | FOR n ( t v ... ) ... ENDREPEAT at items[i] (LTspice, PSpice), as the whole
// point list: its points become the args and param "repeat" = n (0: forever).
bool pwl_repeat(Context& c, std::size_t& i, SourceFunction& fn, std::size_t& end) {
  const Item& head = c.items[i];
  if (!fn.args.empty()) {
    c.r.error(c.r.span(head),
              "PWL: REPEAT after points is not supported; write the repeated "
              "points alone, or use r=<time> (repeat from that point on)");
    return false;
  }
  if (head.has_group || i + 1 >= c.items.size()) {
    c.r.error(c.r.span(head),
              "PWL: expected REPEAT FOREVER ( ... ) ENDREPEAT or REPEAT FOR n "
              "( ... ) ENDREPEAT");
    return false;
  }
  std::size_t k = i + 1;
  const Item* with_points = nullptr;  // FOREVER(...) or n(...): the first group is attached
  Word count_word = c.r.word(c.items[k].word);
  double count = 0;
  if (count_word.lower == "forever") {
    with_points = c.items[k].has_group ? &c.items[k] : nullptr;
    ++k;
  } else if (count_word.lower == "for" && !c.items[k].has_group && k + 1 < c.items.size()) {
    ++k;
    const Item& n = c.items[k];
    auto v = c.r.number(n.word);
    if (!v) return false;
    count_word = c.r.word(n.word);
    count = v->value;
    if (!v->expr.empty() || count != std::floor(count) || (count < 1 && count != -1)) {
      c.r.error(c.r.span(n.word), fmt::format("PWL: REPEAT FOR needs a whole number of "
                                              "repetitions ≥ 1 (or -1: forever), got '{}'",
                                              n.word.text));
      return false;
    }
    if (count == -1) count = 0;
    with_points = n.has_group ? &n : nullptr;
    ++k;
  } else {
    c.r.error(
        c.r.span(c.items[k]),
        fmt::format("PWL: expected FOREVER or FOR n after REPEAT, got '{}'", c.r.text(c.items[k])));
    return false;
  }
  if (with_points != nullptr && !pwl_group(c, *with_points, fn)) return false;
  for (; k < c.items.size(); ++k) {
    const Item& it = c.items[k];
    if (it.word.text.empty() && it.has_group && !it.has_value) {
      if (!pwl_group(c, it, fn)) return false;
    } else if (CardReader::is_number(it)) {
      if (!pwl_number(c, it, fn)) return false;
    } else {
      break;
    }
  }
  if (k >= c.items.size() || !c.items[k].is_plain() ||
      ascii_lower(c.items[k].word.text) != "endrepeat") {
    c.r.error(k < c.items.size() ? c.r.span(c.items[k]) : c.r.end_span(),
              "PWL: expected ENDREPEAT after the repeated points");
    return false;
  }
  Word key{"repeat", "repeat", c.r.span(head)};
  Param p{key, count_word, count, c.r.span(head)};
  fn.params.push_back(std::move(p));
  end = c.items[k].end;
  i = k + 1;
  return true;
}

// After PWL's first list: more (t v) groups, REPEAT ... ENDREPEAT, FILE name, and the options
// r= td= file= time_scale_factor= value_scale_factor=.
bool pwl_tail(Context& c, std::size_t& i, SourceFunction& fn, std::size_t& end) {
  while (i < c.items.size()) {
    const Item& it = c.items[i];
    const std::string key = ascii_lower(it.word.text);
    if (it.word.text.empty() && it.has_group && !it.has_value) {
      if (!pwl_group(c, it, fn)) return false;
    } else if (it.has_value && !it.has_group && is_pwl_option(key)) {
      fn.params.push_back(*c.r.param(it, ""));
    } else if (it.is_plain() && key == "file" && i + 1 < c.items.size() &&
               c.items[i + 1].is_plain()) {
      const Item& name = c.items[++i];
      Param p{c.r.word(it.word), c.r.word(name.word), std::nullopt, c.r.card_span()};
      p.span = p.name.span;
      fn.params.push_back(std::move(p));
    } else if (it.is_plain() && key == "repeat") {
      if (!pwl_repeat(c, i, fn, end)) return false;
      continue;
    } else {
      break;
    }
    end = c.items[i++].end;
  }
  return true;
}

// Function at items[i]; advances i past it (and past PWL's tail, pwl_tail).
bool parse_function(Context& c, std::size_t& i) {
  const Item& head = c.items[i];
  SourceFunction fn;
  fn.kind = c.r.word(head.word);
  if (fn.kind.lower == "sine") fn.kind.lower = "sin";  // LTspice's spelling
  const bool pwl = fn.kind.lower == "pwl";
  std::size_t end = head.end;
  if (head.has_group) {
    for (const Item& arg : head.args) {
      if (arg.has_value && !arg.has_group && !arg.word.text.empty()) {
        fn.params.push_back(*c.r.param(arg, ""));
        continue;
      }
      if (pwl) {
        if (!pwl_number(c, arg, fn)) return false;
        continue;
      }
      auto v = c.r.number(arg);
      if (!v) return false;
      fn.args.push_back(*v);
    }
    ++i;
  } else {
    for (++i; i < c.items.size() && CardReader::is_number(c.items[i]); ++i) {
      if (pwl) {
        if (!pwl_number(c, c.items[i], fn)) return false;
      } else {
        fn.args.push_back(*c.r.number(c.items[i]));
      }
      end = c.items[i].end;
    }
  }
  if (pwl && !pwl_tail(c, i, fn, end)) return false;
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

// ngspice's "(PULSE 0 5 0 1n 1n 5u 10u)", as some exporters write it: the function's name inside
// its parentheses. The group attaches to the word before it ("0 (PULSE ...)" is one item, a node
// or a value with a group): such an item is split into its word and the function, the rest of
// the group the function's arguments. "PULSE(...)" and "PULSE (...)" are left as they are.
std::vector<Item> split_parenthesized_functions(const std::vector<Item>& items) {
  std::vector<Item> out;
  for (const Item& item : items) {
    if (!item.has_group || item.has_value || item.args.empty() || !item.args[0].is_plain() ||
        !is_function(ascii_lower(item.args[0].word.text)) ||
        is_function(ascii_lower(item.word.text))) {
      out.push_back(item);
      continue;
    }
    if (!item.word.text.empty()) {
      Item word;
      word.word = item.word;
      word.begin = item.begin;
      word.end = item.word.end;
      out.push_back(std::move(word));
    }
    Item head = item.args[0];
    head.has_group = true;
    head.args.assign(item.args.begin() + 1, item.args.end());
    head.end = item.end;
    out.push_back(std::move(head));
  }
  return out;
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
    auto p = r.param(without_params_prefix(items[i]), "in an instance parameter list");
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
  const std::vector<Item> source_items =
      letter == 'v' || letter == 'i' ? split_parenthesized_functions(items) : std::vector<Item>{};
  Context c{r, source_items.empty() ? items : source_items, ElementCard{}, ""};
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
