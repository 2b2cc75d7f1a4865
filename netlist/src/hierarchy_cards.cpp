// Internal: cards that structure a netlist (expanded by flatten()).
//
//   .param NAME=VALUE ...            NAME := letter|_ {letter|digit|_}; VALUE an expression
//                                    (braced, quoted, or bare up to the next NAME=VALUE)
//   .subckt NAME pin... [params:] {NAME=VALUE}
//   .include FILE | .inc FILE        FILE may be quoted with "..." or '...'
//   .lib FILE SECTION | .lib FILE   (LTspice: the whole file)
//   .global node...
#include <fmt/format.h>

#include "netlist/src/card_reader.hpp"

namespace nsspice::netlist::detail {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// NAME=VALUE with an identifier NAME; reports and returns nullopt otherwise.
std::optional<Param> parameter(const CardReader& r, const Item& item, std::string_view where) {
  if (item.has_group && item.has_value && !item.word.text.empty()) {
    r.error(r.span(item),
            fmt::format("parameter functions are not supported: '{}'", compact_text(r, item)));
    return std::nullopt;
  }
  auto p = r.param(item, where);
  if (!p) return std::nullopt;
  if (!is_identifier(p->name.text)) {
    r.error(p->name.span, fmt::format("invalid parameter name '{}'", p->name.text));
    return std::nullopt;
  }
  return p;
}

// A file name: plain word, quotes removed.
std::optional<Word> file_name(const CardReader& r, const Item& item) {
  auto w = r.name(item, "a file name");
  if (!w) return std::nullopt;
  const std::string& t = w->text;
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) {
    w->text = t.substr(1, t.size() - 2);
    w->lower = ascii_lower(w->text);
  }
  return w;
}

}  // namespace

std::optional<ParamCard> parse_param(const CardReader& r, const std::vector<Item>& items) {
  ParamCard card;
  card.span = r.card_span();
  if (items.size() < 2) {
    r.error(r.end_span(), ".param needs NAME=VALUE");
    return std::nullopt;
  }
  for (std::size_t i = 1; i < items.size(); ++i) {
    // An unbraced value with a call or spaces, "r=agauss(1k, 50, 1)" or "a=2 * b", runs up
    // to the next NAME=VALUE: it is read as the expression {agauss(1k, 50, 1)}.
    std::size_t last = i;
    while (items[i].has_value && !items[i].has_group && last + 1 < items.size() &&
           !(items[last + 1].has_value && is_identifier(items[last + 1].word.text)))
      ++last;
    if (last > i) {
      const std::size_t begin = items[i].value.begin;
      const std::string body = r.tail(begin).substr(0, items[last].end - begin);
      SourceSpan at = r.tail_span(begin);
      at.length = static_cast<int>(items[last].end - begin);
      SourceSpan raw = at;
      raw.column -= 1;  // as if written "{...}": evaluation counts from after the brace
      card.params.push_back(Param{r.word(items[i].word), Word{"{" + body + "}", "", raw},
                                  std::nullopt, r.span(items[i])});
      i = last;
      continue;
    }
    auto p = parameter(r, items[i], "in .param");
    if (!p) return std::nullopt;
    card.params.push_back(std::move(*p));
  }
  return card;
}

Item without_params_prefix(const Item& item) {
  constexpr std::string_view kPrefix = "params:";
  if (!item.has_value || item.word.text.size() <= kPrefix.size() ||
      ascii_lower(item.word.text.substr(0, kPrefix.size())) != kPrefix)
    return item;
  Item out = item;
  out.word.text.erase(0, kPrefix.size());
  out.word.begin += kPrefix.size();
  out.begin = out.word.begin;
  return out;
}

std::optional<SubcktDef> parse_subckt_header(const CardReader& r, const std::vector<Item>& items) {
  SubcktDef def;
  def.span = r.card_span();
  if (items.size() < 2) {
    r.error(r.end_span(), ".subckt needs a name");
    return std::nullopt;
  }
  auto name = r.name(items[1], "a subcircuit name");
  if (!name) return std::nullopt;
  def.name = std::move(*name);
  std::size_t i = 2;
  for (; i < items.size() && items[i].is_plain(); ++i) {
    if (ascii_lower(items[i].word.text) == "params:") {
      ++i;
      break;
    }
    Word pin = r.word(items[i].word);
    for (const Word& other : def.pins) {
      if (other.lower == pin.lower) {
        r.error(pin.span,
                fmt::format("pin '{}' is listed twice in .subckt '{}'", pin.text, def.name.text));
        return std::nullopt;
      }
    }
    def.pins.push_back(std::move(pin));
  }
  for (; i < items.size(); ++i) {
    auto p = parameter(r, without_params_prefix(items[i]), "in .subckt");
    if (!p) return std::nullopt;
    def.params.push_back(std::move(*p));
  }
  return def;
}

std::optional<IncludeCard> parse_include(const CardReader& r, const std::vector<Item>& items) {
  IncludeCard card;
  card.span = r.card_span();
  card.keyword = r.word(items[0].word);
  const bool lib = card.keyword.lower == ".lib";
  const std::size_t want = lib && items.size() > 2 ? 3 : 2;  // ".lib FILE": LTspice, whole file
  if (items.size() < want) {
    r.error(r.end_span(), fmt::format("{} needs a file name", card.keyword.lower));
    return std::nullopt;
  }
  if (items.size() > want) {
    r.error(r.span(items[want]), fmt::format("unexpected '{}' after the {}", r.text(items[want]),
                                             lib ? "section name" : "file name"));
    return std::nullopt;
  }
  auto path = file_name(r, items[1]);
  if (!path) return std::nullopt;
  card.path = std::move(*path);
  if (want == 3) {
    auto section = r.name(items[2], "a section name");
    if (!section) return std::nullopt;
    card.section = std::move(*section);
  }
  return card;
}

std::optional<GlobalCard> parse_global(const CardReader& r, const std::vector<Item>& items) {
  GlobalCard card;
  card.span = r.card_span();
  for (std::size_t i = 1; i < items.size(); ++i) {
    auto node = r.name(items[i], "a node name");
    if (!node) return std::nullopt;
    card.nodes.push_back(std::move(*node));
  }
  return card;
}

}  // namespace nsspice::netlist::detail
