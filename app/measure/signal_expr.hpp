#pragma once
// Arithmetic of named values for measurements: the measured quantity of `avg V(out)*I(Rload)`
// (LTspice's power measurement; names are signals, evaluated at every point) and the expression
// of `param Pout/Pin` (names are the measurements before it, evaluated once).
//
//   expr    := term { ('+' | '-') term }
//   term    := unary { ('*' | '/') unary }
//   unary   := ('-' | '+') unary | power
//   power   := primary [ ('^' | '**') unary ]
//   primary := number | func '(' expr { ',' expr } ')' | ref | '(' expr ')'
//   ref     := letter '(' ... ')' (a signal: v(out), i(rload), v(a,b), v(net-(d1-a)); its
//              parentheses balanced) | name
//   func    := abs sqrt exp log (= ln) log10 (one argument), min max pow (two)
//
// Numbers take SPICE suffixes (netlist/units.hpp). Compiled once into postfix code over slots
// (what `resolve` returns for each ref); eval() is then a loop over it, no parsing per point.
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nsspice::app {

class SignalExpr {
 public:
  // The slot of a reference (lower case, blanks removed), or nullopt after setting `error`.
  using Resolver = std::function<std::optional<size_t>(const std::string& ref, std::string& error)>;

  static std::optional<SignalExpr> compile(std::string_view text, const Resolver& resolve,
                                           std::string& error);
  double eval(std::span<const double> slots) const;
  // The slots it reads, each once.
  const std::vector<size_t>& slots() const { return slots_; }

 private:
  enum class Op { kNumber, kSlot, kAdd, kSub, kMul, kDiv, kPow, kNeg, kFunc1, kFunc2 };
  struct Instr {
    Op op;
    double value = 0;  // kNumber
    size_t slot = 0;   // kSlot
    int func = 0;      // kFunc1/kFunc2: index in the function tables
  };
  std::vector<Instr> code_;
  std::vector<size_t> slots_;
  int depth_ = 0;  // the stack's largest depth

  friend class SignalExprParser;
};

}  // namespace nsspice::app
