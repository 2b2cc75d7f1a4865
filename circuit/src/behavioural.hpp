#pragma once
// Behavioural sources reduced to linear ones: B name n+ n- V=expr | I=expr, E/G name n+ n-
// VALUE={expr}.
//
//   expr = c + Σ a_k v(n_k) + Σ b_j i(V_j)     (affine in node voltages and source currents)
//
// is stamped exactly, by elements named after the source (elaborate_elements.cpp):
//   V=expr: n+ ── E "b1" (a_1 v(n_1)) ── b1.n1 ── E "b1.t2" ── ... ── H (b_j i(V_j)) ── V "b1.c"
//   (c) ── n−
//           (a series chain: the voltages add; i(b1) is the current of the chain)
//   I=expr: n+ ── V "b1" (0 V: i(b1) is the total) ── b1.s ═ G "b1.t1" ∥ F ... ∥ I "b1.c" (c) ═ n−
// Functions of `time` (any of the functions below, of expressions without unknowns) become the
// waveform of the source's constant part (TimeFunction); a step of time is refused (write a
// PULSE or PWL source, whose corners are breakpoints), as is a time function times an unknown.
// Piecewise-linear functions of unknowns (min max abs limit uramp u step, comparisons, if and
// c ? a : b between branches that differ by a constant, table and pwl of one variable) go
// through kinks, one complementarity pair each (an ideal diode, or a relay for a step):
// parse_affine below. A product or quotient of unknowns, another function of an unknown, or an
// unknown name is an error naming the term. Names resolve through netlist::ExprBindings:
// .param values, and the flat names of nodes and elements inside a subcircuit instance.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "netlist/ast.hpp"

namespace nsspice::circuit::detail {

struct AffineExpr {
  double constant = 0;
  std::function<double(double)> time;      // + time(t) when set: the part that depends on time
  std::map<std::string, double> voltages;  // node name (lower case, not ground) → a_k
  std::map<std::string, double> currents;  // voltage source name (lower case) → b_j
  bool boolean = false;  // takes only the values 0 and 1 (a comparison, a relay's output)
  std::shared_ptr<const AffineExpr> step_of;  // a comparison's step s(u): its argument u
  bool pending = false;  // (parser-internal) a comparison whose step is not built yet
  bool is_constant() const { return voltages.empty() && currents.empty(); }  // no unknowns
  bool is_number() const { return is_constant() && !time; }
};

struct AffineError {
  std::size_t offset = 0, length = 1;  // within the expression text
  std::string message;
};

// A kink of a piecewise-linear function: the name of a node whose voltage is max(0, u) (ramp)
// or the unit step of u (step), made by the caller; nullopt to refuse (the caller reports).
using KinkMaker = std::function<std::optional<std::string>(const AffineExpr& u, bool step)>;

// Parses `text` (the grammar of netlist/src/expression.hpp plus v(a), v(a,b), i(x)); on the
// first problem fills `error` and returns nullopt. With `kink`, the piecewise-linear functions
// of unknowns are rewritten over kinks r(u) = max(0, u), s(u) = step(u):
//   max(a, b) = b + r(a − b)      min(a, b) = a − r(a − b)      abs(x) = 2 r(x) − x
//   uramp(x) = r(x)               limit(x, lo, hi) = lo + r(x − lo) − r(x − hi)   (lo ≤ hi)
//   u(x) = step(x) = s(x)
//   a > b, a >= b = s(a − b)       a < b, a <= b = s(b − a)       (== and != of unknowns: error)
//   c && d = min(c, d)   c || d = max(c, d)   !c = 1 − c          (c, d conditions: 0 or 1;
//                                                                 LTspice's & | likewise)
//   if(c, a, b) = c ? a : b = b + (a − b)·c                      (a − b a constant)
//                           = b + k·r(u)       (c = s(u) one comparison, a − b = k·u: a ramp,
//                                               e.g. if(x > 0, g·x, 0) = g·max(0, x))
//   table(x, x_1, y_1, ..., x_n, y_n): linear between the points, y_1 below x_1 and y_n above
//     x_n (LTspice): y_1 + Σ_i (s_i − s_{i−1}) r(x − x_i), s_i the slope after x_i, s_0 = s_n = 0
//   pwl(x, ...): the same, the end segments extended (ngspice): y_1 + s_1 (x − x_1)
//     + Σ_{1<i<n} (s_i − s_{i−1}) r(x − x_i)
// `bindings` (from flatten) gives the values of parameters and the flat names of nodes and
// elements; null: names as written, no parameters.
std::optional<AffineExpr> parse_affine(std::string_view text, AffineError& error,
                                       const KinkMaker& kink = {},
                                       const netlist::ExprBindings* bindings = nullptr);

}  // namespace nsspice::circuit::detail
