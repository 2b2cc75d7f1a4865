// The measurement grammar of .meas cards and `--meas` (netlist/measure.hpp): tokens → MeasureSpec.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "netlist/measure.hpp"
#include "netlist/src/card_reader.hpp"
#include "netlist/src/lines.hpp"
#include "netlist/units.hpp"

namespace nsspice::netlist {
namespace {

using detail::ascii_lower;

struct Lexeme {
  std::string text;  // lower case
  size_t offset;     // in the joined text
};

// Words (parentheses kept together) and '=' as separate items.
std::vector<Lexeme> lex(const std::string& text) {
  std::vector<Lexeme> out;
  std::string cur;
  size_t start = 0;
  int depth = 0;
  auto push = [&] {
    if (!cur.empty()) out.push_back({ascii_lower(cur), start});
    cur.clear();
  };
  for (size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (std::isspace(static_cast<unsigned char>(c)) || c == '=')) {
      push();
      if (c == '=') out.push_back({"=", k});
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      if (cur.empty()) start = k;
      cur += c;
    }
  }
  push();
  return out;
}

std::optional<MeasureKind> kind_of(const std::string& w) {
  if (w == "avg") return MeasureKind::kAvg;
  if (w == "rms") return MeasureKind::kRms;
  if (w == "min") return MeasureKind::kMin;
  if (w == "max") return MeasureKind::kMax;
  if (w == "min_at") return MeasureKind::kMinAt;
  if (w == "max_at") return MeasureKind::kMaxAt;
  if (w == "pp") return MeasureKind::kPp;
  if (w == "integ" || w == "integral") return MeasureKind::kInteg;
  if (w == "when") return MeasureKind::kWhen;
  if (w == "find") return MeasureKind::kFindAt;
  if (w == "deriv" || w == "derivative") return MeasureKind::kDeriv;
  if (w == "trig") return MeasureKind::kTrigTarg;
  if (w == "param") return MeasureKind::kParam;
  return std::nullopt;
}

constexpr const char* kMeasureFunctions[] = {"abs",   "sqrt", "exp", "log", "ln",
                                             "log10", "min",  "max", "pow"};

// The identifiers followed by '(' in `text` that are not functions: each with its balanced
// parentheses (a signal), lower case, blanks removed. `operators`: set when +-*/^ stands outside
// every parenthesis, or a function call is met.
std::vector<std::string> scan_refs(std::string_view text, bool& arithmetic) {
  std::vector<std::string> refs;
  arithmetic = false;
  auto ident = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '$' ||
           c == '#' || c == ':';
  };
  int depth = 0;
  for (size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == '*' || c == '/' || c == '^' || c == '+' || c == '-')) arithmetic = true;
    if (!(std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') ||
        (k > 0 && ident(text[k - 1])))
      continue;
    size_t e = k;
    while (e < text.size() && ident(text[e])) ++e;
    size_t q = e;
    while (q < text.size() && std::isspace(static_cast<unsigned char>(text[q])) != 0) ++q;
    if (q >= text.size() || text[q] != '(') continue;
    const std::string name = ascii_lower(std::string(text.substr(k, e - k)));
    if (is_measure_function(name)) {
      arithmetic = true;
      continue;
    }
    int d = 0;
    size_t end = q;
    for (; end < text.size(); ++end) {
      if (text[end] == '(') ++d;
      if (text[end] == ')' && --d == 0) break;
    }
    if (end >= text.size()) continue;
    std::string ref;
    for (char r : text.substr(k, end + 1 - k))
      if (std::isspace(static_cast<unsigned char>(r)) == 0) ref.push_back(r);
    ref = ascii_lower(ref);
    if (std::find(refs.begin(), refs.end(), ref) == refs.end()) refs.push_back(ref);
    // Skip the reference (its own parentheses and any operator characters in its name).
    k = end;
  }
  return refs;
}

std::string signal_name(std::string s) {
  if (s.starts_with('@'))  // ngspice's device quantity, as .save reads it: @d1[id] is i(d1)
    if (std::string q = detail::device_quantity(s); !q.empty()) return q;
  if (s.find('(') == std::string::npos) return "v(" + s + ")";
  return s;
}

