// Internal: CardReader - turns generic syntax items into AST words, values and params.
//
//   number := plain word, parse_spice_number(word) != nullopt
//   param  := word '=' word
#include "netlist/src/card_reader.hpp"

#include <fmt/format.h>

#include "netlist/units.hpp"

namespace nsspice::netlist::detail {

bool is_expression(std::string_view text) {
  return text.size() >= 2 && ((text.front() == '{' && text.back() == '}') ||
                              (text.front() == '\'' && text.back() == '\''));
}

std::string_view expression_body(std::string_view text) {
  return text.size() >= 2 ? text.substr(1, text.size() - 2) : std::string_view();
}

Word CardReader::word(const Token& token) const {
  return Word{token.text, ascii_lower(token.text), span(token)};
}

std::string CardReader::text(const Item& item) const {
  if (item.begin >= card_.text.size() || item.end < item.begin) return {};
  return card_.text.substr(item.begin, item.end - item.begin);
}

bool CardReader::is_number(const Item& item) {
  return item.is_plain() &&
         (is_expression(item.word.text) || parse_spice_number(item.word.text).has_value());
}

std::optional<Value> CardReader::number(const Token& token) const {
  if (is_expression(token.text)) {
    const std::string_view body = expression_body(token.text);
    if (body.find_first_not_of(" \t") == std::string_view::npos) {
      error(span(token), fmt::format("empty expression '{}'", token.text));
      return std::nullopt;
    }
    return Value{0, span(token), std::string(body)};
  }
  if (auto v = parse_spice_number(token.text)) return Value{*v, span(token), {}};
  error(span(token),
        fmt::format("expected a number, got '{}'{}", token.text, number_hint(token.text)));
  return std::nullopt;
}

std::optional<Value> CardReader::number(const Item& item) const {
  if (!item.is_plain()) {
    error(span(item), fmt::format("expected a number, got '{}'", text(item)));
    return std::nullopt;
  }
  return number(item.word);
}

std::optional<Param> CardReader::param(const Item& item, std::string_view where) const {
  if (item.word.text.empty() || item.has_group || !item.has_value) {
    error(span(item), fmt::format("expected NAME=VALUE {}, got '{}'", where, text(item)));
    return std::nullopt;
  }
  return Param{word(item.word), word(item.value), parse_spice_number(item.value.text), span(item)};
}

bool CardReader::is_kicad_net(const Item& item) {
  return !item.word.text.empty() && item.has_group && !item.has_value;
}

std::optional<Word> CardReader::node(const Item& item) const {
  if (is_kicad_net(item)) {
    const std::string written = text(item);
    if (written.find_first_of(" \t,") == std::string::npos)
      return Word{written, ascii_lower(written), span(item)};
  }
  return name(item, "a node name");
}

std::optional<Word> CardReader::name(const Item& item, std::string_view what) const {
  if (!item.is_plain()) {
    error(span(item), fmt::format("expected {}, got '{}'", what, text(item)));
    return std::nullopt;
  }
  return word(item.word);
}

}  // namespace nsspice::netlist::detail
