// Measurement expressions (signal_expr.hpp): recursive descent into postfix code.
#include "app/measure/signal_expr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "netlist/units.hpp"

namespace nsspice::app {
namespace {

constexpr int kMaxDepth = 64;  // nesting, and the evaluation stack

struct Func1 {
  const char* name;
  double (*f)(double);
};
struct Func2 {
  const char* name;
  double (*f)(double, double);
};
constexpr Func1 kFunc1[] = {{"abs", [](double x) { return std::abs(x); }},
                            {"sqrt", [](double x) { return std::sqrt(x); }},
                            {"exp", [](double x) { return std::exp(x); }},
                            {"log", [](double x) { return std::log(x); }},
                            {"ln", [](double x) { return std::log(x); }},
                            {"log10", [](double x) { return std::log10(x); }}};
constexpr Func2 kFunc2[] = {{"min", [](double a, double b) { return std::min(a, b); }},
                            {"max", [](double a, double b) { return std::max(a, b); }},
                            {"pow", [](double a, double b) { return std::pow(a, b); }}};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '$' ||
         c == '#' || c == ':';
}

// The end of the balanced parentheses opening at `open` (text[open] == '('), or npos.
size_t closing(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t k = open; k < text.size(); ++k) {
    if (text[k] == '(') ++depth;
    if (text[k] == ')' && --depth == 0) return k;
  }
  return std::string_view::npos;
}

std::string normalized(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isspace(static_cast<unsigned char>(c)) == 0)
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace

class SignalExprParser {
 public:
  SignalExprParser(std::string_view text, const SignalExpr::Resolver& resolve, SignalExpr& out,
                   std::string& error)
      : t_(text), resolve_(resolve), out_(out), error_(error) {}

  bool run() {
    if (!expr(0)) return false;
    skip();
    if (p_ != t_.size()) return fail(fmt::format("unexpected '{}'", t_.substr(p_)));
    return true;
  }

 private:
  std::string_view t_;
  const SignalExpr::Resolver& resolve_;
  SignalExpr& out_;
  std::string& error_;
  size_t p_ = 0;
  int stack_ = 0;