Edge edge_of(const std::string& key) {
  return key == "rise" ? Edge::kRise : key == "fall" ? Edge::kFall : Edge::kCross;
}

// One measurement's words, read left to right; the first error wins.
class Parser {
 public:
  Parser(const std::vector<std::string>& tokens, std::string name) : name_(std::move(name)) {
    for (const auto& t : tokens) {
      if (!text_.empty()) text_ += ' ';
      starts_.push_back(text_.size());
      text_ += t;
    }
    w_ = lex(text_);
  }
  std::optional<MeasureSpec> run();
  std::string error;
  size_t error_token = 0;

 private:
  bool at_end() const { return i_ >= w_.size(); }
  bool is(const char* word) const { return !at_end() && w_[i_].text == word; }
  // Sets the error at word `at` (the last word when past the end); returns false.
  bool fail(const std::string& why, size_t at);
  bool fail(const std::string& why) { return fail(why, i_); }
  std::optional<double> number();
  bool level(CrossingSpec& c);
  bool key_value(std::string& key, size_t& key_at);
  // A clause keyword at word k written with its value but without '=' ("from 2m"): an error,
  // as in ngspice ("equal sign missing"); LTspice documents the keywords with '=' too.
  bool missing_equals(size_t k) const;
  // The error for the keywords without '=' from word i_ on: "'from 2m to 3m': ... write
  // from=2m to=3m".
  bool fail_missing_equals();
  bool count(const std::string& key, CrossingSpec& c);
  bool event(CrossingSpec& c, const char* clause);
  bool check_event(const CrossingSpec& c, const char* clause, size_t start, bool has_val,
                   bool other);
  bool options(MeasureSpec& spec);
  // The signal at i_: its words up to a KEY=, '=', 'when' or the end, joined (an expression may
  // have been split at blanks or operators by the card's tokens: "V(out)*I(Rload)"); a bare
  // node name becomes v(name).
  std::string signal_text();

  std::string name_, text_;
  std::vector<size_t> starts_;
  std::vector<Lexeme> w_;
  size_t i_ = 0;
};

bool Parser::fail(const std::string& why, size_t at) {
  if (!error.empty()) return false;
  error = fmt::format("measurement '{}': {}", text_, why);
  const size_t offset = w_.empty() ? 0 : w_[std::min(at, w_.size() - 1)].offset;
  const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
  error_token = after == starts_.begin() ? 0 : static_cast<size_t>(after - starts_.begin() - 1);
  return false;
}

std::optional<double> Parser::number() {
  if (at_end()) return std::nullopt;
  auto v = parse_spice_number(w_[i_].text);
  if (v) ++i_;
  return v;
}

bool Parser::missing_equals(size_t k) const {
  static constexpr const char* kKeys[] = {"from", "to", "at", "td", "val", "rise", "fall", "cross"};
  if (k + 1 >= w_.size() || w_[k + 1].text == "=" ||
      std::none_of(std::begin(kKeys), std::end(kKeys),
                   [&](const char* key) { return w_[k].text == key; }))
    return false;
  return parse_spice_number(w_[k + 1].text).has_value() || w_[k + 1].text == "last";
}

bool Parser::fail_missing_equals() {
  std::string written, fixed;
  const auto original = [&](size_t k) { return text_.substr(w_[k].offset, w_[k].text.size()); };
  for (size_t k = i_; missing_equals(k); k += 2) {
    written += fmt::format("{}{} {}", written.empty() ? "" : " ", original(k), original(k + 1));
    fixed += fmt::format("{}{}={}", fixed.empty() ? "" : " ", original(k), original(k + 1));
  }
  return fail(fmt::format("'{}': the values need '=' (ngspice: 'equal sign missing'): write {}",
                          written, fixed));
}

std::string Parser::signal_text() {
  std::string out = w_[i_++].text;
  while (!at_end() && !is("=") && !is("when") && !(i_ + 1 < w_.size() && w_[i_ + 1].text == "=") &&
         !missing_equals(i_))
    out += w_[i_++].text;
  // ngspice's par('EXPR') (or par(EXPR)): the expression itself.
  if (out.starts_with("par(") && out.back() == ')') {
    out = out.substr(4, out.size() - 5);
    if (out.size() >= 2 && (out.front() == '\'' || out.front() == '"') && out.back() == out.front())
      out = out.substr(1, out.size() - 2);
    if (!is_measure_expression(out) && out.find('(') != std::string::npos) return out;
  }
  return is_measure_expression(out) ? out : signal_name(out);
}

