// Internal: expansion of .func calls (netlist/src/user_functions.hpp states the substitution).
// One left-to-right scan: numbers are copied whole (so that "1e3" or "2meg" holds no name),
// names are copied, replaced by an argument (inside a body) or expanded as a call.
#include "netlist/src/user_functions.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "netlist/src/lines.hpp"

namespace nsspice::netlist::detail {
namespace {

using Range = std::pair<std::size_t, std::size_t>;
constexpr std::size_t kNone = std::string_view::npos;

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

// "2.5e-3", "1meg", "10uF": digits, '.', letters, and a sign right after the 'e' of a digit.
std::size_t number_end(std::string_view s, std::size_t i) {
  while (i < s.size()) {
    const char c = s[i];
    const bool sign = (c == '+' || c == '-') && i >= 2 && (s[i - 1] == 'e' || s[i - 1] == 'E') &&
                      (is_digit(s[i - 2]) || s[i - 2] == '.') && i + 1 < s.size() &&
                      is_digit(s[i + 1]);
    if (!is_digit(c) && !is_alpha(c) && c != '.' && !sign) break;
    ++i;
  }
  return i;
}

std::size_t name_end(std::string_view s, std::size_t i) {
  while (i < s.size() && (is_alpha(s[i]) || is_digit(s[i]))) ++i;
  return i;
}

// The ')' or '}' closing the group opened at s[open]; kNone when it is not closed.
std::size_t matching(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '{') ++depth;
    if ((s[i] == ')' || s[i] == '}') && --depth == 0) return i;
  }
  return kNone;
}

// One operand: a name or number, optionally called "f(...)", or a group "(...)" / "{...}".
bool is_operand(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && is_blank(t[i])) ++i;
  if (i == t.size()) return false;
  if (t[i] == '(' || t[i] == '{') {
    i = matching(t, i);
    if (i == kNone) return false;
    ++i;
  } else if (is_alpha(t[i]) || is_digit(t[i]) || t[i] == '.') {
    while (i < t.size() && (is_alpha(t[i]) || is_digit(t[i]) || t[i] == '.')) ++i;
    std::size_t j = i;
    while (j < t.size() && is_blank(t[j])) ++j;
    if (j < t.size() && t[j] == '(') {
      i = matching(t, j);
      if (i == kNone) return false;
      ++i;
    }
  } else {
    return false;
  }
  while (i < t.size() && is_blank(t[i])) ++i;
  return i == t.size();
}

void append(Expansion& out, std::string_view s, Range from) {
  out.text += s;
  out.origin.insert(out.origin.end(), s.size(), from);
}

// ⟨x⟩: x itself when it is one operand, else (x); the parentheses come from `from`.
void append_operand(Expansion& out, const Expansion& x, Range from) {
  const bool group = !is_operand(x.text);
  if (group) append(out, "(", from);
  out.text += x.text;
  out.origin.insert(out.origin.end(), x.origin.begin(), x.origin.end());
  if (group) append(out, ")", from);
}

// Text being expanded: the written expression (origin: byte by byte) or a function body
// (origin: every byte from `whole`, the call).
struct Source {
  std::string_view text;
  bool written = false;
  Range whole;
  Range at(std::size_t k) const { return written ? Range{k, k + 1} : whole; }
  Range span(std::size_t from, std::size_t to) const {
    Range r = at(from);
    for (std::size_t k = from; k < to; ++k)
      r = {std::min(r.first, at(k).first), std::max(r.second, at(k).second)};
    return r;
  }
};

// Parameter (lower case) → its argument, expanded.
using Env = std::vector<std::pair<std::string, Expansion>>;

class Expander {
 public:
  Expander(const FunctionLookup& lookup, ExpansionError& error) : lookup_(lookup), error_(error) {}

  bool expand(const Source& in, std::size_t from, std::size_t to, const Env* env, Expansion& out) {
    std::size_t i = from;
    while (i < to) {
      if (out.text.size() > kMaxExpansion || produced_ > kMaxExpansion)
        return fail(in.span(from, to),
                    fmt::format("the expansion of the .func calls is longer than {} bytes "
                                "(calls nested in calls multiply the text)",
                                kMaxExpansion));
      const char c = in.text[i];
      std::size_t end = i + 1;
      if (is_digit(c) || (c == '.' && i + 1 < to && is_digit(in.text[i + 1]))) {
        end = std::min(number_end(in.text, i), to);
      } else if (is_alpha(c)) {
        const auto next = name(in, i, std::min(name_end(in.text, i), to), to, env, out);
        if (!next) return false;
        i = *next;
        continue;
      }
      for (std::size_t k = i; k < end; ++k) append(out, in.text.substr(k, 1), in.at(k));
      i = end;
    }
    return true;
  }

