// Internal: element cards (first letter of the name selects the kind).
//
//   R|C|L name n+ n- value {NAME=VALUE}
//   V|I   name n+ n- {[DC] value | AC mag [phase] | fn '(' number* ')' | fn number* | NAME=VALUE}
//         fn := SIN | PULSE | PWL       (at most one; arguments kept as written)
//   D     name anode cathode model {ignored instance parameter}
#include <fmt/format.h>

#include <string>

#include "netlist/src/card_reader.hpp"

namespace nsspice::netlist::detail {
namespace {

struct Context {
  const CardReader& r;
  const std::vector<Item>& items;
  ElementCard card;
  std::string kind;  // "resistor", ...

  std::string what() const { return fmt::format("{} '{}'", kind, card.name.text); }
  bool read_nodes() {
    for (std::size_t i = 1; i <= 2; ++i) {
      auto node = r.name(items[i], "a node name");
      if (!node) return false;
      card.nodes.push_back(*node);
    }
    return true;
  }
  bool unexpected(const Item& item) const {
    r.error(r.span(item), fmt::format("unexpected '{}' in {}", r.text(item), what()));
    return false;
  }
  bool set_dc(const Item& item) {
    auto v = r.number(item);
    if (!v) return false;
    if (card.value) {
      r.error(v->span, fmt::format("{} has more than one DC value", what()));
      return false;
    }
    card.value = *v;
    return true;
  }
};

bool parse_two_terminal(Context& c) {
  if (c.items.size() < 4) {
    c.r.error(c.r.end_span(), fmt::format("{} needs 2 nodes and a value", c.what()));
    return false;
  }
  if (!c.read_nodes() || !c.set_dc(c.items[3])) return false;
  for (std::size_t i = 4; i < c.items.size(); ++i) {
    const Item& item = c.items[i];
    if (!item.has_value || item.has_group) return c.unexpected(item);
    auto p = c.r.param(item, "");
    if (!p) return false;
    c.card.params.push_back(std::move(*p));
  }
  return true;
}

bool is_function(const std::string& lower) {
  return lower == "sin" || lower == "pulse" || lower == "pwl";
}

bool is_unsupported_function(const std::string& lower) {
  return lower == "exp" || lower == "sffm" || lower == "am" || lower == "trnoise" ||
         lower == "trrandom" || lower == "pat";
}

// Function at items[i]; advances i past it.
bool parse_function(Context& c, std::size_t& i) {
  const Item& head = c.items[i];
  SourceFunction fn;
  fn.kind = c.r.word(head.word);
  std::size_t end = head.end;
  if (head.has_group) {
    for (const Item& arg : head.args) {
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

// "AC mag [phase]" at items[i]: kept as params ac / acphase, with a warning.
void skip_ac(Context& c, std::size_t& i) {
  const Item& ac = c.items[i];
  c.r.warning(c.r.span(ac), "AC specification ignored (no AC analysis)");
  ++i;
  for (const char* name : {"ac", "acphase"}) {
    if (i >= c.items.size() || !CardReader::is_number(c.items[i])) return;
    const Item& v = c.items[i++];
    Word key{name, name, c.r.span(ac)};
    c.card.params.push_back(Param{key, c.r.word(v.word), c.r.number(v)->value, c.r.span(v)});
  }
}

bool parse_source(Context& c) {
  if (c.items.size() < 3) {
    c.r.error(c.r.end_span(), fmt::format("{} needs 2 nodes", c.what()));
    return false;
  }
  if (!c.read_nodes()) return false;
  std::size_t i = 3;
  while (i < c.items.size()) {
    const Item& item = c.items[i];
    const std::string lower = ascii_lower(item.word.text);
    if (item.is_plain() && lower == "dc") {
      if (i + 1 >= c.items.size()) {
        c.r.error(c.r.end_span(), "expected a value after 'DC'");
        return false;
      }
      if (!c.set_dc(c.items[i + 1])) return false;
      i += 2;
    } else if (item.is_plain() && lower == "ac") {
      skip_ac(c, i);
    } else if (!item.has_value && is_function(lower)) {
      if (!parse_function(c, i)) return false;
    } else if (CardReader::is_number(item)) {
      if (!c.set_dc(item)) return false;
      ++i;
    } else if (item.has_value && !item.has_group && !item.word.text.empty()) {
      c.card.params.push_back(*c.r.param(item, ""));
      ++i;
    } else if (!item.has_value && is_unsupported_function(lower)) {
      c.r.error(c.r.span(item.word),
                fmt::format("unsupported source function '{}'", item.word.text));
      return false;
    } else if (item.is_plain()) {
      c.r.error(c.r.span(item), fmt::format("expected a number, got '{}'", item.word.text));
      return false;
    } else {
      return c.unexpected(item);
    }
  }
  return true;
}

bool parse_diode(Context& c) {
  if (c.items.size() < 4) {
    c.r.error(c.r.end_span(), fmt::format("{} needs 2 nodes and a model name", c.what()));
    return false;
  }
  if (!c.read_nodes()) return false;
  auto model = c.r.name(c.items[3], "a model name");
  if (!model) return false;
  c.card.model = std::move(*model);
  for (std::size_t i = 4; i < c.items.size(); ++i) {
    c.r.warning(c.r.span(c.items[i]), fmt::format("instance parameter '{}' of {} ignored",
                                                  c.r.text(c.items[i]), c.what()));
  }
  return true;
}

}  // namespace

std::optional<ElementCard> parse_element(const CardReader& r, const std::vector<Item>& items) {
  Context c{r, items, ElementCard{}, ""};
  c.card.name = r.word(items.front().word);
  c.card.span = r.card_span();
  bool ok = false;
  switch (c.card.name.lower.front()) {
    case 'r':
      c.kind = "resistor";
      ok = parse_two_terminal(c);
      break;
    case 'c':
      c.kind = "capacitor";
      ok = parse_two_terminal(c);
      break;
    case 'l':
      c.kind = "inductor";
      ok = parse_two_terminal(c);
      break;
    case 'v':
      c.kind = "voltage source";
      ok = parse_source(c);
      break;
    case 'i':
      c.kind = "current source";
      ok = parse_source(c);
      break;
    case 'd':
      c.kind = "diode";
      ok = parse_diode(c);
      break;
    default:
      r.error(c.card.name.span, fmt::format("unknown element type '{}' (element '{}')",
                                            c.card.name.text.substr(0, 1), c.card.name.text));
      return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return std::move(c.card);
}

}  // namespace nsspice::netlist::detail
