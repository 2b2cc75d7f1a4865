// Internal: recursive-descent evaluator of the expression grammar in expression.hpp.
// Evaluation happens while parsing (no tree is built); the first error stops it.
#include "netlist/src/expression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "netlist/src/lines.hpp"
#include "netlist/src/suggest.hpp"
#include "netlist/units.hpp"

namespace nsspice::netlist::detail {
namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

struct Function {
  const char* name;
  int arity;
  double (*f1)(double);
  double (*f2)(double, double);
  double (*f3)(double, double, double) = nullptr;
};

double sgn(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }
double pwr(double x, double y) { return sgn(x) * std::pow(std::fabs(x), y); }

const Function kFunctions[] = {
    {"sqrt", 1, [](double x) { return std::sqrt(x); }, nullptr},
    {"exp", 1, [](double x) { return std::exp(x); }, nullptr},
    {"log", 1, [](double x) { return std::log(x); }, nullptr},
    {"ln", 1, [](double x) { return std::log(x); }, nullptr},
    {"log10", 1, [](double x) { return std::log10(x); }, nullptr},
    {"sin", 1, [](double x) { return std::sin(x); }, nullptr},
    {"cos", 1, [](double x) { return std::cos(x); }, nullptr},
    {"tan", 1, [](double x) { return std::tan(x); }, nullptr},
    {"asin", 1, [](double x) { return std::asin(x); }, nullptr},
    {"acos", 1, [](double x) { return std::acos(x); }, nullptr},
    {"atan", 1, [](double x) { return std::atan(x); }, nullptr},
    {"sinh", 1, [](double x) { return std::sinh(x); }, nullptr},
    {"cosh", 1, [](double x) { return std::cosh(x); }, nullptr},
    {"tanh", 1, [](double x) { return std::tanh(x); }, nullptr},
    {"abs", 1, [](double x) { return std::fabs(x); }, nullptr},
    {"sgn", 1, sgn, nullptr},
    {"floor", 1, [](double x) { return std::floor(x); }, nullptr},
    {"ceil", 1, [](double x) { return std::ceil(x); }, nullptr},
    {"int", 1, [](double x) { return std::trunc(x); }, nullptr},
    {"min", 2, nullptr, [](double x, double y) { return std::fmin(x, y); }},
    {"max", 2, nullptr, [](double x, double y) { return std::fmax(x, y); }},
    {"pow", 2, nullptr, [](double x, double y) { return std::pow(x, y); }},
    {"pwr", 2, nullptr, pwr},
    // PSpice's (ngspice's PSpice mode defines them as .func): PWRS is PWR; STP(x) is the unit step
    // u(x) (1 for x > 0); LIMIT(x, a, b) is x clamped between a and b, in either order.
    {"pwrs", 2, nullptr, pwr},
    {"stp", 1, [](double x) { return x > 0 ? 1.0 : 0.0; }, nullptr},
    {"limit", 3, nullptr, nullptr,
     [](double x, double a, double b) {
       return a > b ? std::fmax(std::fmin(x, a), b) : std::fmax(std::fmin(x, b), a);
     }},
};

// The distribution functions (expression.hpp), by name and arity; r is the draw.
struct Distribution {
  const char* name;
  int arity;
  bool normal;
  double (*value)(const std::vector<double>& a, double r);
};

const Distribution kDistributions[] = {
    {"agauss", 3, true, [](const auto& a, double r) { return a[0] + a[1] / a[2] * r; }},
    {"gauss", 3, true, [](const auto& a, double r) { return a[0] * (1 + a[1] / a[2] * r); }},
    {"gauss", 1, true, [](const auto& a, double r) { return a[0] * r; }},
    {"aunif", 2, false, [](const auto& a, double r) { return a[0] + a[1] * r; }},
    {"unif", 2, false, [](const auto& a, double r) { return a[0] * (1 + a[1] * r); }},
    {"mc", 2, false, [](const auto& a, double r) { return a[0] * (1 + a[1] * r); }},
    {"flat", 1, false, [](const auto& a, double r) { return a[0] * r; }},
};

class Evaluator {
 public:
  Evaluator(std::string_view text, const ExpressionHooks& hooks) : s_(text), hooks_(hooks) {}