 private:
  const FunctionLookup& lookup_;
  ExpansionError& error_;
  std::vector<const FuncCard*> active_;  // the functions being expanded, outermost first
  std::size_t produced_ = 0;             // bytes of all the function bodies expanded so far

  bool fail(Range at, std::string message, const FuncCard* f = nullptr) {
    error_ = ExpansionError{at.first, std::max<std::size_t>(1, at.second - at.first),
                            std::move(message), f};
    return false;
  }

  // The name in[i, end): an argument (a parameter of the body being expanded), a call of a
  // user function, or a name copied as written. Returns where the scan goes on.
  std::optional<std::size_t> name(const Source& in, std::size_t i, std::size_t end, std::size_t to,
                                  const Env* env, Expansion& out) {
    const std::string id = ascii_lower(in.text.substr(i, end - i));
    std::size_t open = end;
    while (open < to && is_blank(in.text[open])) ++open;
    const bool is_call = open < to && in.text[open] == '(';
    for (std::size_t k = 0; !is_call && env != nullptr && k < env->size(); ++k) {
      if ((*env)[k].first != id) continue;
      append_operand(out, (*env)[k].second, in.span(i, end));
      return end;
    }
    const FuncCard* f = is_call ? lookup_(id) : nullptr;
    if (f == nullptr) {
      for (std::size_t k = i; k < end; ++k) append(out, in.text.substr(k, 1), in.at(k));
      return end;
    }
    const std::size_t close = matching(in.text, open);
    if (close == kNone || close >= to) {
      fail(in.span(open, open + 1), fmt::format("missing ')' in the call of '{}'", id));
      return std::nullopt;
    }
    if (!call(in, i, end, open, close, *f, env, out)) return std::nullopt;
    return close + 1;
  }

  // The arguments of the call whose '(' is at `open` and ')' at `close`: [begin, end) each.
  static std::vector<Range> arguments(std::string_view s, std::size_t open, std::size_t close) {
    std::vector<Range> args;
    std::size_t start = open + 1;
    int depth = 0;
    for (std::size_t i = open + 1; i < close; ++i) {
      if (s[i] == '(' || s[i] == '{') ++depth;
      if (s[i] == ')' || s[i] == '}') --depth;
      if (s[i] == ',' && depth == 0) {
        args.emplace_back(start, i);
        start = i + 1;
      }
    }
    args.emplace_back(start, close);
    const auto blank = [&](Range r) {
      return std::all_of(s.begin() + r.first, s.begin() + r.second, is_blank);
    };
    if (args.size() == 1 && blank(args[0])) args.clear();  // f()
    return args;
  }

  bool call(const Source& in, std::size_t begin, std::size_t end, std::size_t open,
            std::size_t close, const FuncCard& f, const Env* env, Expansion& out) {
    const std::string& name = f.name.lower;
    const Range at = in.span(begin, end);
    const std::vector<Range> args = arguments(in.text, open, close);
    if (args.size() != f.params.size())
      return fail(at,
                  fmt::format("function '{}' takes {} argument{}, got {}", name, f.params.size(),
                              f.params.size() == 1 ? "" : "s", args.size()),
                  &f);
    if (const auto it = std::find(active_.begin(), active_.end(), &f); it != active_.end()) {
      std::string chain;
      for (auto k = it; k != active_.end(); ++k) chain += (*k)->name.lower + " -> ";
      return fail(at,
                  fmt::format("recursive .func '{}' ({}{}): a function cannot call itself", name,
                              chain, name),
                  &f);
    }
    if (active_.size() >= kMaxCallDepth)
      return fail(at, fmt::format(".func calls nested more than {} deep", kMaxCallDepth), &f);
    Env bound;
    for (std::size_t k = 0; k < args.size(); ++k) {
      Expansion x;
      if (std::all_of(in.text.begin() + args[k].first, in.text.begin() + args[k].second, is_blank))
        return fail(at, fmt::format("argument {} of the call of '{}' is empty", k + 1, name), &f);
      if (!expand(in, args[k].first, args[k].second, env, x)) return false;
      bound.emplace_back(f.params[k].lower, std::move(x));
    }
    active_.push_back(&f);
    Expansion body;
    const Source b{f.body, false, in.span(begin, close + 1)};
    const bool ok = expand(b, 0, f.body.size(), &bound, body);
    active_.pop_back();
    produced_ += body.text.size();
    if (ok) append_operand(out, body, b.whole);
    return ok;
  }
};

}  // namespace

std::optional<Expansion> expand_functions(std::string_view text, const FunctionLookup& lookup,
                                          ExpansionError& error) {
  Expansion out;
  Expander expander(lookup, error);
  if (!expander.expand(Source{text, true, {0, 1}}, 0, text.size(), nullptr, out))
    return std::nullopt;
  return out;
}

}  // namespace nsspice::netlist::detail