  bool fail(const std::string& why) {
    if (error_.empty()) error_ = fmt::format("in '{}': {}", t_, why);
    return false;
  }
  void skip() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_])) != 0) ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void emit(SignalExpr::Op op, int pops, int pushes = 1) {
    out_.code_.push_back({op});
    stack_ += pushes - pops;
    out_.depth_ = std::max(out_.depth_, stack_);
  }
  bool expr(int depth) {
    if (depth > kMaxDepth) return fail("nested too deeply");
    if (!term(depth)) return false;
    for (;;) {
      if (eat('+')) {
        if (!term(depth)) return false;
        emit(SignalExpr::Op::kAdd, 2);
      } else if (eat('-')) {
        if (!term(depth)) return false;
        emit(SignalExpr::Op::kSub, 2);
      } else {
        return true;
      }
    }
  }
  bool term(int depth) {
    if (!unary(depth)) return false;
    for (;;) {
      skip();
      if (t_.substr(p_).starts_with("**")) return true;  // a power, read by power()
      if (eat('*')) {
        if (!unary(depth)) return false;
        emit(SignalExpr::Op::kMul, 2);
      } else if (eat('/')) {
        if (!unary(depth)) return false;
        emit(SignalExpr::Op::kDiv, 2);
      } else {
        return true;
      }
    }
  }
  bool unary(int depth) {
    if (depth > kMaxDepth) return fail("nested too deeply");
    if (eat('-')) {
      if (!unary(depth + 1)) return false;
      emit(SignalExpr::Op::kNeg, 1);
      return true;
    }
    if (eat('+')) return unary(depth + 1);
    return power(depth);
  }
  bool power(int depth) {
    if (!primary(depth)) return false;
    skip();
    if (t_.substr(p_).starts_with("**")) {
      p_ += 2;
    } else if (!eat('^')) {
      return true;
    }
    if (!unary(depth + 1)) return false;
    emit(SignalExpr::Op::kPow, 2);
    return true;
  }
  bool primary(int depth) {
    skip();
    if (p_ >= t_.size()) return fail("expected a value at the end");
    const char c = t_[p_];
    if (c == '(') {
      ++p_;
      if (!expr(depth + 1)) return false;
      if (!eat(')')) return fail("expected ')'");
      return true;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.') {
      size_t e = p_;
      while (e < t_.size() &&
             (std::isalnum(static_cast<unsigned char>(t_[e])) != 0 || t_[e] == '.' ||
              ((t_[e] == '+' || t_[e] == '-') && e > p_ && (t_[e - 1] == 'e' || t_[e - 1] == 'E') &&
               std::isdigit(static_cast<unsigned char>(t_[e - 2])) != 0)))
        ++e;
      const std::string_view word = t_.substr(p_, e - p_);
      const auto v = netlist::parse_spice_number(word);
      if (!v) return fail(fmt::format("'{}' is not a number", word));
      out_.code_.push_back({SignalExpr::Op::kNumber, *v});
      stack_ += 1;
      out_.depth_ = std::max(out_.depth_, stack_);
      p_ = e;
      return true;
    }
    if (!ident_start(c)) return fail(fmt::format("unexpected '{}'", t_.substr(p_)));
    size_t e = p_;
    while (e < t_.size() && ident_char(t_[e])) ++e;
    const std::string name = normalized(t_.substr(p_, e - p_));
    size_t q = e;
    while (q < t_.size() && std::isspace(static_cast<unsigned char>(t_[q])) != 0) ++q;
    if (q < t_.size() && t_[q] == '(') {
      for (size_t k = 0; k < std::size(kFunc1); ++k)
        if (name == kFunc1[k].name) return call(depth, q, 1, static_cast<int>(k));
      for (size_t k = 0; k < std::size(kFunc2); ++k)
        if (name == kFunc2[k].name) return call(depth, q, 2, static_cast<int>(k));
      const size_t end = closing(t_, q);
      if (end == std::string_view::npos) return fail("unbalanced parentheses");
      p_ = end + 1;
      return slot(name + normalized(t_.substr(q, end + 1 - q)));
    }
    p_ = e;
    return slot(name);
  }
  bool call(int depth, size_t open, int arity, int func) {
    p_ = open + 1;
    for (int a = 0; a < arity; ++a) {
      if (a > 0 && !eat(',')) return fail(fmt::format("expected {} arguments", arity));
      if (!expr(depth + 1)) return false;
    }
    if (!eat(')')) return fail("expected ')'");
    out_.code_.push_back({arity == 1 ? SignalExpr::Op::kFunc1 : SignalExpr::Op::kFunc2});
    out_.code_.back().func = func;
    stack_ -= arity - 1;
    return true;
  }
  bool slot(const std::string& ref) {
    std::string why;
    const auto s = resolve_(ref, why);
    if (!s) return fail(why.empty() ? fmt::format("unknown name '{}'", ref) : why);
    out_.code_.push_back({SignalExpr::Op::kSlot, 0, *s});
    if (std::find(out_.slots_.begin(), out_.slots_.end(), *s) == out_.slots_.end())
      out_.slots_.push_back(*s);
    stack_ += 1;
    out_.depth_ = std::max(out_.depth_, stack_);
    return true;
  }
};

std::optional<SignalExpr> SignalExpr::compile(std::string_view text, const Resolver& resolve,
                                              std::string& error) {
  SignalExpr out;
  SignalExprParser parser(text, resolve, out, error);
  if (!parser.run()) return std::nullopt;
  if (out.depth_ > kMaxDepth) {
    error = fmt::format("in '{}': nested too deeply", text);
    return std::nullopt;
  }
  return out;
}

double SignalExpr::eval(std::span<const double> slots) const {
  double stack[kMaxDepth + 1];
  int top = 0;
  for (const Instr& in : code_) {
    switch (in.op) {
      case Op::kNumber:
        stack[top++] = in.value;
        break;
      case Op::kSlot:
        stack[top++] = slots[in.slot];
        break;
      case Op::kNeg:
        stack[top - 1] = -stack[top - 1];
        break;
      case Op::kFunc1:
        stack[top - 1] = kFunc1[in.func].f(stack[top - 1]);
        break;
      default: {
        const double b = stack[--top], a = stack[top - 1];
        double r = 0;
        if (in.op == Op::kAdd) r = a + b;
        if (in.op == Op::kSub) r = a - b;
        if (in.op == Op::kMul) r = a * b;
        if (in.op == Op::kDiv) r = a / b;
        if (in.op == Op::kPow) r = std::pow(a, b);
        if (in.op == Op::kFunc2) r = kFunc2[in.func].f(a, b);
        stack[top - 1] = r;
      }
    }
  }
  return top == 1 ? stack[0] : std::nan("");
}

}  // namespace nsspice::app
