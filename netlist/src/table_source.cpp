// Internal: PSpice's and ngspice's table-controlled sources,
//
//   E|G name n+ n- TABLE {expr} [=] (x_1, y_1) (x_2, y_2) ... (x_n, y_n)
//
// (pairs separated by blanks or commas, with or without their parentheses), rewritten as the
// behavioural source VALUE={table(expr, x_1, y_1, ..., x_n, y_n)}: linear between the points,
// y_1 below x_1 and y_n above x_n, as PSpice's TABLE. The elaborator turns it into kinks, one
// complementarity pair per inner point (circuit/src/behavioural.hpp). The card is read from
// its text: the pairs' parentheses after '=' are not the generic item syntax.
#include <fmt/format.h>

#include <cctype>

#include "netlist/src/element_context.hpp"
#include "netlist/units.hpp"

namespace nsspice::netlist::detail {
namespace {

// The offset of the word TABLE after the name and two nodes, or npos.
std::size_t table_keyword(const std::string& text) {
  std::size_t pos = 0;
  for (int word = 0; word < 3; ++word) {
    pos = text.find_first_not_of(" \t", pos);
    if (pos == std::string::npos) return pos;
    pos = text.find_first_of(" \t", pos);
    if (pos == std::string::npos) return pos;
  }
  pos = text.find_first_not_of(" \t", pos);
  if (pos == std::string::npos || text.size() - pos < 5) return std::string::npos;
  if (ascii_lower(text.substr(pos, 5)) != "table") return std::string::npos;
  if (pos + 5 < text.size() && std::isalnum(static_cast<unsigned char>(text[pos + 5])))
    return std::string::npos;
  return pos;
}

// The balanced {...} or (...) starting at `pos` (after blanks); returns its end, or npos.
std::size_t group_end(const std::string& text, std::size_t pos) {
  const char open = text[pos], close = open == '{' ? '}' : ')';
  int depth = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    depth += text[i] == open ? 1 : text[i] == close ? -1 : 0;
    if (depth == 0) return i + 1;
  }
  return std::string::npos;
}

}  // namespace

std::optional<std::optional<ElementCard>> parse_table_source(const LogicalCard& card,
                                                             Diagnostics& diags) {
  const std::string& text = card.text;
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  const char letter = static_cast<char>(std::tolower(static_cast<unsigned char>(text[first])));
  if (letter != 'e' && letter != 'g') return std::nullopt;
  const std::size_t table = table_keyword(text);
  if (table == std::string::npos) return std::nullopt;
  std::optional<std::optional<ElementCard>> failed{std::optional<ElementCard>{}};
  const auto error = [&](std::size_t begin, std::size_t end, std::string message) {
    diags.error(card.span_of(begin, std::max(end, begin + 1)), std::move(message));
    return failed;
  };
  // Name and nodes through the generic syntax, on the card cut before TABLE.
  LogicalCard head = card;
  head.text = text.substr(0, table);
  auto items = parse_card_syntax(head, diags);
  if (!items) return failed;
  const CardReader r(card, diags);
  ElementContext c{
      r, *items, ElementCard{},
      letter == 'e' ? "voltage-controlled voltage source" : "voltage-controlled current source"};
  c.card.name = r.word(items->front().word);
  c.card.span = r.card_span();
  c.card.letter = letter;
  if (items->size() != 3) return error(0, table, fmt::format("{} TABLE needs 2 nodes", c.what()));
  if (!c.read_nodes(1, 2)) return failed;
  std::size_t pos = text.find_first_not_of(" \t", table + 5);
  if (pos == std::string::npos || (text[pos] != '{' && text[pos] != '(' && text[pos] != '\''))
    return error(
        pos == std::string::npos ? text.size() : pos, text.size(),
        fmt::format("{}: expected the controlling expression in braces after TABLE", c.what()));
  const std::size_t end =
      text[pos] == '\'' ? text.find('\'', pos + 1) + 1 : group_end(text, pos);  // npos + 1 = 0
  if (end == std::string::npos || end == 0)
    return error(pos, text.size(), fmt::format("{}: unclosed TABLE expression", c.what()));
  const std::string expr = text.substr(pos + 1, end - pos - 2);
  // The points: numbers, separated by blanks, commas and parentheses; an optional '=' first.
  std::vector<std::string> values;
  pos = text.find_first_not_of(" \t", end);
  if (pos != std::string::npos && text[pos] == '=') ++pos;
  const std::size_t points_begin = pos == std::string::npos ? text.size() : pos;
  for (pos = points_begin; pos < text.size();) {
    pos = text.find_first_not_of(" \t,()", pos);
    if (pos == std::string::npos) break;
    const std::size_t stop = std::min(text.find_first_of(" \t,()", pos), text.size());
    const std::string word = text.substr(pos, stop - pos);
    if (!parse_spice_number(word))
      return error(
          pos, stop,
          fmt::format("{}: expected a number in the TABLE points, got '{}'", c.what(), word));
    values.push_back(word);
    pos = stop;
  }
  if (values.size() < 4 || values.size() % 2 != 0)
    return error(points_begin, text.size(),
                 fmt::format("{}: TABLE needs at least 2 (x, y) points, got {} number{}", c.what(),
                             values.size(), values.size() == 1 ? "" : "s"));
  std::string value = "table(" + expr;
  for (const std::string& v : values) value += ", " + v;
  value += ")";
  const SourceSpan at = card.span_of(table, text.size());
  c.card.params.push_back(
      Param{Word{"value", "value", at}, Word{value, ascii_lower(value), at}, std::nullopt, at});
  return std::optional<ElementCard>{std::move(c.card)};
}

}  // namespace nsspice::netlist::detail