// "= LEVEL" after the signal of when; LEVEL a number, or (ngspice's WHEN SIGNAL=SIGNAL2) a second
// signal: the instants the two cross, i.e. SIGNAL − SIGNAL2 crossing 0 (rise: SIGNAL going above
// SIGNAL2, as ngspice counts them).
bool Parser::level(CrossingSpec& c) {
  if (!is("=")) return fail("expected SIGNAL=LEVEL after 'when'");
  ++i_;
  if (auto v = number()) {
    c.level = *v;
    return true;
  }
  if (at_end() || is("=") || (i_ + 1 < w_.size() && w_[i_ + 1].text == "=") || missing_equals(i_))
    return fail("expected a number (or a second signal) for the level");
  const std::string other = signal_text();
  c.signal = "(" + c.signal + ")-(" + other + ")";
  c.level = 0;
  return true;
}

// "KEY =" with a value after it; the value is left at i_.
bool Parser::key_value(std::string& key, size_t& key_at) {
  key_at = i_;
  if (missing_equals(i_)) return fail_missing_equals();
  key = w_[i_++].text;
  if (!is("=")) return fail(fmt::format("expected '{}=VALUE'", key), key_at);
  ++i_;
  if (at_end()) return fail(fmt::format("expected a value after '{}='", key), key_at);
  return true;
}

// The value of rise=, fall= or cross=: 1, 2, ... or last.
bool Parser::count(const std::string& key, CrossingSpec& c) {
  c.edge = edge_of(key);
  if (is("last")) {
    ++i_;
    c.count = -1;
    return true;
  }
  auto v = number();
  if (!v) return fail(fmt::format("'{}={}': not a number", key, w_[i_].text));
  if (*v < 1 || *v != std::floor(*v))
    return fail(fmt::format("{}= must be 1, 2, ...", key), i_ - 1);
  c.count = static_cast<int>(*v);
  return true;
}

// TRIG or TARG's words: [SIGNAL] key=value ... up to "targ" or the end.
bool Parser::event(CrossingSpec& c, const char* clause) {
  const size_t start = i_ - 1;
  if (at_end() || w_[i_].text == "targ")
    return fail(fmt::format("expected SIGNAL val=LEVEL or at=T after '{}'", clause), start);
  bool has_val = false, other = false;
  const auto is_key = [](const std::string& w) {
    for (const char* k : {"val", "td", "rise", "fall", "cross", "at", "from", "to"})
      if (w == k) return true;
    return false;
  };
  if (missing_equals(i_)) return fail_missing_equals();  // "trig at 1m"
  if (!(i_ + 1 < w_.size() && w_[i_ + 1].text == "=")) {
    c.signal = signal_name(w_[i_++].text);
  } else if (!is_key(w_[i_].text)) {  // LTspice's SIGNAL=LEVEL, its VAL= left out
    c.signal = signal_name(w_[i_].text);
    i_ += 2;
    auto v = number();
    if (!v) return fail(fmt::format("expected a number for the level of {}", c.signal));
    c.level = *v;
    has_val = true;
  }
  while (!at_end() && !is("targ")) {
    std::string key;
    size_t key_at = 0;
    if (!key_value(key, key_at)) return false;
    if (key == "rise" || key == "fall" || key == "cross") {
      if (!count(key, c)) return false;
      other = true;
      continue;
    }
    auto v = number();
    if (!v) return fail(fmt::format("'{}={}': not a number", key, w_[i_].text));
    if (key == "val") {
      c.level = *v, has_val = true;
    } else if (key == "td" || key == "from" || key == "to") {
      (key == "td" ? c.td : key == "from" ? c.from.emplace() : c.to.emplace()) = *v;
      other = true;
    } else if (key == "at") {
      c.at = *v;
    } else {
      return fail(
          fmt::format("'{}=' is not a {} keyword (val, td, rise, fall, cross, at, from, to)", key,
                      clause),
          key_at);
    }
  }
  return check_event(c, clause, start, has_val, other);
}

