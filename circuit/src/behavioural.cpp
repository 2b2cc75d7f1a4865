// Affine expressions of behavioural sources (circuit/src/behavioural.hpp): a recursive-descent
// parser that keeps, for every sub-expression, c + Σ a_k u_k, and refuses what is not affine.
//
//   expr  := or ['?' expr ':' expr]      or := and {('||'|'|') and}  and := rel {('&&'|'&') rel}
//   rel   := sum [('>'|'>='|'<'|'<='|'=='|'!=') sum]
//   sum   := term {('+'|'-') term}        term := unary {('*'|'/') unary}
//   unary := ('+'|'-'|'!') unary | power  power := primary [('^'|'**') unary]   (constants only)
//   primary := number | '(' expr ')' | '{' expr '}' | v '(' node [',' node] ')' | i '(' name ')'
//            | function '(' expr {',' expr} ')' (constant arguments) | pi | e
#include "circuit/src/behavioural.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>
#include <vector>

#include "netlist/suggest.hpp"
#include "netlist/units.hpp"

namespace nsspice::circuit::detail {
namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

// The functions of constant_function (and if, table, pwl of unknowns).
const std::vector<std::string> kFunctionNames = {
    "sqrt", "exp",  "log",   "ln", "log10", "sin", "cos", "tan", "abs", "uramp",
    "u",    "step", "limit", "if", "table", "pwl", "min", "max", "pow", "sgn"};

double constant_function(const std::string& f, const std::vector<double>& x, bool& known) {
  known = true;
  if (x.size() == 1) {
    const double a = x[0];
    if (f == "sqrt") return std::sqrt(a);
    if (f == "exp") return std::exp(a);
    if (f == "log" || f == "ln") return std::log(a);
    if (f == "log10") return std::log10(a);
    if (f == "sin") return std::sin(a);
    if (f == "cos") return std::cos(a);
    if (f == "tan") return std::tan(a);
    if (f == "abs") return std::fabs(a);
    if (f == "uramp") return std::fmax(0.0, a);
    if (f == "u" || f == "step") return a > 0 ? 1.0 : 0.0;
    if (f == "sgn") return a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0;
  }
  if (x.size() == 3 && f == "limit")  // x clamped between the bounds, in either order
    return std::fmin(std::fmax(x[0], std::fmin(x[1], x[2])), std::fmax(x[1], x[2]));
  if (x.size() == 3 && f == "if") return x[0] != 0 ? x[1] : x[2];
  if (x.size() >= 3 && x.size() % 2 == 1 && (f == "table" || f == "pwl")) {
    const std::size_t n = (x.size() - 1) / 2;  // points (x[2k+1], x[2k+2]), increasing
    const double v = x[0];
    std::size_t k = 0;  // the segment [k, k+1] that holds v (end segments extended)
    while (k + 2 < n && v > x[2 * k + 3]) ++k;
    if (n == 1) return x[2];
    if (f == "table" && v <= x[1]) return x[2];
    if (f == "table" && v >= x[2 * n - 1]) return x[2 * n];
    const double x0 = x[2 * k + 1], y0 = x[2 * k + 2], x1 = x[2 * k + 3], y1 = x[2 * k + 4];
    return y0 + (y1 - y0) / (x1 - x0) * (v - x0);
  }
  if (x.size() >= 2 && (f == "min" || f == "max")) {
    double v = x[0];
    for (std::size_t k = 1; k < x.size(); ++k)
      v = f == "min" ? std::fmin(v, x[k]) : std::fmax(v, x[k]);
    return v;
  }
  if (x.size() == 2) {
    if (f == "pow") return std::pow(x[0], x[1]);
  }
  known = false;
  return 0;
}

class Parser {
 public:
  Parser(std::string_view s, AffineError& error, const KinkMaker& kink,
         const netlist::ExprBindings* bindings)
      : s_(s), error_(error), kink_(kink), bindings_(bindings) {}