  std::optional<double> run() {
    skip();
    if (pos_ >= s_.size()) return fail(pos_, 1, "empty expression");
    auto v = ternary(hooks_.depth);
    if (!v) return v;
    skip();
    if (pos_ < s_.size())
      return fail(pos_, 1, fmt::format("unexpected '{}' in expression", s_[pos_]));
    if (!std::isfinite(*v)) return fail(0, s_.size(), "the expression is not a finite number");
    return v;
  }

 private:
  std::string_view s_;
  const ExpressionHooks& hooks_;
  std::size_t pos_ = 0;
  int dead_ = 0;  // > 0: inside the branch of c ? a : b not taken (see ternary)

  std::optional<double> fail(std::size_t at, std::size_t len, std::string message) {
    hooks_.error(at, len, std::move(message));
    return std::nullopt;
  }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(std::string_view op) {
    skip();
    if (s_.substr(pos_, op.size()) != op) return false;
    pos_ += op.size();
    return true;
  }
  // The local limit (kMaxExpressionDepth in this expression) and the total one.
  bool too_deep(int depth) const {
    return depth - hooks_.depth > kMaxExpressionDepth || depth > kMaxTotalExpressionDepth;
  }
  std::optional<double> deep_error(int depth) {
    if (depth - hooks_.depth > kMaxExpressionDepth)
      return fail(pos_, 1, "expression nested too deeply");
    return fail(pos_, 1,
                fmt::format("expressions nested more than {} levels deep in total through "
                            "parameter references",
                            kMaxTotalExpressionDepth));
  }