bool Parser::check_event(const CrossingSpec& c, const char* clause, size_t start, bool has_val,
                         bool other) {
  if (c.at && (has_val || other))
    return fail(fmt::format("{} at=T is the time itself: val=, td=, rise=, fall=, cross=, from= "
                            "and to= do not apply with it",
                            clause),
                start);
  if (!c.at && c.signal.empty())
    return fail(fmt::format("expected SIGNAL val=LEVEL or at=T after '{}'", clause), start);
  if (!c.at && !has_val) return fail(fmt::format("{} {} needs val=LEVEL", clause, c.signal), start);
  if (c.from && c.to && *c.to <= *c.from) return fail("to= must be after from=", start);
  return true;
}

// key=value pairs of every kind but trig.
bool Parser::options(MeasureSpec& spec) {
  const bool deriv_at = spec.kind == MeasureKind::kDeriv && spec.when.signal.empty();
  const bool at = spec.kind == MeasureKind::kFindAt || deriv_at;
  const bool crossing = spec.kind == MeasureKind::kWhen || spec.kind == MeasureKind::kFindWhen ||
                        (spec.kind == MeasureKind::kDeriv && !deriv_at);
  const bool window = !crossing && !at;
  while (!at_end()) {
    std::string key;
    size_t key_at = 0;
    if (!key_value(key, key_at)) return false;
    if ((key == "cross" || key == "rise" || key == "fall") && crossing) {
      if (!count(key, spec.when)) return false;
      continue;
    }
    auto v = number();
    if (!v) return fail(fmt::format("'{}={}': not a number", key, w_[i_].text));
    if (key == "from" && window) {
      spec.from = *v;
    } else if (key == "to" && window) {
      spec.to = *v;
    } else if (key == "at" && at) {
      spec.when.at = *v;
    } else if (key == "td" && crossing) {
      spec.when.td = *v;
    } else {
      return fail(fmt::format("'{}=' does not apply here", key), key_at);
    }
  }
  if (at && !spec.when.at)
    return fail(fmt::format("'{}' needs at=T or when SIGNAL=LEVEL",
                            spec.kind == MeasureKind::kDeriv ? "deriv" : "find"));
  if (spec.from && spec.to && *spec.to <= *spec.from) return fail("to= must be after from=");
  return true;
}

