// Internal: arithmetic expressions of .param values, {...} and '...'.
//
//   ternary := or [ '?' ternary ':' ternary ]                   (the branch not taken: see below)
//   or      := and { '||' and }           and := cmp { '&&' cmp }     (1 or 0; ≠ 0 is true)
//   cmp     := expr [ ('==' | '!=' | '<=' | '>=' | '<' | '>') expr ]
//   expr    := term { ('+' | '-') term }
//   term    := unary { ('*' | '/') unary }
//   unary   := ('-' | '+') unary | power
//   power   := primary [ ('^' | '**') unary ]          (right associative; -2^2 = -4, as ngspice)
//   primary := number | name '(' [ternary {',' ternary}] ')' | name | '(' ternary ')'
//   number  := SPICE number with suffix and unit letters ("1meg", "10uF", "2.5e-3")
//   name    := (letter | '_') { letter | digit | '_' }    case-insensitive
// Functions: sqrt exp log(=ln) log10 sin cos tan asin acos atan sinh cosh tanh abs sgn floor
// ceil int (1 argument); min max pow pwr (2 arguments; pwr(x,y) = sign(x)*|x|^y).
// Distributions (Monte Carlo; with r a draw from ExpressionHooks::draw, 0 without one, so a
// run without draws sees the nominal values):
//   agauss(nom, avar, sigma) = nom + avar/sigma·n    gauss(nom, rvar, sigma) = nom·(1 +
//   rvar/sigma·n) aunif(nom, avar) = nom + avar·u                  unif(nom, rvar) = mc(nom, rvar)
//   = nom·(1 + rvar·u) gauss(x) = x·n, flat(x) = x·u  (LTspice)         n standard normal, u
//   uniform in [−1, 1]
// Constants pi and e (a parameter of the same name takes precedence). In c ? a : b the branch
// not taken is read without its value errors (division by zero, a non-finite function value)
// and without draws.
// Nesting is limited to kMaxExpressionDepth levels. A non-finite result (division by zero,
// sqrt of a negative number, ...) is an error. An expression evaluated for a parameter that
// another expression refers to continues the referring one's depth (one more level per
// reference): the total, along a whole chain of parameters, is limited to
// kMaxTotalExpressionDepth, so that nesting in each of 256 chained parameters cannot exhaust
// the stack.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsspice::netlist::detail {

inline constexpr int kMaxExpressionDepth = 64;
inline constexpr int kMaxTotalExpressionDepth = 1024;

struct ExpressionHooks {
  // Value of a parameter (lower-case name) referenced at byte `offset` of the text, at
  // nesting depth `depth` (counted from the outermost expression); returns nullopt after
  // reporting the problem itself (undefined, circular, ...), or when the parameter already
  // failed (nothing more to report).
  std::function<std::optional<double>(const std::string& name, std::size_t offset, int depth)>
      lookup;
  // Reports a problem at [offset, offset + length) of the text.
  std::function<void(std::size_t offset, std::size_t length, std::string message)> error;
  int depth = 0;  // nesting depth at which this expression starts (see above)
  // A standard normal draw (true) or a uniform one in [−1, 1] (false), one per call of a
  // distribution function; empty: the distributions give their nominal value.
  std::function<double(bool normal)> draw;
  // Told, without a draw, that the distribution at [offset, offset + length) gave its nominal
  // value `value` (so that the caller can say so); may be empty.
  std::function<void(std::size_t offset, std::size_t length, double value)> nominal;
};

// Evaluates `text`; on the first problem reports it (through hooks) and returns nullopt.
std::optional<double> evaluate_expression(std::string_view text, const ExpressionHooks& hooks);

// Names of the functions, for "did you mean".
const std::vector<std::string>& expression_functions();

}  // namespace nsspice::netlist::detail