  std::optional<AffineExpr> run() {
    auto v = expr(0);
    if (!v) return v;
    skip();
    if (pos_ < s_.size())
      return fail(pos_, 1, fmt::format("unexpected '{}' in the expression", s_[pos_]));
    return v;
  }

 private:
  std::string_view s_;
  AffineError& error_;
  const KinkMaker& kink_;
  const netlist::ExprBindings* bindings_;
  std::size_t pos_ = 0;

  std::optional<AffineExpr> fail(std::size_t at, std::size_t len, std::string message) {
    error_ = AffineError{at, std::max<std::size_t>(len, 1), std::move(message)};
    return std::nullopt;
  }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string text(std::size_t from) const {
    std::string t(s_.substr(from, pos_ - from));
    while (!t.empty() && t.front() == ' ') t.erase(0, 1);
    return t;
  }

  // t ↦ constant + time(t) of an expression without unknowns.
  static std::function<double(double)> value_of(const AffineExpr& a) {
    return [c = a.constant, f = a.time](double t) { return c + (f ? f(t) : 0.0); };
  }
  static AffineExpr timed(std::function<double(double)> f) {
    AffineExpr out;
    out.time = std::move(f);
    return out;
  }
  static AffineExpr scaled(AffineExpr a, double k) {
    a.boolean = false;
    a.step_of.reset();
    a.constant *= k;
    if (a.time) a.time = [f = a.time, k](double t) { return k * f(t); };
    for (auto& [n, c] : a.voltages) c *= k;
    for (auto& [n, c] : a.currents) c *= k;
    return a;
  }
  static AffineExpr sum(AffineExpr a, const AffineExpr& b, double sign) {
    a.boolean = false;
    a.step_of.reset();
    a.constant += sign * b.constant;
    if (b.time)
      a.time =
          a.time
              ? std::function<double(double)>(
                    [f = a.time, g = b.time, sign](double t) { return f(t) + sign * g(t); })
              : std::function<double(double)>([g = b.time, sign](double t) { return sign * g(t); });
    for (const auto& [n, c] : b.voltages) a.voltages[n] += sign * c;
    for (const auto& [n, c] : b.currents) a.currents[n] += sign * c;
    return a;
  }

  static AffineExpr number(double v, bool boolean = false) {
    AffineExpr out;
    out.constant = v;
    out.boolean = boolean;
    return out;
  }
  static bool is_condition(const AffineExpr& c) {
    return c.boolean || (c.is_number() && (c.constant == 0 || c.constant == 1));
  }
  // The next characters are `op` (and, for a one-character op, not followed by '=').
  bool next_is(std::string_view op) {
    skip();
    if (s_.substr(pos_, op.size()) != op) return false;
    if (op.size() == 1 && pos_ + 1 < s_.size() && s_[pos_ + 1] == '=') return false;
    return true;
  }

  // `keep`: a comparison at the top stays pending (if()'s condition, whose step choose builds
  // or replaces by a ramp); otherwise every comparison is built.
  std::optional<AffineExpr> expr(int depth, bool keep = false) {
    if (depth > 64) return fail(pos_, 1, "the expression is nested too deeply");
    skip();
    const std::size_t start = pos_;
    auto c = logic(depth, true);
    if (!c) return c;
    if (!eat('?')) return keep ? c : built(std::move(*c), start);
    auto a = expr(depth + 1);
    if (!a) return a;
    if (!eat(':')) return fail(pos_, 1, "expected ':' of 'condition ? a : b'");
    auto b = expr(depth + 1);
    if (!b) return b;
    return choose(*c, *a, *b, start);
  }

  // A pending comparison's step s(u) as a kink (step_of kept); anything else as it is.
  std::optional<AffineExpr> built(AffineExpr c, std::size_t start) {
    if (!c.pending) return c;
    auto s = kink(*c.step_of, true);
    if (!s) return fail(start, pos_ - start, fmt::format("'{}' cannot be built", text(start)));
    s->step_of = c.step_of;
    return s;
  }