  // c ? a : b. The branch not taken is read "dead": its value does not matter, so its division
  // by zero or non-finite function value is no error ("x == 0 ? 0 : 1/x"), and it draws
  // nothing.
  std::optional<double> ternary(int depth) {
    if (too_deep(depth)) return deep_error(depth);
    const auto c = disjunction(depth);
    if (!c || !eat("?")) return c;
    return branches(*c, ":", "expected ':' of 'c ? a : b' in expression", depth);
  }
  // The branches `a sep b` after the condition c (ternary, if): the one not taken is read dead.
  std::optional<double> branches(double c, std::string_view sep, const char* expected, int depth) {
    const bool take = c != 0;
    const auto a = branch(!take, depth);
    if (!a) return a;
    if (!eat(sep)) return fail(pos_, 1, expected);
    const auto b = branch(take, depth);
    if (!b) return b;
    return take ? a : b;
  }
  std::optional<double> branch(bool dead, int depth) {
    dead_ += dead ? 1 : 0;
    auto v = ternary(depth + 1);
    dead_ -= dead ? 1 : 0;
    return v;
  }
  // a || b, a && b, a OP b: 1 (true) or 0; a value ≠ 0 is true. PSpice's single | and & are
  // the same operators (ngspice's PSpice mode rewrites them so).
  std::optional<double> disjunction(int depth) {
    auto v = conjunction(depth);
    while (v && (eat("||") || eat("|"))) {
      const auto r = conjunction(depth);
      if (!r) return r;
      v = (*v != 0 || *r != 0) ? 1.0 : 0.0;
    }
    return v;
  }
  std::optional<double> conjunction(int depth) {
    auto v = comparison(depth);
    while (v && (eat("&&") || eat("&"))) {
      const auto r = comparison(depth);
      if (!r) return r;
      v = (*v != 0 && *r != 0) ? 1.0 : 0.0;
    }
    return v;
  }
  std::optional<double> comparison(int depth) {
    auto v = expr(depth);
    if (!v) return v;
    static constexpr std::string_view kOps[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (std::string_view op : kOps) {
      if (!eat(op)) continue;
      const auto r = expr(depth);
      if (!r) return r;
      const double a = *v, b = *r;
      const bool t = op == "=="   ? a == b
                     : op == "!=" ? a != b
                     : op == "<=" ? a <= b
                     : op == ">=" ? a >= b
                     : op == "<"  ? a < b
                                  : a > b;
      return t ? 1.0 : 0.0;
    }
    return v;
  }
  std::optional<double> expr(int depth) {
    if (too_deep(depth)) return deep_error(depth);
    auto v = term(depth);
    while (v) {
      if (eat("+")) {
        auto r = term(depth);
        if (!r) return r;
        *v += *r;
      } else if (eat("-")) {
        auto r = term(depth);
        if (!r) return r;
        *v -= *r;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<double> term(int depth) {
    auto v = unary(depth);
    while (v) {
      skip();
      if (s_.substr(pos_, 2) == "**") break;
      const std::size_t at = pos_;
      if (eat("*")) {
        auto r = unary(depth);
        if (!r) return r;
        *v *= *r;
      } else if (eat("/")) {
        auto r = unary(depth);
        if (!r) return r;
        if (*r == 0 && dead_ == 0) return fail(at, 1, "division by zero");
        *v = *r == 0 ? 0.0 : *v / *r;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<double> unary(int depth) {
    if (too_deep(depth)) return deep_error(depth);
    if (eat("-")) {
      auto v = unary(depth + 1);
      if (v) *v = -*v;
      return v;
    }
    if (eat("+")) return unary(depth + 1);
    auto base = primary(depth);
    if (!base) return base;
    if (eat("**") || eat("^")) {
      auto exponent = unary(depth + 1);
      if (!exponent) return exponent;
      return std::pow(*base, *exponent);
    }
    return base;
  }
  std::optional<double> primary(int depth) {
    skip();
    if (pos_ >= s_.size()) return fail(pos_, 1, "unexpected end of expression");
    const char c = s_[pos_];
    if (c == '(' || c == '{') {  // PSpice's nested braces: "{VTH}" inside an expression
      const std::size_t open = pos_++;
      auto v = ternary(depth + 1);
      if (!v) return v;
      if (!eat(c == '(' ? ")" : "}"))
        return fail(open, 1,
                    c == '(' ? "missing ')' to close this '(' in the expression"
                             : "missing '}' to close this '{' in the expression");
      return v;
    }
    if (is_digit(c) || (c == '.' && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]))) {
      return number();
    }
    if (is_alpha(c)) return name(depth);
    return fail(pos_, 1, fmt::format("unexpected '{}' in expression", c));
  }
  std::optional<double> number() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (is_digit(s_[pos_]) || s_[pos_] == '.')) ++pos_;
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      std::size_t q = pos_ + 1;
      if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) ++q;
      if (q < s_.size() && is_digit(s_[q])) {
        pos_ = q;
        while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
      }
    }
    while (pos_ < s_.size() && is_alpha(s_[pos_]) && s_[pos_] != '_') ++pos_;
    const std::string_view text = s_.substr(start, pos_ - start);
    if (auto v = parse_spice_number(text)) return v;
    return fail(start, text.size(), fmt::format("bad number '{}' in expression", text));
  }
  std::optional<double> name(int depth) {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (is_alpha(s_[pos_]) || is_digit(s_[pos_]))) ++pos_;
    const std::string id = ascii_lower(s_.substr(start, pos_ - start));
    skip();
    if (pos_ < s_.size() && s_[pos_] == '(') return call(id, start, depth);
    return hooks_.lookup(id, start, depth);
  }
  // PSpice's IF(c, a, b) (ngspice's PSpice mode): c ? a : b, the branch not taken read dead.
  std::optional<double> if_call(int depth) {
    ++pos_;  // '('
    skip();
    const auto c = ternary(depth + 1);
    if (!c) return c;
    if (!eat(",")) return fail(pos_, 1, "expected ',' after the condition of 'if(c, a, b)'");
    const auto v =
        branches(*c, ",", "expected ',' before the third argument of 'if(c, a, b)'", depth);
    if (!v) return v;
    if (!eat(")")) return fail(pos_, 1, "expected ')' closing 'if(c, a, b)'");
    return v;
  }
  std::optional<double> call(const std::string& id, std::size_t start, int depth) {
    if (id == "if") return if_call(depth);
    const Function* fn = nullptr;
    for (const Function& f : kFunctions) {
      if (id == f.name) fn = &f;
    }
    bool distribution = false;
    for (const Distribution& d : kDistributions) distribution = distribution || id == d.name;
    if (distribution) return draw(id, start, depth);
    if (fn == nullptr) {
      return fail(
          start, id.size(),
          fmt::format("unknown function '{}'{}", id, did_you_mean(id, expression_functions())));
    }
    std::vector<double> args;
    if (!arguments(id, depth, args)) return std::nullopt;
    // min and max take two or more arguments (HSPICE's and ngspice's B sources: max(a, b, c)).
    const bool fold = (id == "min" || id == "max") && args.size() > 2;
    if (fold) {
      double v = args[0];
      for (size_t k = 1; k < args.size(); ++k) v = fn->f2(v, args[k]);
      return v;
    }
    if (static_cast<int>(args.size()) != fn->arity) {
      return fail(start, id.size(),
                  fmt::format("function '{}' takes {}{} argument{}, got {}", id, fn->arity,
                              id == "min" || id == "max" ? " or more" : "",
                              fn->arity == 1 ? "" : "s", args.size()));
    }
    const double v = fn->arity == 1   ? fn->f1(args[0])
                     : fn->arity == 2 ? fn->f2(args[0], args[1])
                                      : fn->f3(args[0], args[1], args[2]);
    if (!std::isfinite(v) && dead_ == 0) {
      std::string shown;
      for (double a : args) shown += fmt::format("{}{}", shown.empty() ? "" : ", ", a);
      return fail(start, pos_ - start,
                  fmt::format("{}({}) is not a finite real number", id, shown));
    }
    return v;
  }
  // '(' [expr {',' expr}] ')' after a function name; false after reporting.
  bool arguments(const std::string& id, int depth, std::vector<double>& args) {
    ++pos_;  // '('
    skip();
    if (eat(")")) return true;
    do {
      auto v = ternary(depth + 1);
      if (!v) return false;
      args.push_back(*v);
    } while (eat(","));
    if (eat(")")) return true;
    fail(pos_, 1, fmt::format("expected ',' or ')' in the call of '{}'", id));
    return false;
  }
  std::optional<double> draw(const std::string& id, std::size_t start, int depth) {
    std::vector<double> args;
    if (!arguments(id, depth, args)) return std::nullopt;
    const Distribution* d = nullptr;
    std::string arities;
    for (const Distribution& c : kDistributions) {
      if (id != c.name) continue;
      arities += fmt::format("{}{}", arities.empty() ? "" : " or ", c.arity);
      if (static_cast<int>(args.size()) == c.arity) d = &c;
    }
    if (d == nullptr)
      return fail(
          start, id.size(),
          fmt::format("function '{}' takes {} arguments, got {}", id, arities, args.size()));
    if (d->arity == 3 && args[2] == 0)
      return fail(start, pos_ - start, fmt::format("'{}': sigma (the third argument) is 0", id));
    if (dead_ > 0) return d->value(args, 0.0);
    const double r = hooks_.draw ? hooks_.draw(d->normal) : 0.0;
    const double v = d->value(args, r);
    if (!std::isfinite(v))
      return fail(start, pos_ - start, fmt::format("{}(...) is not a finite real number", id));
    if (!hooks_.draw && hooks_.nominal) hooks_.nominal(start, pos_ - start, v);
    return v;
  }
};

}  // namespace

const std::vector<std::string>& expression_functions() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Function& f : kFunctions) names.emplace_back(f.name);
    names.emplace_back("if");
    for (const Distribution& d : kDistributions)
      if (std::find(names.begin(), names.end(), d.name) == names.end()) names.emplace_back(d.name);
    return names;
  }();
  return kNames;
}

std::optional<double> evaluate_expression(std::string_view text, const ExpressionHooks& hooks) {
  return Evaluator(text, hooks).run();
}

}  // namespace nsspice::netlist::detail
