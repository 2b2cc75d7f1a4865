// Internal: generic card syntax with Boost.Spirit X3.
//
//   card  := item*  end                      skipper: blank | ','
//   item  := raw[ (word [group] | group) ['=' > word] ]
//   group := '(' > item* > ')'
//   word  := raw[ lexeme[ +(quoted | (byte - (blank | ',' | '(' | ')' | '='))) ] ]
//   quoted:= braced  |  '\'' (byte - '\'')* '\''  |  '"' (byte - '"')* '"'
//   braced:= '{' (braced | byte - ('{' | '}'))* '}'        (PSpice nests braces)
// A quoted run (an expression "{2*a}", "'r1/2'", or a file name "\"my file.inc\"") belongs to
// the word with its blanks, commas, parentheses and '='. Braces/quotes are checked for closing
// and parentheses outside them for balance (and nesting depth <= kMaxDepth, to bound recursion)
// before X3 runs, so bad input gets a precise message. A control character (a byte below 0x20
// other than the blanks, or 0x7f: NUL, ESC, ...) anywhere in a card is an error at its column:
// it would end up in a node or element name, and from there in output file headers.
// The expression of a behavioural source (B n+ n- V=expr | I=expr, E|G n+ n- VALUE=expr) is
// the rest of the card, as in SPICE, braced or not: "V=(v(a) > 1) ? 2 : v(b) == 0" is one
// value word (X3 sees it masked as one braced run of the same length). A .model card whose last
// character is a ')' closing no '(' (parameters continued after the model's closing
// parenthesis, as ngspice reads them) has that ')' blanked, with a warning.
#include "netlist/src/syntax.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/spirit/home/x3.hpp>

namespace nsspice::netlist::detail {
namespace {

namespace x3 = boost::spirit::x3;
using Iter = std::string::const_iterator;

constexpr int kMaxDepth = 16;

struct BaseTag;  // context slot holding the iterator at the start of the card text

template <typename Context, typename Range>
Token make_token(const Context& ctx, const Range& r) {
  const Iter base = x3::get<BaseTag>(ctx);
  return Token{std::string(r.begin(), r.end()), static_cast<std::size_t>(r.begin() - base),
               static_cast<std::size_t>(r.end() - base)};
}

const auto set_token = [](auto& ctx) { x3::_val(ctx) = make_token(ctx, x3::_attr(ctx)); };
const auto set_word = [](auto& ctx) { x3::_val(ctx).word = x3::_attr(ctx); };
const auto set_group = [](auto& ctx) { x3::_val(ctx).has_group = true; };
const auto push_arg = [](auto& ctx) { x3::_val(ctx).args.push_back(x3::_attr(ctx)); };
const auto set_value = [](auto& ctx) {
  x3::_val(ctx).has_value = true;
  x3::_val(ctx).value = x3::_attr(ctx);
};
const auto set_range = [](auto& ctx) {
  const Token t = make_token(ctx, x3::_attr(ctx));
  x3::_val(ctx).begin = t.begin;
  x3::_val(ctx).end = t.end;
};

const auto separator = x3::char_(" \t\r\f\v,");
const auto word_char = ~x3::char_(" \t\r\f\v,()=");

const x3::rule<class WordRule, Token> word = "word";
const x3::rule<class ItemRule, Item> item = "item";
const x3::rule<class BracedRule> braced = "braced";

// PSpice nests braces in an expression ("{IF(V(a) > {VTH}, 1, 0)}"): a braced run holds braced
// runs (depth checked by check_parentheses before X3 runs).
const auto braced_def = x3::char_('{') >> *(braced | ~x3::char_("{}")) >> x3::char_('}');
const auto quoted = braced | (x3::char_('\'') >> *~x3::char_('\'') >> x3::char_('\'')) |
                    (x3::char_('"') >> *~x3::char_('"') >> x3::char_('"'));
const auto word_def = x3::raw[x3::lexeme[+(quoted | word_char)]][set_token];
const auto group = (x3::lit('(') > *item[push_arg] > x3::lit(')'))[set_group];
const auto item_def =
    x3::raw[((word[set_word] >> -group) | group) >> -(x3::lit('=') > word[set_value])][set_range];

BOOST_SPIRIT_DEFINE(word, item, braced)

// Length of the token starting at pos: one punctuation byte or a run of word bytes.
std::size_t token_length(const std::string& text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  std::size_t end = pos + 1;
  if (text[pos] != '(' && text[pos] != ')' && text[pos] != '=') {
    while (end < text.size() &&
           std::string_view(" \t\r\f\v,()=").find(text[end]) == std::string_view::npos) {
      ++end;
    }
  }
  return end - pos;
}

// Reports a syntax error at byte `pos` of the card.
void report_at(const LogicalCard& card, std::size_t pos, Diagnostics& diags) {
  std::size_t before = pos;
  while (before > 0 &&
         std::string_view(" \t\r\f\v,").find(card.text[before - 1]) != std::string_view::npos) {
    --before;
  }
  const std::size_t len = token_length(card.text, pos);
  const SourceSpan span = len > 0 ? card.span_of(pos, pos + len) : card.end_span();
  if (before > 0 && card.text[before - 1] == '=') {
    diags.error(span, "expected a value after '='");
  } else if (len == 0) {
    diags.error(span, "unexpected end of card");
  } else {
    diags.error(span, fmt::format("unexpected '{}'", card.text.substr(pos, len)));
  }
}

// Closing byte of a quoted run starting with c, or 0 when c does not start one.
char closing_quote(char c) {
  if (c == '{') return '}';
  if (c == '\'' || c == '"') return c;
  return 0;
}

// Position of the byte closing the quoted run that starts at t[i] (braces nest), npos when it is
// not closed; `depth` receives the deepest brace nesting met.
std::size_t closing_of(const std::string& t, std::size_t i, int& depth) {
  const char close = closing_quote(t[i]);
  depth = 1;
  if (close != '}') return t.find(close, i + 1);
  int open = 1;
  for (std::size_t k = i + 1; k < t.size(); ++k) {
    if (t[k] == '{') depth = std::max(depth, ++open);
    if (t[k] == '}' && --open == 0) return k;
  }
  return std::string::npos;
}

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && std::string_view("\t\r\f\v").find(c) == std::string_view::npos) || u == 0x7f;
}

