// .func cards, read from the card's text (their bodies are expressions, not card items):
//
//   .func NAME '(' [PARAM {(',' | blank) PARAM}] ')' ['='] BODY
//   BODY := '{' expr '}' | '\'' expr '\'' | expr (the rest of the card)
//   NAME, PARAM := (letter | '_') {letter | digit | '_'}; NAME not v or i (node voltages and
//   branch currents)
#include <fmt/format.h>

#include "netlist/src/card_reader.hpp"

namespace nsspice::netlist::detail {
namespace {

constexpr std::size_t kNone = std::string::npos;

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::size_t skip_blanks(const std::string& t, std::size_t i) {
  while (i < t.size() && is_blank(t[i])) ++i;
  return i;
}

std::size_t name_end(const std::string& t, std::size_t i) {
  while (i < t.size() && (is_alpha(t[i]) || is_digit(t[i]))) ++i;
  return i;
}

class FuncReader {
 public:
  FuncReader(const LogicalCard& card, Diagnostics& diags)
      : card_(card), t_(card.text), diags_(diags) {}

  // The card after the keyword, which ends at `i`.
  std::optional<FuncCard> read(std::size_t i) {
    FuncCard f;
    f.span = card_.card_span();
    i = skip_blanks(t_, i);
    if (i >= t_.size() || !is_alpha(t_[i])) return fail(i, i + 1, "expected a function name");
    f.name = word(i, name_end(t_, i));
    if (f.name.lower == "v" || f.name.lower == "i")
      return fail(i, i + 1,
                  fmt::format("a .func cannot be named '{}': {}(...) is a node voltage or a "
                              "branch current",
                              f.name.lower, f.name.lower));
    i = skip_blanks(t_, name_end(t_, i));
    if (i >= t_.size() || t_[i] != '(')
      return fail(i, i + 1, fmt::format("expected '(' after the name of .func '{}'", f.name.text));
    const std::size_t close = t_.find(')', i);
    if (close == kNone)
      return fail(i, i + 1,
                  fmt::format("missing ')' after the parameters of .func '{}'", f.name.text));
    if (!parameters(i + 1, close, f)) return std::nullopt;
    i = skip_blanks(t_, close + 1);
    if (i < t_.size() && t_[i] == '=') i = skip_blanks(t_, i + 1);
    return body(i, f);
  }

 private:
  const LogicalCard& card_;
  const std::string& t_;
  Diagnostics& diags_;

  std::optional<FuncCard> fail(std::size_t begin, std::size_t end, std::string message) {
    diags_.error(begin < t_.size() ? card_.span_of(begin, end) : card_.end_span(),
                 std::move(message));
    return std::nullopt;
  }
  Word word(std::size_t begin, std::size_t end) const {
    const std::string text = t_.substr(begin, end - begin);
    return Word{text, ascii_lower(text), card_.span_of(begin, end)};
  }

  // PARAM {(',' | blank) PARAM} in t_[i, close).
  bool parameters(std::size_t i, std::size_t close, FuncCard& f) {
    while (true) {
      while (i < close && (is_blank(t_[i]) || t_[i] == ',')) ++i;
      if (i >= close) return true;
      if (!is_alpha(t_[i])) {
        fail(i, i + 1,
             fmt::format("expected a parameter name of .func '{}', got '{}'", f.name.text, t_[i]));
        return false;
      }
      const Word p = word(i, name_end(t_, i));
      for (const Word& q : f.params) {
        if (q.lower != p.lower) continue;
        fail(i, name_end(t_, i),
             fmt::format("parameter '{}' of .func '{}' is listed twice", p.text, f.name.text));
        return false;
      }
      f.params.push_back(p);
      i = name_end(t_, i);
    }
  }

  // {expr} | 'expr' | expr, from t_[i] to the end of the card.
  std::optional<FuncCard> body(std::size_t i, FuncCard& f) {
    if (i >= t_.size())
      return fail(i, i + 1, fmt::format("missing the body of .func '{}'", f.name.text));
    std::size_t end = t_.find_last_not_of(" \t") + 1;
    std::size_t from = i;
    if (t_[i] == '{' || t_[i] == '\'') {
      const char close = t_[i] == '{' ? '}' : '\'';
      end = t_[i] == '{' ? braces_end(i) : t_.find('\'', i + 1);
      if (end == kNone)
        return fail(
            i, i + 1,
            fmt::format("missing '{}' to close the body of .func '{}'", close, f.name.text));
      const std::size_t after = skip_blanks(t_, end + 1);
      if (after < t_.size())
        return fail(
            after, after + 1,
            fmt::format("unexpected '{}' after the body of .func '{}'", t_[after], f.name.text));
      from = i + 1;
    }
    f.body = t_.substr(from, end - from);
    if (f.body.find_first_not_of(" \t") == kNone)
      return fail(i, i + 1, fmt::format("the body of .func '{}' is empty", f.name.text));
    return f;
  }
  std::size_t braces_end(std::size_t open) const {
    int depth = 0;
    for (std::size_t k = open; k < t_.size(); ++k) {
      depth += t_[k] == '{' ? 1 : (t_[k] == '}' ? -1 : 0);
      if (depth == 0) return k;
    }
    return kNone;
  }
};

}  // namespace

std::optional<std::optional<FuncCard>> parse_func_card(const LogicalCard& card,
                                                       Diagnostics& diags) {
  const std::string& t = card.text;
  const std::size_t begin = skip_blanks(t, 0);
  std::size_t end = begin;
  while (end < t.size() && !is_blank(t[end]) && t[end] != '(') ++end;
  if (ascii_lower(std::string_view(t).substr(begin, end - begin)) != ".func") return std::nullopt;
  return FuncReader(card, diags).read(end);
}

}  // namespace nsspice::netlist::detail