  // if(c, a, b) = c ? a : b = b + (a − b)·c.
  std::optional<AffineExpr> choose(AffineExpr c, const AffineExpr& a, const AffineExpr& b,
                                   std::size_t start) {
    AffineExpr d = sum(a, b, -1);
    std::erase_if(d.voltages, [](const auto& t) { return t.second == 0; });
    std::erase_if(d.currents, [](const auto& t) { return t.second == 0; });
    if (const auto k = c.step_of && !d.is_number() ? ratio(d, *c.step_of) : std::nullopt) {
      auto r = kink(*c.step_of, false);  // (a − b)·s(u) = k·u·s(u) = k·r(u)
      if (!r) return fail(start, pos_ - start, fmt::format("'{}' cannot be built", text(start)));
      return sum(b, scaled(*r, *k), 1);
    }
    if (auto made = built(std::move(c), start))
      c = std::move(*made);
    else
      return made;
    if (c.is_number()) return c.constant != 0 ? a : b;
    if (c.is_constant())
      return fail(start, pos_ - start,
                  fmt::format("'{}': a condition on time has no breakpoint here; write a PULSE "
                              "or PWL source, whose corners the time stepping lands on",
                              text(start)));
    if (!c.boolean)
      return fail(start, pos_ - start,
                  fmt::format("'{}': the condition of an unknown must be a comparison "
                              "(v(a) > 1, ...)",
                              text(start)));
    if (!d.is_number())
      return fail(start, pos_ - start,
                  fmt::format("'{}': the two branches differ by an expression of unknowns or "
                              "time, so the result is a product of a switch and that expression; "
                              "only branches that differ by a constant are piecewise linear",
                              text(start)));
    return sum(b, scaled(c, d.constant), 1);
  }

  // k with d = k·u exactly (every coefficient and the constant), or nullopt.
  static std::optional<double> ratio(const AffineExpr& d, const AffineExpr& u) {
    if (d.time || u.time) return std::nullopt;
    double k = 0;  // from u's first nonzero coefficient
    for (auto terms : {&AffineExpr::voltages, &AffineExpr::currents})
      for (const auto& [n, y] : u.*terms)
        if (k == 0 && y != 0) k = ((d.*terms).count(n) > 0 ? (d.*terms).at(n) : 0.0) / y;
    const auto same = [k](double x, double y) {
      return std::abs(x - k * y) <= 1e-12 * (std::abs(x) + std::abs(k * y));
    };
    if (k == 0 || !same(d.constant, u.constant)) return std::nullopt;
    for (auto terms : {&AffineExpr::voltages, &AffineExpr::currents}) {
      for (const auto& [n, x] : d.*terms)
        if (!same(x, (u.*terms).count(n) > 0 ? (u.*terms).at(n) : 0.0)) return std::nullopt;
      for (const auto& [n, y] : u.*terms)
        if (!same((d.*terms).count(n) > 0 ? (d.*terms).at(n) : 0.0, y)) return std::nullopt;
    }
    return k;
  }

  // or := and {'||' and}, and := rel {'&&' rel}: c || d = max(c, d), c && d = min(c, d).
  std::optional<AffineExpr> logic(int depth, bool is_or) {
    skip();
    const std::size_t start = pos_;
    auto left = is_or ? logic(depth, false) : relation(depth);
    // ngspice writes && and ||, LTspice & and |.
    const std::string_view op = is_or ? "||" : "&&";
    while (left && (next_is(op) || next_is(op.substr(0, 1)))) {
      pos_ += next_is(op) ? 2 : 1;
      left = built(std::move(*left), start);
      if (!left) return left;
      const std::size_t right_start = pos_;
      auto right = is_or ? logic(depth, false) : relation(depth);
      if (right) right = built(std::move(*right), right_start);
      if (!right) return right;
      if (!is_condition(*left) || !is_condition(*right))
        return fail(start, pos_ - start,
                    fmt::format("'{}': both sides of '{}' must be conditions (comparisons)",
                                text(start), op));
      if (left->is_number() && right->is_number()) {
        const bool l = left->constant != 0, r = right->constant != 0;
        left = number(is_or ? (l || r) : (l && r), true);
        continue;
      }
      auto r = kink(sum(*left, *right, -1), false);  // max(l, r) = r + r(l − r)
      if (!r) return fail(start, pos_ - start, fmt::format("'{}' cannot be built", text(start)));
      left = is_or ? sum(*right, *r, 1) : sum(*left, *r, -1);
      left->boolean = true;
    }
    return left;
  }

