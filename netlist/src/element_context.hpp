// Internal: state shared by the element card parsers (elements.cpp, controlled.cpp).
//
// Every parser reads `items` (items[0] is the element name) into `card` and reports its own
// errors; it returns false for a bad card (which is then dropped).
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "netlist/src/card_reader.hpp"

namespace nsspice::netlist::detail {

struct ElementContext {
  const CardReader& r;
  const std::vector<Item>& items;
  ElementCard card;
  std::string kind;  // "resistor", ...

  std::string what() const { return fmt::format("{} '{}'", kind, card.name.text); }
  // Reads items[first, first + count) as node names.
  // "KEY=expr" at items[i] of a behavioural source: the rest of the card (without the braces
  // or quotes around it) becomes the raw text of params[KEY], e.g. V=2*V(in)+1.
  // `value_item`: the expression is that item (PSpice's "VALUE {expr}", without '=').
  bool read_expression(std::size_t i, const Item* value_item = nullptr) {
    const Item& item = items[i];
    std::size_t begin = value_item != nullptr ? value_item->begin : item.value.begin;
    std::string text = r.tail(begin);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.pop_back();
    if (text.size() >= 2 && ((text.front() == '{' && text.back() == '}') ||
                             (text.front() == '\'' && text.back() == '\''))) {
      text = text.substr(1, text.size() - 2);
      ++begin;
    }
    if (text.empty()) {
      r.error(r.span(item),
              fmt::format("{} needs an expression after '{}='", what(), item.word.text));
      return false;
    }
    Word key = r.word(item.word);
    const SourceSpan at = r.tail_span(begin);
    card.params.push_back(Param{key, Word{text, ascii_lower(text), at}, std::nullopt, at});
    return true;
  }
  bool read_nodes(std::size_t first, std::size_t count) {
    for (std::size_t i = first; i < first + count; ++i) {
      auto node = r.node(items[i]);
      if (!node) return false;
      card.nodes.push_back(*node);
    }
    return true;
  }
  bool unexpected(const Item& item) const {
    r.error(r.span(item), fmt::format("unexpected '{}' in {}", r.text(item), what()));
    return false;
  }
  // "<kind> 'X' needs <usage>" at the end of the card when fewer than `count` items.
  bool need(std::size_t count, std::string_view usage) const {
    if (items.size() >= count) return true;
    r.error(r.end_span(), fmt::format("{} needs {}", what(), usage));
    return false;
  }
  bool set_value(const Item& item) {
    auto v = r.number(item);
    if (!v) return false;
    card.value = *v;
    return true;
  }
  bool set_model(const Item& item) {
    auto m = r.name(item, "a model name");
    if (!m) return false;
    card.model = std::move(*m);
    return true;
  }
  bool add_ref(const Item& item, std::string_view what_name) {
    auto w = r.name(item, what_name);
    if (!w) return false;
    card.refs.push_back(std::move(*w));
    return true;
  }
  // Items from `first` on: NAME=VALUE params, or (if `flags` lists it) a bare keyword flag.
  bool read_tail(std::size_t first, std::initializer_list<std::string_view> flags) {
    for (std::size_t i = first; i < items.size(); ++i) {
      const Item& item = items[i];
      if (item.is_plain()) {
        const std::string lower = ascii_lower(item.word.text);
        bool known = false;
        for (std::string_view f : flags) known = known || lower == f;
        if (!known) return unexpected(item);
        card.flags.push_back(r.word(item.word));
        card.flags.back().text = card.flags.back().lower;
        continue;
      }
      if (!item.has_value || item.has_group || item.word.text.empty()) return unexpected(item);
      card.params.push_back(*r.param(item, ""));
    }
    return true;
  }
};

// R C L V I D (elements.cpp).
bool parse_two_terminal(ElementContext& c);
bool parse_source(ElementContext& c);
bool parse_diode(ElementContext& c);
// K E G F H S W M Q (controlled.cpp).
bool parse_coupling(ElementContext& c);
bool parse_voltage_controlled(ElementContext& c);
bool parse_current_controlled(ElementContext& c);
bool parse_switch(ElementContext& c);
bool parse_current_switch(ElementContext& c);
bool parse_mosfet(ElementContext& c);
bool parse_bjt(ElementContext& c);

}  // namespace nsspice::netlist::detail