// Reports the first control character of the card, naming the word it is in (escaped).
bool check_control_characters(const LogicalCard& card, Diagnostics& diags) {
  for (std::size_t i = 0; i < card.text.size(); ++i) {
    if (!is_control(card.text[i])) continue;
    std::size_t begin = i;
    while (begin > 0 &&
           std::string_view(" \t\r\f\v,()=").find(card.text[begin - 1]) == std::string_view::npos) {
      --begin;
    }
    std::size_t end = i + 1;
    while (end < card.text.size() &&
           std::string_view(" \t\r\f\v,()=").find(card.text[end]) == std::string_view::npos) {
      ++end;
    }
    std::string shown;
    for (std::size_t j = begin; j < end && shown.size() < 80; ++j) {
      shown += is_control(card.text[j])
                   ? fmt::format("\\x{:02x}", static_cast<unsigned char>(card.text[j]))
                   : std::string(1, card.text[j]);
    }
    diags.error(card.span_of(i, i + 1),
                fmt::format("control character 0x{:02x} in '{}' (names and values must be "
                            "printable)",
                            static_cast<unsigned char>(card.text[i]), shown));
    return false;
  }
  return true;
}

// Reports unclosed braces/quotes, unbalanced or too deeply nested parentheses outside them;
// true if the card is fine.
bool check_parentheses(const LogicalCard& card, Diagnostics& diags) {
  if (!check_control_characters(card, diags)) return false;
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < card.text.size(); ++i) {
    if (const char close = closing_quote(card.text[i]); close != 0) {
      int depth = 0;
      const std::size_t end = closing_of(card.text, i, depth);
      if (end == std::string::npos) {
        diags.error(card.span_of(i, i + 1),
                    close == '}' ? std::string("missing '}' to close this '{'")
                                 : fmt::format("missing closing {0} to match this {0}", close));
        return false;
      }
      if (depth > kMaxDepth) {
        diags.error(card.span_of(i, i + 1), "braces nested too deeply");
        return false;
      }
      i = end;
    } else if (card.text[i] == '(') {
      if (open.size() >= static_cast<std::size_t>(kMaxDepth)) {
        diags.error(card.span_of(i, i + 1), "parentheses nested too deeply");
        return false;
      }
      open.push_back(i);
    } else if (card.text[i] == ')') {
      if (open.empty()) {
        diags.error(card.span_of(i, i + 1), "unmatched ')'");
        return false;
      }
      open.pop_back();
    }
  }
  if (!open.empty()) {
    diags.error(card.span_of(open.back(), open.back() + 1), "missing ')' to close this '('");
    return false;
  }
  return true;
}