  std::optional<AffineExpr> relation(int depth) {
    skip();
    const std::size_t start = pos_;
    auto left = sum_expr(depth);
    if (!left) return left;
    static constexpr std::string_view kOps[] = {">=", "<=", "==", "!=", ">", "<"};
    std::string_view op;
    for (std::string_view o : kOps) {
      if (next_is(o)) {
        op = o;
        break;
      }
    }
    if (op.empty()) return left;
    pos_ += op.size();
    const std::size_t right_at = pos_;
    auto right = sum_expr(depth);
    if (right) right = built(std::move(*right), right_at);  // a pending "(c)" operand
    if (!right) return right;
    const AffineExpr u = sum(*left, *right, -1);  // left − right
    if (u.is_number()) {
      const double d = u.constant;
      const bool v = op == ">="   ? d >= 0
                     : op == "<=" ? d <= 0
                     : op == "==" ? d == 0
                     : op == "!=" ? d != 0
                     : op == ">"  ? d > 0
                                  : d < 0;
      return number(v ? 1.0 : 0.0, true);
    }
    if (u.is_constant())
      return fail(start, pos_ - start,
                  fmt::format("'{}': a condition on time has no breakpoint here; write a PULSE "
                              "or PWL source, whose corners the time stepping lands on",
                              text(start)));
    if (op == "==" || op == "!=")
      return fail(start, pos_ - start,
                  fmt::format("'{}': equality of unknowns is not supported (use <, <=, >, >=)",
                              text(start)));
    AffineExpr pending = number(0, true);  // s(u), built when used (built, choose)
    pending.pending = true;
    pending.step_of = std::make_shared<const AffineExpr>(op[0] == '>' ? u : scaled(u, -1));
    return pending;
  }

  std::optional<AffineExpr> sum_expr(int depth) {
    auto left = term(depth);
    while (left) {
      skip();
      if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) break;
      const double sign = s_[pos_++] == '+' ? 1.0 : -1.0;
      const std::size_t right_at = pos_;
      auto right = term(depth);
      if (right) right = built(std::move(*right), right_at);  // a pending "(c)" operand
      if (!right) return right;
      left = sum(*left, *right, sign);
    }
    return left;
  }

  std::optional<AffineExpr> term(int depth) {
    skip();
    const std::size_t start = pos_;
    auto left = unary(depth);
    while (left) {
      skip();
      if (pos_ >= s_.size() || (s_[pos_] != '*' && s_[pos_] != '/') ||
          (s_[pos_] == '*' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '*'))
        break;
      const bool divide = s_[pos_++] == '/';
      const std::size_t left_end = pos_ - 1;
      const std::size_t right_at = pos_;
      auto right = unary(depth);
      if (right) right = built(std::move(*right), right_at);  // a pending "(c)" operand
      if (!right) return right;
      const bool mixed = (left->is_constant() && left->time && !right->is_constant()) ||
                         (right->is_constant() && right->time && !left->is_constant());
      if (divide && !right->is_constant()) {
        return fail(start, pos_ - start,
                    fmt::format("division by an unknown in '{}': only affine expressions of node "
                                "voltages and branch currents are supported",
                                text(start)));
      } else if (mixed) {
        return fail(start, pos_ - start,
                    fmt::format("the product '{}' of a function of time and an unknown is not "
                                "supported (a gain that varies in time)",
                                text(start)));
      } else if (divide && right->is_number()) {
        if (right->constant == 0) return fail(start, pos_ - start, "division by zero");
        left = scaled(*left, 1.0 / right->constant);
      } else if (divide) {  // both functions of time
        left = timed([f = value_of(*left), g = value_of(*right)](double t) { return f(t) / g(t); });
      } else if (left->is_number()) {
        left = scaled(*right, left->constant);
      } else if (right->is_number()) {
        left = scaled(*left, right->constant);
      } else if (left->is_constant() && right->is_constant()) {
        left = timed([f = value_of(*left), g = value_of(*right)](double t) { return f(t) * g(t); });
      } else {
        return fail(start, pos_ - start,
                    fmt::format("the product '{}' of two unknowns ('{}' and '{}') is not "
                                "supported: only affine expressions of node voltages and branch "
                                "currents are",
                                text(start), std::string(s_.substr(start, left_end - start)),
                                text(left_end + 1)));
      }
    }
    return left;
  }