std::optional<MeasureSpec> Parser::run() {
  MeasureSpec spec;
  spec.text = text_;
  if (is("tran") || is("dc") || is("ac")) spec.analysis = w_[i_++].text;
  if (!at_end() && !kind_of(w_[i_].text) && w_[i_].text != "targ" && name_.empty())
    name_ = w_[i_++].text;
  if (is("targ")) return fail("'targ' without a 'trig' before it"), std::nullopt;
  // "avg(v(a)-v(b))*i(l)": the kind written against an opening parenthesis (LTspice's
  // "AVG (V(a)-V(b))*I(LL)") is split off.
  if (!at_end() && !kind_of(w_[i_].text)) {
    const std::string& w = w_[i_].text;
    const std::size_t open = w.find('(');
    if (open != std::string::npos && open > 0 && kind_of(w.substr(0, open)) &&
        w.substr(0, open) != "param") {
      const Lexeme rest{w.substr(open), w_[i_].offset + open};
      w_[i_].text = w.substr(0, open);
      w_.insert(w_.begin() + static_cast<std::ptrdiff_t>(i_) + 1, rest);
    }
  }
  if (at_end() || !kind_of(w_[i_].text))
    return fail(
               "expected avg, rms, min, max, min_at, max_at, pp, integ, when, find, deriv or "
               "trig"),
           std::nullopt;
  spec.kind = *kind_of(w_[i_++].text);
  if (spec.kind == MeasureKind::kParam) {
    // NAME param [=] EXPR: the rest of the words, quotes or braces around it dropped.
    if (name_.empty()) return fail("'param' needs a name before it", i_ - 1), std::nullopt;
    if (is("=")) ++i_;
    if (at_end()) return fail("expected an expression after 'param'"), std::nullopt;
    std::string expr = text_.substr(w_[i_].offset);
    while (!expr.empty() && std::isspace(static_cast<unsigned char>(expr.back())) != 0)
      expr.pop_back();
    if (expr.size() >= 2 && ((expr.front() == '\'' && expr.back() == '\'') ||
                             (expr.front() == '{' && expr.back() == '}') ||
                             (expr.front() == '"' && expr.back() == '"')))
      expr = expr.substr(1, expr.size() - 2);
    spec.signal = ascii_lower(expr);
    i_ = w_.size();
    spec.name = ascii_lower(name_);
    return spec;
  }
  if (spec.kind == MeasureKind::kTrigTarg) {
    if (!event(spec.when, "trig")) return std::nullopt;
    if (!is("targ")) return fail("'trig' needs a 'targ' clause after it"), std::nullopt;
    ++i_;
    if (!event(spec.targ, "targ")) return std::nullopt;
    // As ngspice: a from= given on one side only applies to both.
    if (!spec.targ.from) spec.targ.from = spec.when.from;
    if (!spec.when.from) spec.when.from = spec.targ.from;
  } else {
    if (at_end()) return fail("expected a signal, e.g. v(out)"), std::nullopt;
    spec.signal = signal_text();
    if (spec.kind == MeasureKind::kWhen) {
      spec.when.signal = spec.signal;
      if (!level(spec.when)) return std::nullopt;
    } else if ((spec.kind == MeasureKind::kFindAt || spec.kind == MeasureKind::kDeriv) &&
               is("when")) {
      if (spec.kind == MeasureKind::kFindAt) spec.kind = MeasureKind::kFindWhen;
      ++i_;
      if (at_end()) return fail("expected SIGNAL=LEVEL after 'when'"), std::nullopt;
      spec.when.signal = signal_text();
      if (!level(spec.when)) return std::nullopt;
    }
    if (!options(spec)) return std::nullopt;
  }
  if (name_.empty()) {
    static constexpr const char* kNames[] = {"avg",   "rms",    "min",    "max",  "pp",
                                             "integ", "when",   "find",   "find", "delay",
                                             "param", "min_at", "max_at", "deriv"};
    const std::string& what = spec.kind == MeasureKind::kTrigTarg
                                  ? (spec.targ.signal.empty() ? spec.when.signal : spec.targ.signal)
                                  : spec.signal;
    name_ = what.empty() ? kNames[static_cast<int>(spec.kind)]
                         : fmt::format("{}_{}", kNames[static_cast<int>(spec.kind)], what);
  }
  spec.name = ascii_lower(name_);
  return spec;
}

}  // namespace

std::vector<std::string> MeasureSpec::signals() const {
  std::vector<std::string> out;
  auto add = [&out](const std::string& s) {
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  if (kind == MeasureKind::kParam) return out;  // reads measurements, not signals
  for (const std::string* s : {&signal, &when.signal, &targ.signal}) {
    if (!is_measure_expression(*s)) {
      add(*s);
      continue;
    }
    for (const std::string& r : measure_refs(*s)) add(r);
  }
  return out;
}

bool is_measure_function(std::string_view name) {
  return std::any_of(std::begin(kMeasureFunctions), std::end(kMeasureFunctions),
                     [&](const char* f) { return name == f; });
}

bool is_measure_expression(std::string_view text) {
  if (text.find('(') == std::string_view::npos) return false;
  bool arithmetic = false;
  scan_refs(text, arithmetic);
  return arithmetic;
}

std::vector<std::string> measure_refs(std::string_view text) {
  bool arithmetic = false;
  return scan_refs(text, arithmetic);
}

std::optional<MeasureSpec> parse_measure(const std::vector<std::string>& tokens, std::string name,
                                         std::string& error, size_t* error_token) {
  Parser p(tokens, std::move(name));
  auto spec = p.run();
  if (!spec) {
    error = p.error;
    if (error_token != nullptr) *error_token = p.error_token;
  }
  return spec;
}

std::optional<MeasureSpec> parse_measure(const std::string& text, std::string& error) {
  return parse_measure(std::vector<std::string>{text}, "", error);
}

}  // namespace nsspice::netlist