bool is_separator(char c) {
  return std::string_view(" \t\r\f\v,").find(c) != std::string_view::npos;
}
char ascii_lower_char(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// A .model card whose parameters go on after its closing parenthesis and end with a ')' of
// their own (ngspice's 555 example: ".MODEL QP PNP (BF=20 ... NE=2)" continued by
// "+ CJE=12.4P ... TR=159N)"): the position of that last ')' when it is the card's only
// unmatched one and its last non-blank byte, else npos. ngspice reads the parameters after the
// first ')' as the model's (parentheses are blanks to its model reader).
std::size_t stray_model_close(const std::string& t) {
  constexpr auto npos = std::string::npos;
  std::size_t i = 0;
  while (i < t.size() && is_separator(t[i])) ++i;
  std::string head;
  for (std::size_t k = i; k < t.size() && k < i + 6; ++k) head += ascii_lower_char(t[k]);
  if (head != ".model") return npos;
  std::size_t last = t.size();
  while (last > 0 && is_separator(t[last - 1])) --last;
  if (last == 0 || t[last - 1] != ')') return npos;
  int depth = 0;
  for (std::size_t k = 0; k + 1 < last; ++k) {
    if (closing_quote(t[k]) != 0) {
      int nesting = 0;
      const std::size_t end = closing_of(t, k, nesting);
      if (end == npos) return npos;
      k = end;
    } else if (t[k] == '(') {
      ++depth;
    } else if (t[k] == ')' && --depth < 0) {
      return npos;
    }
  }
  return depth == 0 ? last - 1 : npos;
}

// [begin, end) of the unbraced expression of a behavioural source: the text after "V=", "I="
// (B), "VALUE=" (E, G), "VOL=" (E) or "CUR=" (G) as the fourth word of the card; {npos, npos} when
// there is none.
std::pair<std::size_t, std::size_t> behavioural_tail(const std::string& t) {
  constexpr auto npos = std::string::npos;
  const char kind = t.empty() ? '\0' : ascii_lower_char(t[0]);
  if (kind != 'b' && kind != 'e' && kind != 'g') return {npos, npos};
  std::size_t i = 0;
  for (int word = 0; word <= 3 && i < t.size(); ++word) {
    while (i < t.size() && is_separator(t[i])) ++i;
    const std::size_t from = i;
    while (i < t.size() && !is_separator(t[i]) && t[i] != '=') ++i;
    if (word < 3) continue;
    std::string key;
    for (std::size_t k = from; k < i; ++k) key += ascii_lower_char(t[k]);
    std::size_t j = i;
    while (j < t.size() && is_separator(t[j])) ++j;
    const bool is_key = kind == 'b' ? key == "v" || key == "i"
                                    : key == "value" || key == (kind == 'e' ? "vol" : "cur");
    if (!is_key || j >= t.size() || t[j] != '=') return {npos, npos};
    ++j;
    while (j < t.size() && is_separator(t[j])) ++j;
    std::size_t end = t.size();
    while (end > j && is_separator(t[end - 1])) --end;
    if (end - j < 2 || t[j] == '{' || t[j] == '\'') return {npos, npos};
    return {j, end};
  }
  return {npos, npos};
}

}  // namespace

std::optional<std::vector<Item>> parse_card_syntax(const LogicalCard& card_in, Diagnostics& diags) {
  LogicalCard repaired;
  const std::size_t stray = stray_model_close(card_in.text);
  if (stray != std::string::npos) {
    repaired = card_in;
    repaired.text[stray] = ' ';  // same length: the spans stay right
    diags.warning(card_in.span_of(stray, stray + 1),
                  "')' closes no '(': ignored; the parameters after the earlier ')' are read "
                  "as the model's, as ngspice reads them");
  }
  const LogicalCard& card = stray != std::string::npos ? repaired : card_in;
  if (!check_parentheses(card, diags)) return std::nullopt;
  const auto [tail, tail_end] = behavioural_tail(card.text);
  std::string masked;
  if (tail != std::string::npos) {
    masked = card.text;
    for (std::size_t k = tail; k < tail_end; ++k) masked[k] = '~';
    masked[tail] = '{';
    masked[tail_end - 1] = '}';
  }
  const std::string& text = masked.empty() ? card.text : masked;
  const Iter base = text.begin();
  Iter it = base;
  const Iter end = text.end();
  std::vector<Item> items;
  const auto parser = x3::with<BaseTag>(base)[*item];
  try {
    x3::phrase_parse(it, end, parser, separator, items);
  } catch (const x3::expectation_failure<Iter>& e) {
    report_at(card, static_cast<std::size_t>(e.where() - base), diags);
    return std::nullopt;
  }
  if (it != end) {
    report_at(card, static_cast<std::size_t>(it - base), diags);
    return std::nullopt;
  }
  for (Item& item : items) {
    if (item.has_value && item.value.begin == tail)
      item.value.text = card.text.substr(tail, tail_end - tail);
  }
  return items;
}

}  // namespace nsspice::netlist::detail