  std::optional<AffineExpr> unary(int depth) {
    if (eat('-')) {
      const std::size_t start = pos_;
      auto v = unary(depth + 1);
      if (v) v = built(std::move(*v), start);
      return v ? std::optional<AffineExpr>(scaled(*v, -1)) : v;
    }
    if (eat('+')) return unary(depth + 1);
    skip();
    const std::size_t start = pos_;
    if (next_is("!")) {
      ++pos_;
      auto v = unary(depth + 1);
      if (v) v = built(std::move(*v), start);
      if (!v) return v;
      if (!is_condition(*v))
        return fail(start, pos_ - start,
                    fmt::format("'{}': '!' applies to a condition (a comparison)", text(start)));
      if (v->is_number()) return number(v->constant == 0 ? 1.0 : 0.0, true);
      AffineExpr out = sum(number(1), *v, -1);
      out.boolean = true;
      return out;
    }
    auto base = primary(depth);
    if (!base) return base;
    skip();
    const bool power = eat('^') || (s_.substr(pos_, 2) == "**" && (pos_ += 2, true));
    if (!power) return base;
    auto exponent = unary(depth + 1);
    if (!exponent) return exponent;
    if (!base->is_constant() || !exponent->is_constant())
      return fail(start, pos_ - start,
                  fmt::format("the power '{}' of an unknown is not supported: only affine "
                              "expressions of node voltages and branch currents are",
                              text(start)));
    if (base->time || exponent->time)
      return timed([f = value_of(*base), g = value_of(*exponent)](double t) {
        return std::pow(f(t), g(t));
      });
    AffineExpr out;
    out.constant = std::pow(base->constant, exponent->constant);
    return out;
  }

  static bool is_piecewise_linear(const std::string& f, std::size_t n) {
    return ((f == "min" || f == "max") && n >= 2) || (f == "limit" && n == 3) ||
           ((f == "abs" || f == "uramp" || f == "u" || f == "step" || f == "sgn") && n == 1);
  }
  // r(u) = max(0, u) or s(u) = step(u) as a node of its own.
  std::optional<AffineExpr> kink(const AffineExpr& u, bool step) {
    if (!kink_) return std::nullopt;
    auto node = kink_(u, step);
    if (!node) return std::nullopt;
    AffineExpr out;
    out.voltages[*node] = 1;
    out.boolean = step;
    return out;
  }
  std::optional<AffineExpr> piecewise(const std::string& f, const std::vector<AffineExpr>& x) {
    if (f == "u" || f == "step") return kink(x[0], true);
    if (f == "uramp") return kink(x[0], false);
    if (f == "sgn") {  // 2·step(x) − 1: the relay from −1 to 1 (at x = 0 anywhere between)
      auto r = kink(x[0], true);
      if (!r) return r;
      AffineExpr minus_one;
      minus_one.constant = -1;
      return sum(scaled(*r, 2), minus_one, 1);
    }
    if (f == "abs") {
      auto r = kink(x[0], false);
      return r ? std::optional<AffineExpr>(sum(scaled(*r, 2), x[0], -1)) : r;
    }
    if (f == "max" || f == "min") {  // max(a, b, c) = max(max(a, b), c): a kink per argument
      AffineExpr acc = x[0];
      for (std::size_t k = 1; k < x.size(); ++k) {
        auto r = kink(sum(acc, x[k], -1), false);
        if (!r) return r;
        acc = f == "max" ? sum(x[k], *r, 1) : sum(acc, *r, -1);
      }
      return acc;
    }
    // limit(x, a, b): x clamped between a and b, in either order (LTspice, PSpice). Numeric
    // bounds: lo + r(x − lo) − r(x − hi) with lo ≤ hi. Bounds that are unknowns: the median
    // max(min(x, a), min(max(x, a), b)), whatever their order.
    if (x[1].is_number() && x[2].is_number()) {
      const bool swap = x[1].constant > x[2].constant;
      const AffineExpr& lo = swap ? x[2] : x[1];
      const AffineExpr& hi = swap ? x[1] : x[2];
      auto low = kink(sum(x[0], lo, -1), false);
      auto high = low ? kink(sum(x[0], hi, -1), false) : low;
      if (!high) return high;
      return sum(sum(lo, *low, 1), *high, -1);
    }
    auto r1 = kink(sum(x[0], x[1], -1), false);  // r(x − a)
    if (!r1) return r1;
    const AffineExpr lower = sum(x[0], *r1, -1);  // min(x, a) = x − r(x − a)
    const AffineExpr upper = sum(x[1], *r1, 1);   // max(x, a) = a + r(x − a)
    auto r2 = kink(sum(upper, x[2], -1), false);  // min(max(x, a), b) = max(x, a) − r(· − b)
    if (!r2) return r2;
    const AffineExpr mid = sum(upper, *r2, -1);
    auto r3 = kink(sum(lower, mid, -1), false);  // max(lower, mid) = mid + r(lower − mid)
    if (!r3) return r3;
    return sum(mid, *r3, 1);
  }

  // table(x, x_1, y_1, ...) and pwl(x, ...) of an unknown x, over ramps r(x − x_i)
  // (behavioural.hpp states the sums).
  std::optional<AffineExpr> table(const std::string& f, const std::vector<AffineExpr>& a,
                                  std::size_t start) {
    if (a.size() < 3 || a.size() % 2 == 0)
      return fail(start, pos_ - start,
                  fmt::format("'{}' needs a variable and pairs of numbers x, y", f));
    for (std::size_t k = 1; k < a.size(); ++k)
      if (!a[k].is_number())
        return fail(
            start, pos_ - start,
            fmt::format("the points of '{}' must be numbers (argument {} is not)", f, k + 1));
    const std::size_t n = (a.size() - 1) / 2;
    std::vector<double> x(n), y(n), slope(n + 1, 0.0);  // slope[i]: after point i−1
    for (std::size_t k = 0; k < n; ++k) {
      x[k] = a[2 * k + 1].constant;
      y[k] = a[2 * k + 2].constant;
      if (k > 0 && !(x[k] > x[k - 1]))
        return fail(start, pos_ - start,
                    fmt::format("the x values of '{}' must increase ({:g} after {:g}); a vertical "
                                "step is a discontinuity, write it with a comparison",
                                f, x[k], x[k - 1]));
      if (k > 0) slope[k] = (y[k] - y[k - 1]) / (x[k] - x[k - 1]);
    }
    const bool clamp = f == "table";
    if (!clamp && n > 1) slope[0] = slope[1], slope[n] = slope[n - 1];
    AffineExpr out = number(y[0]);
    if (!clamp && n > 1) out = sum(out, scaled(sum(a[0], number(x[0]), -1), slope[0]), 1);
    for (std::size_t k = 0; k < n; ++k) {
      const double c = slope[k + 1] - slope[k];
      if (c == 0) continue;
      auto r = kink(sum(a[0], number(x[k]), -1), false);
      if (!r) return fail(start, pos_ - start, fmt::format("'{}' cannot be built", text(start)));
      out = sum(out, scaled(*r, c), 1);
    }
    return out;
  }

  std::optional<std::string> name_arg() {
    skip();
    const std::size_t from = pos_;
    // Parentheses inside a name are part of it, balanced (KiCad's "Net-(R1-Pad2)").
    int depth = 0;
    while (pos_ < s_.size() && s_[pos_] != ' ' &&
           (depth > 0 || (s_[pos_] != ',' && s_[pos_] != ')'))) {
      if (s_[pos_] == '(') ++depth;
      if (s_[pos_] == ')') --depth;
      ++pos_;
    }
    if (pos_ == from) {
      fail(from, 1, "expected a name");
      return std::nullopt;
    }
    return lower(s_.substr(from, pos_ - from));
  }

  std::optional<AffineExpr> primary(int depth) {
    skip();
    if (pos_ >= s_.size()) return fail(pos_, 1, "the expression ends too early");
    const std::size_t start = pos_;
    const char open = s_[pos_];
    if (eat('(') || eat('{')) {  // PSpice nests braces: "{VTH}" inside an expression
      auto v = expr(depth + 1, true);
      if (!v) return v;
      if (open == '(' ? !eat(')') : !eat('}'))
        return fail(
            start, 1,
            open == '(' ? "missing ')' to close this '('" : "missing '}' to close this '{'");
      // A comparison stays pending only as a whole group: "(c)" before ',', ')', '?' or the end.
      skip();
      if (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != ')' && s_[pos_] != '}' &&
          s_[pos_] != '?')
        return built(std::move(*v), start);
      return v;
    }
    if (is_digit(s_[pos_]) || s_[pos_] == '.') {
      while (pos_ < s_.size() &&
             (is_digit(s_[pos_]) || s_[pos_] == '.' || is_alpha(s_[pos_]) ||
              ((s_[pos_] == '+' || s_[pos_] == '-') && lower(s_[pos_ - 1]) == 'e' &&
               pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]) && is_digit(s_[start]))))
        ++pos_;
      const auto v = netlist::parse_spice_number(s_.substr(start, pos_ - start));
      if (!v) return fail(start, pos_ - start, fmt::format("bad number '{}'", text(start)));
      AffineExpr out;
      out.constant = *v;
      return out;
    }
    if (!is_alpha(s_[pos_]))
      return fail(pos_, 1, fmt::format("unexpected '{}' in the expression", s_[pos_]));
    while (pos_ < s_.size() && (is_alpha(s_[pos_]) || is_digit(s_[pos_]))) ++pos_;
    const std::string name = lower(s_.substr(start, pos_ - start));
    skip();
    const bool call = pos_ < s_.size() && s_[pos_] == '(';
    if (!call) {
      AffineExpr out;
      if (name == "pi") {
        out.constant = 3.14159265358979323846;
        return out;
      }
      if (name == "time") return timed([](double t) { return t; });
      if (bindings_ != nullptr) {
        if (auto it = bindings_->params.find(name); it != bindings_->params.end())
          return number(it->second);
      }
      if (name == "e") return number(2.71828182845904523536);
      return fail(start, name.size(),
                  fmt::format("unknown name '{}' in the expression: not a parameter visible "
                              "here, nor time or pi (a node voltage is v({}))",
                              name, name));
    }
    ++pos_;
    if (name == "v" || name == "i") {
      auto a = name_arg();
      if (!a) return std::nullopt;
      std::optional<std::string> b;
      if (name == "v" && eat(',')) {
        b = name_arg();
        if (!b) return std::nullopt;
      }
      if (!eat(')')) return fail(start, pos_ - start, "missing ')' after the name");
      if (bindings_ != nullptr) {
        const auto& names = name == "i" ? bindings_->elements : bindings_->nodes;
        if (auto it = names.find(*a); it != names.end()) a = it->second;
        if (b)
          if (auto it = names.find(*b); it != names.end()) b = it->second;
      }
      AffineExpr out;
      if (name == "i") {
        out.currents[*a] = 1;
        return out;
      }
      if (*a != "0" && *a != "gnd") out.voltages[*a] += 1;
      if (b && *b != "0" && *b != "gnd") out.voltages[*b] -= 1;
      return out;
    }
    std::vector<AffineExpr> exprs;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    do {
      const std::size_t arg_start = pos_;
      auto v = expr(depth + 1, name == "if" && exprs.empty());  // if()'s condition: pending
      if (!v) return v;
      exprs.push_back(std::move(*v));
      spans.emplace_back(arg_start, pos_);
    } while (eat(','));
    if (!eat(')'))
      return fail(start, pos_ - start, fmt::format("missing ')' in the call of '{}'", name));
    if (name == "if" && exprs.size() == 3) return choose(exprs[0], exprs[1], exprs[2], start);
    if (std::find(kFunctionNames.begin(), kFunctionNames.end(), name) == kFunctionNames.end())
      return fail(start, name.size(),
                  fmt::format("unknown function '{}'{}", name,
                              netlist::did_you_mean(name, kFunctionNames)));
    if (auto made = built(std::move(exprs[0]), spans[0].first))
      exprs[0] = std::move(*made);
    else
      return made;
    bool all_constant = true;
    std::size_t first_unknown = 0, first_unknown_end = 0;
    for (std::size_t k = 0; k < exprs.size() && all_constant; ++k)
      if (!exprs[k].is_constant())
        std::tie(all_constant, first_unknown, first_unknown_end) =
            std::tuple{false, spans[k].first, spans[k].second};
    if (!all_constant && (name == "table" || name == "pwl") && kink_)
      return table(name, exprs, start);
    if (!all_constant) {
      if (kink_ && is_piecewise_linear(name, exprs.size())) {
        auto v = piecewise(name, exprs);
        if (!v) return fail(start, pos_ - start, fmt::format("'{}' cannot be built", text(start)));
        return v;
      }
      std::string arg(s_.substr(first_unknown, first_unknown_end - first_unknown));
      while (!arg.empty() && arg.front() == ' ') arg.erase(0, 1);
      return fail(
          start, pos_ - start,
          fmt::format("'{}' of an unknown ('{}') is not supported: only affine "
                      "expressions of node voltages and branch currents{} are",
                      name, arg, kink_ ? " and min, max, abs, limit, uramp, u, step of them" : ""));
    }
    std::vector<double> args;
    bool of_time = false;
    for (const auto& v : exprs) {
      args.push_back(v.constant + (v.time ? v.time(0.0) : 0.0));
      of_time = of_time || static_cast<bool>(v.time);
    }
    bool known = false;
    AffineExpr out;
    out.constant = constant_function(name, args, known);
    if (!known) return fail(start, name.size(), fmt::format("unknown function '{}'", name));
    if (of_time && (name == "u" || name == "step" || (name == "if" && exprs[0].time)))
      return fail(start, pos_ - start,
                  fmt::format("'{}': a step in time has no breakpoint here; write it as a PULSE "
                              "or PWL source, whose corners the time stepping lands on",
                              text(start)));
    if (of_time) {
      std::vector<std::function<double(double)>> fs;
      for (const auto& v : exprs) fs.push_back(value_of(v));
      return timed([name, fs](double t) {
        std::vector<double> x;
        for (const auto& f : fs) x.push_back(f(t));
        bool ok = false;
        return constant_function(name, x, ok);
      });
    }
    if (!std::isfinite(out.constant))
      return fail(start, pos_ - start, fmt::format("'{}' is not a finite number", text(start)));
    return out;
  }
};

}  // namespace

std::optional<AffineExpr> parse_affine(std::string_view text, AffineError& error,
                                       const KinkMaker& kink,
                                       const netlist::ExprBindings* bindings) {
  auto a = Parser(text, error, kink, bindings).run();
  if (a) {  // terms that cancel (v(a) − v(a)) are no terms
    std::erase_if(a->voltages, [](const auto& t) { return t.second == 0; });
    std::erase_if(a->currents, [](const auto& t) { return t.second == 0; });
  }
  return a;
}

}  // namespace nsspice::circuit::detail
